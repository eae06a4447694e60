package sortertest

import (
	"math/rand/v2"
	"slices"

	"github.com/allot-go/allot/sorter"
)

// Sort's contract with any order: each active client exactly once, and for a
// sorter.Stable sorter the same order while nothing changes.

// sortIsEachActiveClientOnce checks that through a long mix of calls, Sort
// returns each active client exactly once, and Count the clients present.
func sortIsEachActiveClientOnce(c checker) {
	// A deterministic mix of adds, removes and activations over a
	// small hierarchy, drawn from a fixed seed: adds most often, so
	// that the sorter fills, removes least.
	paths := []string{"a", "a/b", "a/b/c", "a/d", "e", "e/f", "g"}
	active := map[string]bool{}
	present := map[string]bool{}
	draw := rand.New(rand.NewPCG(7, 3))
	for step := range 200 {
		p := paths[draw.IntN(len(paths))]
		switch draw.IntN(8) {
		case 0, 1, 2:
			if !present[p] {
				c.add(p)
				present[p] = true
			}
		case 3, 4:
			if present[p] {
				c.activate(p)
				active[p] = true
			}
		case 5:
			if present[p] {
				c.ok(c.s.Deactivate(p), "Deactivate("+p+")")
				active[p] = false
			}
		case 6:
			if present[p] {
				c.alloc(p, "s1", "cpus:1")
			}
		case 7:
			if present[p] {
				c.ok(c.s.Remove(p), "Remove("+p+")")
				present[p], active[p] = false, false
			}
		}
		var want []string
		for _, q := range paths {
			if active[q] {
				want = append(want, q)
			}
		}
		c.members(want...)
		count := 0
		for _, ok := range present {
			if ok {
				count++
			}
		}
		if c.s.Count() != count {
			c.t.Fatalf("step %d: Count() = %d, want %d", step, c.s.Count(), count)
		}
	}
}

// stableSortsTheSameTwice checks that a sorter.Stable sorter sorts the same,
// and walks without changing that, while nothing changes.
func stableSortsTheSameTwice(c checker) {
	// A sorter that says it is sorter.Stable lets callers skip walks
	// whose outcome they know: sorting and walking it must change
	// nothing.
	if _, ok := c.s.(sorter.Stable); !ok {
		c.t.Skip("not a sorter.Stable")
	}
	c.add("a", "b/c", "b/d", "e")
	c.activate("a", "b/c", "b/d", "e")
	c.alloc("a", "s1", "cpus:2;mem:10")
	c.alloc("b/c", "s1", "cpus:1;mem:30")
	first := slices.Clone(c.s.Sort())
	for i := range 3 {
		if w, ok := c.s.(sorter.Walker); ok {
			var walked []string
			w.Walk(func(client string) bool { walked = append(walked, client); return i%2 == 0 })
		}
		if got := c.s.Sort(); !slices.Equal(got, first) {
			c.t.Fatalf("sorted %q, then %q: a Stable sorter must sort the same while nothing changes", first, got)
		}
	}
}

// indexedWalksAgree checks, for a sorter.Indexed sorter, that present
// clients have distinct numbers and that WalkExcept visits Walk's order
// less the clients whose numbers it is told to skip. The allocator keeps
// the frameworks that refused an agent by these numbers and walks past
// them.
func indexedWalksAgree(c checker) {
	idx, ok := c.s.(sorter.Indexed)
	if !ok {
		c.t.Skip("not a sorter.Indexed")
	}
	if _, ok := c.s.(sorter.Stable); !ok {
		c.t.Skip("not a sorter.Stable: two walks need not agree")
	}
	clients := []string{"a", "b/c", "b/d", "e", "f", "g"}
	c.add(clients...)
	c.activate(clients...)
	c.alloc("a", "s1", "cpus:2;mem:10")
	c.alloc("b/c", "s1", "cpus:1;mem:30")
	c.alloc("f", "s1", "mem:5")
	seen := map[int]string{}
	for _, cl := range clients {
		i, ok := idx.Index(cl)
		if !ok {
			c.t.Fatalf("Index(%q) = false for a present client", cl)
		}
		if other, dup := seen[i]; dup {
			c.t.Fatalf("%q and %q share number %d", other, cl, i)
		}
		seen[i] = cl
	}
	if _, ok := idx.Index("x"); ok {
		c.t.Fatal("Index(x) = true for a client not present")
	}
	var order []string
	idx.Walk(func(cl string) bool { order = append(order, cl); return true })
	for _, skipped := range [][]string{nil, {"e"}, {"a", "b/d", "g"}, clients} {
		var skip sorter.Bitset
		for _, cl := range skipped {
			i, _ := idx.Index(cl)
			skip.Set(i)
		}
		want := slices.DeleteFunc(slices.Clone(order), func(cl string) bool { return slices.Contains(skipped, cl) })
		var got []string
		idx.WalkExcept(skip, func(cl string) bool { got = append(got, cl); return true })
		if !slices.Equal(got, want) {
			c.t.Fatalf("WalkExcept skipping %q visited %q, want %q", skipped, got, want)
		}
	}
}
