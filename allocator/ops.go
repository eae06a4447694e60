package allocator

import (
	"fmt"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// defaultAgentCapabilities are assumed for agents that declare none: what
// every current Mesos agent has.
const defaultAgentCapabilities = offer.MultiRole | offer.HierarchicalRole | offer.ReservationRefinement | offer.ResizeVolume

func (ag *agent) capabilities() offer.Capabilities {
	if ag.info.Capabilities == 0 {
		return defaultAgentCapabilities
	}
	return ag.info.Capabilities
}

// inUse returns the persistent volumes that tasks use on the agent.
func (ag *agent) inUse() resources.Resources {
	var out resources.Resources
	for _, fwID := range sortedKeys(ag.allocated) {
		out.Add(ag.allocated[fwID].PersistentVolumes().Unallocate())
	}
	return out
}

// UpdateAllocation applies a framework's operations to resources it was
// offered (or holds) on an agent: reservations, volumes, resizes, and task
// launches, which turn offered resources into allocated ones. Operations are
// validated with package offer against the framework's roles, principal and
// capabilities and the agent's state, and applied in order, all or nothing.
// The agent's total follows the conversions. The rest of the offer stays
// offered; Accept also gives it back. No allocation is triggered.
func (a *Allocator) UpdateAllocation(fwID, agentID string, offered resources.Resources, ops []offer.Operation) error {
	_, err := a.updateAllocation(fwID, agentID, offered, ops)
	return err
}

// Accept is what a host does when a framework accepts an offer: it applies
// the operations (UpdateAllocation) and gives back the unused rest of the
// offered resources (RecoverResources) with the filter, if any.
func (a *Allocator) Accept(fwID, agentID string, offered resources.Resources, ops []offer.Operation, filter *Filter) error {
	accepted, err := a.updateAllocation(fwID, agentID, offered, ops)
	if err != nil {
		return err
	}
	if accepted.Unused.IsEmpty() {
		return nil
	}
	return a.RecoverResources(fwID, agentID, accepted.Unused, filter)
}

func (a *Allocator) updateAllocation(fwID, agentID string, offered resources.Resources, ops []offer.Operation) (offer.Accepted, error) {
	fw, err := a.framework(fwID)
	if err != nil {
		return offer.Accepted{}, err
	}
	ag, err := a.agent(agentID)
	if err != nil {
		return offer.Accepted{}, err
	}
	offered = offered.Clone()
	roles := offered.AllocationRoles()
	if len(roles) != 1 || roles[0] == "" {
		return offer.Accepted{}, fmt.Errorf("%w: offered resources must carry exactly one allocation role, have %q", ErrInvalidResources, roles)
	}
	role := roles[0]
	if !ag.held(fwID).Contains(offered) {
		return offer.Accepted{}, fmt.Errorf("%w: framework %q, agent %q: %s", ErrNotHeld, fwID, agentID, offered)
	}
	total := ag.total.Clone()
	ctx := offer.Context{
		Principal:             fw.info.Principal,
		Roles:                 fw.info.Roles,
		FrameworkCapabilities: fw.info.Capabilities,
		AgentCapabilities:     ag.capabilities(),
		InUse:                 ag.inUse(),
	}
	for i, op := range ops {
		ctx.Checkpointed = total
		if err := offer.Validate(op, ctx); err != nil {
			return offer.Accepted{}, fmt.Errorf("%w: operation %d (%s): %w", ErrOperation, i, op.Kind(), err)
		}
		if total, err = applyToTotal(total, op); err != nil {
			return offer.Accepted{}, fmt.Errorf("%w: operation %d (%s): %w", ErrOperation, i, op.Kind(), err)
		}
	}
	accepted, err := offer.Accept(offered, ops...)
	if err != nil {
		return offer.Accepted{}, fmt.Errorf("%w: %w", ErrOperation, err)
	}

	// Take the offered resources out of the framework's holdings (offered
	// part first), and put back what they became.
	takeFrom(ag.offered, ag.allocated, fwID, offered)
	if !accepted.Unused.IsEmpty() {
		cur := ag.offered[fwID]
		cur.Add(accepted.Unused)
		ag.offered[fwID] = cur
	}
	if !accepted.Launched.IsEmpty() {
		cur := ag.allocated[fwID]
		cur.Add(accepted.Launched)
		ag.allocated[fwID] = cur
	}
	_ = a.roleSorter.Update(role, agentID, offered, accepted.Resources)
	_ = a.frameworkSorters[role].Update(fwID, agentID, offered, accepted.Resources)
	a.trackHeld(role, offered.Unallocate(), false)
	a.trackHeld(role, accepted.Resources.Unallocate(), true)

	if !total.Equal(ag.total) {
		a.removeTotal(ag)
		ag.total = total
		a.addTotal(ag)
	} else {
		a.recomputeAvailable(ag)
	}
	return accepted, nil
}

// applyToTotal applies an operation's conversions, allocation roles
// stripped, to an agent's total. Conversions with nothing consumed (extra
// copies of a shared volume) leave the total alone.
func applyToTotal(total resources.Resources, op offer.Operation) (resources.Resources, error) {
	conversions, err := offer.Conversions(op)
	if err != nil {
		return total, err
	}
	for _, c := range conversions {
		consumed := c.Consumed.Unallocate()
		if consumed.IsEmpty() {
			continue
		}
		if !total.Contains(consumed) {
			return total, fmt.Errorf("%w: agent total does not contain %s", ErrNotHeld, consumed)
		}
		total = total.Minus(consumed).Plus(c.Converted.Unallocate())
	}
	return total, nil
}

// UpdateAvailable applies operator operations (reserve, unreserve, create,
// destroy, grow, shrink) to an agent's unallocated resources, as an
// operator's /reserve or /create-volumes request does. They are validated
// as operator requests and must apply to what is neither offered nor
// allocated; otherwise nothing changes. No allocation is triggered.
func (a *Allocator) UpdateAvailable(agentID string, ops []offer.Operation) error {
	ag, err := a.agent(agentID)
	if err != nil {
		return err
	}
	ctx := offer.Context{
		Operator:          true,
		AgentCapabilities: ag.capabilities(),
		InUse:             ag.inUse(),
	}
	total, available := ag.total.Clone(), ag.available.Clone()
	for i, op := range ops {
		if op.Kind() == offer.KindLaunch {
			return fmt.Errorf("%w: operation %d: operators cannot launch tasks", ErrOperation, i)
		}
		ctx.Checkpointed = total
		if err := offer.Validate(op, ctx); err != nil {
			return fmt.Errorf("%w: operation %d (%s): %w", ErrOperation, i, op.Kind(), err)
		}
		next, err := offer.Apply(available, op)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrNotAvailable, err)
		}
		available = next
		if total, err = applyToTotal(total, op); err != nil {
			return fmt.Errorf("%w: operation %d (%s): %w", ErrOperation, i, op.Kind(), err)
		}
	}
	a.removeTotal(ag)
	ag.total = total
	a.addTotal(ag)
	return nil
}
