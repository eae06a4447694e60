package books

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

// Charge is one allocation as the sorters are told it: the scalar
// quantities of its non-shared part, and its shared part.
type Charge struct {
	Q      resources.Quantities
	Shared resources.Resources
}

// Load fills ch from res, reusing its storage.
func (ch *Charge) Load(res resources.Resources) {
	ch.Q.Reset()
	ch.Shared = resources.Resources{}
	if res.HasShared() {
		ch.Shared = res.Shared()
		res = res.NonShared()
	}
	res.AddQuantitiesTo(&ch.Q)
}

// LoadQuantities fills ch as load would from resources with nothing shared
// whose scalar quantities are q.
func (ch *Charge) LoadQuantities(q resources.Quantities) {
	ch.Q.Assign(q)
	ch.Shared = resources.Resources{}
}

// SorterAllocated tells s that client was given res (whose charge is ch)
// on the agent.
func SorterAllocated(s sorter.Sorter, client, agentID string, res resources.Resources, ch *Charge) {
	c, ok := s.(sorter.Charger)
	if !ok {
		_ = s.Allocated(client, agentID, res)
		return
	}
	if ch.Shared.IsEmpty() {
		_ = c.Charge(client, ch.Q, true)
		return
	}
	_ = s.Allocated(client, agentID, ch.Shared)
	_ = c.Charge(client, ch.Q, false)
}

// SorterUnallocated tells s that client gave back res (whose charge is ch)
// on the agent.
func SorterUnallocated(s sorter.Sorter, client, agentID string, res resources.Resources, ch *Charge) {
	c, ok := s.(sorter.Charger)
	if !ok {
		_ = s.Unallocated(client, agentID, res)
		return
	}
	if !ch.Shared.IsEmpty() {
		_ = s.Unallocated(client, agentID, ch.Shared)
	}
	_ = c.Discharge(client, ch.Q)
}

// SorterUpdated tells s that client's old resources on the agent became
// new.
func SorterUpdated(s sorter.Sorter, client, agentID string, old, new resources.Resources) {
	c, ok := s.(sorter.Charger)
	if !ok {
		_ = s.Update(client, agentID, old, new)
		return
	}
	var was, is Charge
	was.Load(old)
	is.Load(new)
	if !was.Shared.IsEmpty() || !is.Shared.IsEmpty() {
		_ = s.Update(client, agentID, was.Shared, is.Shared)
	}
	_ = c.Discharge(client, was.Q)
	_ = c.Charge(client, is.Q, false)
}
