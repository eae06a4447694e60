package allocator

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// wholeTwins are an allocator that keeps refusals of whole references
// compactly and a cache-free one that keeps every filter in lists, fed the
// same events: what they report must not depend on the storage.
type wholeTwins struct {
	t      *testing.T
	clock  *benchClock
	kept   *Allocator // compact filters
	listed *Allocator // cache-free: lists only
}

func newWholeTwins(t *testing.T) *wholeTwins {
	clock := &benchClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	w := &wholeTwins{t: t, clock: clock}
	for _, cacheFree := range []bool{false, true} {
		a, err := New(Options{Clock: clock.Now, Seed: 7, CacheFree: cacheFree})
		require.NoError(t, err)
		if cacheFree {
			w.listed = a
		} else {
			w.kept = a
		}
	}
	return w
}

// both applies fn to each twin.
func (w *wholeTwins) both(fn func(a *Allocator) error) {
	w.t.Helper()
	require.NoError(w.t, fn(w.kept))
	require.NoError(w.t, fn(w.listed))
}

// declineAll runs both twins, requires the same offers, and declines them
// all with an hour-long filter; it returns how many offers there were.
func (w *wholeTwins) declineAll() int {
	w.t.Helper()
	got, want := w.kept.AllocateAll().Offers, w.listed.AllocateAll().Offers
	require.Equal(w.t, offerKeys(want), offerKeys(got), "offers")
	for _, o := range got {
		w.both(func(a *Allocator) error {
			return a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &Filter{Refuse: time.Hour})
		})
	}
	w.same()
	return len(got)
}

// same requires the twins to report the same filters and state, and both
// to keep their invariants.
func (w *wholeTwins) same() {
	w.t.Helper()
	require.NoError(w.t, w.kept.CheckInvariants())
	require.NoError(w.t, w.listed.CheckInvariants())
	require.Equal(w.t, w.listed.Filters(), w.kept.Filters(), "filters")
	var fk, fl Fingerprint
	w.kept.Fingerprint(&fk)
	w.listed.Fingerprint(&fl)
	require.Equal(w.t, fl.Filters, fk.Filters, "filters' fingerprint")
}

// compact returns how many compact filters the compacting twin holds.
func (w *wholeTwins) compact() int {
	n := 0
	for fw := range w.kept.cs.Frameworks.All() {
		for _, s := range fw.Whole {
			n += s.Len()
		}
	}
	return n
}

func offerKeys(offers []offer.Offer) []string {
	var keys []string
	for _, o := range offers {
		keys = append(keys, o.FrameworkID+" "+o.AgentID+" "+o.Resources.String())
	}
	slices.Sort(keys)
	return keys
}

// TestWholeRefusalsStandForOrdinaryOnes follows compact filters through
// what changes them: made, met by runs, unpacked when the agent's
// reference grows, forgotten on revive and with their agent (whose number
// a new agent then takes without inheriting them), and expired.
func TestWholeRefusalsStandForOrdinaryOnes(t *testing.T) {
	w := newWholeTwins(t)
	total := resources.MustParse("cpus:4;mem:1024", "*")
	for _, id := range []string{"f1", "f2", "f3"} {
		w.both(func(a *Allocator) error { return a.AddFramework(id, FrameworkInfo{Roles: []string{"r"}}, nil, Active) })
	}
	for _, id := range []string{"a1", "a2"} {
		w.both(func(a *Allocator) error { return a.AddAgent(id, AgentInfo{}, total, nil) })
	}

	require.Equal(t, 2, w.declineAll())
	require.Equal(t, 2, w.compact(), "a decline of everything is compact")
	require.Equal(t, 2, w.declineAll())
	require.Equal(t, 4, w.compact())
	require.Equal(t, 2, w.declineAll())
	require.Equal(t, 6, w.compact())
	require.Zero(t, w.declineAll(), "every framework refused every agent")

	// a1 grows: its compact filters become ordinary ones refusing the old
	// total, which no longer covers what a1 has.
	bigger := resources.MustParse("cpus:8;mem:1024", "*")
	w.both(func(a *Allocator) error { return a.UpdateAgent("a1", AgentInfo{}, &bigger) })
	require.Equal(t, 3, w.compact(), "a1's filters unpacked")
	for fw := range w.kept.cs.Frameworks.All() {
		_, compact := fw.Whole.On("r", int(w.kept.cs.Agents.Get("a1").Num))
		require.False(t, compact, "%s: compact filter on a1 after it grew", fw.ID)
	}
	w.same()
	require.Equal(t, 1, w.declineAll(), "a1 is offered again, a2 is not")

	// a2 leaves with its compact filters; a3 takes its number and
	// inherits none of them.
	num := w.kept.cs.Agents.Get("a2").Num
	w.both(func(a *Allocator) error { return a.RemoveAgent("a2") })
	w.both(func(a *Allocator) error { return a.AddAgent("a3", AgentInfo{}, total, nil) })
	require.Equal(t, num, w.kept.cs.Agents.Get("a3").Num, "the number is reused")
	w.same()
	require.Equal(t, 2, w.declineAll(), "a3 is offered, and a1 to one that refused only its old total")

	// Reviving f1 forgets its filters, compact or not.
	w.both(func(a *Allocator) error { return a.ReviveOffers("f1") })
	for _, fw := range []string{"f1"} {
		require.Empty(t, w.kept.cs.Frameworks.Get(fw).Whole)
		require.Empty(t, w.kept.cs.Frameworks.Get(fw).Filters)
	}
	w.same()
	require.Positive(t, w.declineAll())

	// An hour later every filter has expired.
	w.clock.now = w.clock.now.Add(2 * time.Hour)
	require.Equal(t, 2, w.declineAll())
	require.Len(t, w.kept.Filters(), 2, "the expired filters are gone")
	require.GreaterOrEqual(t, w.compact(), 2, "the new ones are compact (expired ones go when a run meets them)")
}

// TestSinceAnchorRefusesWhatItCannotGiveBack checks that an expiry too far
// from the anchor to count in nanoseconds is not kept compactly.
func TestSinceAnchorRefusesWhatItCannotGiveBack(t *testing.T) {
	a, err := New(Options{Clock: func() time.Time { return time.Unix(0, 0) }})
	require.NoError(t, err)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d, ok := a.dec.SinceAnchor(at)
	require.True(t, ok)
	require.Zero(t, d, "the first call anchors")
	d, ok = a.dec.SinceAnchor(at.Add(time.Hour))
	require.True(t, ok)
	require.Equal(t, int64(time.Hour), d)
	_, ok = a.dec.SinceAnchor(at.AddDate(400, 0, 0))
	require.False(t, ok, "400 years do not fit in nanoseconds")
	_, ok = a.dec.SinceAnchor(at.Add(-math.MaxInt64).Add(-time.Hour))
	require.False(t, ok)

	// With the system clock's readings (monotonic ones included) the
	// expiry comes back as the same instant, and compares with later
	// readings as the original does.
	sys, err := New(Options{})
	require.NoError(t, err)
	now := time.Now()
	_, ok = sys.dec.SinceAnchor(now)
	require.True(t, ok)
	d, ok = sys.dec.SinceAnchor(now.Add(time.Minute))
	require.True(t, ok)
	require.Equal(t, int64(time.Minute), d)
	back := sys.dec.RefusalOf(refusals.WholeRefusal{Expires: d}, &cluster.Agent{}).Expires
	require.True(t, back.Equal(now.Add(time.Minute)))
	require.True(t, now.Before(back))
	require.False(t, now.Add(2*time.Minute).Before(back))
}

// TestInvariantsCatchCompactFilterDamage checks that CheckInvariants finds
// compact filters that do not add up: a miscounted agent, a filter on an
// agent number no one holds, and a compact filter beside ordinary ones.
func TestInvariantsCatchCompactFilterDamage(t *testing.T) {
	damage := map[string]func(w *wholeTwins){
		"counts": func(w *wholeTwins) { w.kept.cs.Agents.Get("a1").WholeRefused++ },
		"unknown agent number": func(w *wholeTwins) {
			w.kept.cs.Frameworks.Get("f1").Whole.Put("r", 99, refusals.WholeRefusal{}, 100)
		},
		"compact and ordinary": func(w *wholeTwins) {
			fw, ag := w.kept.cs.Frameworks.Get("f1"), w.kept.cs.Agents.Get("a1")
			fw.Whole.Put("r", int(ag.Num), refusals.WholeRefusal{}, len(w.kept.cs.AgentsByNum))
			fw.Filters.Add("r", "a1", refusals.Refusal{Refused: ag.Ref, Expires: w.clock.now.Add(time.Hour)})
		},
	}
	for want, harm := range damage {
		w := newWholeTwins(t)
		total := resources.MustParse("cpus:4;mem:1024", "*")
		w.both(func(a *Allocator) error {
			return a.AddFramework("f1", FrameworkInfo{Roles: []string{"r"}}, nil, Active)
		})
		w.both(func(a *Allocator) error { return a.AddAgent("a1", AgentInfo{}, total, nil) })
		require.Equal(t, 1, w.declineAll())
		require.NoError(t, w.kept.CheckInvariants())
		harm(w)
		err := w.kept.CheckInvariants()
		require.ErrorContains(t, err, want)
	}
}
