package allocator

import (
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// The allocator keeps every agent's resources per framework itself; its
// sorters need only what each client holds in all. Sorters that can take
// that as quantities (sorter.Charger, as the library's own do) are charged
// so: no per-agent record, no copy. Shared resources, which count once per
// agent in a share, and sorters that cannot be charged go through
// Allocated, Unallocated and Update with the resources and the agent. Each
// part of an allocation always goes the same way, so what is given back
// matches what was given.

// charge is one allocation as the sorters are told it: the scalar
// quantities of its non-shared part, and its shared part.
type charge struct {
	q      resources.Quantities
	shared resources.Resources
}

// load fills ch from res, reusing its storage.
func (ch *charge) load(res resources.Resources) {
	ch.q.Reset()
	ch.shared = resources.Resources{}
	if res.HasShared() {
		ch.shared = res.Shared()
		res = res.NonShared()
	}
	res.AddQuantitiesTo(&ch.q)
}

// loadQuantities fills ch as load would from resources with nothing shared
// whose scalar quantities are q.
func (ch *charge) loadQuantities(q resources.Quantities) {
	ch.q.Assign(q)
	ch.shared = resources.Resources{}
}

// sorterAllocated tells s that client was given res (whose charge is ch)
// on the agent.
func sorterAllocated(s sorter.Sorter, client, agentID string, res resources.Resources, ch *charge) {
	c, ok := s.(sorter.Charger)
	if !ok {
		_ = s.Allocated(client, agentID, res)
		return
	}
	if ch.shared.IsEmpty() {
		_ = c.Charge(client, ch.q, true)
		return
	}
	_ = s.Allocated(client, agentID, ch.shared)
	_ = c.Charge(client, ch.q, false)
}

// sorterUnallocated tells s that client gave back res (whose charge is ch)
// on the agent.
func sorterUnallocated(s sorter.Sorter, client, agentID string, res resources.Resources, ch *charge) {
	c, ok := s.(sorter.Charger)
	if !ok {
		_ = s.Unallocated(client, agentID, res)
		return
	}
	if !ch.shared.IsEmpty() {
		_ = s.Unallocated(client, agentID, ch.shared)
	}
	_ = c.Discharge(client, ch.q)
}

// sorterUpdated tells s that client's old resources on the agent became
// new.
func sorterUpdated(s sorter.Sorter, client, agentID string, old, new resources.Resources) {
	c, ok := s.(sorter.Charger)
	if !ok {
		_ = s.Update(client, agentID, old, new)
		return
	}
	var was, is charge
	was.load(old)
	is.load(new)
	if !was.shared.IsEmpty() || !is.shared.IsEmpty() {
		_ = s.Update(client, agentID, was.shared, is.shared)
	}
	_ = c.Discharge(client, was.q)
	_ = c.Charge(client, is.q, false)
}
