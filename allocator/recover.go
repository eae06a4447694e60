package allocator

import (
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
