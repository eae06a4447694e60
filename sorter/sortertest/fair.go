package sortertest

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

func nan() float64         { return math.NaN() }
func inf(sign int) float64 { return math.Inf(sign) }

// RunFair runs the ordering behaviours of a dominant resource fairness
// sorter: clients by ascending dominant share (the largest fraction of the
// pool they hold of any resource) divided by weight; ties by allocation
// count (Allocated calls, never decremented), then by path; resource names
// in Config.FairnessExcluded and resources the pool lacks ignored; shared
// volumes counted once per client per agent; and for paths, the order of
// each level by the share of the whole subtree, every subtree's clients
// together, and the virtual leaf of a client with children weighted 1.
// The expected orders come from Mesos's sorter tests and from the arithmetic
// of the shares; each subtest says which.
func RunFair(t *testing.T, newSorter sorter.Factory) {
	t.Helper()
	with := func(name string, cfg sorter.Config, f func(c checker)) {
		t.Run(name, func(t *testing.T) {
			f(checker{t: t, s: newSorter(cfg)})
		})
	}
	pool := func(c checker, text string) { c.s.AddAgent("s1", qty(text)) }
	none := sorter.Config{}

	with("DominantShare", none, func(c checker) {
		// Mesos's DRF sorter test: on cpus:100;mem:100 every share is a
		// plain percentage.
		pool(c, "cpus:100;mem:100")
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", "cpus:5;mem:5")
		c.alloc("b", "s1", "cpus:6;mem:6")
		c.order("a", "b") // .05 < .06
		c.add("c", "d")
		c.activate("c", "d")
		c.alloc("c", "s1", "cpus:1;mem:1")
		c.alloc("d", "s1", "cpus:3;mem:1")
		c.order("c", "d", "a", "b") // .01 .03 .05 .06
		c.ok(c.s.Remove("a"), "Remove(a)")
		c.unalloc("b", "s1", "cpus:4;mem:4")
		c.order("c", "b", "d") // .01 .02 .03
		c.add("e")
		c.activate("e")
		c.alloc("e", "s1", "cpus:1;mem:5")
		c.order("c", "b", "d", "e") // e's dominant resource is mem: .05
		c.ok(c.s.Deactivate("b"), "Deactivate(b)")
		c.order("c", "d", "e")
	})

	with("DominantResource", none, func(c checker) {
		// The largest fraction over resources decides, whichever it is.
		pool(c, "cpus:100;mem:1000")
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", "cpus:10;mem:10") // cpus .10, mem .01
		c.alloc("b", "s1", "cpus:1;mem:200") // cpus .01, mem .20
		c.order("a", "b")
		c.alloc("a", "s1", "cpus:15") // cpus .25
		c.order("b", "a")
	})

	with("TieBreakByAllocationCount", none, func(c checker) {
		// Equal shares: fewer Allocated calls first; unallocating does not
		// lower the count.
		pool(c, "cpus:100;mem:100")
		c.add("a", "b", "c")
		c.activate("a", "b", "c")
		c.order("a", "b", "c") // all zero, all count 0: by path
		c.alloc("a", "s1", "cpus:1")
		c.alloc("a", "s1", "cpus:1")
		c.unalloc("a", "s1", "cpus:1")
		c.alloc("b", "s1", "cpus:1")
		c.alloc("c", "s1", "cpus:1")
		c.order("b", "c", "a") // all .01; counts a=2, b=1, c=1; b<c by path
		c.unalloc("a", "s1", "cpus:1")
		c.unalloc("b", "s1", "cpus:1")
		c.unalloc("c", "s1", "cpus:1")
		c.order("b", "c", "a") // all zero again; the counts stay
		c.add("d")
		c.activate("d")
		c.order("d", "b", "c", "a")
	})

	with("EqualAllocationsTie", none, func(c checker) {
		// The same quantities on different agents give the same share,
		// bit for bit, so the tie rules decide.
		c.s.AddAgent("s1", qty("cpus:3;mem:7"))
		c.s.AddAgent("s2", qty("cpus:3;mem:7"))
		c.add("b", "a")
		c.activate("b", "a")
		c.alloc("b", "s1", "cpus:0.7;mem:0.1")
		c.alloc("a", "s2", "cpus:0.3")
		c.alloc("a", "s1", "cpus:0.4;mem:0.1")
		c.order("b", "a") // equal shares, a has two allocations
		c.alloc("b", "s2", "cpus:0.001")
		c.unalloc("b", "s2", "cpus:0.001")
		c.order("a", "b") // equal shares and counts: by path
	})

	with("Weights", none, func(c checker) {
		// Mesos's WDRF test: a share is divided by its client's weight.
		pool(c, "cpus:100;mem:100")
		c.add("a", "b", "c", "d")
		c.activate("a", "b", "c", "d")
		c.ok(c.s.UpdateWeight("b", 2), "UpdateWeight(b, 2)")
		c.ok(c.s.UpdateWeight("d", 10), "UpdateWeight(d, 10)")
		c.alloc("a", "s1", "cpus:5;mem:5")   // .05
		c.alloc("b", "s1", "cpus:6;mem:6")   // .06 / 2 = .03
		c.alloc("c", "s1", "cpus:4;mem:4")   // .04
		c.alloc("d", "s1", "cpus:10;mem:20") // .20 / 10 = .02
		c.order("d", "b", "c", "a")
		c.ok(c.s.UpdateWeight("d", 1), "UpdateWeight(d, 1)")
		c.order("b", "c", "a", "d")
		c.ok(c.s.UpdateWeight("a", 5), "UpdateWeight(a, 5)") // .01
		c.order("a", "b", "c", "d")
	})

	with("WeightBeforeAdd", none, func(c checker) {
		// A weight set on a path before the client exists applies when it
		// arrives, and lasts when it leaves and comes back.
		pool(c, "cpus:100")
		c.ok(c.s.UpdateWeight("b", 4), "UpdateWeight(b, 4)")
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", "cpus:10") // .10
		c.alloc("b", "s1", "cpus:20") // .20 / 4 = .05
		c.order("b", "a")
		c.ok(c.s.Remove("b"), "Remove(b)")
		c.add("b")
		c.activate("b")
		c.alloc("b", "s1", "cpus:20")
		c.order("b", "a")
	})

	with("FairnessExcluded", sorter.Config{FairnessExcluded: resources.NewNameSet("gpus")}, func(c checker) {
		// gpus do not count: a holds the only GPU yet has share 0.
		pool(c, "cpus:100;gpus:1")
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", "gpus:1")
		c.alloc("b", "s1", "cpus:10")
		c.order("a", "b")
	})

	with("NotExcludedByDefault", none, func(c checker) {
		pool(c, "cpus:100;gpus:1")
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", "gpus:1") // 1.0
		c.alloc("b", "s1", "cpus:10")
		c.order("b", "a")
	})

	with("PoolTotals", none, func(c checker) {
		// Shares are fractions of the sum of the agents' totals.
		pool(c, "cpus:100;mem:100")
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", "cpus:10") // .10
		c.alloc("b", "s1", "mem:20")  // .20
		c.order("a", "b")
		c.s.AddAgent("s2", qty("mem:900")) // b: 20/1000 = .02
		c.order("b", "a")
		c.ok(c.s.RemoveAgent("s2"), "RemoveAgent(s2)")
		c.order("a", "b")
		c.s.AddAgent("s1", qty("cpus:20;mem:100")) // replaces: a = .5
		c.order("b", "a")
	})

	with("ResourcesOutsideThePoolIgnored", none, func(c checker) {
		// A resource no agent contributes has no share.
		pool(c, "cpus:100")
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", "cpus:1;gpus:4;mem:1000") // .01
		c.alloc("b", "s1", "cpus:2")                 // .02
		c.order("a", "b")
	})

	with("SharedVolumeOncePerAgent", none, func(c checker) {
		// Two copies of one shared volume on one agent are one volume.
		pool(c, "cpus:100;disk:1000")
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", volume)
		c.alloc("a", "s1", volume) // .10, not .20
		c.alloc("b", "s1", "cpus:15")
		c.order("a", "b")
		c.alloc("a", "s2", volume) // another agent: .20
		c.order("b", "a")
	})

	with("SharedVolumeOncePerSubtree", none, func(c checker) {
		// Two clients holding the same shared volume: their parent holds it
		// once.
		pool(c, "cpus:100;disk:1000")
		c.add("r/x", "r/y", "q")
		c.activate("r/x", "r/y", "q")
		c.alloc("r/x", "s1", volume) // r/x .10
		c.alloc("r/y", "s1", volume) // r/y .10, r .10 (not .20)
		c.alloc("q", "s1", "cpus:15")
		c.order("r/x", "r/y", "q")
		c.unalloc("r/x", "s1", volume) // r still holds it through r/y
		c.alloc("r/x", "s1", "cpus:1")
		c.order("r/x", "r/y", "q")
		c.unalloc("r/y", "s1", volume) // r: cpus .01
		c.order("r/y", "r/x", "q")
	})

	with("Unallocated", none, func(c checker) {
		pool(c, "cpus:100;mem:100")
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", "cpus:20")
		c.alloc("b", "s1", "cpus:10")
		c.order("b", "a")
		c.unalloc("a", "s1", "cpus:15") // .05
		c.order("a", "b")
		c.ok(c.s.Update("a", "s1", res("cpus:5"), res("mem:30")), "Update(a)") // .30
		c.order("b", "a")
	})

	with("Hierarchy", none, func(c checker) {
		// Mesos's HierarchicalAllocation test: a level is ordered by the
		// share of each subtree, so b's clients come after a although each
		// holds less than a.
		pool(c, "cpus:100;mem:100")
		c.add("a", "b/c", "b/d")
		c.activate("a", "b/c", "b/d")
		c.order("a", "b/c", "b/d") // all zero: by path
		c.alloc("a", "s1", "cpus:6;mem:6")
		c.alloc("b/c", "s1", "cpus:4;mem:4")
		c.alloc("b/d", "s1", "cpus:3;mem:3")
		c.order("a", "b/d", "b/c") // a .06 < b .07; inside b: d .03 < c .04
		c.ok(c.s.Deactivate("a"), "Deactivate(a)")
		c.order("b/d", "b/c")
		c.ok(c.s.Activate("a"), "Activate(a)")
		c.unalloc("b/c", "s1", "cpus:4;mem:4") // b .03
		c.order("b/c", "b/d", "a")
	})

	with("InactiveClientsCountInTheirSubtree", none, func(c checker) {
		pool(c, "cpus:100")
		c.add("a", "b/x", "b/y")
		c.activate("a", "b/y")
		c.alloc("b/x", "s1", "cpus:50") // inactive, but b holds .5
		c.alloc("a", "s1", "cpus:10")
		c.order("a", "b/y")
	})

	with("SubtreeWeight", none, func(c checker) {
		// A weight on an internal path divides the subtree's share.
		pool(c, "cpus:100")
		c.add("a/x", "a/y", "b")
		c.activate("a/x", "a/y", "b")
		c.alloc("a/x", "s1", "cpus:20")
		c.alloc("a/y", "s1", "cpus:10") // a .30
		c.alloc("b", "s1", "cpus:20")   // b .20
		c.order("b", "a/y", "a/x")
		c.ok(c.s.UpdateWeight("a", 2), "UpdateWeight(a, 2)") // a .15
		c.order("a/y", "a/x", "b")
	})

	with("VirtualLeaf", none, func(c checker) {
		// Client a with child a/b: a's own allocation competes with a/b
		// inside a, as the virtual leaf a/., whose weight is always 1.
		pool(c, "cpus:100")
		c.add("a", "a/b", "c")
		c.activate("a", "a/b", "c")
		c.alloc("a", "s1", "cpus:30")
		c.alloc("a/b", "s1", "cpus:10") // a's subtree .40
		c.alloc("c", "s1", "cpus:35")
		c.order("c", "a/b", "a")
		c.ok(c.s.UpdateWeight("a", 4), "UpdateWeight(a, 4)") // subtree .10; a/. still .30
		c.order("a/b", "a", "c")
		c.ok(c.s.Remove("a/b"), "Remove(a/b)") // a is a plain leaf again: .30 / 4
		c.order("a", "c")
	})

	with("SubtreesTogether", none, func(c checker) {
		// Whatever the allocations, each subtree's active clients come out
		// side by side.
		pool(c, "cpus:1000;mem:1000")
		paths := []string{"a", "a/b", "a/b/c", "a/b/d", "a/e", "f", "f/g", "f/h/i", "j"}
		c.add(paths...)
		c.activate(paths...)
		for step := range 60 {
			p := paths[(step*5+step/4)%len(paths)]
			c.alloc(p, "s1", fmt.Sprintf("cpus:%d;mem:%d", 1+step%7, 1+(step*3)%11))
			if step%9 == 4 {
				c.ok(c.s.Deactivate(paths[step%len(paths)]), "Deactivate")
			}
			if step%9 == 8 {
				c.ok(c.s.Activate(paths[(step/2)%len(paths)]), "Activate")
			}
			got := c.s.Sort()
			if prefix, ok := scattered(got); !ok {
				c.t.Fatalf("step %d: Sort() = %q splits the subtree %q", step, got, prefix)
			}
		}
	})
}

// scattered reports a path prefix whose clients do not come out together,
// or ok.
func scattered(order []string) (string, bool) {
	prefixes := map[string]bool{}
	for _, cl := range order {
		for i := range len(cl) {
			if cl[i] == '/' {
				prefixes[cl[:i]] = true
			}
		}
	}
	for p := range prefixes {
		first, last, n := -1, -1, 0
		for i, cl := range order {
			if cl == p || strings.HasPrefix(cl, p+"/") {
				if first < 0 {
					first = i
				}
				last = i
				n++
			}
		}
		if last-first+1 != n {
			return p, false
		}
	}
	return "", true
}
