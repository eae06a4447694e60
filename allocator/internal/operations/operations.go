package operations

import (
	"fmt"
	"slices"

	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Operations validates the operations frameworks and operators send and
// applies them to the books.
type Operations struct {
	Cluster *cluster.State
	Books   *books.Books
	// Tasks is the task ledger: every task launched joins it.
	Tasks *cluster.Ledger
	// ReservedFirst moves launches onto the reservations free in the
	// offer first (see ReservedFirst).
	ReservedFirst bool
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

func (o *Operations) FrameworkContext(fw *cluster.Framework, ag *cluster.Agent) offer.Context {
	return offer.Context{
		Principal:             fw.Info.Principal,
		Roles:                 slices.Clone(fw.Info.Roles),
		FrameworkCapabilities: fw.Info.Capabilities,
		AgentCapabilities:     ag.Capabilities(),
		Checkpointed:          ag.Total.Clone(),
		InUse:                 ag.InUse(),
	}
}

func (o *Operations) OperatorContext(ag *cluster.Agent) offer.Context {
	return offer.Context{
		Operator:          true,
		AgentCapabilities: ag.Capabilities(),
		Checkpointed:      ag.Total.Clone(),
		InUse:             ag.InUse(),
	}
}

// plan checks ops, applied to offered resources of fw in role, against ctx
// (the agent's checkpointed total and the volumes its tasks use), with the
// task ids of seen taken already (plan adds the new ones), and works out
// what they would do. It changes nothing in the allocator.
func (o *Operations) plan(fw *cluster.Framework, ctx offer.Context, role string, offered resources.Resources, ops []offer.Operation, seen map[string]bool) (planned, error) {
	if o.ReservedFirst {
		ops = ReservedFirst(role, offered, ops)
	}
	p := planned{ops: ops, total: ctx.Checkpointed}
	for i, op := range ops {
		ctx.Checkpointed = p.total
		if err := offer.Validate(op, ctx); err != nil {
			return planned{}, fmt.Errorf("%w: operation %d (%s): %w", cluster.ErrOperation, i, offer.KindOf(op), err)
		}
		if err := checkNewTasks(fw, i, op, seen); err != nil {
			return planned{}, err
		}
		var err error
		if p.total, err = applyToTotal(p.total, op, &p.removed, &p.added); err != nil {
			return planned{}, fmt.Errorf("%w: operation %d (%s): %w", cluster.ErrOperation, i, offer.KindOf(op), err)
		}
	}
	var err error
	if p.accepted, err = offer.ApplyAll(offered, ops...); err != nil {
		return planned{}, fmt.Errorf("%w: %w", cluster.ErrOperation, err)
	}
	return p, nil
}

// CheckEach reports whether AcceptEach would apply every one of ops: it
// works each out on the state the ones before it would leave, and changes
// nothing. A replayed accept-each entry, which holds the operations that
// were applied, must pass it.
func (o *Operations) CheckEach(fwID, agentID string, offered resources.Resources, ops []offer.Operation) error {
	fw, ag, err := o.Cluster.FrameworkOn(fwID, agentID)
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
	ctx, seen, left := o.FrameworkContext(fw, ag), map[string]bool{}, offered.Clone()
	offeredToFw, used := ag.Offered.Get(fwID).Clone(), ag.Allocated.Get(fwID).Clone()
	others := ctx.InUse.Minus(used.PersistentVolumes().Unallocate())
	for i, op := range ops {
		ctx.InUse = others.Plus(used.PersistentVolumes().Unallocate())
		p, err := o.plan(fw, ctx, role, left, []offer.Operation{op}, seen)
		if err != nil {
			return fmt.Errorf("operation %d: %w", i, err)
		}
		fromOffered := left.Minus(left.Minus(offeredToFw))
		offeredToFw, used = offeredToFw.Minus(fromOffered).Plus(p.accepted.Unused), used.Minus(left.Minus(fromOffered)).Plus(p.accepted.Launched)
		left, ctx.Checkpointed = p.accepted.Unused, p.total
	}
	return nil
}

// CheckOffered verifies that offered resources carry one allocation role
// and are held by the framework on the agent, and returns the role.
func (o *Operations) CheckOffered(fwID string, ag *cluster.Agent, offered resources.Resources) error {
	_, err := offeredRole(fwID, ag, offered)
	return err
}

func offeredRole(fwID string, ag *cluster.Agent, offered resources.Resources) (string, error) {
	roles := offered.AllocationRoles()
	if len(roles) != 1 || roles[0] == "" {
		return "", fmt.Errorf("%w: offered resources must carry exactly one allocation role, have %q", cluster.ErrInvalidResources, roles)
	}
	if !ag.OfferedOrUsed(fwID).Contains(offered) {
		return "", fmt.Errorf("%w: framework %q, agent %q: %s", cluster.ErrNotHeld, fwID, ag.ID, offered)
	}
	return roles[0], nil
}

func (o *Operations) Update(fwID, agentID string, offered resources.Resources, ops []offer.Operation) (offer.Applied, error) {
	accepted, _, err := o.UpdateOps(fwID, agentID, offered, ops)
	return accepted, err
}

// UpdateOps applies ops as updateAllocation does and also returns
// them as applied (see reservedFirst).
func (o *Operations) UpdateOps(fwID, agentID string, offered resources.Resources, ops []offer.Operation) (offer.Applied, []offer.Operation, error) {
	fw, ag, err := o.Cluster.FrameworkOn(fwID, agentID)
	if err != nil {
		return offer.Applied{}, nil, err
	}
	offered = offered.Clone()
	role, err := offeredRole(fwID, ag, offered)
	if err != nil {
		return offer.Applied{}, nil, err
	}
	p, err := o.plan(fw, o.FrameworkContext(fw, ag), role, offered, ops, map[string]bool{})
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
	if o.Books.Observer != nil {
		o.Books.Observer.Updated(fw.ID, role, offered, taken, accepted)
	}
	if !accepted.Unused.IsEmpty() {
		ag.Offered.Set(fwID, ag.Offered.Get(fwID).Plus(accepted.Unused))
	}
	if !accepted.Launched.IsEmpty() {
		ag.Allocated.Set(fwID, ag.Allocated.Get(fwID).Plus(accepted.Launched))
	}
	// Every task launched joins the ledger, one with no resources too: its
	// id is taken until it ends.
	o.Tasks.Record(fw, agentID, role, ops)
	books.SorterUpdated(o.Books.RoleSorter.Sorter, role, agentID, offered, accepted.Resources)
	books.SorterUpdated(o.Books.FrameworkSorter(role).Sorter, fwID, agentID, offered, accepted.Resources)
	o.Books.TrackHeld(role, offered.Unallocate(), false)
	o.Books.TrackHeld(role, accepted.Resources.Unallocate(), true)

	if !removed.IsEmpty() || !added.IsEmpty() {
		// Conversions keep every quantity: the cluster totals stay, only
		// reservations move in the role tree. What the framework holds
		// changed as the total did, so available stays too, unless shared
		// volumes (which stay available while held) were made or destroyed.
		// Add before removing: quantities saturate at zero, and what one
		// operation makes the next may consume.
		o.Books.TrackReservations(added, true)
		o.Books.TrackReservations(removed, false)
		ag.Total = total
		o.Cluster.SetFlags(ag)
		if !removed.Shared().IsEmpty() || !added.Shared().IsEmpty() {
			o.Books.RecomputeAvailable(ag)
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
			return total, fmt.Errorf("%w: agent total does not contain %s", cluster.ErrNotHeld, consumed)
		}
		converted := c.Converted.Unallocate()
		total = total.Minus(consumed).Plus(converted)
		removed.Add(consumed)
		added.Add(converted)
	}
	return total, nil
}

// UpdateAvailable is UpdateAvailable's handler (see events.go).
func (o *Operations) UpdateAvailable(agentID string, ops []offer.Operation) error {
	ag, err := o.Cluster.Agent(agentID)
	if err != nil {
		return err
	}
	ctx := o.OperatorContext(ag)
	total, available := ag.Total.Clone(), ag.Available.Clone()
	// Shared volumes stay available while frameworks hold them, but an
	// operator may not convert one that anybody holds.
	var heldShared resources.Resources
	for _, fwID := range ag.FrameworkIDs() {
		heldShared.Add(ag.Held(fwID).Shared().Unallocate())
	}
	for i, op := range ops {
		if offer.KindOf(op) == offer.KindLaunch {
			return fmt.Errorf("%w: operation %d: operators cannot launch tasks", cluster.ErrOperation, i)
		}
		ctx.Checkpointed = total
		if err := offer.Validate(op, ctx); err != nil {
			return fmt.Errorf("%w: operation %d (%s): %w", cluster.ErrOperation, i, offer.KindOf(op), err)
		}
		next, err := offer.Apply(available, op)
		if err != nil {
			return fmt.Errorf("%w: %w", cluster.ErrNotAvailable, err)
		}
		available = next
		var removed, added resources.Resources
		if total, err = applyToTotal(total, op, &removed, &added); err != nil {
			return fmt.Errorf("%w: operation %d (%s): %w", cluster.ErrOperation, i, offer.KindOf(op), err)
		}
		for r := range removed.Shared().All() {
			if heldShared.ContainsResource(r) {
				return fmt.Errorf("%w: operation %d (%s): shared volume %s is offered or in use", cluster.ErrNotAvailable, i, offer.KindOf(op), r)
			}
		}
	}
	o.Books.RemoveTotal(ag)
	ag.Total = total
	o.Books.AddTotal(ag)
	return nil
}

// checkNewTasks refuses a launch (operation i of a call) whose task ids the
// framework already runs, or that an earlier launch of the call used (seen,
// which it extends).
func checkNewTasks(fw *cluster.Framework, i int, op offer.Operation, seen map[string]bool) error {
	l, ok := cluster.LaunchOf(op)
	if !ok {
		return nil
	}
	for _, t := range l.Tasks {
		if _, running := fw.Tasks[t.ID]; running || seen[t.ID] {
			return fmt.Errorf("%w: operation %d (LAUNCH): framework %q already runs a task %q", cluster.ErrDuplicateTask, i, fw.ID, t.ID)
		}
	}
	for _, t := range l.Tasks {
		seen[t.ID] = true
	}
	return nil
}
