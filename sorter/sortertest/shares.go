package sortertest

// Dominant shares: the order is by ascending dominant share, the largest
// fraction of the pool a client holds of any resource, and follows
// allocations as they come and go.

// dominantShare checks that clients come in ascending dominant share.
func dominantShare(c checker) {
	// Mesos's DRF sorter test: on cpus:100;mem:100 every share is a
	// plain percentage.
	c.pool("cpus:100;mem:100")
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
}

// dominantResource checks that a client's share is its largest fraction of
// any resource, whichever resource that is.
func dominantResource(c checker) {
	c.pool("cpus:100;mem:1000")
	c.add("a", "b")
	c.activate("a", "b")
	c.alloc("a", "s1", "cpus:10;mem:10") // cpus .10, mem .01
	c.alloc("b", "s1", "cpus:1;mem:200") // cpus .01, mem .20
	c.order("a", "b")
	c.alloc("a", "s1", "cpus:15") // cpus .25
	c.order("b", "a")
}

// fairUnallocated checks that Unallocated and Update lower and raise a
// client's share.
func fairUnallocated(c checker) {
	c.pool("cpus:100;mem:100")
	c.add("a", "b")
	c.activate("a", "b")
	c.alloc("a", "s1", "cpus:20")
	c.alloc("b", "s1", "cpus:10")
	c.order("b", "a")
	c.unalloc("a", "s1", "cpus:15") // .05
	c.order("a", "b")
	c.ok(c.s.Update("a", "s1", res("cpus:5"), res("mem:30")), "Update(a)") // .30
	c.order("b", "a")
}
