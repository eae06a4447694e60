package allocator

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// Holds: in-framework preemption.
//
// A host that preempts a framework's task to make room for another task of
// the same framework gives the task's resources back with RecoverHeld (or
// PreemptTask, for a task of the ledger): instead of going back to the
// common pool, they are held for the framework, in the role they were
// allocated to, and offered to it alone at the next run, ahead of every
// other offer on the agent. They stay held while the framework is inactive,
// has suppressed the role, or has a refusal filter that covers them, until
// the hold time runs out (what it can no longer take, having dropped a
// capability or being excluded from the agent by its constraints since, or
// what is below its minimum allocatable resources, goes back to the pool
// at once); then, at the first run
// after the expiry that looks at the agent (a run at the very instant
// still holds them, as with refusal filters), they go back to the pool. A
// periodic run looks at every agent: one it leaves out (inactive,
// over-allocated, off the whitelist) has its expired holds given back all
// the same. Declining the offer made from
// a hold gives the resources back to the pool as any decline does.
//
// While held, resources count in the framework's and its role's shares and
// in the role's quota consumption, exactly as when they were in use, so
// holding cannot be used to game fairness; they are neither available nor
// offered, so they count once. Removing the framework or the agent ends its
// holds.

// RecoverHeld gives back resources a framework uses on an agent (as
// RecoverAllocated does) but holds them for the framework for d: the next
// run offers them to it alone (see the package doc and holds.go). res must
// be among what the framework uses there, carry allocation roles, and hold
// no shared volume; d must be positive and at most MaxRefuse. It triggers an
// allocation of the agent.
func (a *Allocator) RecoverHeld(fwID, agentID string, res resources.Resources, d time.Duration) error {
	return a.stepErr(Entry{Event: EventRecoverHeld, Framework: fwID, Agent: agentID, Resources: res, Hold: d})
}

// recoverHeld is RecoverHeld's handler (see events.go).
func (a *Allocator) recoverHeld(fwID, agentID string, res resources.Resources, d time.Duration) error {
	fw, ag, err := a.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	if err := checkHold(res, d); err != nil {
		return err
	}
	if !ag.Allocated.Get(fwID).Contains(res) {
		return fmt.Errorf("%w: framework %q does not use %s on agent %q", ErrNotHeld, fwID, res, agentID)
	}
	a.holdFor(fw, ag, res, d)
	return nil
}

// PreemptTask ends a task of the ledger (see EndTask) and holds its
// resources for the framework for d, as RecoverHeld does. Shared volumes
// the task used are given back as EndTask gives them back.
func (a *Allocator) PreemptTask(fwID, taskID string, d time.Duration) error {
	return a.stepErr(Entry{Event: EventPreemptTask, Framework: fwID, Task: taskID, Hold: d})
}

// preemptTask is PreemptTask's handler (see events.go).
func (a *Allocator) preemptTask(fwID, taskID string, d time.Duration) error {
	fw, t, err := a.cs.Task(fwID, taskID)
	if err != nil {
		return err
	}
	held := t.Owns.NonShared()
	if err := checkHold(held, d); err != nil {
		return err
	}
	ag := a.cs.Agents.Get(t.Agent)
	if !ag.Allocated.Get(fwID).Contains(held) {
		return fmt.Errorf("%w: framework %q, task %q on agent %q: %s (given back already?)", ErrNotHeld, fwID, taskID, t.Agent, held)
	}
	if shared := t.Owns.Shared(); !shared.IsEmpty() {
		// The task's shared volumes go as EndTask lets them go; its other
		// resources are held. EndTask refuses before it changes anything,
		// and then the task owns what it owned.
		owns := t.Owns
		t.Owns = shared
		if err := a.endTask(fwID, taskID); err != nil {
			t.Owns = owns
			return err
		}
	} else {
		a.tasks.Forget(fw, t)
	}
	a.holdFor(fw, ag, held, d)
	return nil
}

func checkHold(res resources.Resources, d time.Duration) error {
	if d <= 0 || d > MaxRefuse {
		return fmt.Errorf("%w: hold of %s, want a positive duration of at most %s", ErrInvalidHold, d, MaxRefuse)
	}
	if res.IsEmpty() {
		return fmt.Errorf("%w: nothing to hold", ErrInvalidHold)
	}
	if res.HasShared() {
		return fmt.Errorf("%w: shared volumes stay available and cannot be held: %s", ErrInvalidHold, res.Shared())
	}
	if role, single := res.AllocationRole(); (single && role == "") || (!single && slices.Contains(res.AllocationRoles(), "")) {
		return fmt.Errorf("%w: %s has no allocation role", ErrInvalidResources, res)
	}
	return nil
}

// holdFor moves res (checked) from what fw uses on ag to a hold for it.
// Nothing else changes: held resources count as they did in use.
func (a *Allocator) holdFor(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, d time.Duration) {
	ag.Allocated.Set(fw.ID, ag.Allocated.Get(fw.ID).Minus(res))
	ag.More().Holds.Add(fw.ID, res.Clone(), a.opts.Clock().Add(d))
	a.wantsRun(ag)
}

// holdFreed holds what a task chosen to end (p) freed on ag, back in the
// agent's available pool, for the framework it was chosen for, in the role
// it is held in (the role it was chosen for, or a sub-role of it): of its
// unreserved, non-revocable, non-shared scalars, the room it was chosen
// to make for the pending task. The rest stays in the pool.
//
// What of its room it cannot hold (a quota limit leaves too little until
// the group's other victims end: those in the limited role's subtree
// give back what it consumes) passes to another victim of its group not
// ended yet, and the last one to end holds what is left of the room from
// what is available on the agent: what the others freed and could not
// hold went back there. So the room is whole when the last victim ends,
// whichever ends first.
func (a *Allocator) holdFreed(p *reclaim.Choice, ag *cluster.Agent, freed resources.Resources) {
	var next *reclaim.Choice
	var nextRef reclaim.TaskRef
	for ref, c := range a.reclaims.Choices {
		if c.Group == p.Group && (next == nil || ref.Compare(nextRef) < 0) {
			next, nextRef = c, ref
		}
	}
	from := plainScalars(freed.NonShared().Unallocate())
	if next == nil {
		from = plainScalars(ag.Available)
	}
	held := a.holdRoom(p.ForFramework, p.HeldIn, ag, from, p.Room)
	if rest := p.Room.Minus(held); next != nil && !rest.IsEmpty() {
		next.Room = next.Room.Plus(rest)
	}
}

// plainScalars returns the unreserved, non-revocable scalars of res: what
// quota counts, and what reclaim holds.
func plainScalars(res resources.Resources) resources.Resources {
	return res.Filter(func(x resources.Resource) bool {
		return x.Type == resources.ScalarType && !x.IsReserved() && !x.Revocable
	})
}

// holdRoom holds on ag, for framework fwID in role, what of from (taken
// from what is available there) fits want, and no more than the role's
// quota limits (and its ancestors') leave it; nothing when the framework
// left or no longer subscribes to the role. The hold lasts as long as a
// choice does (reclaimTimeout), and is offered once no room for the
// framework on the agent waits for a victim (offerHolds). It returns what
// it held.
func (a *Allocator) holdRoom(fwID, role string, ag *cluster.Agent, from resources.Resources, want resources.Quantities) resources.Quantities {
	fw := a.cs.Frameworks.Get(fwID)
	node := a.roles.Get(role)
	if fw == nil || !fw.Roles.Has(role, tables.Subscribed) || node == nil || node.FrameworkSorter == nil || ag.OverAllocated {
		return resources.Quantities{}
	}
	if left, limited := a.roles.LimitHeadroom(node); limited {
		want = left.Cap(want)
	}
	plain := from.Shrink(want, nil)
	if plain.IsEmpty() || !ag.Available.Contains(plain) {
		return resources.Quantities{}
	}
	held := plain.Allocate(role).Frozen()
	a.trackOffer(fw, ag, role, node, node.FrameworkSorter, held, plain, false)
	ag.Offered.Set(fw.ID, ag.Offered.Get(fw.ID).Minus(held))
	ag.More().Holds.Add(fw.ID, held, a.opts.Clock().Add(a.reclaimTimeout()))
	if a.obs != nil {
		a.ch.Load(held)
		a.obs.Held(fw.ID, role, a.ch.Q, resources.Quantities{}, false)
		a.obs.Held(fw.ID, role, resources.Quantities{}, a.ch.Q, true)
	}
	a.parking.Uncapped()
	a.wantsRun(ag)
	return plain.Quantities()
}

// roomPending reports whether a task chosen to end on the agent makes
// room for a task of the framework: what is held for it there waits for
// the rest of the room.
func (a *Allocator) roomPending(fwID, agentID string) bool {
	for ref, c := range a.reclaims.Choices {
		if c.ForFramework != fwID {
			continue
		}
		if fw := a.cs.Frameworks.Get(ref.Framework); fw != nil {
			if t := fw.Tasks[ref.Task]; t != nil && t.Agent == agentID {
				return true
			}
		}
	}
	return false
}

// holdsToOffered turns fw's holds on ag (every framework's when fwID is "")
// into offered resources, so that the usual paths give them back.
func (a *Allocator) holdsToOffered(ag *cluster.Agent, fwID string) {
	if ag.Rare == nil {
		return
	}
	ag.Rare.Holds.Release(fwID, func(h cluster.Hold) {
		a.heldToOffered(a.cs.Frameworks.Get(h.Framework), ag, h.Res)
	})
}

// heldToOffered moves res, held for fw on ag, to what fw is offered there.
// The Observer counts held resources as allocated (they are charged as
// they were in use), so it is told they moved.
func (a *Allocator) heldToOffered(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources) {
	ag.Offered.Set(fw.ID, ag.Offered.Get(fw.ID).Plus(res))
	if a.obs == nil {
		return
	}
	for _, role := range res.AllocationRoles() {
		a.ch.Load(res.AllocatedTo(role))
		a.obs.Held(fw.ID, role, resources.Quantities{}, a.ch.Q, false)
		a.obs.Held(fw.ID, role, a.ch.Q, resources.Quantities{}, true)
	}
}

// offerHolds makes, at the start of a run, the offers of what the
// candidate agents hold for frameworks, and gives back to the pool the
// holds that expired before the run's instant.
func (a *Allocator) offerHolds(r *run, agents []*cluster.Agent) {
	for _, ag := range agents {
		if len(ag.Holds()) > 0 && r.stage1 == nil {
			// Offers from holds are recorded as stage one's are, so that
			// a later offer to the same framework, role and agent joins.
			r.stage1 = map[explain.OfferKey]int{}
		}
		if len(ag.Holds()) == 0 {
			continue
		}
		sweepHolds(ag, func(h cluster.Hold, keep func(cluster.Hold)) {
			fw := a.cs.Frameworks.Get(h.Framework)
			switch {
			case r.now.After(h.Until):
				a.heldToOffered(fw, ag, h.Res)
				a.books.UntrackAllocation(fw, ag, h.Res, false)
			case !fw.Active, a.roomPending(fw.ID, ag.ID):
				keep(h)
			default:
				for _, role := range h.Res.AllocationRoles() {
					part := h.Res.AllocatedTo(role)
					if fw.Roles.Has(role, tables.Suppressed) || !fw.Roles.Has(role, tables.Subscribed) {
						keep(cluster.Hold{Framework: h.Framework, Res: part.Frozen(), Until: h.Until})
						continue
					}
					// What the framework can no longer take (it dropped a
					// capability, or its constraints now exclude the
					// agent), or too little to offer, goes back to the pool
					// now.
					capable := stripIncapable(part, fw.Info.Capabilities)
					if !a.allocatable(capable.Unallocate(), role, fw) || !a.capableOfAgent(fw, ag) {
						capable = resources.Resources{}
					}
					if cs, ok := fw.Info.Constraints[role]; ok && !cs.Admits(ag.Info.Attributes) {
						capable = resources.Resources{}
					}
					if !capable.Equal(part) {
						rest := part.Minus(capable)
						a.heldToOffered(fw, ag, rest)
						a.books.UntrackAllocation(fw, ag, rest, false)
						part = capable
						if part.IsEmpty() {
							continue
						}
					}
					// A refusal filter of the framework that covers the
					// held resources keeps them held, not offered.
					if filtered, _ := a.dec.IsFiltered(fw, role, ag, part.Unallocate(), false, r.now, r.periodic); filtered {
						keep(cluster.Hold{Framework: h.Framework, Res: part.Frozen(), Until: h.Until})
						continue
					}
					a.heldToOffered(fw, ag, part)
					a.record(r, ag, explain.OfferKey{Framework: fw.ID, Role: role, Agent: ag.ID}, part.Frozen(), true, false)
					// As any offer, it is counted off what the framework
					// states it waits for: else reclaim would make room
					// again for the task this hold was made for.
					a.consumeDemand(fw, role, part, -1)
				}
			}
		})
	}
}

// releaseExpiredHolds gives back the holds on ag whose time ran out, for an
// agent the run leaves out (inactive, over-allocated, off the whitelist),
// whose holds offerHolds does not see: a hold ends on time wherever its
// agent is, and stops counting for its framework and role.
func (a *Allocator) releaseExpiredHolds(r *run, ag *cluster.Agent) {
	if len(ag.Holds()) == 0 {
		return
	}
	sweepHolds(ag, func(h cluster.Hold, keep func(cluster.Hold)) {
		if !r.now.After(h.Until) {
			keep(h)
			return
		}
		fw := a.cs.Frameworks.Get(h.Framework)
		a.heldToOffered(fw, ag, h.Res)
		a.books.UntrackAllocation(fw, ag, h.Res, false)
	})
}

// sweepHolds looks at each of ag's holds in turn; what visit keeps of it
// (nothing, all of it, or parts) stays held. While a hold is looked at, the
// agent's holds are those kept so far and those not yet looked at: what a
// hold gives back must not count as still held, but the others must (a
// framework's role stays tracked while a hold in it remains).
func sweepHolds(ag *cluster.Agent, visit func(h cluster.Hold, keep func(cluster.Hold))) {
	rare := ag.Rare
	holds := rare.Holds
	var kept []cluster.Hold
	keep := func(h cluster.Hold) { kept = append(kept, h) }
	for i, h := range holds {
		rare.Holds = slices.Concat(kept, holds[i+1:])
		visit(h, keep)
	}
	rare.Holds = kept
}
