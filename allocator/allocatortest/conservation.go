package allocatortest

import (
	"fmt"
	"slices"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Work conservation: nothing left idle that a framework could take.
//
// After every AllocateAll, for every agent the run looked at that still has
// resources free (shared volumes aside), every active framework in every
// role it takes offers in either was offered something there, or could
// take nothing of what is free (nothing of it is allocatable to the role),
// or was kept off by a rule that Explain names and the views confirm:
//
//   - a refusal filter: the framework had one on the agent in the role
//     before the run;
//   - a quota limit: the role or an ancestor has a limit, and the limits
//     bind (conservation_quota.go): with the headroom, they leave too
//     little of what is free for the minimum allocatable resources; they
//     cut something of what the offer would have held (Explain's
//     figure); and they alone leave too little, or the headroom alone
//     would have left enough. The role Explain names as the one whose
//     limit binds is the role or an ancestor with a limit, with the
//     figures its view shows, whose limit alone binds so on one of the
//     reason's agents;
//   - headroom: some role's guarantee was unmet when the run started, or
//     is after it, and the headroom binds as limits do. The run starts
//     by giving back holds, those expired and those the framework can no
//     longer take, which lowers consumption before any offer: a
//     guarantee counts as unmet at the start when it is unmet with every
//     hold the run ended counted as given back (a hold offered still
//     counts as consumed, but the views cannot tell the two apart, so
//     the bound is the lower one; nor can they tell a hold the run ended
//     from one it made at its end for a room it chose, which then counts
//     as ended too);
//   - the minimum allocatable resources: what is free holds none of the
//     alternatives, nor does what was left when the run passed the
//     framework over (Explain's figure), which holds what is free now. A
//     run names it only where no limit and no headroom cut the offer, so
//     this holds with quota too; not where offers are split
//     (Options.OfferShare), whose cut leaves part of what is free;
//   - a capability: the agent has GPUs or is in another region, or all
//     that is free needs a capability the framework lacks;
//   - offer constraints that exclude the agent;
//   - demand: the framework stated what it waits for in the role
//     (UpdateDemand) and none of the tasks left of it fits what is free
//     (or offers may be cut, which decides what they hold), or it waits
//     for nothing.
//
// "Lost to fairness" and "nothing left" are no reasons while something the
// role could take is free: the run goes on to the next framework and the
// next role until the agent is empty. Nor is the rotation after declines
// ("declined"): a run that has walked every framework on an agent with
// something still left offers it to those it held back.

// checkConservation checks an AllocateAll that made res; before holds the
// roles and the filters before it.
func (h *Harness) checkConservation(res allocator.Result, before Views) []error {
	if h.paused {
		return nil
	}
	var errs []error
	agents := h.a.Agents()
	roles := h.a.Roles()
	split := h.opts.Allocator.OfferShare > 0 && h.opts.Allocator.OfferShare < 1
	quota := slices.ContainsFunc(roles, func(r allocator.RoleView) bool { return !r.Quota.Guarantees.IsEmpty() || !r.Quota.Limits.IsEmpty() })
	var cuts *quotaCuts
	if quota {
		share := 0.0
		if split {
			share = h.opts.Allocator.OfferShare
		}
		cuts = newQuotaCuts(before, Views{Agents: agents, Roles: roles}, share)
	}
	unmetBefore := unmetAtStart(before.Roles, heldGone(before.Agents, agents, res.Preemptions))
	offered := map[[3]string]bool{}
	for _, o := range res.Offers {
		offered[[3]string{o.FrameworkID, o.Role, o.AgentID}] = true
	}
	for _, f := range h.a.Frameworks() {
		if !f.Active {
			continue
		}
		x, err := h.a.Explain(f.ID)
		if err != nil {
			errs = append(errs, fmt.Errorf("Explain(%s) after AllocateAll: %w", f.ID, err))
			continue
		}
		for _, role := range f.Roles {
			if slices.Contains(f.Suppressed, role) {
				continue
			}
			reasons := explainedReasons(x, role)
			// The role a quota-limit reason names must bind on one of its
			// agents (namedLimitBinds).
			var named error
			namedBinds := false
			for _, v := range agents {
				if !h.looked(v) || offered[[3]string{f.ID, role, v.ID}] {
					continue
				}
				free := v.Available.NonShared().AllocatableTo(role)
				if free.IsEmpty() {
					continue
				}
				found, ok := reasons[v.ID]
				c := conservationCase{h: h, f: f, role: role, v: v, free: free, roles: roles, filters: before.Filters, before: before,
					cut: quota || h.opts.Allocator.OfferShare > 0, split: split, quota: cuts, unmetBefore: unmetBefore}
				where := fmt.Sprintf("agent %s has %s free for role %s after AllocateAll, and %s was offered none of it", v.ID, free, role, f.ID)
				if err := c.check(found, ok); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", where, err))
					continue
				}
				if found.reason != allocator.ReasonQuotaLimit || cuts == nil || namedBinds {
					continue
				}
				if err := c.namedLimitBinds(found); err == nil {
					namedBinds = true
				} else if named == nil {
					named = fmt.Errorf("%s: Explain says %s, and names the limit of %q, which binds on none of its agents with something free; here: %w", where, found.reason, found.group.QuotaRole, err)
				}
			}
			if named != nil && !namedBinds {
				errs = append(errs, named)
			}
		}
	}
	return errs
}

// looked reports whether the run looked at the agent: active, on the
// whitelist and not over-allocated.
func (h *Harness) looked(v allocator.AgentView) bool {
	return v.Active && !v.OverAllocated && (h.whitelist == nil || h.whitelist[h.agentInfo[v.ID].Hostname])
}

// explained is one agent's reason in an explanation, and the reason's
// group (the figures Explain gives for all its agents).
type explained struct {
	reason allocator.Reason
	ar     allocator.AgentReason
	group  allocator.ReasonGroup
}

// explainedReasons returns, by agent, the reasons an explanation gives for
// a role.
func explainedReasons(x allocator.Explanation, role string) map[string]explained {
	out := map[string]explained{}
	for _, re := range x.Roles {
		if re.Role != role {
			continue
		}
		for _, g := range re.Reasons {
			for _, ar := range g.Agents {
				out[ar.Agent] = explained{g.Reason, ar, g}
			}
		}
	}
	return out
}

// conservationCase is one framework, role and agent with something free
// that the framework was not offered.
type conservationCase struct {
	h       *Harness
	f       allocator.FrameworkView
	role    string
	v       allocator.AgentView
	free    resources.Resources
	roles   []allocator.RoleView
	filters []allocator.FilterView
	// before are the views before the run (its agents, roles, filters).
	before Views
	// cut: offers may be cut (quota, Options.OfferShare), which decides
	// what they hold; split: by the offer share, which Explain names no
	// reason for; unmetBefore: some guarantee may have been unmet at the
	// run's start, once it had given back holds (unmetAtStart).
	cut, split, unmetBefore bool
	// quota are the referee's figures about the run's cuts, nil when no
	// role has quota.
	quota *quotaCuts
}

// check returns why the reason Explain gave (found: it gave one) does not
// hold.
func (c conservationCase) check(found explained, ok bool) error {
	if !ok {
		return fmt.Errorf("Explain names no reason for it")
	}
	holds := false
	// binds says why a quota reason, or the minimum allocatable, does not
	// hold although its condition does (conservation_quota.go).
	var binds func(explained) error
	switch found.reason {
	case allocator.ReasonFiltered:
		holds = slices.ContainsFunc(c.filters, func(fl allocator.FilterView) bool {
			return fl.Framework == c.f.ID && fl.Role == c.role && fl.Agent == c.v.ID
		})
	case allocator.ReasonQuotaLimit:
		holds, binds = c.limited(), c.quotaLimitBinds
	case allocator.ReasonHeadroom:
		// The run held back headroom for the guarantees unmet when it
		// started, after giving back holds (stage two does not lower it
		// as it meets them, as in Mesos), or still unmet after it.
		holds, binds = c.unmetBefore || unmetGuarantees(c.roles), c.headroomBinds
	case allocator.ReasonMinAllocatable:
		// Explain names the minimum allocatable only where no limit or
		// headroom cut the offer: it held all that was free but for a
		// cut to the offer share.
		holds, binds = c.split || !c.h.meetsMinimum(c.f.ID, c.role, c.usable()), c.minAllocatableHolds
	case allocator.ReasonIncapable:
		holds = c.incapable()
	case allocator.ReasonConstraints:
		cs, has := c.h.fwInfo[c.f.ID].Constraints[c.role]
		holds = has && !admits(cs, c.h.agentInfo[c.v.ID].Attributes)
	case allocator.ReasonNoFit:
		holds = c.noFit()
	}
	if !holds {
		return fmt.Errorf("Explain says %s, which the views do not bear out", found.reason)
	}
	if binds != nil && (c.quota != nil || found.reason == allocator.ReasonMinAllocatable) {
		if err := binds(found); err != nil {
			return fmt.Errorf("Explain says %s (%s): %w", found.reason, found.ar.Offer, err)
		}
	}
	return nil
}

// limited reports whether the role or an ancestor has a quota limit. (A
// limit may have cut an offer during the run below the framework's minimum
// allocatable resources although what is left after the run would not
// reach it.)
func (c conservationCase) limited() bool {
	return slices.ContainsFunc(c.roles, func(r allocator.RoleView) bool {
		return !r.Quota.Limits.IsEmpty() && reservation.IsSubroleOrSelf(c.role, r.Role)
	})
}

// incapable reports whether the framework lacks a capability for the
// whole agent, or for everything free there.
func (c conservationCase) incapable() bool {
	opts := c.h.opts.Allocator
	caps := c.f.Capabilities
	if !opts.AllowGPUsToAll && !caps.Has(offer.GPUResources) && c.v.Total.Quantities().Scalar("gpus") > 0 {
		return true
	}
	if region := c.h.agentInfo[c.v.ID].Region; opts.Region != "" && region != "" && region != opts.Region && !caps.Has(offer.RegionAware) {
		return true
	}
	return c.usable().IsEmpty()
}

// noFit reports whether the framework stated demand in the role and none
// of what is left of it fits what is free that it can take (or offers may
// be cut). What is left after the run was pending when the run passed the
// framework over, and what is free then was free at the pass too.
func (c conservationCase) noFit() bool {
	left, err := c.h.a.Demand(c.f.ID)
	if err != nil {
		return false
	}
	list, stated := left[c.role]
	if !stated {
		return false
	}
	usable := c.usable()
	return c.cut || !slices.ContainsFunc(list, func(p allocator.Pending) bool { return usable.ContainsQuantities(p.Resources) })
}

// usable is what is free that the framework can take: revocable resources
// and refined reservations need a capability.
func (c conservationCase) usable() resources.Resources {
	return c.usableOf(c.free)
}

// usableOf is what of rs the framework can take.
func (c conservationCase) usableOf(rs resources.Resources) resources.Resources {
	caps := c.f.Capabilities
	return rs.Filter(func(r resources.Resource) bool {
		return (caps.Has(offer.RevocableResources) || !r.Revocable) && (caps.Has(offer.ReservationRefinement) || !r.Reservations.IsRefined())
	})
}

// meetsMinimum reports whether res holds one of the minimum allocatable
// alternatives of the framework in the role (anything, when there are
// none; nothing is never allocatable).
func (h *Harness) meetsMinimum(fw, role string, res resources.Resources) bool {
	mins := h.minimum(fw, role)
	return !res.IsEmpty() && (len(mins) == 0 || slices.ContainsFunc(mins, res.ContainsQuantities))
}

// minimum returns the minimum allocatable alternatives of the framework in
// the role: its own there, else the options', else the default.
func (h *Harness) minimum(fw, role string) []resources.Quantities {
	mins, ok := h.fwInfo[fw].MinAllocatable[role]
	if !ok {
		mins = h.opts.Allocator.MinAllocatable
		if mins == nil {
			mins = allocator.DefaultMinAllocatable()
		}
	}
	return mins
}

// heldGone returns, by allocation role, the unreserved non-revocable
// scalars held before a run (the agents' views then) and no longer held
// after it (after): what the run offered from holds or gave back. The
// rooms the run chose (made, its Preemptions) hold, at its end, the part
// of their task free on their agent, for the framework and in the role
// they are made for: the views do not tell such a hold from an older one
// the run gave back as it started (a room's hold that expired, its room
// chosen again at the same run), so what is held after the run counts as
// kept only beyond the tasks of the rooms made there for that framework
// and role.
func heldGone(before, after []allocator.AgentView, made []allocator.Preemption) map[string]resources.Quantities {
	afterByID := make(map[string]allocator.AgentView, len(after))
	for _, v := range after {
		afterByID[v.ID] = v
	}
	type holder struct{ agent, fw, role string }
	rooms := map[holder]resources.Quantities{}
	for _, p := range made {
		k := holder{p.AgentID, p.ForFramework, p.HeldIn}
		q := rooms[k]
		q.Add(p.ForTask)
		rooms[k] = q
	}
	gone := map[string]resources.Quantities{}
	for _, v := range before {
		for fw, held := range v.Held {
			still := afterByID[v.ID].Held[fw]
			for _, role := range held.AllocationRoles() {
				kept := plainHeld(still.AllocatedTo(role)).Minus(rooms[holder{v.ID, fw, role}])
				left := plainHeld(held.AllocatedTo(role)).Minus(kept)
				if left.IsEmpty() {
					continue
				}
				q := gone[role]
				q.Add(left)
				gone[role] = q
			}
		}
	}
	return gone
}

// plainHeld returns the unreserved non-revocable scalars of a hold, which
// count in its role's consumption.
func plainHeld(held resources.Resources) resources.Quantities {
	return held.Filter(func(x resources.Resource) bool {
		return x.Type == resources.ScalarType && !x.IsReserved() && !x.Revocable
	}).Quantities()
}

// unmetAtStart reports whether some role's guarantee may have been unmet
// once the run had given back holds: its consumption before the run (roles)
// less everything held in it or its subroles that the run ended (gone).
func unmetAtStart(roles []allocator.RoleView, gone map[string]resources.Quantities) bool {
	return slices.ContainsFunc(roles, func(r allocator.RoleView) bool {
		if r.Quota.Guarantees.IsEmpty() {
			return false
		}
		consumed := r.Consumed.Clone()
		for role, q := range gone {
			if reservation.IsSubroleOrSelf(role, r.Role) {
				consumed.Subtract(q)
			}
		}
		return !consumed.Contains(r.Quota.Guarantees)
	})
}

// unmetGuarantees reports whether some role's guarantee is unmet.
func unmetGuarantees(roles []allocator.RoleView) bool {
	return slices.ContainsFunc(roles, func(r allocator.RoleView) bool { return !r.Consumed.Contains(r.Quota.Guarantees) })
}
