package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func TestHoldListZero(t *testing.T) {
	var hs HoldList
	require.False(t, hs.Has("f1"))
	require.True(t, hs.Of("f1").IsEmpty())
	hs.Release("", func(Hold) { t.Fatal("nothing to release") })
	hs.Release("f1", func(Hold) { t.Fatal("nothing to release") })
	require.Empty(t, hs)
}

func TestHoldListAddOfHas(t *testing.T) {
	var hs HoldList
	a := alloc("cpus:1;mem:64", "web")
	hs.Add("f1", a, t0.Add(time.Second))
	hs.Add("f2", alloc("cpus:2", "db"), t0.Add(2*time.Second))
	hs.Add("f1", alloc("cpus:3;disk:10", "web"), t0.Add(3*time.Second))
	hs.Add("f1", alloc("mem:1", "batch"), t0.Add(4*time.Second))

	require.Len(t, hs, 4)
	// In the order they were made, each with its framework and instant.
	want := []struct {
		fw    string
		res   string
		role  string
		until time.Duration
	}{
		{"f1", "cpus:1;mem:64", "web", time.Second},
		{"f2", "cpus:2", "db", 2 * time.Second},
		{"f1", "cpus:3;disk:10", "web", 3 * time.Second},
		{"f1", "mem:1", "batch", 4 * time.Second},
	}
	for i, w := range want {
		require.Equal(t, w.fw, hs[i].Framework, "hold %d", i)
		requireRes(t, alloc(w.res, w.role), hs[i].Res, "hold ", i)
		require.True(t, hs[i].Until.Equal(t0.Add(w.until)), "hold %d until %v", i, hs[i].Until)
	}
	// The value is held as given (frozen, not copied).
	require.True(t, hs[0].Res.Identical(a))

	require.True(t, hs.Has("f1"))
	require.True(t, hs.Has("f2"))
	require.False(t, hs.Has("f3"))
	require.False(t, hs.Has(""))
	requireRes(t, res("cpus(allocated: web):4;mem(allocated: web):64;disk(allocated: web):10;mem(allocated: batch):1"), hs.Of("f1"))
	requireRes(t, alloc("cpus:2", "db"), hs.Of("f2"))
	require.True(t, hs.Of("f3").IsEmpty())

	// Of sums without changing what is held.
	requireRes(t, alloc("cpus:1;mem:64", "web"), hs[0].Res)
	requireRes(t, alloc("cpus:1;mem:64", "web"), a)
}

func TestHoldListRelease(t *testing.T) {
	var hs HoldList
	hs.Add("f1", alloc("cpus:1", "r"), t0)
	hs.Add("f2", alloc("cpus:2", "r"), t0)
	hs.Add("f1", alloc("cpus:3", "r"), t0)
	hs.Add("f3", alloc("cpus:4", "r"), t0)

	var gone []string
	hs.Release("f1", func(h Hold) { gone = append(gone, h.Framework+":"+h.Res.String()) })
	require.Equal(t, []string{"f1:cpus(allocated: r):1", "f1:cpus(allocated: r):3"}, gone)
	require.Len(t, hs, 2)
	require.Equal(t, "f2", hs[0].Framework)
	require.Equal(t, "f3", hs[1].Framework)
	require.False(t, hs.Has("f1"))

	// A framework with nothing held: nothing called, nothing removed.
	hs.Release("f9", func(Hold) { t.Fatal("f9 holds nothing") })
	require.Len(t, hs, 2)

	// "" releases every framework's, in order.
	gone = nil
	hs.Release("", func(h Hold) { gone = append(gone, h.Framework) })
	require.Equal(t, []string{"f2", "f3"}, gone)
	require.Empty(t, hs)
}

// A model test: the list against a plain slice of (framework, cpus,
// until).
func TestHoldListModel(t *testing.T) {
	type mhold struct {
		fw    string
		cpus  int
		until time.Time
	}
	fws := []string{"f1", "f2", "f3"}
	for seed := uint64(1); seed <= 40; seed++ {
		seeded(t, seed, func(t *testing.T, rng *rand.Rand) {
			var hs HoldList
			var model []mhold
			for step := 0; step < 60; step++ {
				switch rng.IntN(5) {
				case 0, 1, 2:
					h := mhold{fw: fws[rng.IntN(len(fws))], cpus: 1 + rng.IntN(5), until: t0.Add(time.Duration(rng.IntN(100)) * time.Second)}
					hs.Add(h.fw, alloc(fmt.Sprintf("cpus:%d", h.cpus), "r"), h.until)
					model = append(model, h)
				case 3:
					fw := fws[rng.IntN(len(fws))]
					var want, got []mhold
					var kept []mhold
					for _, h := range model {
						if h.fw == fw {
							want = append(want, h)
						} else {
							kept = append(kept, h)
						}
					}
					hs.Release(fw, func(h Hold) {
						n, _ := h.Res.Quantities().Get("cpus")
						got = append(got, mhold{fw: h.Framework, cpus: int(n / 1000), until: h.Until})
					})
					require.Equal(t, want, got, "step %d: released of %s", step, fw)
					model = kept
				case 4:
					if rng.IntN(4) == 0 {
						var got []mhold
						hs.Release("", func(h Hold) {
							n, _ := h.Res.Quantities().Get("cpus")
							got = append(got, mhold{fw: h.Framework, cpus: int(n / 1000), until: h.Until})
						})
						require.Equal(t, model, got, "step %d: release all", step)
						model = nil
					}
				}
				require.Len(t, hs, len(model), "step %d", step)
				for i, h := range model {
					require.Equal(t, h.fw, hs[i].Framework, "step %d hold %d", step, i)
					require.True(t, hs[i].Until.Equal(h.until), "step %d hold %d", step, i)
					requireRes(t, alloc(fmt.Sprintf("cpus:%d", h.cpus), "r"), hs[i].Res, "step ", step)
				}
				for _, fw := range fws {
					sum := 0
					for _, h := range model {
						if h.fw == fw {
							sum += h.cpus
						}
					}
					require.Equal(t, sum > 0, hs.Has(fw), "step %d has %s", step, fw)
					ref := amounts{}
					ref.add("r", "cpus", sum)
					requireRes(t, ref.resources(), hs.Of(fw), "step ", step, " of ", fw)
				}
			}
		})
	}
}
