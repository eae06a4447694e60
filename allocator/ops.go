package allocator

import (
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// OperationContext returns what offer.Validate needs to judge a framework's
// operations on an agent: the framework's principal, roles and
// capabilities, the agent's capabilities, its checkpointed resources and
// the persistent volumes its tasks use. Accept and UpdateAllocation
// validate with it; a host validates ahead of them with the same.
func (a *Allocator) OperationContext(fwID, agentID string) (offer.Context, error) {
	a.ready()
	fw, ag, err := a.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return offer.Context{}, err
	}
	return a.ops.FrameworkContext(fw, ag), nil
}

// OperatorContext returns what offer.Validate needs to judge an operator's
// operations (reserve, unreserve, create, destroy, grow, shrink) on an
// agent's unallocated resources, as UpdateAvailable does.
func (a *Allocator) OperatorContext(agentID string) (offer.Context, error) {
	a.ready()
	ag, err := a.cs.Agent(agentID)
	if err != nil {
		return offer.Context{}, err
	}
	return a.ops.OperatorContext(ag), nil
}

// UpdateAllocation applies a framework's operations to resources it was
// offered (or holds) on an agent: reservations, volumes, resizes, and task
// launches, which turn offered resources into allocated ones. Operations are
// validated with package offer against the framework's roles, principal and
// capabilities and the agent's state, and applied in order, all or nothing.
// The agent's total follows the conversions. The rest of the offer stays
// offered; Accept also gives it back. No allocation is triggered.
func (a *Allocator) UpdateAllocation(fwID, agentID string, offered resources.Resources, ops []offer.Operation) error {
	return a.stepErr(Entry{Event: EventUpdateAllocation, Framework: fwID, Agent: agentID, Resources: offered, Operations: ops})
}

// Accept is what a host does when a framework accepts an offer: it applies
// the operations (UpdateAllocation) and gives back the unused rest of the
// offered resources (RecoverResources) with the filter, if any.
func (a *Allocator) Accept(fwID, agentID string, offered resources.Resources, ops []offer.Operation, filter *Filter) error {
	return a.stepErr(Entry{Event: EventAccept, Framework: fwID, Agent: agentID, Resources: offered, Operations: ops, Filter: filter})
}

// AcceptEach is Accept as Mesos's master does it: each operation is
// validated and applied on its own, in order, against the offer as the
// operations before it left it. An invalid operation is dropped and the
// rest still apply; then the unused rest of the offer is given back with
// the filter. It returns, for each operation, nil when it was applied or
// the error that dropped it (as UpdateAllocation would report it). The
// error is for the call as a whole (an unknown framework or agent,
// resources the framework does not hold) and then nothing changes.
// Accept is the strict form: all operations or none.
func (a *Allocator) AcceptEach(fwID, agentID string, offered resources.Resources, ops []offer.Operation, filter *Filter) ([]error, error) {
	_, each, err := a.step(Entry{Event: EventAcceptEach, Framework: fwID, Agent: agentID, Resources: offered, Operations: ops, Filter: filter})
	return each, err
}

// UpdateAvailable applies operator operations (reserve, unreserve, create,
// destroy, grow, shrink) to an agent's unallocated resources, as an
// operator's /reserve or /create-volumes request does. They are validated
// as operator requests and must apply to what is neither offered nor
// allocated; otherwise nothing changes. No allocation is triggered.
func (a *Allocator) UpdateAvailable(agentID string, ops []offer.Operation) error {
	return a.stepErr(Entry{Event: EventUpdateAvailable, Agent: agentID, Operations: ops})
}
