package allocator

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// CheckInvariants recomputes the allocator's bookkeeping from scratch and
// reports every place where it disagrees with what is kept incrementally:
//
//   - for every agent that is not over-allocated, available + offered +
//     allocated + held + unclaimed == total (shared volumes counted in
//     available only), and unclaimed usage belongs to frameworks not
//     added;
//   - held resources carry an allocation role the framework is tracked
//     under, and reserved ones are held only by their role's subtree;
//   - each role sorter client and each framework sorter client holds
//     exactly the scalar quantities recorded on the agents;
//   - the role tree's reservation and allocation aggregates, and the
//     cluster's totals and free headroom, match a recomputation;
//   - refusal filters name only known frameworks and agents;
//   - outstanding offers hold no more than their frameworks are offered;
//   - roles kept out of the role sorter across runs can still take nothing.
//
// It costs O(everything) and is meant for tests; the error joins every
// violation found.
func (a *Allocator) CheckInvariants() error {
	a.ready()
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	var totals, headroom resources.Quantities
	roleHeld := map[string]resources.Quantities{}
	fwHeld := map[string]map[string]resources.Quantities{}
	reserved := map[string]resources.Quantities{}
	allocated := map[string]resources.Quantities{}
	allocatedReserved := map[string]resources.Quantities{}
	for _, id := range a.agentIDs {
		ag := a.agents[id]
		totals.Add(ag.total.Quantities())
		headroom.Add(headroomOf(ag.available))
		for r := range ag.total.Reserved("").All() {
			if r.Type == resources.ScalarType {
				q := reserved[r.Role()]
				q.Add(quantityOf(r))
				reserved[r.Role()] = q
			}
		}
		used := resources.Resources{}
		// Shared volumes count once per agent and role in the role
		// sorter: they are summed per role before being counted; the rest
		// is counted as it comes.
		var sharedByRole map[string]resources.Resources
		sharedOutside := false
		fwIDs := ag.frameworkIDs()
		for _, fwID := range fwIDs {
			fw, ok := a.frameworks[fwID]
			held := ag.offered[fwID]
			if more := ag.allocated[fwID]; held.IsEmpty() {
				held = more
			} else if !more.IsEmpty() {
				held = held.Plus(more)
			}
			if len(ag.holds) > 0 {
				held = held.Plus(ag.heldFor(fwID))
			}
			if !ok {
				fail("agent %s: resources held by unknown framework %s", id, fwID)
				continue
			}
			if _, ok := fw.agents[id]; !ok {
				fail("framework %s holds resources on %s but does not list the agent", fwID, id)
			}
			hasShared := held.HasShared()
			if hasShared {
				used.Add(held.NonShared().Unallocate())
				for r := range held.Shared().Unallocate().All() {
					sharedOutside = sharedOutside || !ag.total.ContainsResource(r)
				}
			} else {
				used.Add(held.Unallocate())
			}
			for r := range held.All() {
				if !fw.tracked.has(r.AllocationRole) {
					fail("agent %s: framework %s holds %s in untracked role %q", id, fwID, r, r.AllocationRole)
				}
				if !r.Reservations.AllocatableTo(r.AllocationRole) {
					fail("agent %s: framework %s holds %s outside the reservation's subtree", id, fwID, r)
				}
			}
			roles := held.AllocationRoles()
			for _, role := range roles {
				part := held
				if len(roles) > 1 {
					part = held.AllocatedTo(role)
				}
				rq := roleHeld[role]
				if hasShared {
					if sharedByRole == nil {
						sharedByRole = map[string]resources.Resources{}
					}
					sh := sharedByRole[role]
					sh.Add(part.Shared())
					sharedByRole[role] = sh
					part.NonShared().AddQuantitiesTo(&rq)
				} else {
					part.AddQuantitiesTo(&rq)
				}
				roleHeld[role] = rq
				if fwHeld[role] == nil {
					fwHeld[role] = map[string]resources.Quantities{}
				}
				q := fwHeld[role][fwID]
				part.AddQuantitiesTo(&q)
				fwHeld[role][fwID] = q
				aq := allocated[role]
				hasReserved := part.AddUnreservedQuantitiesTo(&aq)
				allocated[role] = aq
				if !hasReserved {
					continue
				}
				for r := range part.All() {
					if r.IsReserved() && r.Type == resources.ScalarType && !r.Shared {
						q := allocatedReserved[r.Role()]
						q.Add(quantityOf(r))
						allocatedReserved[r.Role()] = q
					}
				}
			}
		}
		for role, sh := range sharedByRole {
			q := roleHeld[role]
			sh.AddQuantitiesTo(&q)
			roleHeld[role] = q
		}
		for _, fwID := range slices.Sorted(maps.Keys(ag.unclaimed)) {
			if _, known := a.frameworks[fwID]; known {
				fail("agent %s: usage of framework %s left unclaimed although it was added", id, fwID)
			}
			res := ag.unclaimed[fwID]
			if res.IsEmpty() {
				fail("agent %s: empty unclaimed usage of %s", id, fwID)
			}
			used.Add(res.NonShared().Unallocate())
			for r := range res.Shared().Unallocate().All() {
				sharedOutside = sharedOutside || !ag.total.ContainsResource(r)
			}
		}
		over := !ag.total.Contains(used) || sharedOutside
		if over != ag.overAllocated {
			fail("agent %s: over-allocated flag %v, recomputed %v", id, ag.overAllocated, over)
		}
		if !ag.overAllocated {
			if sum := ag.available.Plus(used); !sum.Equal(ag.total) {
				fail("agent %s: available + offered + allocated = %s, total %s", id, sum, ag.total)
			}
		}
	}
	if !totals.Equal(a.totals) {
		fail("cluster totals %s, recomputed %s", a.totals, totals)
	}
	if !headroom.Equal(a.freeHeadroom) {
		fail("free headroom %s, recomputed %s", a.freeHeadroom, headroom)
	}

	// Sorters.
	for _, role := range slices.Sorted(maps.Keys(a.frameworkSorters)) {
		if !a.roleSorter.Contains(role) {
			fail("role %s has a framework sorter but is not in the role sorter", role)
		}
		if got := a.roleSorter.AllocationQuantities(role); !got.Equal(roleHeld[role]) {
			fail("role sorter: %s holds %s, agents say %s", role, got, roleHeld[role])
		}
		s := a.frameworkSorters[role]
		for fwID, want := range fwHeld[role] {
			if got := s.AllocationQuantities(fwID); !got.Equal(want) {
				fail("framework sorter %s: %s holds %s, agents say %s", role, fwID, got, want)
			}
		}
	}
	for role := range roleHeld {
		if _, ok := a.frameworkSorters[role]; !ok {
			fail("resources held in role %s, which has no framework sorter", role)
		}
	}

	// Role tree aggregates.
	for _, path := range slices.Sorted(maps.Keys(a.roles.nodes)) {
		n := a.roles.nodes[path]
		var wantReserved, wantAllocated, wantAllocatedReserved resources.Quantities
		for role, q := range allocatedReserved {
			if role == path || reservation.IsStrictSubrole(role, path) {
				wantAllocatedReserved.Add(q)
			}
		}
		if !n.allocatedReserved.Equal(wantAllocatedReserved) {
			fail("role %s: allocated reservations %s, recomputed %s", path, n.allocatedReserved, wantAllocatedReserved)
		}
		for role, q := range reserved {
			if role == path || reservation.IsStrictSubrole(role, path) {
				wantReserved.Add(q)
			}
		}
		for role, q := range allocated {
			if role == path || reservation.IsStrictSubrole(role, path) {
				wantAllocated.Add(q)
			}
		}
		if !n.reserved.Equal(wantReserved) {
			fail("role %s: reserved %s, recomputed %s", path, n.reserved, wantReserved)
		}
		if !n.allocatedUnreserved.Equal(wantAllocated) {
			fail("role %s: allocated %s, recomputed %s", path, n.allocatedUnreserved, wantAllocated)
		}
	}
	for role, q := range reserved {
		if a.roles.get(role) == nil && !q.IsEmpty() {
			fail("reservations for %s but no role node", role)
		}
	}

	// Filters.
	for _, fwID := range slices.Sorted(maps.Keys(a.frameworks)) {
		fw := a.frameworks[fwID]
		for role, byAgent := range fw.filters {
			for agentID := range byAgent {
				if _, ok := a.agents[agentID]; !ok {
					fail("framework %s: filter in %s for unknown agent %s", fwID, role, agentID)
				}
			}
		}
		for agentID := range fw.inverseFilters {
			if _, ok := a.agents[agentID]; !ok {
				fail("framework %s: inverse-offer filter for unknown agent %s", fwID, agentID)
			}
		}
		for agentID := range fw.agents {
			if _, ok := a.agents[agentID]; !ok {
				fail("framework %s lists unknown agent %s", fwID, agentID)
			}
		}
	}
	for _, fwID := range slices.Sorted(maps.Keys(a.frameworks)) {
		fw := a.frameworks[fwID]
		for agentID := range fw.agents {
			ag, ok := a.agents[agentID]
			if !ok {
				fail("framework %s lists agent %s, which is gone", fwID, agentID)
				continue
			}
			if ag.held(fwID).IsEmpty() {
				fail("framework %s lists agent %s, where it holds nothing", fwID, agentID)
			}
		}
	}
	for _, id := range a.agentIDs {
		ag := a.agents[id]
		sums := map[string]resources.Resources{}
		for _, o := range ag.outstanding {
			if _, ok := a.frameworks[o.framework]; !ok {
				fail("agent %s: outstanding offer %s of unknown framework %q", id, o.id, o.framework)
			}
			if role, ok := o.res.AllocationRole(); !ok || role != o.role {
				fail("agent %s: outstanding offer %s of role %q holds %s", id, o.id, o.role, o.res)
			}
			s := sums[o.framework]
			s.Add(o.res)
			sums[o.framework] = s
		}
		for fwID, s := range sums {
			if !ag.offered[fwID].Contains(s) {
				fail("agent %s: outstanding offers of %s hold %s, more than it is offered (%s)", id, fwID, s, ag.offered[fwID])
			}
		}
	}
	if a.parkedEpoch == a.capEpoch && len(a.parked) > 0 {
		required, names := a.requiredHeadroom(), a.totals.Names()
		for _, role := range a.parked {
			n := a.roles.get(role)
			if n == nil || !a.unsatisfiedGuarantees(n).IsEmpty() {
				fail("parked role %q has an unmet guarantee in its ancestry, or is gone", role)
				continue
			}
			if capped, _ := a.cappedNow(n, required, names); !capped {
				fail("role %q is kept out of the role sorter, but could take more: an event that uncaps roles did not say so", role)
			}
		}
	}
	return errors.Join(errs...)
}
