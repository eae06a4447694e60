package sortertest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-go/allot/sorter"
)

// The client tree: clients at every depth with virtual leaves coming and
// going with their children (Run), and the order level by level with each
// subtree kept together (RunFair).

// hierarchy checks that clients at any depth, added in any order, are
// clients each; removing one keeps its children.
func hierarchy(c checker) {
	c.add("a/b/c", "a", "d", "a/b")
	if c.s.Count() != 4 {
		c.t.Fatalf("Count() = %d, want 4", c.s.Count())
	}
	for _, p := range []string{"a/b/c", "a", "d", "a/b"} {
		if !c.s.Contains(p) {
			c.t.Fatalf("Contains(%s) = false", p)
		}
	}
	c.fails(c.s.Add("a/b"), sorter.ErrDuplicateClient, "Add(a/b) again")
	c.activate("a/b/c", "a", "d", "a/b")
	c.members("a", "a/b", "a/b/c", "d")
	c.ok(c.s.Remove("a/b"), "Remove(a/b)")
	c.members("a", "a/b/c", "d")
	if c.s.Contains("a/b") || !c.s.Contains("a/b/c") {
		c.t.Fatal("Remove(a/b) removed its child or kept itself")
	}
	c.ok(c.s.Remove("a/b/c"), "Remove(a/b/c)")
	c.members("a", "d")
	c.ok(c.s.Deactivate("a"), "Deactivate(a)")
	c.members("d")
}

// splitAndJoinKeepState checks that a client keeps its activity and
// allocation while a child comes and goes.
func splitAndJoinKeepState(c checker) {
	// A client that gains a child keeps its activity and allocation,
	// and keeps them again when the child goes.
	c.add("a")
	c.activate("a")
	c.alloc("a", "s1", "cpus:1")
	c.add("a/x")
	c.members("a")
	c.quantities("a", "cpus:1")
	c.alloc("a/x", "s1", "cpus:2")
	c.quantities("a", "cpus:1")
	c.activate("a/x")
	c.members("a", "a/x")
	c.ok(c.s.Remove("a/x"), "Remove(a/x)")
	c.members("a")
	c.quantities("a", "cpus:1")
	c.allocation("a", map[string]string{"s1": "cpus:1"})
	c.unalloc("a", "s1", "cpus:1")

	// An inactive client that gains and loses a child stays inactive.
	c.add("b", "b/y")
	c.activate("b/y")
	c.members("a", "b/y")
	c.ok(c.s.Remove("b/y"), "Remove(b/y)")
	c.members("a")
	if !c.s.Contains("b") {
		c.t.Fatal("Remove(b/y) removed b")
	}
}

// internalNodeIsNotAClient checks that the prefix of a client's path is not
// a client until it is added, and removing it as a client keeps its
// children.
func internalNodeIsNotAClient(c checker) {
	c.add("a/b")
	if c.s.Contains("a") {
		c.t.Fatal("Contains(a) with only a/b added")
	}
	c.fails(c.s.Activate("a"), sorter.ErrUnknownClient, "Activate(a)")
	c.fails(c.s.Remove("a"), sorter.ErrUnknownClient, "Remove(a)")
	c.add("a")
	c.activate("a")
	c.members("a")
	c.ok(c.s.Remove("a"), "Remove(a)")
	if !c.s.Contains("a/b") {
		c.t.Fatal("Remove(a) removed a/b")
	}
}

// fairHierarchy checks that each level of the tree is ordered by the share
// of each subtree.
func fairHierarchy(c checker) {
	// Mesos's HierarchicalAllocation test: a level is ordered by the
	// share of each subtree, so b's clients come after a although each
	// holds less than a.
	c.pool("cpus:100;mem:100")
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
}

// inactiveClientsCountInTheirSubtree checks that an inactive client's
// allocation counts in its subtree's share.
func inactiveClientsCountInTheirSubtree(c checker) {
	c.pool("cpus:100")
	c.add("a", "b/x", "b/y")
	c.activate("a", "b/y")
	c.alloc("b/x", "s1", "cpus:50") // inactive, but b holds .5
	c.alloc("a", "s1", "cpus:10")
	c.order("a", "b/y")
}

// virtualLeaf checks that a client with children competes with them as a
// virtual leaf: client a with child a/b holds its own allocation as a/.,
// inside a, whose weight is always 1.
func virtualLeaf(c checker) {
	c.pool("cpus:100")
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
}

// subtreesTogether checks that, whatever the allocations, each subtree's
// active clients come out of Sort side by side.
func subtreesTogether(c checker) {
	c.pool("cpus:1000;mem:1000")
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
}

// scattered reports a path prefix whose clients do not come out together, or
// ok.
func scattered(order []string) (string, bool) {
	prefixes := map[string]bool{}
	for _, cl := range order {
		for i := range len(cl) {
			if cl[i] == '/' {
				prefixes[cl[:i]] = true
			}
		}
	}
	// In name order, so that the subtree named is the same on every run.
	for _, p := range slices.Sorted(maps.Keys(prefixes)) {
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
