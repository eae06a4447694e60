package run

import (
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// Holds (package allocator's doc says what a host sees of them): a run
// offers what is held for a framework to it alone, ahead of every other
// offer on the agent, and gives back to the pool what expired or what the
// framework can no longer take; a room reclaim chose is held as its
// victims end.

// HoldFreed holds what a task chosen to end (p) freed on ag, back in the
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
func (e *Engine) HoldFreed(p *reclaim.Choice, ag *cluster.Agent, freed resources.Resources) {
	var next *reclaim.Choice
	var nextRef reclaim.TaskRef
	for ref, c := range e.reclaims.Choices {
		if c.Group == p.Group && (next == nil || ref.Compare(nextRef) < 0) {
			next, nextRef = c, ref
		}
	}
	from := plainScalars(freed.NonShared().Unallocate())
	if next == nil {
		from = plainScalars(ag.Available)
	}
	held := e.holdRoom(p.ForFramework, p.HeldIn, ag, from, p.Room)
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
func (e *Engine) holdRoom(fwID, role string, ag *cluster.Agent, from resources.Resources, want resources.Quantities) resources.Quantities {
	fw := e.cs.Frameworks.Get(fwID)
	node := e.roles.Get(role)
	if fw == nil || !fw.Roles.Has(role, tables.Subscribed) || node == nil || node.FrameworkSorter == nil || ag.OverAllocated {
		return resources.Quantities{}
	}
	if left, limited := e.roles.LimitHeadroom(node); limited {
		want = left.Cap(want)
	}
	plain := from.Shrink(want, nil)
	if plain.IsEmpty() || !ag.Available.Contains(plain) {
		return resources.Quantities{}
	}
	held := plain.Allocate(role).Frozen()
	e.trackOffer(fw, ag, role, node, node.FrameworkSorter, held, plain, false)
	ag.Offered.Set(fw.ID, ag.Offered.Get(fw.ID).Minus(held))
	ag.More().Holds.Add(fw.ID, held, e.opts.Clock().Add(e.reclaimTimeout()))
	if e.obs != nil {
		e.ch.Load(held)
		e.obs.Held(fw.ID, role, e.ch.Q, resources.Quantities{}, false)
		e.obs.Held(fw.ID, role, resources.Quantities{}, e.ch.Q, true)
	}
	e.parking.Uncapped()
	e.WantsRun(ag)
	return plain.Quantities()
}

// roomPending reports whether a task chosen to end on the agent makes
// room for a task of the framework: what is held for it there waits for
// the rest of the room.
func (e *Engine) roomPending(fwID, agentID string) bool {
	for ref, c := range e.reclaims.Choices {
		if c.ForFramework != fwID {
			continue
		}
		if fw := e.cs.Frameworks.Get(ref.Framework); fw != nil {
			if t := fw.Tasks[ref.Task]; t != nil && t.Agent == agentID {
				return true
			}
		}
	}
	return false
}

// HoldsToOffered turns fw's holds on ag (every framework's when fwID is "")
// into offered resources, so that the usual paths give them back.
func (e *Engine) HoldsToOffered(ag *cluster.Agent, fwID string) {
	if ag.Rare == nil {
		return
	}
	ag.Rare.Holds.Release(fwID, func(h cluster.Hold) {
		e.heldToOffered(e.cs.Frameworks.Get(h.Framework), ag, h.Res)
	})
}

// heldToOffered moves res, held for fw on ag, to what fw is offered there.
// The Observer counts held resources as allocated (they are charged as
// they were in use), so it is told they moved.
func (e *Engine) heldToOffered(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources) {
	ag.Offered.Set(fw.ID, ag.Offered.Get(fw.ID).Plus(res))
	if e.obs == nil {
		return
	}
	for _, role := range res.AllocationRoles() {
		e.ch.Load(res.AllocatedTo(role))
		e.obs.Held(fw.ID, role, resources.Quantities{}, e.ch.Q, false)
		e.obs.Held(fw.ID, role, e.ch.Q, resources.Quantities{}, true)
	}
}

// offerHolds makes, at the start of a run, the offers of what the
// candidate agents hold for frameworks, and gives back to the pool the
// holds that expired before the run's instant.
func (e *Engine) offerHolds(r *runState, agents []*cluster.Agent) {
	for _, ag := range agents {
		if len(ag.Holds()) == 0 {
			continue
		}
		if r.stage1 == nil {
			// Offers from holds are recorded as stage one's are, so that
			// a later offer to the same framework, role and agent joins.
			r.stage1 = map[explain.OfferKey]int{}
		}
		from := len(r.offers)
		sweepHolds(ag, func(h cluster.Hold, keep func(cluster.Hold)) {
			fw := e.cs.Frameworks.Get(h.Framework)
			switch {
			case r.now.After(h.Until):
				e.heldToOffered(fw, ag, h.Res)
				e.books.UntrackAllocation(fw, ag, h.Res, false)
			case !fw.Active, e.roomPending(fw.ID, ag.ID):
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
					capable := StripIncapable(part, fw.Info.Capabilities)
					if !e.allocatable(capable.Unallocate(), role, fw) || !e.capableOfAgent(fw, ag) {
						capable = resources.Resources{}
					}
					if cs, ok := fw.Info.Constraints[role]; ok && !cs.Admits(ag.Info.Attributes) {
						capable = resources.Resources{}
					}
					if !capable.Equal(part) {
						rest := part.Minus(capable)
						e.heldToOffered(fw, ag, rest)
						e.books.UntrackAllocation(fw, ag, rest, false)
						part = capable
						if part.IsEmpty() {
							continue
						}
					}
					// A refusal filter of the framework that covers the
					// held resources keeps them held, not offered.
					if filtered, _ := e.dec.IsFiltered(fw, role, ag, part.Unallocate(), false, r.now, r.periodic); filtered {
						keep(cluster.Hold{Framework: h.Framework, Res: part.Frozen(), Until: h.Until})
						continue
					}
					e.heldToOffered(fw, ag, part)
					e.record(r, ag, explain.OfferKey{Framework: fw.ID, Role: role, Agent: ag.ID}, part.Frozen(), true)
				}
			}
		})
		// As any offer, what the holds offer is counted off what the
		// framework states it waits for: else reclaim would make room
		// again for the task the holds were made for. It is counted once
		// an offer, not once a hold: the holds of one framework and role
		// on the agent make one offer, and a room its victims freed one
		// by one is held in several holds that hold the task only
		// together.
		for i := from; i < len(r.offers); i++ {
			o := &r.offers[i]
			e.consumeDemand(e.cs.Frameworks.Get(o.Key.Framework), o.Key.Role, o.Res, -1)
		}
	}
}

// releaseExpiredHolds gives back the holds on ag whose time ran out, for an
// agent the run leaves out (inactive, over-allocated, off the whitelist),
// whose holds offerHolds does not see: a hold ends on time wherever its
// agent is, and stops counting for its framework and role.
func (e *Engine) releaseExpiredHolds(r *runState, ag *cluster.Agent) {
	if len(ag.Holds()) == 0 {
		return
	}
	sweepHolds(ag, func(h cluster.Hold, keep func(cluster.Hold)) {
		if !r.now.After(h.Until) {
			keep(h)
			return
		}
		fw := e.cs.Frameworks.Get(h.Framework)
		e.heldToOffered(fw, ag, h.Res)
		e.books.UntrackAllocation(fw, ag, h.Res, false)
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
