package allocator

import (
	"fmt"
	"slices"

	"github.com/allot-go/allot/resources"
)

// RecoverResources gives back resources of an offer: declined, rescinded,
// or the unused part of an accepted offer. They are taken from what the
// framework was offered on the agent first, then from what it uses. With a
// filter, the framework is not offered what these resources contain on this
// agent in that role for the filter's time. No allocation is triggered: the
// resources are offered again at the next allocation.
func (a *Allocator) RecoverResources(fwID, agentID string, res resources.Resources, filter *Filter) error {
	return a.stepErr(Entry{Event: EventRecoverResources, Framework: fwID, Agent: agentID, Resources: res, Filter: filter})
}

// RecoverAllocated gives back the resources of tasks that ended (finished,
// failed, killed) or of a removed executor: like RecoverResources, but taken
// from what the framework uses on the agent first, then from what it was
// offered.
func (a *Allocator) RecoverAllocated(fwID, agentID string, res resources.Resources, filter *Filter) error {
	return a.stepErr(Entry{Event: EventRecoverAllocated, Framework: fwID, Agent: agentID, Resources: res, Filter: filter})
}

// recover is the handler of RecoverResources and RecoverAllocated (see
// events.go), and how other events give resources back.
func (a *Allocator) recover(fwID, agentID string, res resources.Resources, filter *Filter, allocatedFirst bool) error {
	fw, ag, err := a.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	if res.IsEmpty() {
		return nil
	}
	// Nothing below keeps res or changes it in place: what the allocator
	// keeps of it are new values.
	if role, single := res.AllocationRole(); single && role == "" {
		return fmt.Errorf("%w: %s has no allocation role", ErrInvalidResources, res)
	} else if !single && slices.Contains(res.AllocationRoles(), "") {
		return fmt.Errorf("%w: %s has no allocation role", ErrInvalidResources, res)
	}
	if !ag.Offered.Get(fwID).Contains(res) && !ag.Allocated.Get(fwID).Contains(res) && !ag.OfferedOrUsed(fwID).Contains(res) {
		return fmt.Errorf("%w: framework %q, agent %q: %s", ErrNotHeld, fwID, agentID, res)
	}
	a.books.UntrackAllocation(fw, ag, res, allocatedFirst)
	if filter != nil {
		a.dec.AddRefusal(fw, ag, res, filter.Refuse, a.opts.Clock())
	}
	return nil
}
