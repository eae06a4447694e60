package run_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/offer"
)

// A cache-free engine makes the same offers, inverse offers and choices
// as a caching one on the same events: every cached answer is one the
// state still gives. Random events from fixed seeds, on a cluster with
// quota, demand, declines, filters, suppression and tasks.
func TestCacheFreeMakesTheSameOffers(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			cfg := run.Config{Seed: int64(seed), Reclaim: reclaim.FairShare, OfferShare: []float64{0, 0.5}[seed%2]}
			free := cfg
			free.CacheFree = true
			worlds := []*world{newWorld(t, cfg), newWorld(t, free)}
			rng := rand.New(rand.NewPCG(seed, 7))
			script := randomScript(rng, 150)
			var last [2][]offer.Offer
			offered := 0
			for step, event := range script {
				var got [2]string
				for i, w := range worlds {
					got[i] = event(w, &last[i])
				}
				require.Equal(t, got[0], got[1], "step %d", step)
				offered += strings.Count(got[0], "offer-")
			}
			require.Greater(t, offered, 20, "the script makes offers")
		})
	}
}

// event applies one step of a script to w and renders what it made;
// last holds the offers made and not yet answered.
type event func(w *world, last *[]offer.Offer) string

// randomScript builds a cluster and then n random events.
func randomScript(rng *rand.Rand, n int) []event {
	var script []event
	add := func(e event) { script = append(script, e) }
	totals := []string{"cpus:4;mem:4096", "cpus:2;mem:8192;gpus:1", "cpus:8;mem:2048;cpus(r):2", "cpus:1;mem:512", "cpus:2;mem:2048;cpus{REV}:2"}
	for i, total := range totals {
		add(func(w *world, _ *[]offer.Offer) string {
			w.agentInfo(fmt.Sprintf("a%d", i), total, cluster.AgentInfo{Attributes: map[string]string{"rack": fmt.Sprint(i % 2)}})
			return ""
		})
	}
	fws := []struct {
		id   string
		info cluster.FrameworkInfo
	}{
		{"f1", cluster.FrameworkInfo{Roles: []string{"r"}}},
		{"f2", cluster.FrameworkInfo{Roles: []string{"r", "q"}, Capabilities: offer.GPUResources | offer.RevocableResources}},
		{"f3", cluster.FrameworkInfo{Roles: []string{"q"}, Constraints: map[string]cluster.Constraints{"q": {{{Attribute: "rack", Op: cluster.OpExists + 2, Value: "0"}}}}}},
		{"f4", cluster.FrameworkInfo{Roles: []string{"p/x"}}},
		{"f5", cluster.FrameworkInfo{Roles: []string{"p/y"}}},
	}
	for _, f := range fws {
		add(func(w *world, _ *[]offer.Offer) string { w.frameworkInfo(f.id, f.info); return "" })
	}
	add(func(w *world, _ *[]offer.Offer) string {
		w.quota("q", "cpus:3;mem:2048", "cpus:6")
		w.quota("p", "", "cpus:5;mem:6000")
		w.quota("p/y", "cpus:2", "")
		return ""
	})
	roleOf := map[string]string{"f1": "r", "f2": "q", "f3": "q", "f4": "p/x", "f5": "p/y"}
	for range n {
		pick := rng.IntN(100)
		fw := fws[rng.IntN(len(fws))].id
		x, y := rng.IntN(1000), rng.IntN(1000)
		switch {
		case pick < 30:
			periodic := pick%2 == 0
			add(func(w *world, last *[]offer.Offer) string {
				r := w.run(periodic)
				*last = append(*last, r.Offers...)
				return fmt.Sprint(r.Offers, r.InverseOffers, chosen(r.Chosen), chosen(r.Withdrawn))
			})
		case pick < 45:
			add(func(w *world, last *[]offer.Offer) string {
				if len(*last) == 0 {
					return ""
				}
				o := (*last)[x%len(*last)]
				*last = slices.Delete(*last, x%len(*last), x%len(*last)+1)
				refuse := []time.Duration{0, time.Second, 3 * time.Second}[y%3]
				w.decline([]offer.Offer{o}, refuse)
				return ""
			})
		case pick < 60:
			add(func(w *world, last *[]offer.Offer) string {
				if len(*last) == 0 {
					return ""
				}
				o := (*last)[x%len(*last)]
				*last = slices.Delete(*last, x%len(*last), x%len(*last)+1)
				task, ok := offer.PickTask(o.Resources, fmt.Sprintf("t%d", y), qty("cpus:0.5;mem:256"), o.Role)
				if !ok || w.cs.Frameworks.Get(o.FrameworkID).Tasks[task.ID] != nil {
					w.giveBack([]offer.Offer{o})
					return ""
				}
				w.ok(w.m.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}, nil))
				return ""
			})
		case pick < 68:
			add(func(w *world, _ *[]offer.Offer) string {
				f := w.cs.Frameworks.Get(fw)
				for _, id := range slices.Sorted(maps.Keys(f.Tasks)) {
					w.ok(w.m.EndTask(fw, id))
					break
				}
				return ""
			})
		case pick < 76:
			add(func(w *world, _ *[]offer.Offer) string {
				w.demand(fw, roleOf[fw], pend(fmt.Sprintf("cpus:%d;mem:%d", 1+x%3, 256*(1+y%4)), 1+y%3))
				return ""
			})
		case pick < 84:
			suppress := x%2 == 0
			add(func(w *world, _ *[]offer.Offer) string {
				if suppress {
					w.ok(w.m.SuppressOffers(fw))
				} else {
					w.ok(w.m.ReviveOffers(fw))
				}
				return ""
			})
		default:
			add(func(w *world, _ *[]offer.Offer) string {
				w.now = w.now.Add(time.Duration(1+x%3) * time.Second)
				return ""
			})
		}
	}
	return script
}
