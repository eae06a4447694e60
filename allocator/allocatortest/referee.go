package allocatortest

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The quota referee: what the allocator's documented quota semantics
// promise after every allocation run, worked out from the public views
// alone (the agents, the roles' quotas, the frameworks, the refusal
// filters before the run, the run's offers) with arithmetic of its own.
//
// The cache-free twin (twin.go) runs the allocator's own quota arithmetic
// (package allocator/internal/roles: unmet guarantees, the headroom they
// need, what limits leave), so a fault there makes both copies agree on a
// wrong answer. The referee shares nothing with it: it sums what it
// needs over the agents' views, builds the role tree from the roles'
// paths, and works out every figure below in plain integers of
// thousandths (amounts), not in package resources' Quantities or Limits.
//
// # What the documentation promises
//
// From the package doc of package allocator ("The allocation algorithm",
// "Accounting", "Where this package differs from Mesos"), UpdateQuota's
// doc, holds.go's, and Mesos's hierarchical allocator, which it follows
// (its quota headroom, stage one and stage two):
//
//   - Consumption. A role's quota consumption is every scalar reservation
//     whose role is in its subtree, on every agent, offered or not, plus
//     the unreserved non-revocable scalars offered to, allocated to or
//     held for (RecoverHeld, PreemptTask) frameworks under a role of its
//     subtree. Usage an agent reported for frameworks not added yet
//     (AgentView.Unclaimed) belongs to no tracked role and does not count,
//     as in Mesos, which tracks it only once the framework is added (the
//     Accounting paragraph's "count with allocated" is about the agent's
//     books, and the roles' views agree).
//   - Headroom. The free headroom is the unreserved non-revocable scalars
//     of all agents that are neither offered nor allocated nor held (their
//     Available), whether or not a run may offer them (an inactive
//     agent's free resources count, as in Mesos's availableHeadroom). The headroom
//     guarantees need (the required headroom) is the sum over top-level
//     roles of their subtree's need, where a role's need is, per resource
//     name, the larger of its own unmet guarantee (guarantee less
//     consumption, at least zero; zero without a guarantee) and the sum of
//     its children's needs. No role is exempt: a role whose guarantee no
//     framework can take offers for is still owed its headroom.
//   - Stage one (guarantees). Only a role with an unmet guarantee of its
//     own or of an ancestor takes part; it may be given, as guarantee, up
//     to the largest unmet guarantee among itself and its ancestors, even
//     when that leaves the free headroom below the required headroom
//     (Mesos hands guarantees out when the cluster is over-committed, and
//     with nested guarantees, say a and a/b, what a/c is given for a's
//     guarantee leaves a/b's need, and so the required headroom, as it
//     was). Whatever it is given beyond that is cut to its limits and to
//     what keeps the free headroom at the required headroom.
//   - Stage two (fair share) comes after every offer of stage one. Every
//     offer of unreserved non-revocable scalars is cut to the role's and
//     its ancestors' limits and to the free headroom beyond the required
//     headroom (which stage two does not lower as it meets guarantees);
//     reservations are never held back: the framework is offered every
//     reservation on the agent allocatable to its role (its own and its
//     ancestors').
//   - Limits. A limit caps the subtree's consumption ("a role's maximum
//     share as its quota limit"; a role "may burst above its guarantee up
//     to its limits"): no run takes a role or an ancestor past a limit,
//     and one above a limit already (a limit lowered, reservations added)
//     is offered nothing more of that resource.
//   - Quota values. Guarantees are within the role's own limits and every
//     ancestor's, which UpdateQuota refuses otherwise.
//
// A run starts by giving back holds that expired or that their framework
// can no longer take, which lowers consumption before any offer; what is
// left of a hold is offered to its framework. The views cannot tell a hold
// given back from one offered, so the referee bounds: a figure that must
// hold at the run's start is worked out once with every hold gone by the
// end of the run counted as given back (the least the consumption at the
// start can have been), once with the views before the run.
//
// # What the referee checks
//
// With F the free headroom and R the required headroom, per resource name,
// and D = F − R:
//
//  1. limits: a role's subtree given, by the run's offers beyond what they
//     offered of holds, any of a resource its or an ancestor's limit names
//     is within that limit after the run;
//  2. stage two keeps the headroom: if the run offered, beyond holds, a
//     resource to a role that had no unmet guarantee in its ancestry when
//     the run started (so that role took no part in stage one, and its
//     offer came after every guaranteed part), then D ≥ 0 for that
//     resource after the run;
//  3. only guarantees spend the headroom: D after the run is at least
//     the smaller of D at the start and zero, less W, where W bounds what
//     guaranteed parts may have spent: the resource offered to roles of
//     top-level subtrees with nested guarantees of it, each role at most
//     its unmet guarantee at the start. Without nesting a guaranteed part
//     lowers F and R alike, so W is zero there. D at the start is at least
//     F before the run less R with the holds gone given back: a hold given
//     back on an over-allocated agent raises R and may leave F as it was;
//  4. bursts keep the headroom: if some role was offered, beyond holds,
//     more of a resource than its largest unmet guarantee at the start
//     (so part of it was no guarantee), then D ≥ −W' after the run, W'
//     being W less that role's part: a role is given more than its
//     guarantee only in the offer whose guaranteed part meets all it may
//     be given as guarantee, and none after, so only other roles'
//     guaranteed parts may have spent headroom after its burst;
//  5. nothing is held back for nothing (needs the host's facts): an offer
//     of the run (beyond holds, not sized to a stated task) that leaves a
//     divisible unreserved non-revocable resource free on its agent was cut
//     there by a limit (the role's or an ancestor's consumption is at the
//     limit after the run) or by the headroom (F after the run is at most
//     R with the holds gone counted as given back, which is at least the
//     required headroom the run cut with); with Options.OfferShare, or by
//     the share of the agent;
//  6. reservations are never held back (needs the host's facts): after an
//     offer to a role that took no part in stage one (beyond holds, not
//     sized), the agent has no reservation left available that is
//     allocatable to the role and that the framework is capable of
//     (shared volumes aside, which a run offers once);
//  7. no role is capped wrongly (needs the host's facts, periodic runs
//     only): on every agent the run looked at, an active framework in a
//     role it subscribes to and does not suppress, with no refusal filter
//     there and able to take the agent, that was offered nothing there,
//     can take nothing of what is left that meets its minimum allocatable
//     resources (and, when it states demand in the role, holds one of its
//     pending tasks): neither unreserved resources within its limits, the
//     headroom and the offer share, nor reservations allocatable to its
//     role that it is capable of (never held back, never cut). Limits and
//     headroom only shrink during a run, and the fair-share stage walks
//     every such framework on every such agent until the agent is empty:
//     a framework that could take something at the end could at its turn;
//  8. consumption and quota values: every role's view reports the
//     consumption worked out above, and every guarantee is within the
//     role's and its ancestors' limits.
//
// Checks 1 to 4 and 8 need only the views (CheckQuota, which CheckRun
// runs); the harness runs all of them after every run it makes.
//
// Reclaim (Options.Reclaim) adds to a role's consumption outside runs:
// what a chosen task frees is held for the role when the host ends the
// task (EndTask). Check 1 sees such a hold only as what it is at the next
// run, a hold offered; whether holding it kept the limits is a property of
// the event that ended the task, which TestRefereeReclaimKeepsLimits
// checks on its own.
//
// Where the referee must bound, it bounds so that it never reports a run
// that keeps the promises: what an offer took from the free pool is at
// least what it holds beyond the framework's holds there; an indivisible
// disk (MOUNT, BLOCK), which a cut keeps whole or drops, leaves its name
// out of checks 5 and 7 on its agent; offers sized to a stated task leave
// the rest on purpose and are left out of checks 5 and 6.

// CheckQuota checks one allocation run against the allocator's documented
// quota semantics, from the views alone (see the referee's promises in
// referee.go: limits, the headroom kept by stage two and by bursts, the
// headroom spent only by guarantees, consumption and quota values).
// before is a snapshot taken just before the run, res what the run
// returned, after a snapshot taken just after it; before and after need
// their Agents and Roles. The error joins every violation found.
func CheckQuota(before Views, res allocator.Result, after Views) error {
	return errors.Join(refereeQuota(before, res, after, nil)...)
}

// refereeHost is what the referee needs to know beyond the views to tell
// what a framework could have been offered: the host's own record of what
// it told the allocator.
type refereeHost struct {
	// looked reports whether the run looked at the agent: active, not
	// over-allocated, on the whitelist.
	looked func(v allocator.AgentView) bool
	// canTake reports whether the framework may be offered anything of
	// the agent in the role: the agent's GPUs and region, the offer
	// constraints.
	canTake func(f allocator.FrameworkView, role string, v allocator.AgentView) bool
	// pending returns what the framework waits for in the role after
	// the run, and whether it states demand there at all (its offers may
	// then be sized to a task, or withheld where none fits). A run only
	// counts tasks off: what is pending after it was pending all along.
	pending func(fw, role string) ([]allocator.Pending, bool)
	// minimum returns the framework's minimum allocatable alternatives in
	// the role; none means anything is allocatable.
	minimum func(fw, role string) []resources.Quantities
	// wholeOffers: offers to frameworks that state demand are not sized.
	wholeOffers bool
	// share is Options.OfferShare when it splits agents, else zero.
	share float64
	// paused: the run was skipped.
	paused bool
}

// refereeRun is the harness's hook: it runs the referee on a run it made,
// with the host's facts. before are the views the run is checked against
// (with Fast, the agents as kept, and the filters before a periodic run).
func (h *Harness) refereeRun(before Views, res allocator.Result) []error {
	after := Views{Roles: h.a.Roles()}
	if !slices.ContainsFunc(after.Roles, func(r allocator.RoleView) bool { return !r.Quota.IsZero() }) {
		// No quota anywhere: nothing is cut or held back for it.
		return nil
	}
	if h.fast {
		after.Agents = h.agentList // taken again after the run
	} else {
		after.Agents = h.a.Agents()
	}
	if len(res.Offers) > 0 || res.Stats.Periodic {
		// A run changes no framework: those after it are those before.
		after.Frameworks = h.a.Frameworks()
	}
	return refereeQuota(before, res, after, h.refereeHost(h.a))
}

// refereeHost returns the host's facts about allocator a (the harness's,
// or a copy of it that takes the same events).
func (h *Harness) refereeHost(a *allocator.Allocator) *refereeHost {
	demand := map[string]map[string][]allocator.Pending{}
	pending := func(fw, role string) ([]allocator.Pending, bool) {
		d, ok := demand[fw]
		if !ok {
			d, _ = a.Demand(fw) // a run never drops a statement
			demand[fw] = d
		}
		list, ok := d[role]
		return list, ok
	}
	opts := h.opts.Allocator
	host := &refereeHost{
		looked: h.looked,
		canTake: func(f allocator.FrameworkView, role string, v allocator.AgentView) bool {
			caps := f.Capabilities
			if !opts.AllowGPUsToAll && !caps.Has(offer.GPUResources) && v.Total.Quantities().Scalar("gpus") > 0 {
				return false
			}
			if region := h.agentInfo[v.ID].Region; opts.Region != "" && region != "" && region != opts.Region && !caps.Has(offer.RegionAware) {
				return false
			}
			cs, has := h.fwInfo[f.ID].Constraints[role]
			return !has || admits(cs, h.agentInfo[v.ID].Attributes)
		},
		pending: pending,
		minimum: func(fw, role string) []resources.Quantities {
			mins, ok := h.fwInfo[fw].MinAllocatable[role]
			if !ok {
				mins = opts.MinAllocatable
				if mins == nil {
					mins = allocator.DefaultMinAllocatable()
				}
			}
			return mins
		},
		wholeOffers: opts.WholeOffers,
		paused:      h.paused,
	}
	if opts.OfferShare > 0 && opts.OfferShare < 1 {
		host.share = opts.OfferShare
	}
	return host
}

// amounts are scalar amounts by resource name, in thousandths: the
// referee's own arithmetic. A missing name is zero; amounts may go
// negative where the referee subtracts on purpose.
type amounts map[string]resources.Scalar

func (a amounts) add(b amounts) {
	for name, v := range b {
		a[name] += v
	}
}

// positive reports whether some amount is above zero.
func (a amounts) positive() bool {
	for _, v := range a {
		if v > 0 {
			return true
		}
	}
	return false
}

// String prints the non-zero amounts in name order, "{}" when none.
func (a amounts) String() string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(a)) {
		if a[name] != 0 {
			parts = append(parts, name+":"+a[name].String())
		}
	}
	if len(parts) == 0 {
		return "{}"
	}
	return strings.Join(parts, "; ")
}

// quotaAmounts are the unreserved, non-revocable scalars of rs: what quota
// limits and headroom are about.
func quotaAmounts(rs resources.Resources) amounts {
	out := amounts{}
	for r := range rs.All() {
		if r.Type == resources.ScalarType && !r.IsReserved() && !r.Revocable {
			out[r.Name] += r.Scalar
		}
	}
	return out
}

// freeOnAgent splits the unreserved, non-revocable scalars available on
// an agent into what a cut may take in part (divisible) and the names
// some indivisible disk of which is free (a MOUNT or BLOCK disk, which a
// cut drops whole when it does not fit).
func freeOnAgent(v allocator.AgentView) (divisible amounts, whole map[string]bool) {
	divisible, whole = amounts{}, map[string]bool{}
	for r := range v.Available.All() {
		if r.Type != resources.ScalarType || r.IsReserved() || r.Revocable {
			continue
		}
		if r.Disk != nil && (r.Disk.Persistence != nil || !r.Disk.Divisible()) {
			whole[r.Name] = true
			continue
		}
		divisible[r.Name] += r.Scalar
	}
	return divisible, whole
}

// inSubtree reports whether role is path or below it.
func inSubtree(role, path string) bool {
	return role == path || strings.HasPrefix(role, path+"/")
}

// parentRole returns the role's parent, "" for a top-level role.
func parentRole(role string) string {
	if i := strings.LastIndexByte(role, '/'); i >= 0 {
		return role[:i]
	}
	return ""
}

// topRole returns the top-level role of role's subtree.
func topRole(role string) string {
	if i := strings.IndexByte(role, '/'); i >= 0 {
		return role[:i]
	}
	return role
}

// refOffer is one offer of the run as the referee reads it.
type refOffer struct {
	o offer.Offer
	// all are the offer's unreserved non-revocable scalars; fresh what
	// of them is beyond what was held for the framework in the role on
	// the agent before the run (the least the run took from the free
	// pool for it).
	all, fresh amounts
	// holdsOnly: the offer holds nothing beyond the framework's holds in
	// the role there, so it may be a hold offered at the run's start and
	// nothing more.
	holdsOnly bool
}

// referee is one run under review.
type referee struct {
	before, after Views
	res           allocator.Result
	host          *refereeHost
	errs          errorList

	// guarantees and limits by role (a limit of zero is one); family:
	// the roles with a guarantee and their ancestors, deepest first, and
	// children within it.
	guarantees map[string]amounts
	limits     map[string]amounts
	family     []string
	children   map[string][]string

	// own consumption by role (not summed over subtrees): before and
	// after the run, and before with the holds gone by the end counted
	// as given back (low).
	ownBefore, ownAfter, ownLow map[string]amounts
	freeBefore, freeAfter       amounts
	offers                      []refOffer
	// freshTo and offeredTo sum the offers' fresh and all by role.
	freshTo, offeredTo map[string]amounts
	// unsat keeps unsatisfied's answers by role.
	unsat map[string]amounts
}

// refereeQuota runs the referee's checks on a run; host, when not nil,
// enables the checks that need to know who could take what.
func refereeQuota(before Views, res allocator.Result, after Views, host *refereeHost) []error {
	r, roles, ok := readReferee(before, after)
	if !ok {
		return nil
	}
	r.res, r.host = res, host
	r.readOffers()
	r.checkQuotaValues(roles)
	r.checkConsumption()
	r.checkLimits()
	low := r.required(r.ownLow)
	r.checkHeadroom(low)
	if host != nil && !host.paused {
		r.checkHeldBack(low)
		r.checkReservationsOffered()
		if res.Stats.Periodic {
			r.checkIdle(low)
		}
	}
	return r.errs
}

// readReferee reads the quotas (of the roles after the run, else before
// it) and the consumption and free headroom before and after the run; it
// reports whether some role has quota, and returns the roles it read.
func readReferee(before, after Views) (*referee, []allocator.RoleView, bool) {
	r := &referee{before: before, after: after, unsat: map[string]amounts{}}
	roles := after.Roles
	if roles == nil {
		roles = before.Roles
	}
	if !r.readQuotas(roles) {
		return nil, nil, false
	}
	r.readAgents()
	return r, roles, true
}

// readQuotas reads the roles' quotas and builds the family of roles with
// guarantees; it reports whether some role has quota.
func (r *referee) readQuotas(roles []allocator.RoleView) bool {
	r.guarantees, r.limits = map[string]amounts{}, map[string]amounts{}
	for _, v := range roles {
		q := v.Quota
		if !q.Guarantees.IsEmpty() {
			g := amounts{}
			for name, x := range q.Guarantees.All() {
				if x > 0 {
					g[name] = x
				}
			}
			r.guarantees[v.Role] = g
		}
		if !q.Limits.IsEmpty() {
			l := amounts{}
			for _, name := range q.Limits.Names() {
				l[name], _ = q.Limits.Get(name)
			}
			r.limits[v.Role] = l
		}
	}
	if len(r.guarantees) == 0 && len(r.limits) == 0 {
		return false
	}
	inFamily := map[string]bool{}
	for role := range r.guarantees {
		for p := role; p != "" && !inFamily[p]; p = parentRole(p) {
			inFamily[p] = true
		}
	}
	r.family = slices.Collect(maps.Keys(inFamily))
	slices.SortFunc(r.family, func(a, b string) int {
		if da, db := strings.Count(a, "/"), strings.Count(b, "/"); da != db {
			return db - da // deepest first: children before parents
		}
		return strings.Compare(a, b)
	})
	r.children = map[string][]string{}
	for _, role := range r.family {
		if p := parentRole(role); p != "" {
			r.children[p] = append(r.children[p], role)
		}
	}
	return true
}

// readAgents sums, over the agents before and after the run, the free
// headroom and every role's own consumption, and what the holds gone by
// the end of the run would give back.
func (r *referee) readAgents() {
	r.ownBefore, r.freeBefore = consumption(r.before.Agents)
	r.ownAfter, r.freeAfter = consumption(r.after.Agents)
	r.ownLow = map[string]amounts{}
	for role, a := range r.ownBefore {
		r.ownLow[role] = maps.Clone(a)
	}
	for _, v := range r.before.Agents {
		w, _ := r.after.Agent(v.ID)
		for fw, held := range v.Held {
			for _, role := range held.AllocationRoles() {
				was := quotaAmounts(held.AllocatedTo(role))
				left := quotaAmounts(w.Held[fw].AllocatedTo(role))
				low := r.ownLow[role]
				if low == nil {
					low = amounts{}
					r.ownLow[role] = low
				}
				for name, x := range was {
					if gone := x - left[name]; gone > 0 {
						low[name] -= gone
					}
				}
			}
		}
	}
}

// consumption returns, from the agents' views, each role's own
// consumption (its reservations, and the unreserved non-revocable scalars
// offered, allocated or held in it) and the free headroom.
func consumption(agents []allocator.AgentView) (map[string]amounts, amounts) {
	own, free := map[string]amounts{}, amounts{}
	charge := func(role, name string, x resources.Scalar) {
		a := own[role]
		if a == nil {
			a = amounts{}
			own[role] = a
		}
		a[name] += x
	}
	for _, v := range agents {
		for x := range v.Total.All() {
			if x.Type == resources.ScalarType && x.IsReserved() {
				charge(x.Role(), x.Name, x.Scalar)
			}
		}
		for _, m := range []map[string]resources.Resources{v.Offered, v.Allocated, v.Held} {
			for _, held := range m {
				for x := range held.All() {
					if x.Type == resources.ScalarType && !x.IsReserved() && !x.Revocable && x.AllocationRole != "" {
						charge(x.AllocationRole, x.Name, x.Scalar)
					}
				}
			}
		}
		free.add(quotaAmounts(v.Available))
	}
	return own, free
}

// readOffers reads the run's offers: what each holds of quota's part, and
// what beyond the framework's holds before the run.
func (r *referee) readOffers() {
	r.freshTo, r.offeredTo = map[string]amounts{}, map[string]amounts{}
	for _, o := range r.res.Offers {
		v, _ := r.before.Agent(o.AgentID)
		held := v.Held[o.FrameworkID].AllocatedTo(o.Role)
		all, hq := quotaAmounts(o.Resources), quotaAmounts(held)
		fresh := amounts{}
		for name, x := range all {
			if d := x - hq[name]; d > 0 {
				fresh[name] = d
			}
		}
		ro := refOffer{o: o, all: all, fresh: fresh, holdsOnly: !held.IsEmpty() && held.Contains(o.Resources)}
		r.offers = append(r.offers, ro)
		addTo(r.freshTo, o.Role, fresh)
		addTo(r.offeredTo, o.Role, all)
	}
}

// addTo adds a to m's amounts of role.
func addTo(m map[string]amounts, role string, a amounts) {
	to := m[role]
	if to == nil {
		to = amounts{}
		m[role] = to
	}
	to.add(a)
}

// subtree sums own consumption over the subtree of path.
func subtree(own map[string]amounts, path string) amounts {
	out := amounts{}
	for role, a := range own {
		if inSubtree(role, path) {
			out.add(a)
		}
	}
	return out
}

// required returns the headroom guarantees need with the roles' own
// consumption own: the sum over top-level roles of their need, a role's
// need being, name by name, the larger of its unmet guarantee and the sum
// of its children's needs.
func (r *referee) required(own map[string]amounts) amounts {
	need := map[string]amounts{}
	total := amounts{}
	for _, role := range r.family {
		n := amounts{}
		for _, c := range r.children[role] {
			n.add(need[c])
		}
		if g, ok := r.guarantees[role]; ok {
			used := subtree(own, role)
			for name, x := range g {
				if unmet := x - used[name]; unmet > n[name] {
					n[name] = unmet
				}
			}
		}
		need[role] = n
		if parentRole(role) == "" {
			total.add(n)
		}
	}
	return total
}

// unsatisfied returns the largest unmet guarantee, name by name, among
// role and its ancestors at the start of the run, at most (with the holds
// gone by its end given back): what the role may have been given as
// guarantee. A role with none took no part in stage one.
func (r *referee) unsatisfied(role string) amounts {
	if out, ok := r.unsat[role]; ok {
		return out
	}
	out := amounts{}
	for p := role; p != ""; p = parentRole(p) {
		g, ok := r.guarantees[p]
		if !ok {
			continue
		}
		used := subtree(r.ownLow, p)
		for name, x := range g {
			if unmet := x - used[name]; unmet > out[name] {
				out[name] = unmet
			}
		}
	}
	r.unsat[role] = out
	return out
}
