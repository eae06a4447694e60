package sortertest

import "github.com/allot-go/allot/sorter"

// Agents: the bookkeeping of their totals (Run), and the pool those totals
// make, of which shares are fractions (RunFair).

// agents checks that AddAgent adds or replaces an agent's total, RemoveAgent
// of an agent not added fails with sorter.ErrUnknownAgent, and allocations
// outlive their agent's total.
func agents(c checker) {
	c.fails(c.s.RemoveAgent("s1"), sorter.ErrUnknownAgent, "RemoveAgent(s1) before AddAgent")
	c.s.AddAgent("s1", qty("cpus:4;mem:100"))
	c.s.AddAgent("s1", qty("cpus:8;mem:100")) // replaces
	c.s.AddAgent("s2", qty("cpus:4"))
	c.ok(c.s.RemoveAgent("s1"), "RemoveAgent(s1)")
	c.fails(c.s.RemoveAgent("s1"), sorter.ErrUnknownAgent, "RemoveAgent(s1) twice")
	c.ok(c.s.RemoveAgent("s2"), "RemoveAgent(s2)")
	// Allocations outlive their agent's total.
	c.add("a")
	c.s.AddAgent("s3", qty("cpus:4"))
	c.alloc("a", "s3", "cpus:1")
	c.ok(c.s.RemoveAgent("s3"), "RemoveAgent(s3)")
	c.quantities("a", "cpus:1")
	c.unalloc("a", "s3", "cpus:1")
}

// poolTotals checks that shares are fractions of the sum of the agents'
// totals, which AddAgent and RemoveAgent change.
func poolTotals(c checker) {
	c.pool("cpus:100;mem:100")
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
}

// resourcesOutsideThePoolIgnored checks that a resource no agent contributes
// counts in no share.
func resourcesOutsideThePoolIgnored(c checker) {
	c.pool("cpus:100")
	c.add("a", "b")
	c.activate("a", "b")
	c.alloc("a", "s1", "cpus:1;gpus:4;mem:1000") // .01
	c.alloc("b", "s1", "cpus:2")                 // .02
	c.order("a", "b")
}
