package books

import (
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/observe"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// PoolAgent is the one agent the allocator shows its sorters: the whole
// cluster's scalar totals. Shares depend only on the sum over agents, and one
// pool agent keeps a new role's sorter from having to learn every agent.
const PoolAgent = "(cluster)"

// Books keeps the books of what frameworks hold: the agents' records
// (available, offered, allocated), the sorters' charges, the role tree's
// sums, the cluster's totals and headroom, and the Observer's ledgers,
// each change made to all of them at once.
type Books struct {
	Cluster    *cluster.State
	Roles      *roles.Tree
	RoleSorter *roles.TrackedSorter
	Declines   *declines.Book
	Parking    *quota.Parking
	Allowances *quota.Allowances
	// Observer is nil without an Observer.
	Observer *observe.Ledgers
	// NewFrameworkSorter makes the framework sorter of a role, the salt
	// telling it from the sorters made before.
	NewFrameworkSorter func(salt uint64) sorter.Sorter
	// SorterRoles counts the roles with a framework sorter (in their role
	// tree node), for the salt of the next one.
	SorterRoles int

	// charge, scratch and reservedScratch are reused on the hot path.
	charge                   Charge
	scratch, reservedScratch resources.Quantities
}

// ObserveFramework marks a framework and one of its roles changed in the
// Observer's ledgers (role may be empty), and notes whether the framework
// suppresses the role.
func (b *Books) ObserveFramework(fw *cluster.Framework, role string) {
	if b.Observer != nil {
		b.Observer.FrameworkIn(fw.ID, role, role != "" && fw.Roles.Has(role, tables.Tracked) && fw.Roles.Has(role, tables.Suppressed))
	}
}

// TrackAllocation records res (tagged with allocation roles) as offered to,
// or (inUse) allocated to, fw on ag, taken from what is available.
func (b *Books) TrackAllocation(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, inUse bool) {
	b.track(fw, ag, res, inUse, true)
}

// TrackInUse records res (tagged with allocation roles) as allocated to fw
// on ag, where it was already in use (unclaimed.go): what is available
// stays.
func (b *Books) TrackInUse(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources) {
	b.track(fw, ag, res, true, false)
}

// track is trackAllocation, and trackInUse when fromAvailable is false.
func (b *Books) track(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, inUse, fromAvailable bool) {
	if res.IsEmpty() {
		return
	}
	recompute := false
	for _, role := range res.AllocationRoles() {
		part := res.AllocatedTo(role)
		b.TrackUnderRole(fw, role)
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
		b.charge.Load(part)
		if b.Observer != nil {
			if inUse {
				b.Observer.Held(fw.ID, role, resources.Quantities{}, b.charge.Q, true)
			} else {
				b.Observer.Held(fw.ID, role, b.charge.Q, resources.Quantities{}, true)
			}
		}
		SorterAllocated(b.RoleSorter.Sorter, role, ag.ID, part, &b.charge)
		SorterAllocated(b.FrameworkSorter(role).Sorter, fw.ID, ag.ID, part, &b.charge)
		b.TrackHeld(role, plain, true)
	}
	// An agent over-allocated in one kind (its reservations, say) can be
	// taken past its total by name with resources that fit what is
	// available: its excess is measured again, as the sums need.
	if recompute || ag.OverAllocated {
		b.RecomputeAvailable(ag)
		return
	}
	b.Cluster.RefreshHeadroom(ag)
}

// UntrackAllocation returns res (held by fw on ag, tagged with allocation
// roles) to the agent's available pool, taking it from the offered part
// first and then from the allocated part, or the other way round.
func (b *Books) UntrackAllocation(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, allocatedFirst bool) {
	if res.IsEmpty() {
		return
	}
	b.Parking.Uncapped()
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
		fromFirst, fromSecond := TakeFrom(first, second, fw.ID, part)
		taken := fromFirst
		if allocatedFirst {
			taken = fromSecond
		}
		if !taken.IsEmpty() {
			ag.OffersTaken(fw.ID, role, taken, resources.Resources{})
		}
		b.charge.Load(given)
		if b.Observer != nil {
			b.Observer.Taken(fw.ID, role, taken, b.charge.Q)
		}
		SorterUnallocated(b.RoleSorter.Sorter, role, ag.ID, given, &b.charge)
		if s := b.FrameworkSorter(role); s != nil {
			SorterUnallocated(s.Sorter, fw.ID, ag.ID, given, &b.charge)
		}
		b.TrackHeld(role, part, false)
	}
	for _, role := range roles {
		if !fw.Roles.Has(role, tables.Subscribed) && b.Cluster.HeldInRole(fw.ID, role).IsEmpty() {
			b.UntrackUnderRole(fw, role)
		}
		b.Roles.Prune(role)
	}
	if ag.OverAllocated {
		b.RecomputeAvailable(ag)
		return
	}
	ag.Available.AddUnallocated(res, false)
	b.Declines.AvailableGrew(ag)
	ag.Version++
	b.Declines.AgentChanged(ag)
	b.Cluster.RefreshHeadroom(ag)
}

// TrackHeld records in the role tree that plain (allocation roles ignored)
// was offered or allocated to role, or given back: unreserved non-revocable
// scalars under the allocation role, reservations (but shared volumes)
// under their own role. It returns the unreserved non-revocable quantities
// it counted, in the Books' scratch storage: valid until the next call.
func (b *Books) TrackHeld(role string, plain resources.Resources, add bool) resources.Quantities {
	return b.TrackHeldAt(nil, role, plain, add)
}

// TrackHeldAt is trackHeld with role's node at hand (nil: looked up).
func (b *Books) TrackHeldAt(node *roles.Node, role string, plain resources.Resources, add bool) resources.Quantities {
	q := &b.scratch
	q.Reset()
	reserved := plain.AddUnreservedQuantitiesTo(q)
	if node != nil {
		b.Roles.TrackAllocatedUnreservedAt(node, *q, add)
	} else {
		b.Roles.TrackAllocatedUnreserved(role, *q, add)
	}
	if !reserved {
		return *q
	}
	one := &b.reservedScratch
	for r := range plain.All() {
		// Shared volumes stay available while held and may be held many
		// times over; they are not counted as allocated reservations.
		if r.IsReserved() && r.Type == resources.ScalarType && !r.Shared {
			one.Reset()
			one.AddScalar(r.Name, r.Scalar)
			b.Roles.TrackAllocatedReserved(r.Role(), *one, add)
		}
	}
	return *q
}

// TakeFrom removes part from first[key] as far as it holds it, and the rest
// from second[key]; it returns what it took from each.
func TakeFrom(first, second *tables.PerFramework, key string, part resources.Resources) (fromFirst, fromSecond resources.Resources) {
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

// SyncActivation makes the framework's state in a role's sorter match
// "active, subscribed, not suppressed and not waiting for nothing" (see
// demand.go), and marks the role changed (its
// epoch), since the framework's filters, info or state may have changed.
func (b *Books) SyncActivation(fw *cluster.Framework, role string) {
	n := b.Roles.Get(role)
	if n == nil || n.FrameworkSorter == nil {
		return
	}
	s := n.FrameworkSorter
	n.Epoch = b.Roles.NewEpoch()
	b.ObserveFramework(fw, role)
	if fw.Active && fw.Roles.Has(role, tables.Subscribed) && !fw.Roles.Has(role, tables.Suppressed) && !fw.WaitsForNothing(role) {
		_ = s.Activate(fw.ID)
	} else {
		_ = s.Deactivate(fw.ID)
	}
}

// FrameworkSorter returns the framework sorter of role, nil while no
// framework is tracked under it. It lives in the role's node: one lookup
// finds both, and no map of sorters by role is kept beside the tree.
func (b *Books) FrameworkSorter(role string) *roles.TrackedSorter {
	if n := b.Roles.Get(role); n != nil {
		return n.FrameworkSorter
	}
	return nil
}

// RolesWithSorters returns the roles with a framework sorter, in path
// order.
func (b *Books) RolesWithSorters() []string {
	roles := make([]string, 0, b.SorterRoles)
	for n := range b.Roles.Nodes.All() {
		path := n.Path
		if n.FrameworkSorter != nil {
			roles = append(roles, path)
		}
	}
	slices.Sort(roles)
	return roles
}

func (b *Books) TrackUnderRole(fw *cluster.Framework, role string) {
	if !fw.Roles.Mark(role, tables.Tracked) {
		return
	}
	b.Parking.Uncapped()
	node := b.Roles.Ensure(role)
	node.Frameworks.Add(fw.ID)
	if !b.RoleSorter.Contains(role) {
		_ = b.RoleSorter.Add(role)
		_ = b.RoleSorter.Activate(role)
	}
	s := node.FrameworkSorter
	if s == nil {
		b.SorterRoles++
		salt := uint64(b.SorterRoles)
		s = &roles.TrackedSorter{Sorter: b.NewFrameworkSorter(salt), Salt: salt}
		node.FrameworkSorter = s
	}
	_ = s.Add(fw.ID)
	b.SyncActivation(fw, role)
}

func (b *Books) UntrackUnderRole(fw *cluster.Framework, role string) {
	if !fw.Roles.Unmark(role, tables.Tracked) {
		return
	}
	b.Parking.Uncapped()
	b.ObserveFramework(fw, role)
	node := b.Roles.Get(role)
	s := node.FrameworkSorter
	b.Declines.ClearRefusalBits(fw, role)
	_ = s.Remove(fw.ID)
	if s.Count() == 0 {
		node.FrameworkSorter = nil
		b.SorterRoles--
		_ = b.RoleSorter.Remove(role)
		// A role that leaves the sorter leaves the parked roles too, so
		// that they name only roles the sorter has.
		b.Parking.Drop(role)
	}
	node.Frameworks.Remove(fw.ID)
	b.Roles.Prune(role)
}

// AddTotal adds an agent's total to the cluster totals and its reservations
// to the role tree, and recomputes its available resources.
func (b *Books) AddTotal(ag *cluster.Agent) {
	b.Parking.Uncapped()
	if b.Observer != nil {
		b.Observer.ClusterDirty = true
	}
	b.Cluster.Totals.Add(ag.Total.Quantities())
	b.Cluster.TotalsVersion++
	b.Cluster.SetFlags(ag)
	b.TrackReservations(ag.Total, true)
	b.RecomputeAvailable(ag)
}

func (b *Books) RemoveTotal(ag *cluster.Agent) {
	b.Parking.Uncapped()
	if b.Observer != nil {
		b.Observer.ClusterDirty = true
	}
	b.Cluster.Totals.Subtract(ag.Total.Quantities())
	b.Cluster.TotalsVersion++
	if ag.HasRevocable || ag.HasShared {
		b.Cluster.RevocableOrSharedAgents--
	}
	ag.HasRevocable, ag.HasShared = false, false
	b.TrackReservations(ag.Total, false)
	b.Cluster.FreeHeadroom.Subtract(ag.Headroom)
	ag.Headroom = resources.Quantities{}
	if ag.Rare != nil {
		b.Cluster.Excess.Subtract(ag.Rare.Excess)
		ag.Rare.Excess = resources.Quantities{}
	}
}

// TrackReservations adds (or removes) the scalar reservations of res to the
// role tree, under their current reservation roles.
func (b *Books) TrackReservations(res resources.Resources, add bool) {
	b.Parking.Uncapped()
	if !res.IsEmpty() {
		for r := range res.All() {
			if r.IsReserved() && r.Type == resources.ScalarType {
				b.Roles.TrackReserved(r.Role(), quantityOf(r), add)
				b.Allowances.Sync(b.Roles, b.RoleSorter.Sorter, r.Role())
				if b.Observer != nil {
					b.Observer.MarkRole(r.Role())
				}
			}
		}
	}
}

func quantityOf(r resources.Resource) resources.Quantities {
	var q resources.Quantities
	q.SetScalar(r.Name, r.Scalar)
	return q
}

// RecomputeAvailable derives available from total minus everything offered
// or allocated, and refreshes the agent's headroom share.
func (b *Books) RecomputeAvailable(ag *cluster.Agent) {
	b.Parking.Uncapped()
	b.Cluster.Excess.Subtract(ag.Excess())
	used := b.Cluster.MeasureUse(ag)
	if used.IsEmpty() {
		// Nothing in use: available is the total, in the same storage (the
		// total is only ever replaced, never changed in place; available,
		// frozen, copies its entries before its first change).
		ag.Total = ag.Total.Frozen()
		ag.Available = ag.Total
	} else {
		ag.Available = ag.Total.Minus(used)
	}
	b.Declines.AvailableGrew(ag)
	ag.Version++
	b.Declines.AgentChanged(ag)
	b.Cluster.RefreshHeadroom(ag)
}

// RefreshSorterTotals tells every sorter the current cluster totals, once
// per change. The sorters may keep what they are given (see
// sorter.Sorter.AddAgent) and the totals change in place: they share one
// copy of them, made once per change.
func (b *Books) RefreshSorterTotals() {
	var total resources.Quantities
	copied := false
	refresh := func(s *roles.TrackedSorter) {
		if s.TotalsVersion == b.Cluster.TotalsVersion {
			return
		}
		if !copied {
			total, copied = b.Cluster.Totals.Clone(), true
		}
		s.AddAgent(PoolAgent, total)
		s.TotalsVersion = b.Cluster.TotalsVersion
	}
	refresh(b.RoleSorter)
	for n := range b.Roles.Nodes.All() {
		if n.FrameworkSorter != nil {
			refresh(n.FrameworkSorter)
		}
	}
}
