package allocatortest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The quota referee's checks of a run, one per promise: referee.go says
// what each promise is and where the documentation makes it.

// checkQuotaValues checks that every guarantee is within the role's own
// limits and its ancestors'.
func (r *referee) checkQuotaValues(roles []allocator.RoleView) {
	for _, v := range roles {
		g, ok := r.guarantees[v.Role]
		if !ok {
			continue
		}
		for p := v.Role; p != ""; p = parentRole(p) {
			l := r.limits[p]
			for _, name := range slices.Sorted(maps.Keys(g)) {
				if lim, limited := l[name]; limited && g[name] > lim {
					r.errs.fail("quota: role %s guarantees %s:%s, above the limit %s of %s", v.Role, name, g[name], lim, p)
				}
			}
		}
	}
}

// checkConsumption compares every role's reported consumption after the
// run with the referee's.
func (r *referee) checkConsumption() {
	for _, v := range r.after.Roles {
		mine := subtree(r.ownAfter, v.Role)
		reported := amounts{}
		for name, x := range v.Consumed.All() {
			reported[name] = x
		}
		if !sameAmounts(mine, reported) {
			r.errs.fail("quota: role %s reports consumption %s; its reservations and what is offered, allocated and held in its subtree come to %s", v.Role, reported, mine)
		}
	}
}

// sameAmounts reports whether a and b hold the same amount of every name.
func sameAmounts(a, b amounts) bool {
	for name, x := range a {
		if b[name] != x {
			return false
		}
	}
	for name, x := range b {
		if a[name] != x {
			return false
		}
	}
	return true
}

// checkLimits checks promise 1: a subtree given more of a limited
// resource by the run is within the limit after it.
func (r *referee) checkLimits() {
	for _, role := range slices.Sorted(maps.Keys(r.limits)) {
		fresh := subtree(r.freshTo, role)
		used := subtree(r.ownAfter, role)
		for _, name := range slices.Sorted(maps.Keys(r.limits[role])) {
			lim := r.limits[role][name]
			if fresh[name] > 0 && used[name] > lim {
				r.errs.fail("quota: the run offered %s:%s to role %s's subtree beyond holds (%s), and its consumption of %s is %s, above its limit %s",
					name, fresh[name], role, r.offersInto(role), name, used[name], lim)
			}
		}
	}
}

// offersInto renders the run's offers into a role's subtree.
func (r *referee) offersInto(path string) string {
	var parts []string
	for _, ro := range r.offers {
		if inSubtree(ro.o.Role, path) {
			parts = append(parts, fmt.Sprintf("%s to %s in %s on %s: %s", ro.o.ID, ro.o.FrameworkID, ro.o.Role, ro.o.AgentID, ro.all))
		}
	}
	return strings.Join(parts, ", ")
}

// waste bounds, name by name, what guaranteed parts of the run's offers
// may have taken from the free headroom without lowering the required
// headroom as much: what was offered to roles of top-level subtrees with
// nested guarantees of the name, each role at most its largest unmet
// guarantee at the start (with the holds gone given back). It returns the
// bound, and each role's part of it.
func (r *referee) waste() (amounts, map[string]amounts) {
	nested := map[string]map[string]bool{} // top-level role -> names
	for q1, g1 := range r.guarantees {
		for q2, g2 := range r.guarantees {
			if q1 == q2 || !inSubtree(q2, q1) {
				continue
			}
			for name := range g2 {
				if g1[name] > 0 {
					if nested[topRole(q1)] == nil {
						nested[topRole(q1)] = map[string]bool{}
					}
					nested[topRole(q1)][name] = true
				}
			}
		}
	}
	total, byRole := amounts{}, map[string]amounts{}
	for role, offered := range r.offeredTo {
		names := nested[topRole(role)]
		if len(names) == 0 {
			continue
		}
		unsat := r.unsatisfied(role)
		mine := amounts{}
		for name := range names {
			mine[name] = min(offered[name], max(unsat[name], 0))
			total[name] += mine[name]
		}
		byRole[role] = mine
	}
	return total, byRole
}

// checkHeadroom checks promises 2 to 4 (low is the required headroom with
// the holds gone given back, the most the run can have started with).
func (r *referee) checkHeadroom(low amounts) {
	if len(r.guarantees) == 0 {
		return
	}
	reqBefore, reqAfter := r.required(r.ownBefore), r.required(r.ownAfter)
	waste, wasteOf := r.waste()
	names := amounts{}
	for _, a := range []amounts{r.freeBefore, r.freeAfter, reqBefore, reqAfter, low} {
		for name := range a {
			names[name] = 0
		}
	}
	state := func(name string) string {
		return fmt.Sprintf("free %s:%s, required %s:%s before the run; free %s:%s, required %s:%s after it",
			name, r.freeBefore[name], name, reqBefore[name], name, r.freeAfter[name], name, reqAfter[name])
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		// At the start, after holds were given back: holds given back on
		// an over-allocated agent raise the required headroom and may
		// leave the free headroom as it was, so the start is bounded by
		// the free headroom before the run and the required headroom
		// with every hold gone counted as given back.
		dStart := r.freeBefore[name] - low[name]
		dAfter := r.freeAfter[name] - reqAfter[name]
		// Promise 2: stage two came after every guaranteed part.
		if dAfter < 0 {
			if ro, ok := r.stageTwoOffer(name); ok {
				r.errs.fail("quota: the run offered %s:%s (beyond holds) to role %s, which had no unmet guarantee in its ancestry (so in stage two, after every guarantee), and left the free headroom below the required: %s (offer %s to %s on %s)",
					name, ro.fresh[name], ro.o.Role, state(name), ro.o.ID, ro.o.FrameworkID, ro.o.AgentID)
				continue
			}
		}
		// Promise 3: only guaranteed parts spend headroom.
		if floor := min(dStart, 0) - waste[name]; dAfter < floor {
			r.errs.fail("quota: the run spent headroom of %s that no guarantee accounts for: %s (required %s:%s with the holds gone by the end given back); guaranteed parts under nested guarantees may account for %s:%s",
				name, state(name), name, low[name], name, waste[name])
			continue
		}
		// Promise 4: a burst beyond the unmet guarantee keeps the headroom.
		// A role bursts only once its guaranteed part has met all it may
		// be given as guarantee, so no guaranteed part of its own comes
		// after: only the other roles' may have spent headroom since.
		for _, role := range r.bursts(name) {
			others := waste[name] - wasteOf[role][name]
			if dAfter < -others {
				r.errs.fail("quota: the run offered role %s %s:%s beyond holds, more than its largest unmet guarantee at the start (%s:%s), and left the free headroom below the required: %s; guaranteed parts of other roles under nested guarantees may account for %s:%s",
					role, name, r.freshTo[role][name], name, r.unsatisfied(role)[name], state(name), name, others)
				break
			}
		}
	}
}

// stageTwoOffer returns an offer of the run that gave name, beyond holds,
// to a role with no unmet guarantee in its ancestry at the start.
func (r *referee) stageTwoOffer(name string) (refOffer, bool) {
	for _, ro := range r.offers {
		if ro.fresh[name] > 0 && !r.unsatisfied(ro.o.Role).positive() {
			return ro, true
		}
	}
	return refOffer{}, false
}

// bursts returns the roles that the run gave more of name, beyond holds,
// than their largest unmet guarantee at the start: some of it was no
// guarantee.
func (r *referee) bursts(name string) []string {
	var out []string
	for _, role := range slices.Sorted(maps.Keys(r.freshTo)) {
		if r.freshTo[role][name] > r.unsatisfied(role)[name] {
			out = append(out, role)
		}
	}
	return out
}

// sized reports whether an offer to the framework in the role may have
// been sized to a stated task (and so leave the rest on purpose).
func (r *referee) sized(fw, role string) bool {
	if r.host.wholeOffers {
		return false
	}
	_, stated := r.host.pending(fw, role)
	return stated
}

// limitReached reports whether the role's or an ancestor's consumption of
// name after the run is at a limit or above it.
func (r *referee) limitReached(role, name string) bool {
	for p := role; p != ""; p = parentRole(p) {
		if lim, ok := r.limits[p][name]; ok && subtree(r.ownAfter, p)[name] >= lim {
			return true
		}
	}
	return false
}

// limitRoom returns how much more of name the role's and its ancestors'
// limits leave after the run, and false when none applies.
func (r *referee) limitRoom(role, name string) (resources.Scalar, bool) {
	return r.limitRoomIn(r.ownAfter, role, name, nil)
}

// limitRoomIn returns how much more of name the limits of role and its
// ancestors (those of them keep accepts, all when keep is nil) leave with
// the roles' own consumption own, and false when none applies.
func (r *referee) limitRoomIn(own map[string]amounts, role, name string, keep func(string) bool) (resources.Scalar, bool) {
	var room resources.Scalar
	limited := false
	for p := role; p != ""; p = parentRole(p) {
		if lim, ok := r.limits[p][name]; ok && (keep == nil || keep(p)) {
			left := lim - subtree(own, p)[name]
			if !limited || left < room {
				room, limited = left, true
			}
		}
	}
	return room, limited
}

// shareOf returns the most of name one offer may hold of agent v under
// Options.OfferShare, one thousandth less for the rounding of the share.
func (r *referee) shareOf(v allocator.AgentView, name string) resources.Scalar {
	total := quotaAmounts(v.Total)[name]
	return resources.Scalar(float64(total)*r.host.share) - 1
}

// checkHeldBack checks promise 5 (low: the required headroom with the
// holds gone given back).
func (r *referee) checkHeldBack(low amounts) {
	for _, ro := range r.offers {
		o := ro.o
		if ro.holdsOnly || r.sized(o.FrameworkID, o.Role) {
			continue
		}
		v, ok := r.after.Agent(o.AgentID)
		if !ok {
			continue
		}
		free, whole := freeOnAgent(v)
		for _, name := range slices.Sorted(maps.Keys(free)) {
			if free[name] <= 0 || whole[name] || r.limitReached(o.Role, name) || r.freeAfter[name] <= low[name] {
				continue
			}
			if r.host.share > 0 && ro.all[name] >= r.shareOf(v, name) {
				continue
			}
			r.errs.fail("quota: offer %s to %s in role %s on %s left %s:%s free there although no limit of the role or an ancestor is reached and the free headroom (%s:%s after the run) exceeds what guarantees need (at most %s:%s): held back for nothing",
				o.ID, o.FrameworkID, o.Role, o.AgentID, name, free[name], name, r.freeAfter[name], name, low[name])
		}
	}
}

// framework returns a framework's view from the views after the run, or
// before it.
func (r *referee) framework(id string) (allocator.FrameworkView, bool) {
	if f, ok := r.after.Framework(id); ok {
		return f, true
	}
	return r.before.Framework(id)
}

// checkReservationsOffered checks promise 6.
func (r *referee) checkReservationsOffered() {
	for _, ro := range r.offers {
		o := ro.o
		if ro.holdsOnly || r.sized(o.FrameworkID, o.Role) || r.unsatisfied(o.Role).positive() {
			continue
		}
		f, fok := r.framework(o.FrameworkID)
		v, vok := r.after.Agent(o.AgentID)
		if !fok || !vok {
			continue
		}
		caps := f.Capabilities
		for x := range v.Available.All() {
			if !x.IsReserved() || x.Shared || !inSubtree(o.Role, x.Role()) {
				continue
			}
			if (x.Revocable && !caps.Has(offer.RevocableResources)) || (x.Reservations.IsRefined() && !caps.Has(offer.ReservationRefinement)) {
				continue
			}
			r.errs.fail("quota: offer %s to %s in role %s on %s, in stage two, left the reservation %s available there: reservations are never held back",
				o.ID, o.FrameworkID, o.Role, o.AgentID, x)
		}
	}
}

// checkIdle checks promise 7 after a periodic run (low: the required
// headroom with the holds gone given back).
func (r *referee) checkIdle(low amounts) {
	offered := map[[3]string]bool{}
	for _, ro := range r.offers {
		offered[[3]string{ro.o.FrameworkID, ro.o.Role, ro.o.AgentID}] = true
	}
	filtered := map[[3]string]bool{}
	for _, fl := range r.before.Filters {
		filtered[[3]string{fl.Framework, fl.Role, fl.Agent}] = true
	}
	for _, v := range r.after.Agents {
		if !r.host.looked(v) {
			continue
		}
		free, whole := freeOnAgent(v)
		// A name with an indivisible disk free has no floor: one cut (to
		// the headroom) may keep the disk whole and the next (to a limit,
		// the offer share) drop it, leaving nothing of the name.
		for name := range whole {
			delete(free, name)
		}
		reserved := v.Available.Filter(func(x resources.Resource) bool { return x.IsReserved() && !x.Shared })
		if !free.positive() && reserved.IsEmpty() {
			continue
		}
		for _, f := range r.after.Frameworks {
			if !f.Active {
				continue
			}
			for _, role := range f.Roles {
				k := [3]string{f.ID, role, v.ID}
				if slices.Contains(f.Suppressed, role) || offered[k] || filtered[k] || !r.host.canTake(f, role, v) {
					continue
				}
				could := r.couldTake(role, v, free, low)
				// Reservations allocatable to the role are never cut.
				var mine []string
				for x := range reserved.All() {
					if !inSubtree(role, x.Role()) || (x.Revocable && !f.Capabilities.Has(offer.RevocableResources)) ||
						(x.Reservations.IsRefined() && !f.Capabilities.Has(offer.ReservationRefinement)) {
						continue
					}
					mine = append(mine, x.String())
					if x.Type == resources.ScalarType {
						could[x.Name] += x.Scalar
					}
				}
				if (!could.positive() && len(mine) == 0) || !meetsAmounts(r.host.minimum(f.ID, role), could) {
					continue
				}
				if list, stated := r.host.pending(f.ID, role); stated && !slices.ContainsFunc(list, func(p allocator.Pending) bool {
					return p.Count > 0 && meetsAmounts([]resources.Quantities{p.Resources}, could)
				}) {
					// It states demand there and none of its pending
					// tasks fits what it could take.
					continue
				}
				r.errs.fail("quota: after a periodic run, %s in role %s could take %s of what is free on %s (within its limits and the headroom: free %s after the run, guarantees need at most %s; reservations, never held back: %s), and was offered nothing there",
					f.ID, role, could, v.ID, r.freeAfter, low, strings.Join(mine, ", "))
			}
		}
	}
}

// couldTake returns what of free (divisible, on agent v, of names with no
// indivisible disk free there) a role's offer would hold at least: each
// name cut to the limits' room and the headroom beyond what guarantees
// need, both as after the run (they only shrink during a run), and to the
// offer share. (A cut of divisible resources keeps the smaller of what
// there is and the target, in whatever order it visits them.)
func (r *referee) couldTake(role string, v allocator.AgentView, free, low amounts) amounts {
	out := amounts{}
	for name, x := range free {
		x = min(x, r.freeAfter[name]-low[name])
		if room, limited := r.limitRoom(role, name); limited {
			x = min(x, room)
		}
		if r.host.share > 0 {
			x = min(x, r.shareOf(v, name))
		}
		if x > 0 {
			out[name] = x
		}
	}
	return out
}

// meetsAmounts reports whether a holds one of the minimum allocatable
// alternatives (any amount when there are none).
func meetsAmounts(alternatives []resources.Quantities, a amounts) bool {
	if len(alternatives) == 0 {
		return true
	}
	for _, alt := range alternatives {
		ok := true
		for name, x := range alt.All() {
			if a[name] < x {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
