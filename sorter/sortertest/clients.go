package sortertest

import "github.com/allot-go/allot/sorter"

// Client bookkeeping: Add, Remove, Activate and Deactivate, as Contains,
// Count and Sort show them.

// empty checks that a new sorter holds no client and sorts none.
func empty(c checker) {
	if n := c.s.Count(); n != 0 {
		c.t.Fatalf("Count() = %d on a new sorter", n)
	}
	if c.s.Contains("a") {
		c.t.Fatal("Contains(a) on a new sorter")
	}
	c.order()
}

// addIsInactive checks that an added client is present but inactive, and a
// second Add of it fails with sorter.ErrDuplicateClient and adds nothing.
func addIsInactive(c checker) {
	c.add("a", "b")
	if !c.s.Contains("a") || !c.s.Contains("b") || c.s.Count() != 2 {
		c.t.Fatalf("after Add(a), Add(b): Contains = %v, %v; Count = %d", c.s.Contains("a"), c.s.Contains("b"), c.s.Count())
	}
	c.order()
	c.fails(c.s.Add("a"), sorter.ErrDuplicateClient, "Add(a) again")
	if c.s.Count() != 2 {
		c.t.Fatalf("Count() = %d after a duplicate Add", c.s.Count())
	}
}

// activateDeactivate checks that Activate and Deactivate move a client in
// and out of Sort, each idempotent, and neither adds nor removes it.
func activateDeactivate(c checker) {
	c.add("a", "b")
	c.activate("a")
	c.members("a")
	c.activate("a") // idempotent
	c.members("a")
	c.activate("b")
	c.members("a", "b")
	c.ok(c.s.Deactivate("a"), "Deactivate(a)")
	c.members("b")
	c.ok(c.s.Deactivate("a"), "Deactivate(a) again")
	c.members("b")
	if !c.s.Contains("a") || c.s.Count() != 2 {
		c.t.Fatal("Deactivate removed the client")
	}
}

// remove checks that Remove takes a client out of the sorter and out of
// Sort, a second Remove fails with sorter.ErrUnknownClient, and a client
// added again starts inactive with nothing allocated.
func remove(c checker) {
	c.add("a", "b")
	c.activate("a", "b")
	c.alloc("a", "s1", "cpus:1")
	c.ok(c.s.Remove("a"), "Remove(a)")
	if c.s.Contains("a") || c.s.Count() != 1 {
		c.t.Fatalf("after Remove(a): Contains = %v, Count = %d", c.s.Contains("a"), c.s.Count())
	}
	c.members("b")
	c.fails(c.s.Remove("a"), sorter.ErrUnknownClient, "Remove(a) again")
	c.add("a")
	c.members("b") // back inactive
	c.quantities("a", "")
	c.allocation("a", nil)
}
