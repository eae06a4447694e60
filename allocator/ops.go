package allocator

import (
	"fmt"
	"slices"

	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
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
	return a.operationContext(fw, ag), nil
}

func (a *Allocator) operationContext(fw *cluster.Framework, ag *cluster.Agent) offer.Context {
	return offer.Context{
		Principal:             fw.Info.Principal,
		Roles:                 slices.Clone(fw.Info.Roles),
		FrameworkCapabilities: fw.Info.Capabilities,
		AgentCapabilities:     ag.Capabilities(),
		Checkpointed:          ag.Total.Clone(),
		InUse:                 ag.InUse(),
	}
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
	return a.operatorContext(ag), nil
}

func (a *Allocator) operatorContext(ag *cluster.Agent) offer.Context {
	return offer.Context{
		Operator:          true,
		AgentCapabilities: ag.Capabilities(),
		Checkpointed:      ag.Total.Clone(),
		InUse:             ag.InUse(),
	}
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

// updateAllocationEvent is UpdateAllocation's handler (see events.go).
func (a *Allocator) updateAllocationEvent(fwID, agentID string, offered resources.Resources, ops []offer.Operation) error {
	_, err := a.updateAllocation(fwID, agentID, offered, ops)
	return err
}

// Accept is what a host does when a framework accepts an offer: it applies
// the operations (UpdateAllocation) and gives back the unused rest of the
// offered resources (RecoverResources) with the filter, if any.
func (a *Allocator) Accept(fwID, agentID string, offered resources.Resources, ops []offer.Operation, filter *Filter) error {
	return a.stepErr(Entry{Event: EventAccept, Framework: fwID, Agent: agentID, Resources: offered, Operations: ops, Filter: filter})
}

// accept is Accept's handler (see events.go).
func (a *Allocator) accept(fwID, agentID string, offered resources.Resources, ops []offer.Operation, filter *Filter) error {
	accepted, err := a.updateAllocation(fwID, agentID, offered, ops)
	if err != nil {
		return err
	}
	if accepted.Unused.IsEmpty() {
		return nil
	}
	return a.recover(fwID, agentID, accepted.Unused, filter, false)
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

// acceptEach is AcceptEach's handler (see events.go).
func (a *Allocator) acceptEach(fwID, agentID string, offered resources.Resources, ops []offer.Operation, filter *Filter) ([]error, error) {
	if _, err := a.cs.Framework(fwID); err != nil {
		return nil, err
	}
	ag, err := a.cs.Agent(agentID)
	if err != nil {
		return nil, err
	}
	if err := a.checkOffered(fwID, ag, offered); err != nil {
		return nil, err
	}
	results := make([]error, len(ops))
	left := offered.Clone()
	for i, op := range ops {
		accepted, err := a.updateAllocation(fwID, agentID, left, []offer.Operation{op})
		if err != nil {
			results[i] = err
			continue
		}
		left = accepted.Unused
	}
	if !left.IsEmpty() {
		if err := a.recover(fwID, agentID, left, filter, false); err != nil {
			// left is held: every step kept what it did not use offered.
			panic(fmt.Sprintf("allocator: AcceptEach: giving back the rest: %v", err))
		}
	}
	return results, nil
}

// planned is what operations on offered resources would do, worked out
// before anything changes.
type planned struct {
	// ops are the operations as applied (see Options.ReservedFirst).
	ops      []offer.Operation
	accepted offer.Applied
	// total is the agent's total after the conversions, removed and added
	// what they took from it and made.
	total, removed, added resources.Resources
}

// plan checks ops, applied to offered resources of fw in role, against ctx
// (the agent's checkpointed total and the volumes its tasks use), with the
// task ids of seen taken already (plan adds the new ones), and works out
// what they would do. It changes nothing in the allocator.
func (a *Allocator) plan(fw *cluster.Framework, ctx offer.Context, role string, offered resources.Resources, ops []offer.Operation, seen map[string]bool) (planned, error) {
	if a.opts.ReservedFirst {
		ops = reservedFirst(role, offered, ops)
	}
	p := planned{ops: ops, total: ctx.Checkpointed}
	for i, op := range ops {
		ctx.Checkpointed = p.total
		if err := offer.Validate(op, ctx); err != nil {
			return planned{}, fmt.Errorf("%w: operation %d (%s): %w", ErrOperation, i, offer.KindOf(op), err)
		}
		if err := checkNewTasks(fw, i, op, seen); err != nil {
			return planned{}, err
		}
		var err error
		if p.total, err = applyToTotal(p.total, op, &p.removed, &p.added); err != nil {
			return planned{}, fmt.Errorf("%w: operation %d (%s): %w", ErrOperation, i, offer.KindOf(op), err)
		}
	}
	var err error
	if p.accepted, err = offer.ApplyAll(offered, ops...); err != nil {
		return planned{}, fmt.Errorf("%w: %w", ErrOperation, err)
	}
	return p, nil
}

// checkEach reports whether AcceptEach would apply every one of ops: it
// works each out on the state the ones before it would leave, and changes
// nothing. A replayed accept-each entry, which holds the operations that
// were applied, must pass it.
func (a *Allocator) checkEach(fwID, agentID string, offered resources.Resources, ops []offer.Operation) error {
	fw, ag, err := a.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	role, err := offeredRole(fwID, ag, offered)
	if err != nil {
		return err
	}
	// What the framework is offered and uses there, as each operation
	// leaves it (as updateAllocationOps does: what an operation is given
	// is taken from what is offered first, then from what is used, and
	// what it leaves unused is offered); the volumes other frameworks'
	// tasks use stay.
	ctx, seen, left := a.operationContext(fw, ag), map[string]bool{}, offered.Clone()
	offeredToFw, used := ag.Offered.Get(fwID).Clone(), ag.Allocated.Get(fwID).Clone()
	others := ctx.InUse.Minus(used.PersistentVolumes().Unallocate())
	for i, op := range ops {
		ctx.InUse = others.Plus(used.PersistentVolumes().Unallocate())
		p, err := a.plan(fw, ctx, role, left, []offer.Operation{op}, seen)
		if err != nil {
			return fmt.Errorf("operation %d: %w", i, err)
		}
		fromOffered := left.Minus(left.Minus(offeredToFw))
		offeredToFw, used = offeredToFw.Minus(fromOffered).Plus(p.accepted.Unused), used.Minus(left.Minus(fromOffered)).Plus(p.accepted.Launched)
		left, ctx.Checkpointed = p.accepted.Unused, p.total
	}
	return nil
}

// checkOffered verifies that offered resources carry one allocation role
// and are held by the framework on the agent, and returns the role.
func (a *Allocator) checkOffered(fwID string, ag *cluster.Agent, offered resources.Resources) error {
	_, err := offeredRole(fwID, ag, offered)
	return err
}

func offeredRole(fwID string, ag *cluster.Agent, offered resources.Resources) (string, error) {
	roles := offered.AllocationRoles()
	if len(roles) != 1 || roles[0] == "" {
		return "", fmt.Errorf("%w: offered resources must carry exactly one allocation role, have %q", ErrInvalidResources, roles)
	}
	if !ag.OfferedOrUsed(fwID).Contains(offered) {
		return "", fmt.Errorf("%w: framework %q, agent %q: %s", ErrNotHeld, fwID, ag.ID, offered)
	}
	return roles[0], nil
}

func (a *Allocator) updateAllocation(fwID, agentID string, offered resources.Resources, ops []offer.Operation) (offer.Applied, error) {
	accepted, _, err := a.updateAllocationOps(fwID, agentID, offered, ops)
	return accepted, err
}

// updateAllocationOps applies ops as updateAllocation does and also returns
// them as applied (see reservedFirst).
func (a *Allocator) updateAllocationOps(fwID, agentID string, offered resources.Resources, ops []offer.Operation) (offer.Applied, []offer.Operation, error) {
	fw, ag, err := a.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return offer.Applied{}, nil, err
	}
	offered = offered.Clone()
	role, err := offeredRole(fwID, ag, offered)
	if err != nil {
		return offer.Applied{}, nil, err
	}
	p, err := a.plan(fw, a.operationContext(fw, ag), role, offered, ops, map[string]bool{})
	if err != nil {
		return offer.Applied{}, nil, err
	}
	accepted, ops, total, removed, added := p.accepted, p.ops, p.total, p.removed, p.added

	// Take the offered resources out of the framework's holdings (offered
	// part first), and put back what they became.
	taken, _ := books.TakeFrom(&ag.Offered, &ag.Allocated, fwID, offered)
	if !taken.IsEmpty() {
		ag.OffersTaken(fwID, role, taken, accepted.Unused)
	}
	if a.obs != nil {
		a.obs.Updated(fw.ID, role, offered, taken, accepted)
	}
	if !accepted.Unused.IsEmpty() {
		ag.Offered.Set(fwID, ag.Offered.Get(fwID).Plus(accepted.Unused))
	}
	if !accepted.Launched.IsEmpty() {
		ag.Allocated.Set(fwID, ag.Allocated.Get(fwID).Plus(accepted.Launched))
	}
	// Every task launched joins the ledger, one with no resources too: its
	// id is taken until it ends.
	a.tasks.Record(fw, agentID, role, ops)
	books.SorterUpdated(a.roleSorter.Sorter, role, agentID, offered, accepted.Resources)
	books.SorterUpdated(a.books.FrameworkSorter(role).Sorter, fwID, agentID, offered, accepted.Resources)
	a.books.TrackHeld(role, offered.Unallocate(), false)
	a.books.TrackHeld(role, accepted.Resources.Unallocate(), true)

	if !removed.IsEmpty() || !added.IsEmpty() {
		// Conversions keep every quantity: the cluster totals stay, only
		// reservations move in the role tree. What the framework holds
		// changed as the total did, so available stays too, unless shared
		// volumes (which stay available while held) were made or destroyed.
		// Add before removing: quantities saturate at zero, and what one
		// operation makes the next may consume.
		a.books.TrackReservations(added, true)
		a.books.TrackReservations(removed, false)
		ag.Total = total
		a.cs.SetFlags(ag)
		if !removed.Shared().IsEmpty() || !added.Shared().IsEmpty() {
			a.books.RecomputeAvailable(ag)
		}
	}
	return accepted, ops, nil
}

// applyToTotal applies an operation's conversions, allocation roles
// stripped, to an agent's total, and adds what they took and made to
// removed and added. Conversions with nothing consumed (extra copies of a
// shared volume) leave the total alone. The total passed in is not changed.
func applyToTotal(total resources.Resources, op offer.Operation, removed, added *resources.Resources) (resources.Resources, error) {
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
		converted := c.Converted.Unallocate()
		total = total.Minus(consumed).Plus(converted)
		removed.Add(consumed)
		added.Add(converted)
	}
	return total, nil
}

// UpdateAvailable applies operator operations (reserve, unreserve, create,
// destroy, grow, shrink) to an agent's unallocated resources, as an
// operator's /reserve or /create-volumes request does. They are validated
// as operator requests and must apply to what is neither offered nor
// allocated; otherwise nothing changes. No allocation is triggered.
func (a *Allocator) UpdateAvailable(agentID string, ops []offer.Operation) error {
	return a.stepErr(Entry{Event: EventUpdateAvailable, Agent: agentID, Operations: ops})
}

// updateAvailable is UpdateAvailable's handler (see events.go).
func (a *Allocator) updateAvailable(agentID string, ops []offer.Operation) error {
	ag, err := a.cs.Agent(agentID)
	if err != nil {
		return err
	}
	ctx := a.operatorContext(ag)
	total, available := ag.Total.Clone(), ag.Available.Clone()
	// Shared volumes stay available while frameworks hold them, but an
	// operator may not convert one that anybody holds.
	var heldShared resources.Resources
	for _, fwID := range ag.FrameworkIDs() {
		heldShared.Add(ag.Held(fwID).Shared().Unallocate())
	}
	for i, op := range ops {
		if offer.KindOf(op) == offer.KindLaunch {
			return fmt.Errorf("%w: operation %d: operators cannot launch tasks", ErrOperation, i)
		}
		ctx.Checkpointed = total
		if err := offer.Validate(op, ctx); err != nil {
			return fmt.Errorf("%w: operation %d (%s): %w", ErrOperation, i, offer.KindOf(op), err)
		}
		next, err := offer.Apply(available, op)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrNotAvailable, err)
		}
		available = next
		var removed, added resources.Resources
		if total, err = applyToTotal(total, op, &removed, &added); err != nil {
			return fmt.Errorf("%w: operation %d (%s): %w", ErrOperation, i, offer.KindOf(op), err)
		}
		for r := range removed.Shared().All() {
			if heldShared.ContainsResource(r) {
				return fmt.Errorf("%w: operation %d (%s): shared volume %s is offered or in use", ErrNotAvailable, i, offer.KindOf(op), r)
			}
		}
	}
	a.books.RemoveTotal(ag)
	ag.Total = total
	a.books.AddTotal(ag)
	return nil
}
