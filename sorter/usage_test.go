package sorter_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
	"github.com/allot-go/allot/sorter/sortertest"
)

// testClock is a clock the tests move by hand.
type testClock struct{ t time.Time }

func newTestClock() *testClock { return &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time          { return c.t }
func (c *testClock) Advance(d time.Duration) { c.t = c.t.Add(d) }
func (c *testClock) factory(h time.Duration) sorter.Factory {
	f, err := sorter.UsageFactory(sorter.UsageOptions{HalfLife: h, Clock: c.Now})
	if err != nil {
		panic(err)
	}
	return f
}

func TestUsageConformance(t *testing.T) {
	clock := newTestClock()
	sortertest.Run(t, clock.factory(time.Minute))
	t.Run("NoHistory", func(t *testing.T) { sortertest.Run(t, clock.factory(0)) })
}

func TestUsageOptions(t *testing.T) {
	_, err := sorter.NewUsage(sorter.Config{}, sorter.UsageOptions{HalfLife: time.Minute})
	require.ErrorIs(t, err, sorter.ErrInvalidUsageOptions)
	require.ErrorContains(t, err, "no clock")
	_, err = sorter.UsageFactory(sorter.UsageOptions{HalfLife: -time.Second, Clock: newTestClock().Now})
	require.ErrorIs(t, err, sorter.ErrInvalidUsageOptions)
	require.ErrorContains(t, err, "half-life -1s is negative")
}

func newUsage(t *testing.T, clock *testClock, h time.Duration, clients ...string) *sorter.Usage {
	t.Helper()
	u, err := sorter.NewUsage(sorter.Config{}, sorter.UsageOptions{HalfLife: h, Clock: clock.Now})
	require.NoError(t, err)
	u.AddAgent("s1", resources.MustParseQuantities("cpus:10;mem:100"))
	for _, c := range clients {
		require.NoError(t, u.Add(c))
		require.NoError(t, u.Activate(c))
	}
	return u
}

func cpus(n float64) resources.Resources {
	return resources.MustParse(fmt.Sprintf("cpus:%g", n), "")
}

// The record is an exponentially weighted average of the share over time:
// half of cpus:10 held for one half-life is a record of 0.25, for two
// 0.375; given back, it halves every half-life.
func TestUsageRecordDecays(t *testing.T) {
	clock := newTestClock()
	u := newUsage(t, clock, time.Minute, "a")
	require.NoError(t, u.Allocated("a", "s1", cpus(5)))
	for _, want := range []float64{0, 0.25, 0.375, 0.4375} {
		h, x, ok := u.Record("a")
		require.True(t, ok)
		require.Equal(t, want, h)
		require.Equal(t, 0.5, x)
		require.Equal(t, want+0.5, u.ShareOf("a"))
		clock.Advance(time.Minute)
	}
	require.NoError(t, u.Unallocated("a", "s1", cpus(5)))
	clock.Advance(time.Minute)
	h, x, _ := u.Record("a")
	require.InDelta(t, (0.5-0.5/16)/2, h, 1e-15) // 0.46875 halved
	require.Equal(t, 0.0, x)
	require.Equal(t, "pool cpus:10; mem:100\na history=0.234375 share=0 weight=1 key=0.234375 count=1\n", u.Describe())
}

// A tenant back from idling is served before one that has worked all
// along, until its record plus what it holds catches up; DRF would stop at
// equal holdings.
func TestUsageFavoursTheIdle(t *testing.T) {
	clock := newTestClock()
	u := newUsage(t, clock, time.Minute, "bursty", "steady")
	require.NoError(t, u.Allocated("steady", "s1", cpus(4)))
	clock.Advance(10 * time.Minute) // steady's record: 0.4 less 0.4/1024
	hs, _, _ := u.Record("steady")
	require.InDelta(t, 0.4*(1-1.0/1024), hs, 1e-15)
	served := 0
	for slices.Equal(u.Sort(), []string{"bursty", "steady"}) {
		require.NoError(t, u.Allocated("bursty", "s1", cpus(1)))
		served++
	}
	// bursty holds 0.8 (key 0.8) when it passes steady (0.4 + 0.39961):
	// twice what DRF would give it before turning to steady.
	require.Equal(t, 8, served)
	require.Equal(t, []string{"steady", "bursty"}, u.Sort())
	// Time passes: bursty's record grows towards 0.8, steady's stays.
	clock.Advance(time.Minute)
	hb, xb, _ := u.Record("bursty")
	require.Equal(t, 0.4, hb)
	require.Equal(t, 0.8, xb)
}

// With a zero half-life the key is twice the share over the weight: the
// DRF order, bit for bit, on any sequence of flat clients.
func TestUsageWithoutHistoryIsDRF(t *testing.T) {
	for seed := range uint64(20) {
		clock := newTestClock()
		u := newUsage(t, clock, 0)
		d := sorter.NewDRF(sorter.Config{})
		d.AddAgent("s1", resources.MustParseQuantities("cpus:10;mem:100"))
		rng := rand.New(rand.NewPCG(seed, 1))
		clients := []string{"a", "b", "c", "d"}
		for _, c := range clients {
			require.NoError(t, errors.Join(u.Add(c), d.Add(c), u.Activate(c), d.Activate(c)))
		}
		held := map[string][]resources.Resources{}
		for step := range 300 {
			c := clients[rng.IntN(len(clients))]
			switch op := rng.IntN(10); {
			case op < 5:
				r := resources.MustParse(fmt.Sprintf("cpus:%d;mem:%d", 1+rng.IntN(3), 1+rng.IntN(30)), "")
				require.NoError(t, errors.Join(u.Allocated(c, "s1", r), d.Allocated(c, "s1", r)))
				held[c] = append(held[c], r)
			case op < 8 && len(held[c]) > 0:
				r := held[c][0]
				held[c] = held[c][1:]
				require.NoError(t, errors.Join(u.Unallocated(c, "s1", r), d.Unallocated(c, "s1", r)))
			case op == 8:
				w := float64(1 + rng.IntN(3))
				require.NoError(t, errors.Join(u.UpdateWeight(c, w), d.UpdateWeight(c, w)))
			default:
				clock.Advance(time.Duration(rng.IntN(5)) * time.Second)
			}
			require.Equal(t, d.Sort(), u.Sort(), "seed %d step %d", seed, step)
		}
	}
}

// Ties: equal keys go by allocation count, then by path.
func TestUsageTies(t *testing.T) {
	clock := newTestClock()
	u := newUsage(t, clock, time.Minute, "c", "b", "a")
	require.Equal(t, []string{"a", "b", "c"}, u.Sort())
	require.NoError(t, u.Allocated("a", "s1", resources.Resources{}))
	require.Equal(t, []string{"b", "c", "a"}, u.Sort()) // a served once
	require.NoError(t, u.Allocated("b", "s1", cpus(1)))
	require.NoError(t, u.Unallocated("b", "s1", cpus(1)))
	require.Equal(t, []string{"c", "a", "b"}, u.Sort()) // same instant: no record
	clock.Advance(time.Second)
	require.Equal(t, []string{"c", "a", "b"}, u.Sort())
}

// Within one instant only the clients charged move; walks see changes made
// during an earlier walk; a clock that goes back stands still.
func TestUsageWalkAndCharge(t *testing.T) {
	clock := newTestClock()
	u := newUsage(t, clock, time.Minute, "a", "b", "c")
	var visited []string
	u.Walk(func(c string) bool {
		visited = append(visited, c)
		require.NoError(t, u.Charge(c, resources.MustParseQuantities("cpus:2"), true))
		return c != "b"
	})
	require.Equal(t, []string{"a", "b"}, visited)
	require.Equal(t, []string{"c", "a", "b"}, u.Sort())
	require.NoError(t, u.Discharge("a", resources.MustParseQuantities("cpus:2")))
	require.Equal(t, []string{"c", "a", "b"}, u.Sort()) // a and c at 0: c has the lower count
	require.Equal(t, 0.0, u.ShareOf("a"))
	require.Equal(t, 0.2, u.ShareOf("b"))
	require.ErrorIs(t, u.Discharge("a", resources.MustParseQuantities("cpus:2")), sorter.ErrNotAllocated)

	clock.Advance(time.Minute)
	require.NoError(t, u.Charge("b", resources.MustParseQuantities("cpus:2"), false)) // settles b at 0.1
	hb, xb, _ := u.Record("b")
	require.Equal(t, 0.1, hb)
	require.Equal(t, 0.4, xb)
	clock.Advance(-30 * time.Second)
	require.NoError(t, u.Discharge("b", resources.MustParseQuantities("cpus:2")))
	hb, xb, _ = u.Record("b")
	require.Equal(t, 0.1, hb, "time stood still: nothing accrued")
	require.Equal(t, 0.2, xb)
	clock.Advance(30 * time.Second) // back where the record was last settled
	hb, _, _ = u.Record("b")
	require.Equal(t, 0.1, hb)
}

// A change of the pool changes every share from then on, not before.
func TestUsagePoolChange(t *testing.T) {
	clock := newTestClock()
	u := newUsage(t, clock, time.Minute, "a")
	require.NoError(t, u.Allocated("a", "s1", cpus(5)))
	clock.Advance(time.Minute)
	u.AddAgent("s2", resources.MustParseQuantities("cpus:10;mem:100"))
	h, x, _ := u.Record("a")
	require.Equal(t, 0.25, h)
	require.Equal(t, 0.25, x)
	require.NoError(t, u.RemoveAgent("s2"))
	h, x, _ = u.Record("a")
	require.Equal(t, 0.25, h)
	require.Equal(t, 0.5, x)
	require.ErrorIs(t, u.RemoveAgent("s2"), sorter.ErrUnknownAgent)
	require.NoError(t, u.Remove("a"))
	_, _, ok := u.Record("a")
	require.False(t, ok)
	require.Equal(t, 0.0, u.ShareOf("a"))
}
