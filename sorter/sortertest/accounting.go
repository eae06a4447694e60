package sortertest

import (
	"fmt"

	"github.com/allot-go/allot/sorter"
)

// Allocation accounting: what Allocated, Unallocated and Update do to
// Allocation and AllocationQuantities.

// allocation checks that Allocated and Unallocated add and take resources
// per agent, as Allocation and AllocationQuantities show.
func allocation(c checker) {
	c.add("a", "b")
	c.alloc("a", "s1", "cpus:1;mem:10")
	c.alloc("a", "s1", "cpus:2;ports:[31000-31009]")
	c.alloc("a", "s2", "cpus:4")
	c.alloc("b", "s2", "mem:5")
	c.allocation("a", map[string]string{"s1": "cpus:3;mem:10;ports:[31000-31009]", "s2": "cpus:4"})
	c.allocation("b", map[string]string{"s2": "mem:5"})
	c.quantities("a", "cpus:7;mem:10")
	c.quantities("b", "mem:5")

	c.unalloc("a", "s1", "cpus:1;ports:[31000-31004]")
	c.allocation("a", map[string]string{"s1": "cpus:2;mem:10;ports:[31005-31009]", "s2": "cpus:4"})
	c.quantities("a", "cpus:6;mem:10")
	c.unalloc("a", "s2", "cpus:4")
	c.allocation("a", map[string]string{"s1": "cpus:2;mem:10;ports:[31005-31009]"})
	c.quantities("a", "cpus:2;mem:10")
	c.quantities("b", "mem:5")
}

// allocationWhileInactive checks that an inactive client keeps its
// allocation, and can give it back.
func allocationWhileInactive(c checker) {
	c.add("a")
	c.alloc("a", "s1", "cpus:1")
	c.activate("a")
	c.ok(c.s.Deactivate("a"), "Deactivate(a)")
	c.quantities("a", "cpus:1")
	c.unalloc("a", "s1", "cpus:1")
	c.quantities("a", "")
}

// notAllocated checks that Unallocated and Update of resources a client does
// not hold on that agent fail with sorter.ErrNotAllocated and change
// nothing.
func notAllocated(c checker) {
	c.add("a")
	c.alloc("a", "s1", "cpus:2;ports:[31000-31009]")
	cases := []struct{ agent, text string }{
		{"s1", "cpus:3"},
		{"s1", "mem:1"},
		{"s1", "ports:[31005-31015]"},
		{"s2", "cpus:1"},
		{"s1", volume},
	}
	for _, tc := range cases {
		before := snapshot(c.s, []string{"a"})
		c.fails(c.s.Unallocated("a", tc.agent, res(tc.text)), sorter.ErrNotAllocated,
			fmt.Sprintf("Unallocated(a, %s, %s)", tc.agent, tc.text))
		c.fails(c.s.Update("a", tc.agent, res(tc.text), res("cpus:1")), sorter.ErrNotAllocated,
			fmt.Sprintf("Update(a, %s, %s, cpus:1)", tc.agent, tc.text))
		if after := snapshot(c.s, []string{"a"}); after != before {
			c.t.Fatalf("a failed call changed the sorter:\nbefore:\n%safter:\n%s", before, after)
		}
	}
}

// update checks that Update swaps resources in a client's allocation on an
// agent, for the same quantities or others.
func update(c checker) {
	c.add("a")
	c.alloc("a", "s1", "cpus:4;mem:10")
	c.ok(c.s.Update("a", "s1", res("cpus:2"), res("cpus(role1):2")), "Update to a reservation")
	c.allocation("a", map[string]string{"s1": "cpus:2;cpus(role1):2;mem:10"})
	c.quantities("a", "cpus:4;mem:10")
	c.ok(c.s.Update("a", "s1", res("mem:10"), res("mem:4;disk:1")), "Update with new quantities")
	c.allocation("a", map[string]string{"s1": "cpus:2;cpus(role1):2;mem:4;disk:1"})
	c.quantities("a", "cpus:4;mem:4;disk:1")
}

// removeDropsAllocation checks that removing a client drops its allocation,
// also from its parent client, and a client added again holds nothing.
func removeDropsAllocation(c checker) {
	c.add("a", "a/b")
	c.alloc("a", "s1", "cpus:1;"+volume)
	c.alloc("a/b", "s1", "cpus:2;"+volume)
	c.ok(c.s.Remove("a/b"), "Remove(a/b)")
	c.quantities("a", "cpus:1;disk:100")
	c.ok(c.s.Remove("a"), "Remove(a)")
	c.add("a")
	c.quantities("a", "")
	c.allocation("a", nil)
}
