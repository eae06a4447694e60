package sortertest

// Tie rules: equal shares are ordered by allocation count, then by path.

// tieBreakByAllocationCount checks that equal shares are ordered by
// allocation count, which Unallocated never lowers, then by path.
func tieBreakByAllocationCount(c checker) {
	c.pool("cpus:100;mem:100")
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
}

// equalAllocationsTie checks that the same quantities held on different
// agents make the same share, bit for bit, so the tie rules decide.
func equalAllocationsTie(c checker) {
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
}
