package sortertest

import "github.com/allot-go/allot/sorter"

// Shared volumes count once per client per agent, however many copies a
// client holds: in its allocation (Run) and in its share, and once in its
// subtree's share (RunFair).

// sharedCountedOncePerAgent checks that copies of a shared volume count once
// per client per agent in AllocationQuantities, until the last copy goes.
func sharedCountedOncePerAgent(c checker) {
	c.add("a", "b")
	c.alloc("a", "s1", volume)
	c.alloc("a", "s1", volume)
	c.quantities("a", "disk:100")
	c.alloc("a", "s2", volume)
	c.quantities("a", "disk:200")
	c.alloc("b", "s1", volume+";cpus:1")
	c.quantities("b", "disk:100;cpus:1")
	c.unalloc("a", "s1", volume)
	c.quantities("a", "disk:200")
	c.unalloc("a", "s1", volume)
	c.quantities("a", "disk:100")
	c.allocation("a", map[string]string{"s2": volume})
	c.fails(c.s.Unallocated("a", "s1", res(volume)), sorter.ErrNotAllocated, "Unallocated of a volume no longer held")
}

// sharedVolumeOncePerAgent checks that copies of a shared volume count once
// per agent in a client's share.
func sharedVolumeOncePerAgent(c checker) {
	c.pool("cpus:100;disk:1000")
	c.add("a", "b")
	c.activate("a", "b")
	c.alloc("a", "s1", volume)
	c.alloc("a", "s1", volume) // .10, not .20
	c.alloc("b", "s1", "cpus:15")
	c.order("a", "b")
	c.alloc("a", "s2", volume) // another agent: .20
	c.order("b", "a")
}

// sharedVolumeOncePerSubtree checks that a shared volume held by several
// clients of a subtree counts once in the subtree's share.
func sharedVolumeOncePerSubtree(c checker) {
	c.pool("cpus:100;disk:1000")
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
}
