package allocator

import (
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// trackAllocation records res (tagged with allocation roles) as offered to,
// or (inUse) allocated to, fw on ag, taken from what is available.
func (a *Allocator) trackAllocation(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, inUse bool) {
	a.track(fw, ag, res, inUse, true)
}

// trackInUse records res (tagged with allocation roles) as allocated to fw
// on ag, where it was already in use (unclaimed.go): what is available
// stays.
func (a *Allocator) trackInUse(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources) {
	a.track(fw, ag, res, true, false)
}

// track is trackAllocation, and trackInUse when fromAvailable is false.
func (a *Allocator) track(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, inUse, fromAvailable bool) {
	if res.IsEmpty() {
		return
	}
	recompute := false
	for _, role := range res.AllocationRoles() {
		part := res.AllocatedTo(role)
		a.trackFrameworkUnderRole(fw, role)
		held := &ag.Offered
		if inUse {
			held = &ag.Allocated
		}
		// The sorters and the agent's records share part; none changes it
		// in place.
		held.Add(fw.ID, part)
		plain := part.Unallocate()
		if fromAvailable {
			if nonShared := plain.NonShared(); ag.Available.Contains(nonShared) {
				ag.Available.Subtract(nonShared)
			} else {
				recompute = true
			}
		}
		a.ch.load(part)
		if a.obs != nil {
			if inUse {
				a.obs.Held(fw.ID, role, resources.Quantities{}, a.ch.q, true)
			} else {
				a.obs.Held(fw.ID, role, a.ch.q, resources.Quantities{}, true)
			}
		}
		sorterAllocated(a.roleSorter.Sorter, role, ag.ID, part, &a.ch)
		sorterAllocated(a.frameworkSorter(role).Sorter, fw.ID, ag.ID, part, &a.ch)
		a.trackHeld(role, plain, true)
	}
	// An agent over-allocated in one kind (its reservations, say) can be
	// taken past its total by name with resources that fit what is
	// available: its excess is measured again, as the sums need.
	if recompute || ag.OverAllocated {
		a.recomputeAvailable(ag)
		return
	}
	a.cs.RefreshHeadroom(ag)
}

// untrackAllocation returns res (held by fw on ag, tagged with allocation
// roles) to the agent's available pool, taking it from the offered part
// first and then from the allocated part, or the other way round.
func (a *Allocator) untrackAllocation(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, allocatedFirst bool) {
	if res.IsEmpty() {
		return
	}
	a.parking.Uncapped()
	roles := res.AllocationRoles()
	for _, role := range roles {
		part := res
		if len(roles) > 1 {
			part = res.AllocatedTo(role)
		}
		first, second := &ag.Offered, &ag.Allocated
		if allocatedFirst {
			first, second = second, first
		}
		// When part is all the framework holds there, hand the sorters the
		// value they were given (they find it by identity, in O(1)).
		given := part
		if whole := first.Get(fw.ID); whole.Len() == part.Len() && whole.Equal(part) {
			given = whole
		}
		fromFirst, fromSecond := takeFrom(first, second, fw.ID, part)
		taken := fromFirst
		if allocatedFirst {
			taken = fromSecond
		}
		if !taken.IsEmpty() {
			ag.OffersTaken(fw.ID, role, taken, resources.Resources{})
		}
		a.ch.load(given)
		if a.obs != nil {
			a.obs.Taken(fw.ID, role, taken, a.ch.q)
		}
		sorterUnallocated(a.roleSorter.Sorter, role, ag.ID, given, &a.ch)
		if s := a.frameworkSorter(role); s != nil {
			sorterUnallocated(s.Sorter, fw.ID, ag.ID, given, &a.ch)
		}
		a.trackHeld(role, part, false)
	}
	for _, role := range roles {
		if !fw.Roles.Has(role, tables.Subscribed) && a.cs.HeldInRole(fw.ID, role).IsEmpty() {
			a.untrackFrameworkUnderRole(fw, role)
		}
		a.roles.Prune(role)
	}
	if ag.OverAllocated {
		a.recomputeAvailable(ag)
		return
	}
	ag.Available.AddUnallocated(res, false)
	a.dec.AvailableGrew(ag)
	ag.Version++
	a.dec.AgentChanged(ag)
	a.cs.RefreshHeadroom(ag)
}

// trackHeld records in the role tree that plain (allocation roles ignored)
// was offered or allocated to role, or given back: unreserved non-revocable
// scalars under the allocation role, reservations (but shared volumes)
// under their own role. It returns the unreserved non-revocable quantities
// it counted, in a.scratch's storage: valid until the next call.
func (a *Allocator) trackHeld(role string, plain resources.Resources, add bool) resources.Quantities {
	return a.trackHeldAt(nil, role, plain, add)
}

// trackHeldAt is trackHeld with role's node at hand (nil: looked up).
func (a *Allocator) trackHeldAt(node *roles.Node, role string, plain resources.Resources, add bool) resources.Quantities {
	q := &a.scratch
	q.Reset()
	reserved := plain.AddUnreservedQuantitiesTo(q)
	if node != nil {
		a.roles.TrackAllocatedUnreservedAt(node, *q, add)
	} else {
		a.roles.TrackAllocatedUnreserved(role, *q, add)
	}
	if !reserved {
		return *q
	}
	one := &a.reservedScratch
	for r := range plain.All() {
		// Shared volumes stay available while held and may be held many
		// times over; they are not counted as allocated reservations.
		if r.IsReserved() && r.Type == resources.ScalarType && !r.Shared {
			one.Reset()
			one.AddScalar(r.Name, r.Scalar)
			a.roles.TrackAllocatedReserved(r.Role(), *one, add)
		}
	}
	return *q
}

// takeFrom removes part from first[key] as far as it holds it, and the rest
// from second[key]; it returns what it took from each.
func takeFrom(first, second *tables.PerFramework, key string, part resources.Resources) (fromFirst, fromSecond resources.Resources) {
	held := first.Get(key)
	if held.Contains(part) {
		if held.Identical(part) || held.Equal(part) {
			first.Remove(key)
		} else {
			first.Set(key, held.Minus(part))
		}
		return part, resources.Resources{}
	}
	// part ∩ held, with Mesos's subtraction: part − (part − held).
	fromFirst = part.Minus(part.Minus(held))
	first.Set(key, held.Minus(fromFirst))
	if rest := part.Minus(fromFirst); !rest.IsEmpty() {
		second.Set(key, second.Get(key).Minus(rest))
		fromSecond = rest
	}
	return fromFirst, fromSecond
}

func setOrDelete(m map[string]resources.Resources, key string, v resources.Resources) {
	if v.IsEmpty() {
		delete(m, key)
		return
	}
	m[key] = v
}
