package allocatortest

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// Quota's reasons in the work-conservation check: the cut Explain names
// must bind.
//
// A run cuts what a framework may be offered of the unreserved,
// non-revocable scalars free on an agent (the quota part) to what the
// limits of its role and its ancestors leave, then to the free headroom
// beyond what guarantees need (with Options.OfferShare, to the offer share
// too); the rest of the offer (reservations, non-scalars, revocable
// resources) is never cut. When what is left is below the framework's
// minimum allocatable resources, Explain names the limit (ReasonQuotaLimit)
// or the headroom (ReasonHeadroom), with what the offer would have held of
// the quota part before the cuts (the detail, AgentReason.Offer) and, for
// a limit, the role whose limit binds.
//
// A cut binds when it alone leaves too little (it is enough to keep the
// framework off), or when the offer cut by the other cuts, without it,
// would have been allocatable (it is needed to keep the framework off). A
// cut that is neither is not why the framework went without. So for
// quota-limit (the limits of the role's path) and headroom:
//
//  1. the cuts together leave too little of what is free;
//  2. the cut named cut something of the detail;
//  3. the cut named binds;
//  4. the detail holds at least the quota part free now: a run only takes
//     from an agent after it passed a framework over there;
//
// and for quota-limit, the role Explain names is the role or an ancestor
// with a limit, its figures (limit, consumption) are those its view shows,
// and its limit alone meets 2 and 3 too (against the other limits: the
// reason says the limits together keep the framework off, the headroom
// aside) on at least one of the agents of the reason: Explain names one
// role for them all.
//
// The check sees the state after the run; the pass saw it at some point
// of the run. Once the run has given back the holds that expired, a
// role's consumption only grows during the run and the free headroom only
// falls, so the referee's figures (referee.go) bound what each cut left
// at any pass. At least: the limits with the consumption after the run,
// and the free headroom after the run beyond the most the required
// headroom can have been (with the holds gone counted as given back). At
// most: the limits with the consumption with those holds given back, and
// the free headroom before the run, those holds back, beyond the least
// the required headroom can have been (after the run: a run lowers it by
// no more than the consumption it adds). The quota part at the pass is
// the detail (the larger of it and what is free now, should they
// differ); a cut leaves of each name at least the least of its targets,
// but a name with an indivisible disk free has no floor: one cut (to the
// headroom) may keep the disk whole and nothing else of the name, and the
// next (to a limit, the offer share) drop it. The rest of the offer is at
// least what is free now, at most what was free before the run or held
// there. A rule fails only when the bounds prove it: "leaves enough" from
// the least, "leaves too little" from the most.

// quotaCuts are the referee's figures about the cuts of one run.
type quotaCuts struct {
	r *referee
	// spareLo and spareHi bound, by name, the free headroom beyond the
	// required headroom at any pass of the run; a name missing from them
	// was not cut by the headroom (nothing of it can have been required).
	spareLo, spareHi amounts
	// share is Options.OfferShare when it splits agents, else zero.
	share float64
}

// newQuotaCuts reads the quotas, the consumption and the headroom before
// and after the run; nil when no role has quota.
func newQuotaCuts(before, after Views, share float64) *quotaCuts {
	r, _, ok := readReferee(before, after)
	if !ok {
		return nil
	}
	k := &quotaCuts{r: r, share: share, spareLo: amounts{}, spareHi: amounts{}}
	if len(r.guarantees) == 0 {
		return k
	}
	low, least := r.required(r.ownLow), r.required(r.ownAfter)
	back := amounts{} // what the holds gone by the end give back
	for role, was := range r.ownBefore {
		for name, x := range was {
			if d := x - r.ownLow[role][name]; d > 0 {
				back[name] += d
			}
		}
	}
	for name, req := range low {
		if req <= 0 {
			// Nothing of it required at any pass: the spare headroom is
			// the free headroom, which holds all the agent has.
			continue
		}
		k.spareLo[name] = r.freeAfter[name] - req
		if least[name] > 0 {
			k.spareHi[name] = r.freeBefore[name] + back[name] - least[name]
		}
	}
	return k
}

// cutSet says which cuts apply to an offer: the limits of the roles of the
// path that limit accepts (none when nil), and the headroom.
type cutSet struct {
	limit    func(role string) bool
	headroom bool
}

// allLimits accepts every role's limit.
func allLimits(string) bool { return true }

// target returns the most of name an offer to role on v may hold under the
// cuts cs, at least (hi false) or at most (hi true) at any pass of the
// run, and false when no cut applies to the name.
func (k *quotaCuts) target(role, name string, v allocator.AgentView, cs cutSet, hi bool) (resources.Scalar, bool) {
	var t resources.Scalar
	bound := false
	lower := func(x resources.Scalar) {
		if !bound || x < t {
			t, bound = x, true
		}
	}
	if cs.limit != nil {
		own := k.r.ownAfter
		if hi {
			own = k.r.ownLow
		}
		if room, ok := k.r.limitRoomIn(own, role, name, cs.limit); ok {
			lower(room)
		}
	}
	if cs.headroom {
		spare := k.spareLo
		if hi {
			spare = k.spareHi
		}
		if x, ok := spare[name]; ok {
			lower(x)
		}
	}
	if k.share > 0 {
		// The offer share is no quota cut, but it applies to every offer
		// of the fair-share stage, before the minimum allocatable is met.
		x := resources.Scalar(float64(quotaAmounts(v.Total)[name]) * k.share)
		if hi {
			lower(x + 1)
		} else {
			lower(x - 1)
		}
	}
	return max(t, 0), bound
}

// passBounds bound what an offer to the framework on the agent held
// before the cuts at the pass: the quota part by name and the rest.
type passBounds struct {
	baseLo, baseHi amounts
	restLo, restHi resources.Resources
	// detail is Explain's: the quota part the offer would have held.
	detail amounts
	// now is the quota part free now.
	now amounts
}

// passBounds works out the bounds of the case from Explain's detail.
func (c conservationCase) passBounds(detail resources.Quantities) passBounds {
	usable := c.usable()
	b := passBounds{baseLo: amounts{}, baseHi: amounts{}, detail: amounts{}, now: quotaAmounts(usable)}
	for name, x := range detail.All() {
		b.detail[name] = x
	}
	// Names with an indivisible disk free on the agent, before the run or
	// now: a cut may drop such a disk whole.
	_, whole := freeOnAgent(c.v)
	if was, ok := c.before.Agent(c.v.ID); ok {
		_, wholeBefore := freeOnAgent(was)
		maps.Copy(whole, wholeBefore)
	}
	for name, x := range b.detail {
		if !whole[name] {
			b.baseLo[name] = x
		}
	}
	for _, a := range []amounts{b.detail, b.now} {
		for name, x := range a {
			b.baseHi[name] = max(b.baseHi[name], x)
		}
	}
	b.restLo = usable.Filter(notQuotaPart)
	b.restHi = b.restLo
	if was, ok := c.before.Agent(c.v.ID); ok {
		pool := was.Available.NonShared()
		for _, fw := range slices.Sorted(maps.Keys(was.Held)) {
			pool.Add(was.Held[fw].NonShared().Unallocate())
		}
		restBefore := c.usableOf(pool.AllocatableTo(c.role)).Filter(notQuotaPart)
		if restBefore.Contains(b.restLo) {
			b.restHi = restBefore
		} else {
			b.restHi = restBefore.Plus(b.restLo)
		}
	}
	return b
}

// isQuotaPart reports whether r is of what quota governs: an unreserved,
// non-revocable scalar.
func isQuotaPart(r resources.Resource) bool {
	return r.Type == resources.ScalarType && !r.IsReserved() && !r.Revocable
}

func notQuotaPart(r resources.Resource) bool { return !isQuotaPart(r) }

// cutOffer returns what an offer would hold under the cuts cs, at least
// (hi false) or at most (hi true): the rest, and each name of the quota
// part cut to its target.
func (c conservationCase) cutOffer(b passBounds, cs cutSet, hi bool) resources.Resources {
	base, out := b.baseLo, b.restLo.Clone()
	if hi {
		base, out = b.baseHi, b.restHi.Clone()
	}
	for _, name := range slices.Sorted(maps.Keys(base)) {
		x := base[name]
		if t, ok := c.quota.target(c.role, name, c.v, cs, hi); ok {
			x = min(x, t)
		}
		if x > 0 {
			_ = out.AddResource(resources.ScalarResource(name, x))
		}
	}
	return out
}

// cutBinds checks rules 1 to 4 for the cut named (what: for the message):
// cs are the cuts it stands for, others the run's other cuts. It returns
// why the cut does not bind, or nil.
func (c conservationCase) cutBinds(what string, b passBounds, cs, others cutSet) error {
	all := cutSet{limit: allLimits, headroom: true}
	// 1: the cuts together leave too little.
	if least := c.cutOffer(b, all, false); c.h.meetsMinimum(c.f.ID, c.role, least) {
		return fmt.Errorf("the cuts together leave at least %s of what was free, which meets the minimum allocatable resources", least)
	}
	// 2: the cut named cut something of the detail.
	cut := false
	for name, x := range b.detail {
		if t, ok := c.quota.target(c.role, name, c.v, cs, false); ok && t < x {
			cut = true
			break
		}
	}
	if !cut {
		return fmt.Errorf("%s cut nothing of what the offer would have held (%s)", what, b.detail)
	}
	// 3: the cut named binds: it alone leaves too little, or the others
	// without it leave enough.
	alone, without := c.cutOffer(b, cs, false), c.cutOffer(b, others, true)
	if c.h.meetsMinimum(c.f.ID, c.role, alone) && !c.h.meetsMinimum(c.f.ID, c.role, without) {
		return fmt.Errorf("cut by %s alone, the offer holds at least %s, which meets the minimum allocatable resources, and cut by the others without it, at most %s, which does not: it does not bind", what, alone, without)
	}
	// 4: the detail holds what is free now.
	for _, name := range slices.Sorted(maps.Keys(b.now)) {
		if b.now[name] > b.detail[name] {
			return fmt.Errorf("what the offer would have held (%s) lacks part of what is free now (%s)", b.detail, b.now)
		}
	}
	return nil
}

// quotaLimitBinds checks a quota-limit reason: rules 1 to 4 for the limits
// of the role's path.
func (c conservationCase) quotaLimitBinds(found explained) error {
	return c.cutBinds("the limits of the role's path", c.passBounds(found.ar.Offer), cutSet{limit: allLimits}, cutSet{headroom: true})
}

// namedLimitBinds checks the role a quota-limit reason names: the role or
// an ancestor with a limit, with the figures of its view, whose limit
// alone meets rules 2 and 3 on the agent. Explain names one role for all
// the agents of the reason, so it must bind on one of them (the caller
// asks each).
func (c conservationCase) namedLimitBinds(found explained) error {
	named := found.group.QuotaRole
	v, ok := viewOf(c.roles, named)
	if !ok || !inSubtree(c.role, named) || v.Quota.Limits.IsEmpty() {
		return fmt.Errorf("the role whose limit binds is %q, which is not the role or an ancestor with a limit", named)
	}
	if !found.group.Limit.Equal(v.Quota.Limits) || !found.group.Consumed.Equal(v.Consumed) {
		return fmt.Errorf("Explain gives role %s the limit %s and consumption %s, its view %s and %s", named, found.group.Limit, found.group.Consumed, v.Quota.Limits, v.Consumed)
	}
	only := func(p string) bool { return p == named }
	// The reason says the limits keep the framework off (the run names
	// the headroom where the limits alone leave enough): the role named
	// is one whose limit is needed among them, the headroom aside.
	others := cutSet{limit: func(p string) bool { return p != named }}
	return c.cutBinds("the limit of "+named, c.passBounds(found.ar.Offer), cutSet{limit: only}, others)
}

// headroomBinds checks a headroom reason: rules 1 to 4 for the headroom.
func (c conservationCase) headroomBinds(found explained) error {
	return c.cutBinds("the headroom", c.passBounds(found.ar.Offer), cutSet{headroom: true}, cutSet{limit: allLimits})
}

// minAllocatableHolds checks a min-allocatable reason beyond what is free
// now: what the offer would have held (the detail, all its scalars) is
// below every alternative, and holds what is free now.
func (c conservationCase) minAllocatableHolds(found explained) error {
	detail := found.ar.Offer
	mins := c.h.minimum(c.f.ID, c.role)
	if len(mins) > 0 && slices.ContainsFunc(mins, detail.Contains) {
		return fmt.Errorf("what was left (%s) meets the minimum allocatable resources %v", detail, mins)
	}
	if c.split {
		// Cut to the offer share: what the cut left free stays free.
		return nil
	}
	if now := c.usable().Quantities(); !detail.Contains(now) {
		return fmt.Errorf("what was left (%s) lacks part of what is free now (%s)", detail, now)
	}
	return nil
}

// viewOf returns the view of a role among roles.
func viewOf(roles []allocator.RoleView, role string) (allocator.RoleView, bool) {
	i := slices.IndexFunc(roles, func(v allocator.RoleView) bool { return v.Role == role })
	if i < 0 {
		return allocator.RoleView{}, false
	}
	return roles[i], true
}
