package allocatortest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Views is what an allocator shows through its views at one moment:
// agents, roles, frameworks and the refusal filters in force.
type Views struct {
	Agents     []allocator.AgentView
	Roles      []allocator.RoleView
	Frameworks []allocator.FrameworkView
	Filters    []allocator.FilterView
}

// Snapshot is Views's earlier name.
//
// Deprecated: use Views; allocator.Snapshot is the allocator's saved state.
type Snapshot = Views

// Take returns a's views at this moment.
func Take(a *allocator.Allocator) Views {
	return Views{Agents: a.Agents(), Roles: a.Roles(), Frameworks: a.Frameworks(), Filters: a.Filters()}
}

// Agent returns the view of one agent of the snapshot.
func (s Views) Agent(id string) (allocator.AgentView, bool) {
	i, ok := slices.BinarySearchFunc(s.Agents, id, func(v allocator.AgentView, id string) int { return strings.Compare(v.ID, id) })
	if !ok {
		return allocator.AgentView{}, false
	}
	return s.Agents[i], true
}

// Framework returns the view of one framework of the snapshot.
func (s Views) Framework(id string) (allocator.FrameworkView, bool) {
	i, ok := slices.BinarySearchFunc(s.Frameworks, id, func(v allocator.FrameworkView, id string) int { return strings.Compare(v.ID, id) })
	if !ok {
		return allocator.FrameworkView{}, false
	}
	return s.Frameworks[i], true
}

// Role returns the view of one role of the snapshot.
func (s Views) Role(path string) (allocator.RoleView, bool) {
	i, ok := slices.BinarySearchFunc(s.Roles, path, func(v allocator.RoleView, p string) int { return strings.Compare(v.Role, p) })
	if !ok {
		return allocator.RoleView{}, false
	}
	return s.Roles[i], true
}

// Check reports every way the allocator's state breaks the accounting that
// users rely on. It runs the allocator's own recomputation of its
// bookkeeping (Allocator.CheckInvariants, which also compares the sorters'
// allocations with the agents') and then re-derives, from the views alone:
//
//   - for every agent that is not over-allocated, available + offered +
//     allocated == total (shared volumes are counted once, in available),
//     and frameworks hold only shared volumes the agent has; an agent
//     marked over-allocated really holds more than its total;
//   - shared volumes stay available;
//   - held resources carry an allocation role under which the framework
//     is known, and reserved resources are held only by their role's
//     subtree;
//   - each framework's totals are the sums over agents;
//   - each role's reservations and allocations are those of its subtree on
//     the agents, and its consumption is their sum; weights are positive;
//   - refusal filters name only known frameworks and agents.
//
// Over-allocation of a role (a limit set below what it already consumes)
// is not an error here; CheckRun checks that no allocation run adds to it.
// The error joins every violation found; nil means none.
func Check(a *allocator.Allocator) error {
	var errs []error
	if err := a.CheckInvariants(); err != nil {
		errs = append(errs, fmt.Errorf("invariants: %w", err))
	}
	errs = append(errs, checkViewsAll(Take(a))...)
	return errors.Join(errs...)
}

// errorList collects violations in the order the checks find them.
type errorList []error

// fail adds a violation.
func (l *errorList) fail(format string, args ...any) {
	*l = append(*l, fmt.Errorf(format, args...))
}

// used returns what frameworks hold on the agent, without allocation roles
// and without shared volumes.
func used(v allocator.AgentView) resources.Resources {
	var out resources.Resources
	for _, fw := range slices.Sorted(maps.Keys(v.Offered)) {
		out.Add(v.Offered[fw].NonShared().Unallocate())
	}
	for _, fw := range slices.Sorted(maps.Keys(v.Allocated)) {
		out.Add(v.Allocated[fw].NonShared().Unallocate())
	}
	for _, fw := range slices.Sorted(maps.Keys(v.Held)) {
		out.Add(v.Held[fw].Unallocate())
	}
	for _, fw := range slices.Sorted(maps.Keys(v.Unclaimed)) {
		out.Add(v.Unclaimed[fw].NonShared().Unallocate())
	}
	return out
}

// missingShared returns the shared volumes frameworks hold on the agent
// that its total lacks, one copy each.
func missingShared(v allocator.AgentView) resources.Resources {
	var out resources.Resources
	for _, m := range []map[string]resources.Resources{v.Offered, v.Allocated, v.Unclaimed} {
		for _, fw := range slices.Sorted(maps.Keys(m)) {
			for r := range m[fw].Shared().All() {
				r.AllocationRole = ""
				if !v.Total.ContainsResource(r) && !out.ContainsResource(r) {
					_ = out.AddResource(r)
				}
			}
		}
	}
	return out
}

// checkAgent checks what one agent's view must respect on its own:
// conservation (or a justified over-allocation mark), shared volumes that
// stay available and that the agent has, and what frameworks hold there:
// known frameworks (by known), non-empty entries, allocation roles, and
// reservations held only by their role's subtree.
func checkAgent(v allocator.AgentView, known func(fw string) bool) []error {
	var errs errorList
	if hasAllocationRoles(v.Total) {
		errs.fail("agent %s: total carries allocation roles %q", v.ID, v.Total.AllocationRoles())
	}
	if hasAllocationRoles(v.Available) {
		errs.fail("agent %s: available carries allocation roles %q", v.ID, v.Available.AllocationRoles())
	}
	shared := v.Total.HasShared() || v.Available.HasShared()
	for _, m := range []map[string]resources.Resources{v.Offered, v.Allocated, v.Unclaimed} {
		for _, r := range m {
			shared = shared || r.HasShared()
		}
	}
	var missing resources.Resources
	if shared {
		missing = missingShared(v)
	}
	if v.OverAllocated {
		u := used(v)
		if v.Total.Contains(u) && missing.IsEmpty() {
			errs.fail("agent %s: marked over-allocated, but its total %s holds what is in use, %s", v.ID, v.Total, u)
		}
		if !v.Total.Contains(v.Available) {
			errs.fail("agent %s: available %s is not within the total %s", v.ID, v.Available, v.Total)
		}
	} else {
		// available + what frameworks hold (shared volumes aside, which stay
		// available), without allocation roles.
		sum := v.Available.Clone()
		for _, m := range []map[string]resources.Resources{v.Offered, v.Allocated, v.Held, v.Unclaimed} {
			for _, held := range m {
				if held.HasShared() {
					held = held.NonShared()
				}
				sum.Add(held.Unallocate())
			}
		}
		if !sum.Equal(v.Total) {
			errs.fail("agent %s: available + offered + allocated + held + unclaimed = %s, total %s", v.ID, sum, v.Total)
		}
	}
	if !v.OverAllocated && !missing.IsEmpty() {
		errs.fail("agent %s: frameworks hold shared volumes %s, which the agent does not have", v.ID, missing)
	}
	if shared {
		if shared, avail := v.Total.Shared(), v.Available.Shared(); !shared.Equal(avail) {
			errs.fail("agent %s: shared volumes %s, available %s; shared volumes stay available", v.ID, shared, avail)
		}
	}
	held := func(kind string, m map[string]resources.Resources) {
		for fwID, res := range m {
			if !known(fwID) {
				errs.fail("agent %s: %s to unknown framework %s: %s", v.ID, kind, fwID, res)
				continue
			}
			if res.IsEmpty() {
				errs.fail("agent %s: empty %s entry for framework %s", v.ID, kind, fwID)
			}
			for r := range res.All() {
				if r.AllocationRole == "" {
					errs.fail("agent %s: %s to %s without an allocation role: %s", v.ID, kind, fwID, r)
					continue
				}
				if !r.Reservations.AllocatableTo(r.AllocationRole) {
					errs.fail("agent %s: %s to %s in role %q, outside the reservation's subtree: %s", v.ID, kind, fwID, r.AllocationRole, r)
				}
			}
		}
	}
	held("offered", v.Offered)
	held("allocated", v.Allocated)
	for fwID, res := range v.Unclaimed {
		if known(fwID) {
			errs.fail("agent %s: usage of %s unclaimed, although the framework was added: %s", v.ID, fwID, res)
		}
		if res.IsEmpty() {
			errs.fail("agent %s: empty unclaimed usage of %s", v.ID, fwID)
		}
	}
	if len(errs) > 1 {
		// The maps were walked in no order; the messages come in one.
		slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	}
	return errs
}

// hasAllocationRoles reports whether some entry of rs carries an
// allocation role.
func hasAllocationRoles(rs resources.Resources) bool {
	for r := range rs.All() {
		if r.AllocationRole != "" {
			return true
		}
	}
	return false
}

func checkViewsAll(s Views) []error { return checkViews(s, true) }

// checkViews is what Check re-derives from the views alone; checkAgents
// tells whether to run checkAgent on every agent too (a Fast harness has checked each when it
// changed).
func checkViews(s Views, checkAgents bool) []error {
	c := &viewsCheck{
		s:           s,
		frameworks:  map[string]allocator.FrameworkView{},
		roles:       map[string]allocator.RoleView{},
		fwOffered:   map[string]resources.Resources{},
		fwAllocated: map[string]resources.Resources{},
		reserved:    map[string]resources.Quantities{},
		allocated:   map[string]resources.Quantities{},
	}
	c.indexFrameworks()
	c.indexRoles()
	for i, v := range s.Agents {
		if i > 0 && s.Agents[i-1].ID >= v.ID {
			c.errs.fail("agents out of order: %q before %q", s.Agents[i-1].ID, v.ID)
		}
		if checkAgents {
			c.errs = append(c.errs, checkAgent(v, c.known)...)
		}
		c.sumAgent(v)
	}
	c.checkFrameworkTotals()
	c.checkRoleTotals()
	c.checkFilters()
	return c.errs
}

// viewsCheck is checkViews's state: the views indexed, and the sums over
// agents that the frameworks' and roles' views must equal.
type viewsCheck struct {
	s          Views
	errs       errorList
	frameworks map[string]allocator.FrameworkView
	roles      map[string]allocator.RoleView
	// What frameworks are offered and allocated, summed over agents.
	fwOffered, fwAllocated map[string]resources.Resources
	// reserved and allocated by role (not yet summed over subtrees).
	reserved, allocated map[string]resources.Quantities
}

func (c *viewsCheck) known(fw string) bool { _, ok := c.frameworks[fw]; return ok }

// indexFrameworks indexes the frameworks, which must come in id order and
// suppress only roles they subscribe to.
func (c *viewsCheck) indexFrameworks() {
	fws := c.s.Frameworks
	for i, f := range fws {
		if i > 0 && fws[i-1].ID >= f.ID {
			c.errs.fail("frameworks out of order: %q before %q", fws[i-1].ID, f.ID)
		}
		c.frameworks[f.ID] = f
		for _, role := range f.Suppressed {
			if !slices.Contains(f.Roles, role) {
				c.errs.fail("framework %s: suppressed role %q is not one of its roles %q", f.ID, role, f.Roles)
			}
		}
	}
}

// indexRoles indexes the roles, which must come in path order.
func (c *viewsCheck) indexRoles() {
	roles := c.s.Roles
	for i, r := range roles {
		if i > 0 && roles[i-1].Role >= r.Role {
			c.errs.fail("roles out of order: %q before %q", roles[i-1].Role, r.Role)
		}
		c.roles[r.Role] = r
	}
}

// sumAgent adds what agent v reserves for roles and what frameworks hold
// there to the sums.
func (c *viewsCheck) sumAgent(v allocator.AgentView) {
	for r := range v.Total.Reserved("").Scalars().All() {
		q := c.reserved[r.Role()]
		q.SetScalar(r.Name, q.Scalar(r.Name)+r.Scalar)
		c.reserved[r.Role()] = q
	}
	c.sumHeld(v, "offered", v.Offered, c.fwOffered)
	c.sumHeld(v, "allocated", v.Allocated, c.fwAllocated)
	c.sumHeld(v, "held", v.Held, map[string]resources.Resources{}) // counts as the role's, as in use
}

// sumHeld adds what frameworks hold on agent v in one way (m, offered,
// allocated or held) to their sums and to their roles', checking that
// each framework is known under the allocation roles it holds in.
func (c *viewsCheck) sumHeld(v allocator.AgentView, kind string, m, sums map[string]resources.Resources) {
	for _, fwID := range slices.Sorted(maps.Keys(m)) {
		res := m[fwID]
		f, ok := c.frameworks[fwID]
		if !ok {
			continue
		}
		sum := sums[fwID]
		sum.Add(res)
		sums[fwID] = sum
		for r := range res.All() {
			if r.AllocationRole == "" {
				continue
			}
			if rv, ok := c.roles[r.AllocationRole]; !ok || !slices.Contains(rv.Frameworks, fwID) {
				c.errs.fail("agent %s: %s to %s in role %q, under which the framework is not known (it subscribes to %q)", v.ID, kind, fwID, r.AllocationRole, f.Roles)
			}
			if r.Type == resources.ScalarType && !r.IsReserved() && !r.Revocable {
				q := c.allocated[r.AllocationRole]
				q.SetScalar(r.Name, q.Scalar(r.Name)+r.Scalar)
				c.allocated[r.AllocationRole] = q
			}
		}
	}
}

// checkFrameworkTotals compares each framework's totals with the sums over
// agents, and its roles with the roles' lists of frameworks.
func (c *viewsCheck) checkFrameworkTotals() {
	for _, f := range c.s.Frameworks {
		if !f.Offered.Equal(c.fwOffered[f.ID]) {
			c.errs.fail("framework %s: offered %s, agents say %s", f.ID, f.Offered, c.fwOffered[f.ID])
		}
		if !f.Allocated.Equal(c.fwAllocated[f.ID]) {
			c.errs.fail("framework %s: allocated %s, agents say %s", f.ID, f.Allocated, c.fwAllocated[f.ID])
		}
		for _, role := range f.Roles {
			if rv, ok := c.roles[role]; !ok || !slices.Contains(rv.Frameworks, f.ID) {
				c.errs.fail("framework %s: subscribed role %q does not list it", f.ID, role)
			}
		}
	}
}

// checkRoleTotals compares each role's figures with its subtree's sums
// over agents, and finds reservations and allocations for roles not in
// the tree.
func (c *viewsCheck) checkRoleTotals() {
	for _, r := range c.s.Roles {
		if !(r.Weight > 0) {
			c.errs.fail("role %s: weight %v", r.Role, r.Weight)
		}
		if parent, ok := reservation.Parent(r.Role); ok {
			if _, ok := c.roles[parent]; !ok {
				c.errs.fail("role %s: parent %s is not in the role tree", r.Role, parent)
			}
		}
		if want := subtreeSum(c.reserved, r.Role); !r.Reserved.Equal(want) {
			c.errs.fail("role %s: reserved %s, agents say %s", r.Role, r.Reserved, want)
		}
		if want := subtreeSum(c.allocated, r.Role); !r.OfferedOrAllocated.Equal(want) {
			c.errs.fail("role %s: allocated %s, agents say %s", r.Role, r.OfferedOrAllocated, want)
		}
		if want := r.Reserved.Plus(r.OfferedOrAllocated); !r.Consumed.Equal(want) {
			c.errs.fail("role %s: consumed %s, reserved + allocated = %s", r.Role, r.Consumed, want)
		}
		if !r.Quota.Limits.Contains(r.Quota.Guarantees) {
			c.errs.fail("role %s: guarantees %s above limits %s", r.Role, r.Quota.Guarantees, r.Quota.Limits)
		}
		for _, fwID := range r.Frameworks {
			if _, ok := c.frameworks[fwID]; !ok {
				c.errs.fail("role %s lists unknown framework %s", r.Role, fwID)
			}
		}
	}
	for role, q := range c.reserved {
		if _, ok := c.roles[role]; !ok && !q.IsEmpty() {
			c.errs.fail("reservations for role %s, which is not in the role tree", role)
		}
	}
	for role, q := range c.allocated {
		if _, ok := c.roles[role]; !ok && !q.IsEmpty() {
			c.errs.fail("allocations to role %s, which is not in the role tree", role)
		}
	}
}

// subtreeSum sums the quantities of m (by role) over the subtree of path.
func subtreeSum(m map[string]resources.Quantities, path string) resources.Quantities {
	var q resources.Quantities
	for _, role := range slices.Sorted(maps.Keys(m)) {
		if reservation.IsSubroleOrSelf(role, path) {
			q.Add(m[role])
		}
	}
	return q
}

// checkFilters checks that refusal filters name known frameworks and
// agents, and refuse something without allocation roles.
func (c *viewsCheck) checkFilters() {
	for _, f := range c.s.Filters {
		if _, ok := c.frameworks[f.Framework]; !ok {
			c.errs.fail("filter of unknown framework %s (role %s, agent %s)", f.Framework, f.Role, f.Agent)
		}
		if _, ok := c.s.Agent(f.Agent); !ok {
			c.errs.fail("filter of framework %s for unknown agent %s", f.Framework, f.Agent)
		}
		if f.Refused.IsEmpty() {
			c.errs.fail("filter of framework %s on %s refuses nothing", f.Framework, f.Agent)
		}
		if roles := f.Refused.AllocationRoles(); len(roles) > 1 || (len(roles) == 1 && roles[0] != "") {
			c.errs.fail("filter of framework %s on %s keeps allocation roles: %s", f.Framework, f.Agent, f.Refused)
		}
	}
}

// CheckRun checks one allocation run: before is a snapshot taken just
// before the run (with the clock where the run read it), res what the run
// returned, and a the allocator after it. It checks that:
//
//   - offers are grouped by framework and role in name order, at most one
//     per framework, role and agent, with distinct ids, and counted in the
//     run's statistics;
//   - each offer goes to an active framework subscribed to the offer's
//     role and not suppressed in it, on an active agent that is not
//     over-allocated, and every resource carries exactly the offer's role
//     and is allocatable to it (reserved for the role or an ancestor);
//   - shared volumes, revocable resources and refined reservations go only
//     to frameworks with the capability;
//   - nothing is offered twice: the union of a run's offers on an agent is
//     contained in what was available before the run, and each copy of a
//     shared volume is offered at most once;
//   - the agents' books changed by exactly the offers: each framework's
//     offered resources grew by its offers, nothing else moved;
//   - no offer is covered by a refusal filter in force before the run;
//   - no run adds unreserved resources to a role, or any ancestor, beyond
//     a quota limit;
//   - inverse offers go to active frameworks holding resources on agents
//     with a maintenance window;
//   - the quota referee's promises that need only the views (CheckQuota):
//     limits, the headroom kept by the fair-share stage and by bursts,
//     headroom spent only by guarantees, consumption and quota values.
//
// The error joins every violation found, followed by Check's.
func CheckRun(before Views, res allocator.Result, a *allocator.Allocator) error {
	after := Take(a)
	errs := checkRun(before, res, after, nil)
	errs = append(errs, refereeQuota(before, res, after, nil)...)
	if err := Check(a); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// checkRun checks a run; with changed, only agents it names or the run
// offered on are compared before and after (the others' views are the
// same).
func checkRun(before Views, res allocator.Result, after Views, changed map[string]bool) []error {
	c := &runCheck{before: before, after: after, res: res, ids: map[string]bool{}, byAgent: map[string][]offer.Offer{}}
	c.checkStats()
	holders := map[offerHolder]bool{}
	for i := range res.Offers {
		c.checkOffer(i, holders)
	}
	// Nothing offered twice; the books moved by exactly the offers.
	for _, v := range before.Agents {
		if changed != nil && !changed[v.ID] && len(c.byAgent[v.ID]) == 0 {
			continue
		}
		c.checkBooks(v)
	}
	for _, o := range res.Offers {
		if _, ok := before.Agent(o.AgentID); !ok {
			c.errs.fail("offer %s on agent %s, which did not exist", o.ID, o.AgentID)
		}
	}
	c.checkLimits()
	c.checkInverseOffers()
	return c.errs
}

// runCheck is checkRun's state: the views before and after the run, the
// run, the offer ids seen, and its offers by agent.
type runCheck struct {
	before, after Views
	res           allocator.Result
	ids           map[string]bool
	byAgent       map[string][]offer.Offer
	errs          errorList
}

// offerHolder is who holds an offer: a run makes at most one per
// framework, role and agent.
type offerHolder struct{ fw, role, agent string }

// checkStats compares the run's statistics with what it returned.
func (c *runCheck) checkStats() {
	res := c.res
	if res.Stats.Offers != len(res.Offers) {
		c.errs.fail("run %d: stats count %d offers, the result holds %d", res.Stats.Run, res.Stats.Offers, len(res.Offers))
	}
	if res.Stats.InverseOffers != len(res.InverseOffers) {
		c.errs.fail("run %d: stats count %d inverse offers, the result holds %d", res.Stats.Run, res.Stats.InverseOffers, len(res.InverseOffers))
	}
}

// checkOffer checks offer i of the run on its own and against the offers
// before it (holders: whom they went to), and files it by agent.
func (c *runCheck) checkOffer(i int, holders map[offerHolder]bool) {
	o := c.res.Offers[i]
	if o.ID == "" || c.ids[o.ID] {
		c.errs.fail("offer %d: id %q empty or repeated", i, o.ID)
	}
	c.ids[o.ID] = true
	if i > 0 {
		if p := c.res.Offers[i-1]; cmpGroup(p, o) > 0 {
			c.errs.fail("offers out of order: %s/%s before %s/%s", p.FrameworkID, p.Role, o.FrameworkID, o.Role)
		}
	}
	k := offerHolder{o.FrameworkID, o.Role, o.AgentID}
	if holders[k] {
		c.errs.fail("two offers to %s in role %s on agent %s in one run", o.FrameworkID, o.Role, o.AgentID)
	}
	where := offerText{&c.res.Offers[i]}
	if o.Resources.IsEmpty() {
		c.errs.fail("%s: empty", where)
	}
	f := c.checkOfferTarget(o, where)
	c.checkOfferResources(o, f, where)
	c.checkOfferFilters(o, where)
	c.byAgent[o.AgentID] = append(c.byAgent[o.AgentID], o)
	holders[k] = true
}

// checkOfferTarget checks that offer o goes to an active framework that
// subscribes to its role and does not suppress it, on an active agent that
// is not over-allocated; it returns the framework's view (zero if
// unknown).
func (c *runCheck) checkOfferTarget(o offer.Offer, where offerText) allocator.FrameworkView {
	f, ok := c.before.Framework(o.FrameworkID)
	switch {
	case !ok:
		c.errs.fail("%s: unknown framework", where)
	case !f.Active:
		c.errs.fail("%s: framework inactive", where)
	case !slices.Contains(f.Roles, o.Role):
		c.errs.fail("%s: framework subscribes to %q only", where, f.Roles)
	case slices.Contains(f.Suppressed, o.Role):
		c.errs.fail("%s: framework suppressed the role", where)
	}
	v, ok := c.before.Agent(o.AgentID)
	switch {
	case !ok:
		c.errs.fail("%s: unknown agent", where)
	case !v.Active:
		c.errs.fail("%s: agent inactive", where)
	case v.OverAllocated && len(v.Held) == 0:
		// (A hold that expires at the run is given back first, which
		// may end the over-allocation.)
		c.errs.fail("%s: agent over-allocated", where)
	}
	return f
}

// checkOfferResources checks that every resource of offer o carries its
// role, is allocatable to it, and needs no capability framework f lacks.
func (c *runCheck) checkOfferResources(o offer.Offer, f allocator.FrameworkView, where offerText) {
	for r := range o.Resources.All() {
		if r.AllocationRole != o.Role {
			c.errs.fail("%s: %s carries allocation role %q", where, r, r.AllocationRole)
		}
		if !r.Reservations.AllocatableTo(o.Role) {
			c.errs.fail("%s: %s is reserved outside the role's ancestry", where, r)
		}
		if r.Shared && !f.Capabilities.Has(offer.SharedResources) {
			c.errs.fail("%s: shared %s to a framework without SHARED_RESOURCES", where, r)
		}
		if r.Revocable && !f.Capabilities.Has(offer.RevocableResources) {
			c.errs.fail("%s: revocable %s to a framework without REVOCABLE_RESOURCES", where, r)
		}
		if r.Reservations.IsRefined() && !f.Capabilities.Has(offer.ReservationRefinement) {
			c.errs.fail("%s: refined %s to a framework without RESERVATION_REFINEMENT", where, r)
		}
	}
}

// checkOfferFilters checks that no refusal filter in force before the run
// covers offer o.
func (c *runCheck) checkOfferFilters(o offer.Offer, where offerText) {
	plain := o.Resources.Unallocate()
	for _, fl := range c.before.Filters {
		if fl.FirstBatchOnly && !c.res.Stats.Periodic {
			continue // at its expiry, for the first periodic run only
		}
		if fl.Framework == o.FrameworkID && fl.Role == o.Role && fl.Agent == o.AgentID && fl.Refused.Contains(plain) {
			c.errs.fail("%s: covered by a refusal of %s until %s", where, fl.Refused, fl.Expires)
		}
	}
}

// checkBooks checks agent v (as before the run) against the run's offers
// on it: nothing offered twice, and its books moved by exactly the offers.
func (c *runCheck) checkBooks(v allocator.AgentView) {
	w, ok := c.after.Agent(v.ID)
	if !ok {
		c.errs.fail("agent %s disappeared during a run", v.ID)
		return
	}
	var nonShared, shared resources.Resources
	grown := map[string]resources.Resources{}
	for _, o := range c.byAgent[v.ID] {
		nonShared.Add(o.Resources.NonShared().Unallocate())
		shared.Add(o.Resources.Shared().Unallocate())
		g := grown[o.FrameworkID]
		g.Add(o.Resources)
		grown[o.FrameworkID] = g
	}
	// Offers come from what was available and from holds.
	offerable := v.Available.NonShared()
	for _, fw := range slices.Sorted(maps.Keys(v.Held)) {
		offerable.Add(v.Held[fw].Unallocate())
	}
	if !offerable.Contains(nonShared) {
		c.errs.fail("agent %s: the run offered %s, more than was available or held, %s", v.ID, nonShared, offerable)
	}
	if !v.Available.Shared().Contains(shared) {
		c.errs.fail("agent %s: the run offered shared volumes %s, available once each: %s", v.ID, shared, v.Available.Shared())
	}
	if !w.Total.Equal(v.Total) {
		c.errs.fail("agent %s: total changed during a run: %s, was %s", v.ID, w.Total, v.Total)
	}
	for _, fwID := range union(v.Offered, w.Offered, grown) {
		want := v.Offered[fwID].Plus(grown[fwID])
		if !w.Offered[fwID].Equal(want) {
			c.errs.fail("agent %s: offered to %s %s after the run, want %s before plus the run's offers %s", v.ID, fwID, w.Offered[fwID], v.Offered[fwID], grown[fwID])
		}
	}
	for _, fwID := range union(v.Allocated, w.Allocated, nil) {
		if !w.Allocated[fwID].Equal(v.Allocated[fwID]) {
			c.errs.fail("agent %s: allocated to %s changed during a run: %s, was %s", v.ID, fwID, w.Allocated[fwID], v.Allocated[fwID])
		}
	}
}

// checkLimits checks that the run added no unreserved resources to a role
// beyond a quota limit.
func (c *runCheck) checkLimits() {
	for _, r := range c.after.Roles {
		if r.Quota.Limits.IsEmpty() {
			continue
		}
		prev, _ := c.before.Role(r.Role)
		for _, name := range r.Quota.Limits.Names() {
			limit, _ := r.Quota.Limits.Get(name)
			if r.OfferedOrAllocated.Scalar(name) > prev.OfferedOrAllocated.Scalar(name) && r.Consumed.Scalar(name) > limit {
				c.errs.fail("role %s: the run raised %s to %s (allocated %s, was %s), above its limit %s",
					r.Role, name, r.Consumed.Scalar(name), r.OfferedOrAllocated.Scalar(name), prev.OfferedOrAllocated.Scalar(name), limit)
			}
		}
	}
}

// checkInverseOffers checks that inverse offers go, once per framework and
// agent, to active frameworks holding resources on agents with the
// maintenance window they announce.
func (c *runCheck) checkInverseOffers() {
	seen := map[[2]string]bool{}
	for _, io := range c.res.InverseOffers {
		k := [2]string{io.FrameworkID, io.AgentID}
		if seen[k] {
			c.errs.fail("two inverse offers to %s for agent %s in one run", io.FrameworkID, io.AgentID)
		}
		seen[k] = true
		v, ok := c.after.Agent(io.AgentID)
		if !ok || v.Unavailability == nil {
			c.errs.fail("inverse offer %s for agent %s, which has no maintenance window", io.ID, io.AgentID)
		} else if v.Unavailability.Start != io.Unavailability.Start || v.Unavailability.Duration != io.Unavailability.Duration {
			c.errs.fail("inverse offer %s: window %v, the agent's is %v", io.ID, io.Unavailability, *v.Unavailability)
		}
		if f, ok := c.after.Framework(io.FrameworkID); !ok || !f.Active {
			c.errs.fail("inverse offer %s to unknown or inactive framework %s", io.ID, io.FrameworkID)
		}
		if ok && v.Offered[io.FrameworkID].IsEmpty() && v.Allocated[io.FrameworkID].IsEmpty() && v.Held[io.FrameworkID].IsEmpty() {
			c.errs.fail("inverse offer %s to %s, which holds nothing on %s", io.ID, io.FrameworkID, io.AgentID)
		}
	}
}

// offerText renders as an offer's place in messages, when one is printed.
type offerText struct{ o *offer.Offer }

func (t offerText) String() string {
	return fmt.Sprintf("offer %s to %s in role %s on %s", t.o.ID, t.o.FrameworkID, t.o.Role, t.o.AgentID)
}

func cmpGroup(a, b offer.Offer) int {
	if c := strings.Compare(a.FrameworkID, b.FrameworkID); c != 0 {
		return c
	}
	return strings.Compare(a.Role, b.Role)
}

// union returns the sorted keys of the maps.
func union(a, b, c map[string]resources.Resources) []string {
	set := map[string]bool{}
	for _, m := range []map[string]resources.Resources{a, b, c} {
		for k := range m {
			set[k] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// String renders the snapshot as text, one line per fact, in the order of
// its views, as a failed check shows it.
func (s Views) String() string {
	var b strings.Builder
	for _, v := range s.Agents {
		b.WriteString(v.String())
	}
	for _, r := range s.Roles {
		fmt.Fprintf(&b, "role %s weight=%g share=%.6f frameworks=%v\n", r.Role, r.Weight, r.Share, r.Frameworks)
		fmt.Fprintf(&b, "  quota: guarantees %s; limits %s\n", r.Quota.Guarantees, r.Quota.Limits)
		fmt.Fprintf(&b, "  reserved: %s; allocated: %s\n", r.Reserved, r.OfferedOrAllocated)
	}
	for _, f := range s.Frameworks {
		fmt.Fprintf(&b, "framework %s active=%v roles=%v suppressed=%v capabilities=%s\n", f.ID, f.Active, f.Roles, f.Suppressed, f.Capabilities)
		fmt.Fprintf(&b, "  offered: %s\n  allocated: %s\n", f.Offered, f.Allocated)
	}
	for _, f := range s.Filters {
		fmt.Fprintf(&b, "filter %s/%s on %s until %s: %s\n", f.Framework, f.Role, f.Agent, f.Expires.UTC().Format(time.RFC3339Nano), f.Refused)
	}
	return b.String()
}
