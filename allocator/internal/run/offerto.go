package run

import (
	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// offerTo makes fw an offer on ag in role (its node and framework sorter
// fs) if it can take one. It returns what it did and, for an offer, the
// unreserved non-revocable quantities offered.
func (e *Engine) offerTo(r *runState, ag *cluster.Agent, fw *cluster.Framework, role string, node *roles.Node, fs *roles.TrackedSorter, st cluster.Stage, unsatisfied resources.Quantities) (outcome, resources.Quantities) {
	if fw == nil {
		return passed, resources.Quantities{}
	}
	if st == stageFairShare && len(r.offers) > r.agentOffers && e.offeredHere(r, fw, role) {
		// A walk after an offer sized to a pending task (demand.go) meets
		// frameworks offered something here already: only one whose
		// offers are sized to its tasks may be offered more, in the same
		// offer; the others had what the stage gives them here.
		if _, stated := fw.PendingIn(role); !stated || e.opts.WholeOffers {
			r.stable = false // no pass of its own: not a verdict to keep
			return passed, resources.Quantities{}
		}
	}
	if fw.Info.Constraints != nil {
		if cs, ok := fw.Info.Constraints[role]; ok && !cs.Admits(ag.Info.Attributes) {
			return e.passOver(r, fw, ag, node, st, explain.Constraints, resources.Quantities{})
		}
	}
	// available is read-only below: on the common path it is the agent's
	// own value.
	available := ag.Available
	// whole: available is still all of the agent's available resources.
	whole := true
	if ag.HasReserved {
		available, whole = available.AllocatableTo(role), false
	}
	if shared, ok := r.offeredShared[ag.ID]; ok {
		available, whole = available.Minus(shared), false
	}
	if available.IsEmpty() {
		return exhausted, resources.Quantities{}
	}
	if !e.allocatable(available, role, fw) {
		return e.passOver(r, fw, ag, node, st, explain.MinAllocatable, available.Quantities())
	}
	if !e.capableOfAgent(fw, ag) {
		at := len(e.explain.Passes)
		out, q := e.passOver(r, fw, ag, node, st, explain.Incapable, resources.Quantities{})
		e.explain.Missing(at, e.AgentMissing(fw, ag))
		return out, q
	}
	if ag.HasShared || ag.HasRevocable || ag.HasRefined {
		before := available
		available, whole = StripIncapable(available, fw.Info.Capabilities), false
		if available.IsEmpty() {
			at := len(e.explain.Passes)
			out, q := e.passOver(r, fw, ag, node, st, explain.Incapable, resources.Quantities{})
			e.explain.Missing(at, strippedMissing(before, fw.Info.Capabilities))
			return out, q
		}
	}

	toOffer := available
	// uncut is what quota governs of the offer before any cut.
	var guaranteed, additional, uncut resources.Resources
	// guaranteedQ and gotQ are, in stage one, what the offer counts
	// towards the role's guarantees and what it holds of quota's part.
	var guaranteedQ, gotQ resources.Quantities
	cutByLimit, cutByHeadroom, cutByShare := false, false, false
	// limitsOnly is the offer as the limits alone left it, kept when the
	// headroom cut it further (to name the cut that binds).
	var limitsOnly resources.Resources
	limits, limited := resources.Limits{}, false
	if r.quota {
		limits, limited = e.roles.LimitHeadroom(node)
	}
	split := st == stageFairShare && e.opts.OfferShare > 0 && e.opts.OfferShare < 1
	if st == stageGuarantees || limited || !r.requiredHeadroom.IsEmpty() || split {
		// Split into what quota governs (unreserved, non-revocable scalars)
		// and the rest (reservations, non-scalars, revocable).
		cut := e.cutOrder(r, st, ag.ID, fw.ID, role)
		quotaPart, rest := available.QuotaPart()
		uncut = quotaPart
		if st == stageGuarantees {
			// Guarantees never take the role or an ancestor past a limit.
			if limited {
				unsatisfied = limits.Cap(unsatisfied)
			}
			guaranteed = quotaPart.Shrink(unsatisfied, cut)
			if guaranteed.IsEmpty() {
				return passed, resources.Quantities{}
			}
			guaranteedQ = guaranteed.Quantities()
			// Stage one offers only the role's own reservations; ancestors'
			// reservations wait for the fair-share stage.
			rest = rest.Filter(func(x resources.Resource) bool { return !x.IsReserved() || x.Role() == role })
			quotaPart = quotaPart.Minus(guaranteed)
			rest.Add(guaranteed)
		}
		additional = quotaPart
		if limited {
			if st == stageGuarantees {
				limits = limits.Subtract(guaranteed.Quantities())
			}
			before := additional.Len()
			additional = additional.ShrinkToLimits(limits, cut)
			cutByLimit = !additional.Equal(quotaPart) || additional.Len() != before
		}
		if !r.requiredHeadroom.IsEmpty() {
			// The guaranteed part lowers the free headroom by all of it,
			// the required headroom by what the role's subtree's need
			// falls (less than all of it where a descendant's guarantee
			// decides that need): the spare is what it was before this
			// offer less the difference.
			spare := e.cs.FreeHeadroom.Minus(r.requiredHeadroom)
			if st == stageGuarantees {
				e.roles.NeedFallInto(node, guaranteedQ, &r.needFall)
				spare = spare.Minus(guaranteedQ.Minus(r.needFall))
			}
			capped := additional.Shrink(spare, cut)
			cutByHeadroom = !capped.Equal(additional)
			if cutByHeadroom && cutByLimit {
				limitsOnly = rest.Plus(additional)
			}
			additional = capped
		}
		if split {
			before := additional
			additional = additional.ShrinkToLimits(e.offerShareOf(ag), cut)
			cutByShare = additional.Len() != before.Len() || !additional.Equal(before)
		}
		rest.Add(additional)
		toOffer, whole = rest, false
		if st == stageGuarantees {
			gotQ = guaranteed.Plus(additional).Quantities()
		}
	}

	if !e.allocatable(toOffer, role, fw) {
		switch {
		case cutByLimit && (!cutByHeadroom || !e.allocatable(limitsOnly, role, fw)):
			// The limits alone left too little; where they left enough
			// and the headroom took the rest, the headroom binds.
			return e.passOver(r, fw, ag, node, st, explain.QuotaLimit, uncut.Quantities())
		case cutByLimit || cutByHeadroom:
			return e.passOver(r, fw, ag, node, st, explain.Headroom, uncut.Quantities())
		}
		if cutByShare {
			// Below the minimum after a cut to the offer share, drawn for
			// this run: the verdict on the agent is not kept.
			r.stable = false
		}
		return e.passOver(r, fw, ag, node, st, explain.MinAllocatable, toOffer.Quantities())
	}
	// sizedFor is the pending task the offer is sized for (demand.go), -1
	// when it is not sized.
	sizedFor := -1
	if pending, stated := fw.PendingIn(role); stated {
		i := pendingFit(pending, toOffer)
		if i < 0 {
			if cutByLimit || cutByHeadroom || cutByShare {
				// Cut down: what is left may grow without the agent
				// changing (see the filtered case below).
				r.stable = false
			}
			return e.passOver(r, fw, ag, node, st, explain.NoFit, toOffer.Quantities())
		}
		if !e.opts.WholeOffers {
			// A disk that does not split (a MOUNT disk, a volume) may hold
			// the task whole but not be cut to it: the offer is then not
			// sized.
			// Nor is one that would fall below the minimum allocatable
			// resources: the whole leftover is offered instead.
			if sized := toOffer.Shrink(pending[i].Resources, nil); sized.ContainsQuantities(pending[i].Resources) && e.allocatable(sized, role, fw) {
				toOffer, whole, sizedFor = sized, false, i
				if st == stageGuarantees {
					quota, _ := sized.QuotaPart()
					q := quota.Quantities()
					guaranteedQ, gotQ = guaranteedQ.Min(q), q
				}
			}
		}
	}
	if filtered, until := e.dec.IsFiltered(fw, role, ag, toOffer, true, r.now, r.periodic); filtered {
		if r.until.IsZero() || until.Before(r.until) {
			r.until = until
		}
		if cutByLimit || cutByHeadroom || cutByShare || sizedFor >= 0 {
			// The filter covers an offer cut down, to a limit or the
			// headroom (which events elsewhere, quota or other roles'
			// consumption, can widen), to an offer share (in an order
			// drawn for this run), or to the first pending task that fits
			// (which, on a smaller leftover, may be another task the
			// filter does not cover): the verdict on the agent is not
			// kept.
			r.stable = false
		}
		return e.passOver(r, fw, ag, node, st, explain.Filtered, resources.Quantities{})
	}
	if st == stageFairShare && !e.opts.MesosOfferOrder && e.dec.HeldBack(fw, ag) {
		// The round after declines (rotation.go): the others first. The
		// round ends in this run if nobody else takes the agent, so the
		// verdict is not kept.
		r.stable = false
		r.heldBack++
		return e.passOver(r, fw, ag, node, st, explain.Declined, resources.Quantities{})
	}

	offeredRes := toOffer.Allocate(role).Frozen()
	e.record(r, ag, explain.OfferKey{Framework: fw.ID, Role: role, Agent: ag.ID}, offeredRes, st == stageGuarantees)
	if ag.HasShared {
		if shared := toOffer.Shared(); !shared.IsEmpty() {
			if r.offeredShared == nil {
				r.offeredShared = map[string]resources.Resources{}
			}
			s := r.offeredShared[ag.ID]
			s.Add(shared)
			r.offeredShared[ag.ID] = s
		}
	}
	if st == stageGuarantees {
		e.roles.NeedFallInto(node, guaranteedQ, &r.needFall)
		r.requiredHeadroom.Subtract(r.needFall)
	}
	if sizedFor >= 0 {
		r.sized = true
	}
	if fw.Demand != nil {
		// Before trackOffer, which may change toOffer's storage.
		e.consumeDemand(fw, role, toOffer, sizedFor)
	}
	e.trackOffer(fw, ag, role, node, fs, offeredRes, toOffer, whole)
	if st == stageGuarantees {
		return offered, gotQ
	}
	return offered, resources.Quantities{}
}

// offerShareOf is the most of each unreserved, non-revocable scalar of ag
// one offer may hold under Options.OfferShare.
func (e *Engine) offerShareOf(ag *cluster.Agent) resources.Limits {
	var l resources.Limits
	for name, v := range cluster.HeadroomOf(ag.Total).All() {
		l.Set(name, resources.Scalar(float64(v)*e.opts.OfferShare))
	}
	return l
}

// record adds an offer to the run. An offer to the same framework, role
// and agent as one of stage one joins it (stage is the stage's offers, and
// holds'), and so does an offer of the fair-share stage with the agent's
// earlier offers of that stage (a framework is offered more there only
// after an offer sized to a pending task): those were made while the
// stage was at the agent, so they are among the run's last offers, from
// r.agentOffers on.
func (e *Engine) record(r *runState, ag *cluster.Agent, key explain.OfferKey, res resources.Resources, stage bool) {
	join := func(i int) {
		merged := r.offers[i].Res.Clone()
		merged.Add(res)
		r.offers[i].Res = merged.Frozen()
	}
	if r.stage1 != nil {
		if i, ok := r.stage1[key]; ok {
			join(i)
			return
		}
		if stage {
			r.stage1[key] = len(r.offers)
		}
	}
	if !stage {
		for i := r.agentOffers; i < len(r.offers); i++ {
			if r.offers[i].Key == key {
				join(i)
				return
			}
		}
	}
	r.offers = append(r.offers, explain.Offer{Key: key, Res: res, Ag: ag, Rank: int(e.runRanks[ag.Num])})
}

// trackOffer is trackAllocation for one offer of a run: offered is tagged
// with role (its node and framework sorter fs), plain is the same without
// the tag, and whole says it is all of the agent's available resources.
func (e *Engine) trackOffer(fw *cluster.Framework, ag *cluster.Agent, role string, node *roles.Node, fs *roles.TrackedSorter, offered, plain resources.Resources, whole bool) {
	// offered is frozen: the host, the agent's records and the sorters
	// share it, and none changes it in place.
	if held := ag.Offered.Get(fw.ID); held.IsEmpty() {
		ag.Offered.Set(fw.ID, offered)
	} else {
		ag.Offered.Set(fw.ID, held.Plus(offered))
	}
	// plain may share storage with ag.available: use it before available
	// changes in place.
	counted := e.books.TrackHeldAt(node, role, plain, true)
	// On an agent without reservations or revocable resources every scalar
	// offered is what trackHeld has just counted, and its headroom is the
	// available quantities: an offer of all of them takes that much from
	// the free headroom, without reading the agent's part of it again.
	unreservedOnly := !ag.HasReserved && !ag.HasRevocable
	allHeadroom := whole && unreservedOnly
	if allHeadroom {
		e.cs.FreeHeadroom.Subtract(counted)
		ag.Headroom.Reset()
	}
	if whole {
		ag.Available = resources.Resources{}
	} else {
		ag.Available.Subtract(plain.NonShared())
	}
	partHeadroom := !allHeadroom && unreservedOnly && !ag.HasShared
	if partHeadroom {
		// Part of what the agent has (an offer sized to a pending task,
		// or cut): what trackHeld counted is what leaves its headroom,
		// as for a whole offer, without summing what is left again.
		ag.Headroom.Subtract(counted)
		e.cs.FreeHeadroom.Subtract(counted)
	}
	if unreservedOnly && !ag.HasShared {
		// Nothing shared either: the sorters' charge is what trackHeld
		// counted, without reading the offer's resources again.
		e.ch.LoadQuantities(counted)
	} else {
		e.ch.Load(offered)
	}
	if e.obs != nil {
		e.obs.Held(fw.ID, role, e.ch.Q, resources.Quantities{}, true)
	}
	books.SorterAllocated(e.roleSorter.Sorter, role, ag.ID, offered, &e.ch)
	books.SorterAllocated(fs.Sorter, fw.ID, ag.ID, offered, &e.ch)
	if !allHeadroom && !partHeadroom {
		e.cs.RefreshHeadroom(ag)
	}
}

// allocatable reports whether res meets the minimum allocatable resources of
// fw in role (or the global ones).
func (e *Engine) allocatable(res resources.Resources, role string, fw *cluster.Framework) bool {
	if res.IsEmpty() {
		return false
	}
	mins, ok := fw.Info.MinAllocatable[role]
	if !ok {
		mins = e.opts.MinAllocatable
	}
	if len(mins) == 0 {
		return true
	}
	for _, q := range mins {
		if res.ContainsQuantities(q) {
			return true
		}
	}
	return false
}

// capableOfAgent reports whether fw may be offered anything of ag: agents
// with GPUs go only to GPU-capable frameworks (unless Options allow all),
// and agents outside the master's region only to region-aware ones.
func (e *Engine) capableOfAgent(fw *cluster.Framework, ag *cluster.Agent) bool {
	caps := fw.Info.Capabilities
	if !e.opts.AllowGPUsToAll && !caps.Has(offer.GPUResources) && ag.HasGPUs {
		return false
	}
	if e.opts.Region != "" && ag.Info.Region != "" && ag.Info.Region != e.opts.Region && !caps.Has(offer.RegionAware) {
		return false
	}
	return true
}

// StripIncapable drops what the framework cannot handle: shared volumes
// without SHARED_RESOURCES, revocable resources without
// REVOCABLE_RESOURCES, refined reservations without RESERVATION_REFINEMENT.
func StripIncapable(res resources.Resources, caps offer.Capabilities) resources.Resources {
	shared, revocable, refined := caps.Has(offer.SharedResources), caps.Has(offer.RevocableResources), caps.Has(offer.ReservationRefinement)
	if shared && revocable && refined {
		return res
	}
	return res.Filter(func(x resources.Resource) bool {
		return (shared || !x.Shared) && (revocable || !x.Revocable) && (refined || !x.Reservations.IsRefined())
	})
}

// AgentMissing returns the capabilities whose lack keeps fw from the
// whole of ag: GPUs and the region.
func (e *Engine) AgentMissing(fw *cluster.Framework, ag *cluster.Agent) offer.Capabilities {
	caps := fw.Info.Capabilities
	var m offer.Capabilities
	if !e.opts.AllowGPUsToAll && !caps.Has(offer.GPUResources) && ag.HasGPUs {
		m |= offer.GPUResources
	}
	if e.opts.Region != "" && ag.Info.Region != "" && ag.Info.Region != e.opts.Region && !caps.Has(offer.RegionAware) {
		m |= offer.RegionAware
	}
	return m
}

// strippedMissing returns the capabilities, of those StripIncapable looks
// at, that caps lacks for some of res.
func strippedMissing(res resources.Resources, caps offer.Capabilities) offer.Capabilities {
	var m offer.Capabilities
	for r := range res.All() {
		if r.Shared && !caps.Has(offer.SharedResources) {
			m |= offer.SharedResources
		}
		if r.Revocable && !caps.Has(offer.RevocableResources) {
			m |= offer.RevocableResources
		}
		if r.Reservations.IsRefined() && !caps.Has(offer.ReservationRefinement) {
			m |= offer.ReservationRefinement
		}
	}
	return m
}
