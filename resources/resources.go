package resources

import (
	"fmt"
	"iter"
	"slices"

	"github.com/allot-go/allot/reservation"
)

// Resources is a multiset of resources. Resources of the same kind (name,
// type, reservations, disk, sharing, revocability, provider, allocation role)
// merge into one entry: scalars add, ranges and sets unite, and identical
// shared volumes count copies. Persistent volumes that are not shared, and
// MOUNT or BLOCK disks, never merge: each is an item of its own.
//
// The zero value is empty and ready to use. The read-only methods and Plus,
// Minus and the filters return new values. Add and Subtract change the
// receiver in place and allocate nothing when the result fits; since a
// Resources holds a slice, a copy made by assignment shares that storage, so
// Clone before changing a copy in place, or share a Frozen value: a frozen
// value and every copy of it copy their entries before the first change in
// place, so any number of holders can keep one frozen value safely.
type Resources struct {
	entries []entry
	frozen  bool
}

// New builds Resources from single resources after validating each; empty
// ones are dropped. The error names the first invalid resource.
func New(list ...Resource) (Resources, error) {
	var out Resources
	for _, r := range list {
		if err := out.AddResource(r); err != nil {
			return Resources{}, err
		}
	}
	return out, nil
}

// AddResource validates r and adds it. Invalid resources give an error and
// leave the receiver unchanged; empty ones are ignored. The receiver may keep
// r's slices and pointers (reservations, disk): do not change them after.
func (rs *Resources) AddResource(r Resource) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if r.IsEmpty() {
		return nil
	}
	n := r.normalized()
	rs.addEntry(entryOf(&n, 1))
	return nil
}

// Frozen returns rs marked frozen: the same entries, which neither this
// value nor any copy of it changes in place (Add, Subtract and AddResource
// copy them first). Handing out a frozen value is how one set of resources
// is shared by several holders without a copy each.
func (rs Resources) Frozen() Resources {
	rs.frozen = true
	return rs
}

// own makes the receiver's entries its own to change in place.
func (rs *Resources) own() {
	if rs.frozen {
		rs.entries = slices.Clone(rs.entries)
		rs.frozen = false
	}
}

// addEntry merges e into the receiver (e valid, normalised, non-empty).
func (rs *Resources) addEntry(e entry) {
	rs.own()
	for i := range rs.entries {
		x := &rs.entries[i]
		if x.m.id != e.m.id || !addable(x, &e) {
			continue
		}
		switch {
		case x.m.shared:
			x.setCopies(x.copies() + e.copies())
		case x.m.typ == ScalarType:
			x.scalar += e.scalar
		case x.m.typ == RangesType:
			x.vals = rangesOp(x.vals, e.vals, true)
		case x.m.typ == SetType:
			x.vals = setValues(x.set().Union(e.set()))
		}
		return
	}
	rs.entries = append(rs.entries, e)
}

// subtractEntry takes e from the first entry it can be taken from; entries
// that become empty or negative are removed. Without such an entry nothing
// happens.
func (rs *Resources) subtractEntry(e *entry) {
	for i := range rs.entries {
		x := &rs.entries[i]
		if x.m.id != e.m.id || !subtractable(x, e) {
			continue
		}
		rs.own()
		x = &rs.entries[i]
		empty := false
		switch {
		case x.m.shared:
			n := x.copies() - e.copies()
			empty = n <= 0
			if !empty {
				x.setCopies(n)
			}
		case x.m.whole:
			empty = true
		case x.m.typ == ScalarType:
			x.scalar -= e.scalar
			empty = x.scalar <= 0
		case x.m.typ == RangesType:
			x.vals = rangesOp(x.vals, e.vals, false)
			empty = x.vals == nil
		case x.m.typ == SetType:
			s := x.set().Difference(e.set())
			x.vals = setValues(s)
			empty = len(s) == 0
		}
		if empty {
			rs.entries = slices.Delete(rs.entries, i, i+1)
		}
		return
	}
}

// Add adds o to the receiver in place.
func (rs *Resources) Add(o Resources) {
	for i := range o.entries {
		rs.addEntry(o.entries[i])
	}
}

// AddUnallocated adds o to the receiver in place without o's allocation
// roles, as o.Unallocate() would give, but without that copy; shared
// resources of o are left out unless withShared is set.
func (rs *Resources) AddUnallocated(o Resources, withShared bool) {
	for i := range o.entries {
		e := o.entries[i]
		if e.m.shared && !withShared {
			continue
		}
		e.alloc = allocRole{}
		rs.addEntry(e)
	}
}

// Subtract removes o from the receiver in place, with Mesos's semantics:
// each entry of o is taken from the first entry of the same kind; an entry
// that would go negative is removed; entries of o with no matching kind (a
// different role, other labels) have no effect. A shared entry loses as many
// copies as o holds. rs.Subtract(rs) empties rs.
func (rs *Resources) Subtract(o Resources) {
	if len(o.entries) == 0 {
		return
	}
	if rs.Identical(o) {
		rs.entries, rs.frozen = rs.entries[:0:0], false
		return
	}
	if sharesStorage(rs.entries, o.entries) {
		o = o.Clone()
	}
	for i := range o.entries {
		rs.subtractEntry(&o.entries[i])
	}
}

// sharesStorage reports whether a and b are views of one backing array, as
// after b := a. Subtracting in place from a would then shift b under the
// loop.
func sharesStorage(a, b []entry) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	return &a[:cap(a)][cap(a)-1] == &b[:cap(b)][cap(b)-1]
}

// Plus returns rs + o.
func (rs Resources) Plus(o Resources) Resources {
	if len(rs.entries) == 0 {
		return o.Clone()
	}
	c := rs.Clone()
	c.Add(o)
	return c
}

// Minus returns rs - o (see Subtract).
func (rs Resources) Minus(o Resources) Resources {
	c := rs.Clone()
	c.Subtract(o)
	return c
}

// Clone returns a copy whose entries can be changed without touching rs.
func (rs Resources) Clone() Resources {
	if rs.entries == nil {
		return Resources{}
	}
	return Resources{entries: slices.Clone(rs.entries)}
}

// IsEmpty reports whether rs holds nothing.
func (rs Resources) IsEmpty() bool { return len(rs.entries) == 0 }

// Len returns the number of merged entries.
func (rs Resources) Len() int { return len(rs.entries) }

// All yields every merged entry. A shared entry is yielded once; Copies
// tells how many copies it stands for. The entries share slices and pointers
// with rs: treat them as read-only.
func (rs Resources) All() iter.Seq[Resource] {
	return func(yield func(Resource) bool) {
		for i := range rs.entries {
			if !yield(rs.entries[i].resource()) {
				return
			}
		}
	}
}

// Slice returns the merged entries as a new slice; like All's, the entries
// share slices and pointers with rs and are read-only.
func (rs Resources) Slice() []Resource {
	out := make([]Resource, len(rs.entries))
	for i := range rs.entries {
		out[i] = rs.entries[i].resource()
	}
	return out
}

// Copies returns how many copies of a shared resource rs holds (0 when none);
// for a resource that is not shared it is 1 if rs contains it, else 0.
func (rs Resources) Copies(r Resource) int {
	if r.Validate() != nil || r.IsEmpty() {
		return 0
	}
	n := r.normalized()
	var m meta
	e := lookupEntry(&n, &m)
	for i := range rs.entries {
		x := &rs.entries[i]
		if x.m.id == e.m.id && sameKind(x, &e) && (sameValue(x, &e) || (!e.m.shared && containsValue(x, &e))) {
			return int(x.copies())
		}
	}
	return 0
}

// containsEntry reports whether one entry of rs holds e.
func (rs Resources) containsEntry(e *entry) bool {
	for i := range rs.entries {
		x := &rs.entries[i]
		if x.m.id != e.m.id || !subtractable(x, e) {
			continue
		}
		if x.m.shared {
			if x.copies() >= e.copies() {
				return true
			}
			continue
		}
		if containsValue(x, e) {
			return true
		}
	}
	return false
}

// Contains reports whether o fits in rs: every entry of o within one entry of
// the same kind in rs (scalar not larger, ranges and sets subsets, enough
// shared copies). Items that are consumed whole, that is non-shared
// persistent volumes and MOUNT or BLOCK disks, are matched one to one: two
// identical volumes in o need two in rs. It allocates nothing unless o holds
// such items.
func (rs Resources) Contains(o Resources) bool {
	if len(o.entries) == 0 || rs.Identical(o) {
		// Nothing, or the very same entries.
		return true
	}
	var remaining Resources
	cloned := false
	for i := range o.entries {
		e := &o.entries[i]
		base := rs
		if cloned {
			base = remaining
		}
		if !base.containsEntry(e) {
			return false
		}
		if e.m.whole && !e.m.shared {
			if !cloned {
				remaining, cloned = rs.Clone(), true
			}
			remaining.subtractEntry(e)
		}
	}
	return true
}

// ContainsResource reports whether rs contains the single resource r.
func (rs Resources) ContainsResource(r Resource) bool {
	if r.Validate() != nil || r.IsEmpty() {
		return r.IsEmpty()
	}
	n := r.normalized()
	var m meta
	e := lookupEntry(&n, &m)
	return rs.containsEntry(&e)
}

// Equal reports whether rs and o hold the same resources (each contains the
// other).
func (rs Resources) Equal(o Resources) bool {
	return rs.Contains(o) && o.Contains(rs)
}

// Quantities returns the scalar amounts by name, all metadata stripped;
// ranges and sets are left out, and a shared entry counts once.
func (rs Resources) Quantities() Quantities {
	n := 0
	for i := range rs.entries {
		if rs.entries[i].m.typ == ScalarType {
			n++
		}
	}
	if n == 0 {
		return Quantities{}
	}
	q := Quantities{items: make([]quantity, 0, n)}
	rs.AddQuantitiesTo(&q)
	return q
}

// AddQuantitiesTo adds rs's scalar amounts to q in place, allocating nothing
// when q already holds every name.
func (rs Resources) AddQuantitiesTo(q *Quantities) {
	for i := range rs.entries {
		e := &rs.entries[i]
		if e.m.typ == ScalarType {
			q.addID(e.m.id, e.scalar)
		}
	}
}

// AddUnreservedQuantitiesTo adds the amounts of rs's unreserved,
// non-revocable scalar entries (what quota limits and headroom are about) to
// q in place, and reports whether rs also holds reserved scalars.
func (rs Resources) AddUnreservedQuantitiesTo(q *Quantities) (reserved bool) {
	for i := range rs.entries {
		e := &rs.entries[i]
		if e.m.typ != ScalarType {
			continue
		}
		switch {
		case e.m.reserved:
			reserved = true
		case !e.m.revocable:
			q.addID(e.m.id, e.scalar)
		}
	}
	return reserved
}

// ContainsQuantities reports whether rs holds at least q of every name,
// summing over all metadata: scalars by amount, ranges by the number of
// integers, sets by the number of items. Minimum allocatable resources are
// checked this way.
func (rs Resources) ContainsQuantities(q Quantities) bool {
	for _, want := range q.items {
		var have Scalar
		for i := range rs.entries {
			e := &rs.entries[i]
			if e.m.id != want.id {
				continue
			}
			switch e.m.typ {
			case ScalarType:
				have += e.scalar
			case RangesType:
				have += Scalar(min(e.vals.count(), 1<<40)) * Units(1)
			case SetType:
				have += Units(int64(len(e.set())))
			}
			if have >= want.v {
				break
			}
		}
		if have < want.v {
			return false
		}
	}
	return true
}

// filter returns the entries for which keep returns true. When it keeps
// them all and rs is frozen, the result is rs itself; otherwise it is a
// copy, which a later change in place of rs does not touch.
func (rs Resources) filter(keep func(*entry) bool) Resources {
	var out Resources
	for i := range rs.entries {
		if !keep(&rs.entries[i]) {
			if out.entries == nil {
				// One allocation: room for every entry from here on.
				out.entries = make([]entry, 0, len(rs.entries)-1)
				out.entries = append(out.entries, rs.entries[:i]...)
			}
			continue
		}
		if out.entries != nil {
			out.entries = append(out.entries, rs.entries[i])
		}
	}
	if out.entries == nil {
		// Everything kept.
		if len(rs.entries) == 0 {
			return Resources{}
		}
		if rs.frozen {
			return rs
		}
		return rs.Clone()
	}
	if len(out.entries) == 0 {
		return Resources{}
	}
	return out
}

// Filter returns the entries for which keep returns true.
func (rs Resources) Filter(keep func(Resource) bool) Resources {
	return rs.filter(func(e *entry) bool { return keep(e.resource()) })
}

// Get returns the entries named name.
func (rs Resources) Get(name string) Resources {
	return rs.filter(func(e *entry) bool { return e.m.name == name })
}

// Names returns the distinct resource names, sorted.
func (rs Resources) Names() []string {
	var out []string
	for i := range rs.entries {
		if name := rs.entries[i].m.name; !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Scalars returns the scalar entries.
func (rs Resources) Scalars() Resources {
	return rs.filter(func(e *entry) bool { return e.m.typ == ScalarType })
}

// NonScalars returns the ranges and set entries.
func (rs Resources) NonScalars() Resources {
	return rs.filter(func(e *entry) bool { return e.m.typ != ScalarType })
}

// Reserved returns the resources currently reserved for role exactly; with
// role "" it returns every reserved resource.
func (rs Resources) Reserved(role string) Resources {
	return rs.filter(func(e *entry) bool {
		return e.m.reserved && (role == "" || e.m.role == role)
	})
}

// Unreserved returns the resources without reservation.
func (rs Resources) Unreserved() Resources {
	return rs.filter(func(e *entry) bool { return !e.m.reserved })
}

// ReservedToSubtree returns the resources reserved for role or any of its
// sub-roles.
func (rs Resources) ReservedToSubtree(role string) Resources {
	return rs.filter(func(e *entry) bool {
		return e.m.reserved && reservation.IsSubroleOrSelf(e.m.role, role)
	})
}

// AllocatableTo returns what may be offered to a framework in role: the
// unreserved resources plus those reserved for role or one of its ancestors.
// A reservation refined to a sub-role is not allocatable to the parent.
func (rs Resources) AllocatableTo(role string) Resources {
	return rs.filter(func(e *entry) bool {
		return !e.m.reserved || e.m.reservations.AllocatableTo(role)
	})
}

// QuotaPart splits rs into what quota governs (unreserved, non-revocable
// scalars) and the rest (reservations, ranges and sets, revocable
// resources), in one pass.
func (rs Resources) QuotaPart() (governed, rest Resources) {
	for i := range rs.entries {
		e := &rs.entries[i]
		if e.m.typ == ScalarType && !e.m.reserved && !e.m.revocable {
			governed.entries = append(governed.entries, *e)
		} else {
			rest.entries = append(rest.entries, *e)
		}
	}
	return governed, rest
}

// Revocable returns the revocable resources.
func (rs Resources) Revocable() Resources {
	return rs.filter(func(e *entry) bool { return e.m.revocable })
}

// NonRevocable returns the resources that are not revocable.
func (rs Resources) NonRevocable() Resources {
	return rs.filter(func(e *entry) bool { return !e.m.revocable })
}

// Identical reports whether rs and o are the same value: o is rs, or a copy
// of it made by assignment, sharing its storage. Equal values made apart
// are not identical. It lets holders of many values find one in O(1).
func (rs Resources) Identical(o Resources) bool {
	if len(rs.entries) != len(o.entries) {
		return false
	}
	return len(rs.entries) == 0 || &rs.entries[0] == &o.entries[0]
}

// HasShared reports whether rs holds a shared resource, without copying.
func (rs Resources) HasShared() bool {
	for i := range rs.entries {
		if rs.entries[i].m.shared {
			return true
		}
	}
	return false
}

// HasRevocable reports whether rs holds a revocable resource, without
// copying.
func (rs Resources) HasRevocable() bool {
	for i := range rs.entries {
		if rs.entries[i].m.revocable {
			return true
		}
	}
	return false
}

// Shared returns the shared resources.
func (rs Resources) Shared() Resources {
	return rs.filter(func(e *entry) bool { return e.m.shared })
}

// NonShared returns the resources that are not shared.
func (rs Resources) NonShared() Resources {
	return rs.filter(func(e *entry) bool { return !e.m.shared })
}

// PersistentVolumes returns the persistent volumes.
func (rs Resources) PersistentVolumes() Resources {
	return rs.filter(func(e *entry) bool { return e.m.volume })
}

// Refined returns the resources whose reservation stack holds more than one
// reservation.
func (rs Resources) Refined() Resources {
	return rs.filter(func(e *entry) bool { return e.m.refined })
}

// mapReservations returns rs with every entry's reservation stack replaced
// by f's, re-merged. An error from f aborts the map.
func (rs Resources) mapReservations(f func(e *entry) (reservation.Stack, error)) (Resources, error) {
	var out Resources
	for i := range rs.entries {
		e := rs.entries[i]
		stack, err := f(&e)
		if err != nil {
			return rs, err
		}
		e.m = e.m.withReservations(stack)
		out.addEntry(e)
	}
	return out, nil
}

// PushReservation returns rs with r pushed onto every resource's
// reservation stack: a reservation of unreserved resources, or a refinement
// of reserved ones to a strict sub-role. It fails, returning rs unchanged, if
// any stack would become invalid.
func (rs Resources) PushReservation(r reservation.Reservation) (Resources, error) {
	return rs.mapReservations(func(e *entry) (reservation.Stack, error) {
		stack, err := e.m.reservations.Push(r)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalidReservation, e.m.name, err)
		}
		return stack, nil
	})
}

// PopReservation returns rs with the last reservation removed from every
// resource: the resources go back to the previous role in the stack, or
// become unreserved. Unreserved resources give an error.
func (rs Resources) PopReservation() (Resources, error) {
	return rs.mapReservations(func(e *entry) (reservation.Stack, error) {
		stack, _, err := e.m.reservations.Pop()
		if err != nil {
			r := e.resource()
			return nil, fmt.Errorf("%w: %s", ErrNotReserved, &r)
		}
		return stack, nil
	})
}

// ToUnreserved returns rs with every reservation removed.
func (rs Resources) ToUnreserved() Resources {
	out, _ := rs.mapReservations(func(*entry) (reservation.Stack, error) { return nil, nil })
	return out
}

// Allocate returns rs tagged as allocated to role. It does not validate
// role; callers pass roles they have validated.
func (rs Resources) Allocate(role string) Resources {
	if len(rs.entries) == 0 {
		return Resources{}
	}
	tag := allocRoleOf(role)
	// Entries that share one allocation role stay distinct under another:
	// retag a copy instead of merging again.
	first := rs.entries[0].alloc
	for i := range rs.entries {
		if rs.entries[i].alloc != first {
			var out Resources
			for j := range rs.entries {
				e := rs.entries[j]
				e.alloc = tag
				out.addEntry(e)
			}
			return out
		}
	}
	if first == tag && rs.frozen {
		return rs
	}
	out := Resources{entries: slices.Clone(rs.entries)}
	for i := range out.entries {
		out.entries[i].alloc = tag
	}
	return out
}

// Unallocate returns rs without allocation roles.
func (rs Resources) Unallocate() Resources { return rs.Allocate("") }

// AllocatedTo returns the resources allocated to role.
func (rs Resources) AllocatedTo(role string) Resources {
	tag := allocRoleOf(role)
	return rs.filter(func(e *entry) bool { return e.alloc == tag })
}

// AllocationRoles returns the distinct allocation roles, sorted; "" stands
// for unallocated resources.
func (rs Resources) AllocationRoles() []string {
	if len(rs.entries) == 0 {
		return nil
	}
	first := rs.entries[0].alloc
	single := true
	for i := range rs.entries {
		if rs.entries[i].alloc != first {
			single = false
			break
		}
	}
	if single {
		return []string{first.String()}
	}
	var out []string
	for i := range rs.entries {
		if role := rs.entries[i].alloc.String(); !slices.Contains(out, role) {
			out = append(out, role)
		}
	}
	slices.Sort(out)
	return out
}

// AllocationRole returns the one allocation role every entry carries, and
// false when rs is empty or carries several.
func (rs Resources) AllocationRole() (string, bool) {
	if len(rs.entries) == 0 {
		return "", false
	}
	first := rs.entries[0].alloc
	for i := range rs.entries {
		if rs.entries[i].alloc != first {
			return "", false
		}
	}
	return first.String(), true
}
