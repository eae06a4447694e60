package audit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Parts are the parts of an allocator's state the check reads.
type Parts struct {
	Cluster    *cluster.State
	Roles      *roles.Tree
	RoleSorter *roles.TrackedSorter
	// SorterRoles is the count of roles with a framework sorter the
	// allocator keeps.
	SorterRoles int
	// Pending are the agents waiting for a run.
	Pending  *cluster.AgentTable
	Declines *declines.Book
	Parking  *quota.Parking
	// MinAllocatable and CacheFree are the allocator's options.
	MinAllocatable []resources.Quantities
	CacheFree      bool
}

// Check recomputes the allocator's bookkeeping from scratch and returns
// every place where it disagrees with what is kept incrementally (see
// package allocator's CheckInvariants for the list), joined.
func Check(p Parts) error {
	a := &p
	c := &invariantCheck{a: a,
		roleHeld: map[string]resources.Quantities{}, fwHeld: map[string]map[string]resources.Quantities{},
		roleShared: map[[2]string]resources.Resources{}, fwShared: map[[3]string]resources.Resources{},
		reserved: map[string]resources.Quantities{}, allocated: map[string]resources.Quantities{},
		allocatedReserved: map[string]resources.Quantities{}}
	var totals, headroom, excess resources.Quantities
	revocableOrShared, overAllocated := 0, 0
	if len(a.Cluster.AgentList) != a.Cluster.Agents.Len() {
		c.fail("%d agents listed, %d agents", len(a.Cluster.AgentList), a.Cluster.Agents.Len())
	}
	numbered := 0
	for _, ag := range a.Cluster.AgentsByNum {
		if ag != nil {
			numbered++
		}
	}
	if numbered != a.Cluster.Agents.Len() {
		c.fail("%d agents numbered, %d agents", numbered, a.Cluster.Agents.Len())
	}
	for _, id := range a.Pending.Keys() {
		if a.Cluster.Agents.Get(id) != a.Pending.Get(id) {
			c.fail("agent %s waits for a run, but is not the agent of that id", id)
		}
	}
	for i, listed := range a.Cluster.AgentList {
		id := listed.ID
		ag := a.Cluster.Agents.Get(id)
		if ag != listed || (i > 0 && a.Cluster.AgentList[i-1].ID >= id) {
			c.fail("agent %s is not listed at its place among the ids", id)
			continue
		}
		if a.Cluster.AgentsByNum.At(int(ag.Num)) != ag {
			c.fail("agent %s: number %d is not its own", id, ag.Num)
		}
		totals.Add(ag.Total.Quantities())
		mine := cluster.HeadroomOf(ag.Available)
		if !ag.Headroom.Equal(mine) {
			// Offers of part of an agent take what they counted off its
			// share (trackOffer): it must be what a sum gives.
			c.fail("agent %s: headroom %s, recomputed %s", id, ag.Headroom, mine)
		}
		headroom.Add(mine)
		if mine := c.excessOf(ag); !mine.Equal(ag.Excess()) {
			c.fail("agent %s: held beyond its total %s, recomputed %s", id, ag.Excess(), mine)
		} else {
			excess.Add(mine)
		}
		if ag.Total.HasShared() || !ag.Total.Revocable().IsEmpty() {
			revocableOrShared++
		}
		if ag.OverAllocated {
			overAllocated++
		}
		c.agent(id, ag)
	}
	if !excess.Equal(a.Cluster.Excess) {
		c.fail("held beyond the agents' totals %s, recomputed %s", a.Cluster.Excess, excess)
	}
	if overAllocated != a.Cluster.OverAllocatedAgents {
		c.fail("%d agents over-allocated counted, %d recomputed", a.Cluster.OverAllocatedAgents, overAllocated)
	}
	if revocableOrShared != a.Cluster.RevocableOrSharedAgents {
		c.fail("%d agents with revocable or shared resources counted, %d recomputed", a.Cluster.RevocableOrSharedAgents, revocableOrShared)
	}
	if !totals.Equal(a.Cluster.Totals) {
		c.fail("cluster totals %s, recomputed %s", a.Cluster.Totals, totals)
	}
	if !headroom.Equal(a.Cluster.FreeHeadroom) {
		c.fail("free headroom %s, recomputed %s", a.Cluster.FreeHeadroom, headroom)
	}
	c.sorters()
	c.roleTree()
	c.filters()
	c.outstanding()
	c.parked()
	return errors.Join(c.errs...)
}

// invariantCheck is one run of CheckInvariants: the violations found, and
// what the agents say each role and framework holds, recomputed.
type invariantCheck struct {
	a    *Parts
	errs []error
	// roleHeld and fwHeld (by role, then framework) are the scalars held,
	// as the sorters should be charged.
	roleHeld map[string]resources.Quantities
	fwHeld   map[string]map[string]resources.Quantities
	// roleShared (by role and agent) and fwShared (by role, framework and
	// agent) are the shared volumes held, as the sorters should hold them.
	roleShared map[[2]string]resources.Resources
	fwShared   map[[3]string]resources.Resources
	// reserved, allocated and allocatedReserved are by role: scalar
	// reservations, unreserved scalars held, reserved scalars held.
	reserved, allocated, allocatedReserved map[string]resources.Quantities
}

func (c *invariantCheck) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

// agent checks one agent's holdings and adds them to the recomputed sums.
func (c *invariantCheck) agent(id string, ag *cluster.Agent) {
	a := c.a
	for r := range ag.Total.Reserved("").All() {
		if r.Type == resources.ScalarType {
			q := c.reserved[r.Role()]
			q.Add(quantityOf(r))
			c.reserved[r.Role()] = q
		}
	}
	used := resources.Resources{}
	// Shared volumes count once per agent and role in the role
	// sorter: they are summed per role before being counted; the rest
	// is counted as it comes.
	var sharedByRole map[string]resources.Resources
	sharedOutside := false
	for _, fwID := range ag.FrameworkIDs() {
		held := ag.Offered.Get(fwID)
		if more := ag.Allocated.Get(fwID); held.IsEmpty() {
			held = more
		} else if !more.IsEmpty() {
			held = held.Plus(more)
		}
		if hs := ag.Holds(); hs != nil {
			held = held.Plus(hs.Of(fwID))
		}
		fw, ok := a.Cluster.Frameworks.Lookup(fwID)
		if !ok {
			c.fail("agent %s: resources held by unknown framework %s", id, fwID)
			continue
		}
		used.AddUnallocated(held, false)
		if held.HasShared() {
			for r := range held.Shared().Unallocate().All() {
				sharedOutside = sharedOutside || !ag.Total.ContainsResource(r)
			}
		}
		for r := range held.All() {
			if !fw.Roles.Has(r.AllocationRole, tables.Tracked) {
				c.fail("agent %s: framework %s holds %s in untracked role %q", id, fwID, r, r.AllocationRole)
			}
			if !r.Reservations.AllocatableTo(r.AllocationRole) {
				c.fail("agent %s: framework %s holds %s outside the reservation's subtree", id, fwID, r)
			}
		}
		sharedByRole = c.held(id, fwID, held, sharedByRole)
	}
	for role, sh := range sharedByRole {
		c.roleShared[[2]string{role, id}] = sh
		q := c.roleHeld[role]
		sh.AddQuantitiesTo(&q)
		c.roleHeld[role] = q
	}
	for _, fwID := range slices.Sorted(maps.Keys(ag.Unclaimed())) {
		if _, known := a.Cluster.Frameworks.Lookup(fwID); known {
			c.fail("agent %s: usage of framework %s left unclaimed although it was added", id, fwID)
		}
		res := ag.Unclaimed()[fwID]
		if res.IsEmpty() {
			c.fail("agent %s: empty unclaimed usage of %s", id, fwID)
		}
		used.AddUnallocated(res, false)
		for r := range res.Shared().Unallocate().All() {
			sharedOutside = sharedOutside || !ag.Total.ContainsResource(r)
		}
	}
	over := !ag.Total.Contains(used) || sharedOutside
	if over != ag.OverAllocated {
		c.fail("agent %s: over-allocated flag %v, recomputed %v", id, ag.OverAllocated, over)
	}
	if !ag.OverAllocated {
		if sum := ag.Available.Plus(used); !sum.Equal(ag.Total) {
			c.fail("agent %s: available + offered + allocated = %s, total %s", id, sum, ag.Total)
		}
	}
}

// held adds what a framework holds on an agent to the sums by role; its
// shared volumes go to sharedByRole (returned), counted once per agent.
func (c *invariantCheck) held(agentID, fwID string, held resources.Resources, sharedByRole map[string]resources.Resources) map[string]resources.Resources {
	hasShared := held.HasShared()
	roles := held.AllocationRoles()
	for _, role := range roles {
		// A holding in one role is all that role's part: only one in
		// several roles is split.
		part := held
		if len(roles) != 1 {
			part = held.AllocatedTo(role)
		}
		rq := c.roleHeld[role]
		if hasShared {
			if sharedByRole == nil {
				sharedByRole = map[string]resources.Resources{}
			}
			sh := sharedByRole[role]
			sh.Add(part.Shared())
			sharedByRole[role] = sh
			c.fwShared[[3]string{role, fwID, agentID}] = part.Shared()
			part.NonShared().AddQuantitiesTo(&rq)
		} else {
			part.AddQuantitiesTo(&rq)
		}
		c.roleHeld[role] = rq
		if c.fwHeld[role] == nil {
			c.fwHeld[role] = map[string]resources.Quantities{}
		}
		q := c.fwHeld[role][fwID]
		part.AddQuantitiesTo(&q)
		c.fwHeld[role][fwID] = q
		aq := c.allocated[role]
		hasReserved := part.AddUnreservedQuantitiesTo(&aq)
		c.allocated[role] = aq
		if !hasReserved {
			continue
		}
		for r := range part.All() {
			if r.IsReserved() && r.Type == resources.ScalarType && !r.Shared {
				q := c.allocatedReserved[r.Role()]
				q.Add(quantityOf(r))
				c.allocatedReserved[r.Role()] = q
			}
		}
	}
	return sharedByRole
}

// sorters checks the sorters' charges against the agents.
func (c *invariantCheck) sorters() {
	a := c.a
	if !roles.NoQuota.IsZero() {
		c.fail("the quota of roles without one was changed to %v", roles.NoQuota)
	}
	withSorters := a.rolesWithSorters()
	if len(withSorters) != a.SorterRoles {
		c.fail("%d roles have a framework sorter, counted %d", len(withSorters), a.SorterRoles)
	}
	for _, role := range withSorters {
		if !a.RoleSorter.Contains(role) {
			c.fail("role %s has a framework sorter but is not in the role sorter", role)
		}
		if got := a.RoleSorter.AllocationQuantities(role); !got.Equal(c.roleHeld[role]) {
			c.fail("role sorter: %s holds %s, agents say %s", role, got, c.roleHeld[role])
		}
		node := a.Roles.Get(role)
		s := node.FrameworkSorter
		if s.Count() != node.Frameworks.Len() {
			c.fail("framework sorter %s: %d frameworks, its node %d", role, s.Count(), node.Frameworks.Len())
		}
		for fwID, want := range c.fwHeld[role] {
			if got := s.AllocationQuantities(fwID); !got.Equal(want) {
				c.fail("framework sorter %s: %s holds %s, agents say %s", role, fwID, got, want)
			}
		}
		c.sharedHoldings("role sorter", a.RoleSorter.Allocation(role), role, func(agentID string) resources.Resources {
			return c.roleShared[[2]string{role, agentID}]
		})
		for _, fwID := range node.Frameworks.Sorted() {
			c.sharedHoldings("framework sorter "+role, s.Allocation(fwID), fwID, func(agentID string) resources.Resources {
				return c.fwShared[[3]string{role, fwID, agentID}]
			})
		}
	}
	c.sharedHeldInSorters()
	for role := range c.roleHeld {
		if a.frameworkSorter(role) == nil {
			c.fail("resources held in role %s, which has no framework sorter", role)
		}
	}
}

// sharedHoldings checks the shared volumes a sorter holds for client, agent
// by agent (held, its Allocation), against what the agents' records say
// (want): the same volumes, however many copies of each.
func (c *invariantCheck) sharedHoldings(sorterName string, held map[string]resources.Resources, client string, want func(agentID string) resources.Resources) {
	sameVolumes := func(x, y resources.Resources) bool {
		for r := range x.All() {
			if y.Copies(r) == 0 {
				return false
			}
		}
		return true
	}
	for _, agentID := range slices.Sorted(maps.Keys(held)) {
		got, w := held[agentID].Shared(), want(agentID)
		if !sameVolumes(got, w) || !sameVolumes(w, got) {
			c.fail("%s: %s holds the shared volumes %s on %s, agents say %s", sorterName, client, got, agentID, w)
		}
	}
}

// sharedHeldInSorters checks the other way: every shared volume the agents'
// records say a sorter's client holds on an agent, the sorter holds there.
func (c *invariantCheck) sharedHeldInSorters() {
	a := c.a
	for _, key := range slices.SortedFunc(maps.Keys(c.roleShared), compareKeys) {
		if !holdsSharedOn(a.RoleSorter.Allocation(key[0]), key[1], c.roleShared[key]) {
			c.fail("role sorter: %s holds no shared volume on %s, agents say %s", key[0], key[1], c.roleShared[key])
		}
	}
	for _, key := range slices.SortedFunc(maps.Keys(c.fwShared), compareKeys) {
		s := a.frameworkSorter(key[0])
		if s != nil && !holdsSharedOn(s.Allocation(key[1]), key[2], c.fwShared[key]) {
			c.fail("framework sorter %s: %s holds no shared volume on %s, agents say %s", key[0], key[1], key[2], c.fwShared[key])
		}
	}
}

// holdsSharedOn reports whether held (a sorter's Allocation) has shared volumes
// on agentID, or want is empty.
func holdsSharedOn(held map[string]resources.Resources, agentID string, want resources.Resources) bool {
	return want.IsEmpty() || held[agentID].HasShared()
}

// compareKeys orders composite map keys element by element.
func compareKeys[K [2]string | [3]string](x, y K) int {
	for i := range len(x) {
		if c := strings.Compare(x[i], y[i]); c != 0 {
			return c
		}
	}
	return 0
}

// subtreeSum sums by-role quantities over path and its sub-roles.
func subtreeSum(byRole map[string]resources.Quantities, path string) resources.Quantities {
	var sum resources.Quantities
	for role, q := range byRole {
		if role == path || reservation.IsStrictSubrole(role, path) {
			sum.Add(q)
		}
	}
	return sum
}

// roleTree checks the role tree's aggregates.
func (c *invariantCheck) roleTree() {
	a := c.a
	for _, path := range a.Roles.Nodes.Keys() {
		n := a.Roles.Nodes.Get(path)
		if want := subtreeSum(c.allocatedReserved, path); !n.AllocatedReserved.Equal(want) {
			c.fail("role %s: allocated reservations %s, recomputed %s", path, n.AllocatedReserved, want)
		}
		if want := subtreeSum(c.reserved, path); !n.Reserved.Equal(want) {
			c.fail("role %s: reserved %s, recomputed %s", path, n.Reserved, want)
		}
		if want := subtreeSum(c.allocated, path); !n.AllocatedUnreserved.Equal(want) {
			c.fail("role %s: allocated %s, recomputed %s", path, n.AllocatedUnreserved, want)
		}
	}
	for role, q := range c.reserved {
		if a.Roles.Get(role) == nil && !q.IsEmpty() {
			c.fail("reservations for %s but no role node", role)
		}
	}
	c.roleChildren(a.Roles.Root, "the root")
	for _, path := range a.Roles.Nodes.Keys() {
		n := a.Roles.Nodes.Get(path)
		c.roleChildren(n, path)
		if i, ok := slices.BinarySearchFunc(n.Parent.Children, path, roles.ByPath); !ok || n.Parent.Children[i] != n {
			c.fail("role %s: not among its parent's children", path)
		}
	}
}

// roleChildren checks that n's children are its nodes, in path order.
func (c *invariantCheck) roleChildren(n *roles.Node, name string) {
	// An if-else chain rather than a switch: each condition is then a
	// statement of its own in coverage profiles.
	for i, child := range n.Children {
		if child.Parent != n {
			c.fail("%s: child %s has another parent", name, child.Path)
		} else if c.a.Roles.Nodes.Get(child.Path) != child {
			c.fail("%s: child %s is not the tree's node of its path", name, child.Path)
		} else if i > 0 && n.Children[i-1].Path >= child.Path {
			c.fail("%s: children %s and %s out of order", name, n.Children[i-1].Path, child.Path)
		}
	}
}

// filters checks that refusal filters and framework agent lists name
// known agents, and that listed agents hold something of the framework.
func (c *invariantCheck) filters() {
	a := c.a
	wholeOn := map[*cluster.Agent]int{}
	defer func() {
		for _, ag := range a.Cluster.AgentList {
			if int(ag.WholeRefused) != wholeOn[ag] {
				c.fail("agent %s counts %d compact filters, holds %d", ag.ID, ag.WholeRefused, wholeOn[ag])
			}
		}
	}()
	for _, fwID := range a.Cluster.Frameworks.Keys() {
		fw := a.Cluster.Frameworks.Get(fwID)
		if fw.Num != 0 && a.Declines.RefusersByNum.At(fw.Num) != fw {
			c.fail("framework %s: number %d is not its own", fwID, fw.Num)
		}
		c.wholeFilters(fw, wholeOn)
		for role, byAgent := range fw.Filters {
			for agentID := range byAgent {
				ag, ok := a.Cluster.Agents.Lookup(agentID)
				if !ok {
					c.fail("framework %s: filter in %s for unknown agent %s", fwID, role, agentID)
				} else if fw.Num != 0 && !ag.Filtered.Filtered(fw.Num) {
					c.fail("framework %s: filter in %s on %s, which does not list it as filtered", fwID, role, agentID)
				}
			}
		}
		for agentID := range fw.InverseFilters {
			if _, ok := a.Cluster.Agents.Lookup(agentID); !ok {
				c.fail("framework %s: inverse-offer filter for unknown agent %s", fwID, agentID)
			}
		}
	}
}

// outstanding checks the outstanding offers against what is offered.
func (c *invariantCheck) outstanding() {
	a := c.a
	for _, ag := range a.Cluster.AgentList {
		id := ag.ID
		sums := map[string]resources.Resources{}
		for _, o := range ag.Outstanding {
			if _, ok := a.Cluster.Frameworks.Lookup(o.Framework); !ok {
				c.fail("agent %s: outstanding offer %s of unknown framework %q", id, o.ID, o.Framework)
			}
			if role, ok := o.Res.AllocationRole(); !ok || role != o.Role {
				c.fail("agent %s: outstanding offer %s of role %q holds %s", id, o.ID, o.Role, o.Res)
			}
			s := sums[o.Framework]
			s.Add(o.Res)
			sums[o.Framework] = s
		}
		for fwID, s := range sums {
			if !ag.Offered.Get(fwID).Contains(s) {
				c.fail("agent %s: outstanding offers of %s hold %s, more than it is offered (%s)", id, fwID, s, ag.Offered.Get(fwID))
			}
		}
	}
}

// parked checks that the roles kept out of the role sorter can still
// take nothing.
func (c *invariantCheck) parked() {
	a := c.a
	if !a.Parking.Current() || len(a.Parking.Parked) == 0 {
		return
	}
	required, names := a.Roles.RequiredHeadroom(), a.Cluster.Totals.Names()
	for _, role := range a.Parking.Parked {
		n := a.Roles.Get(role)
		if n == nil || !a.Roles.UnsatisfiedGuarantees(n).IsEmpty() {
			c.fail("parked role %q has an unmet guarantee in its ancestry, or is gone", role)
			continue
		}
		if capped, _ := quota.CappedNow(a.Cluster, a.Roles, n, required, names, a.MinAllocatable); !capped {
			c.fail("role %q is kept out of the role sorter, but could take more: an event that uncaps roles did not say so", role)
		}
	}
}

// wholeFilters checks fw's compact filters: on known agents, which list fw
// as filtered, with no ordinary filter beside them, and none in a
// cache-free allocator; it counts them per agent into on.
func (c *invariantCheck) wholeFilters(fw *cluster.Framework, on map[*cluster.Agent]int) {
	a := c.a
	if a.CacheFree && len(fw.Whole) > 0 {
		c.fail("framework %s: compact filters in a cache-free allocator", fw.ID)
	}
	for role, s := range fw.Whole {
		n := 0
		for num := range s.All() {
			n++
			ag := a.Cluster.AgentsByNum.At(num)
			if ag == nil {
				c.fail("framework %s: compact filter in %s for unknown agent number %d", fw.ID, role, num)
				continue
			}
			if fw.Num == 0 || !ag.Filtered.Filtered(fw.Num) {
				c.fail("framework %s: compact filter in %s on %s, which does not list it as filtered", fw.ID, role, ag.ID)
			} else if len(fw.Filters.On(role, ag.ID)) > 0 {
				c.fail("framework %s: compact and ordinary filters in %s on %s", fw.ID, role, ag.ID)
			}
			on[ag]++
		}
		if n == 0 || n != s.Len() {
			c.fail("framework %s: %d compact filters in %s, counted %d", fw.ID, n, role, s.Len())
		}
	}
}

// excessOf works out what ag holds beyond its total, name by name: the
// non-shared scalars offered, allocated, held and in use by frameworks
// not added yet, less its total.
func (c *invariantCheck) excessOf(ag *cluster.Agent) resources.Quantities {
	var used resources.Quantities
	for _, held := range []*tables.PerFramework{&ag.Offered, &ag.Allocated} {
		for _, fwID := range held.IDs() {
			used.Add(held.Get(fwID).NonShared().Quantities())
		}
	}
	for _, h := range ag.Holds() {
		used.Add(h.Res.NonShared().Quantities())
	}
	for _, res := range ag.Unclaimed() {
		used.Add(res.NonShared().Quantities())
	}
	return used.Minus(ag.Total.Quantities())
}

// frameworkSorter returns the framework sorter of role, nil without one.
func (a *Parts) frameworkSorter(role string) *roles.TrackedSorter {
	if n := a.Roles.Get(role); n != nil {
		return n.FrameworkSorter
	}
	return nil
}

// rolesWithSorters returns the roles with a framework sorter, in path
// order.
func (a *Parts) rolesWithSorters() []string {
	var with []string
	for n := range a.Roles.Nodes.All() {
		if n.FrameworkSorter != nil {
			with = append(with, n.Path)
		}
	}
	slices.Sort(with)
	return with
}

// quantityOf is one scalar resource as quantities.
func quantityOf(r resources.Resource) resources.Quantities {
	var q resources.Quantities
	q.SetScalar(r.Name, r.Scalar)
	return q
}
