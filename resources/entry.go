package resources

import (
	"slices"
	"sync"
	"sync/atomic"
	"unique"

	"github.com/allot-go/allot/internal/names"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/volume"
)

// The representation of a Resources.
//
// A Resources is a slice of small flat entries. What tells resources of one
// name apart (reservations, disk, sharing, revocability, provider) lives out
// of line in a meta, which is immutable and shared by every entry copied
// from the one it was made for; the allocation role is interned (allocRole),
// one pointer. Ranges, sets and the copies of a shared volume beyond one
// live out of line in an immutable values (entryvalues.go). So an entry
// is four machine words (32 bytes: a Resources of cpus, mem, disk and
// ports fits 128 bytes), copying a Resources copies those words and no
// metadata, and merging compares pointers before it compares anything else.
//
// Resource, the exported struct, is the view of one entry: All, Slice and
// the filters build it from the entry and its meta, and AddResource makes an
// entry of it.

// meta is the kind of an entry: everything but its value and its allocation
// role. Metas are never changed once made. Entries made apart from equal
// resources may hold equal metas at different addresses, so metas compare by
// address first and by value second; plain metas (a name and a type, nothing
// else) are made once per name and type and always compare by address.
type meta struct {
	name         string
	id           names.ID
	typ          ValueType
	reservations reservation.Stack
	disk         *volume.Disk
	shared       bool
	revocable    bool
	provider     string

	// Derived, for the hot paths.
	plain    bool   // no reservations, disk, sharing, revocability or provider
	reserved bool   // reservations is not empty
	refined  bool   // more than one reservation
	role     string // the current reservation role, "*" when unreserved
	volume   bool   // a persistent volume
	whole    bool   // consumed only whole: a persistent volume, a MOUNT or BLOCK disk
}

// allocRole is an entry's allocation role, interned: a role is one pointer
// in every entry that carries it, and entries compare roles by pointer. The
// zero value is no role (unallocated). unique's table forgets a role once
// neither an entry nor roleCache holds it, and roleCache is bounded, so
// roles that come and go do not accumulate.
type allocRole struct{ h unique.Handle[string] }

// allocRoleOf interns role ("" is the zero allocRole).
func allocRoleOf(role string) allocRole {
	if role == "" {
		return allocRole{}
	}
	h := roleHash(role)
	set := roleCache[h%uint32(len(roleCache))][:]
	for i := range set {
		if c := set[i].Load(); c != nil && c.String() == role {
			return *c
		}
	}
	roleInterns.Add(1)
	r := allocRole{unique.Make(role)}
	for i := range set {
		if set[i].Load() == nil {
			set[i].Store(&r)
			return r
		}
	}
	set[h>>30].Store(&r) // a full set: evict one, by the hash's top bits
	return r
}

// roleCache holds the roles interned last, in sets of four chosen by hash.
// It finds a role without unique.Make, and it keeps the role's interned
// copy alive: without it, a role whose offers were all declined would be
// forgotten by the next collection and interned again, with several
// allocations, by the next offer. Slots are loaded and stored atomically,
// as Resources are used from any goroutine. The table is 128 KB of zeroed
// memory, of which only the pages of slots in use are ever touched; it
// keeps up to 16384 roles, a fifth role falling in a full set evicting
// one of its four.
var roleCache [1 << 12][4]atomic.Pointer[allocRole]

// roleInterns counts the roles allocRoleOf did not find in roleCache and
// interned, so that a test can tell a role found from one interned again.
var roleInterns atomic.Uint64

// roleHash is FNV-1a: fixed, so that which roles share a slot does not
// change from run to run.
func roleHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// String returns the role, "" when unallocated.
func (r allocRole) String() string {
	if r == (allocRole{}) {
		return ""
	}
	return r.h.Value()
}

// entry is one merged resource of a Resources.
type entry struct {
	m      *meta
	alloc  allocRole // zero when unallocated
	scalar Scalar    // ScalarType
	vals   *values   // ranges, sets, a shared entry's copies beyond one
}

// plainMetas holds the plain meta of every name and type in use.
var plainMetas sync.Map // uint64(name id)<<8 | type -> *meta

// metaOf returns the meta of r, which is valid and normalised.
func metaOf(r *Resource) *meta {
	id := names.Intern(r.Name)
	if len(r.Reservations) == 0 && r.Disk == nil && !r.Shared && !r.Revocable && r.ProviderID == "" {
		key := uint64(id)<<8 | uint64(r.Type)
		if m, ok := plainMetas.Load(key); ok {
			return m.(*meta)
		}
		m, _ := plainMetas.LoadOrStore(key, newMeta(r, id))
		return m.(*meta)
	}
	return newMeta(r, id)
}

func newMeta(r *Resource, id names.ID) *meta {
	m := new(meta)
	fillMeta(m, r, id)
	return m
}

// fillMeta describes r's kind in m.
func fillMeta(m *meta, r *Resource, id names.ID) {
	*m = meta{
		name:         r.Name,
		id:           id,
		typ:          r.Type,
		reservations: r.Reservations,
		disk:         r.Disk,
		shared:       r.Shared,
		revocable:    r.Revocable,
		provider:     r.ProviderID,
	}
	m.plain = len(r.Reservations) == 0 && r.Disk == nil && !r.Shared && !r.Revocable && r.ProviderID == ""
	m.reserved = len(r.Reservations) > 0
	m.refined = len(r.Reservations) > 1
	m.role = r.Reservations.Role()
	m.volume = r.Disk.IsPersistentVolume()
	m.whole = r.Disk != nil && (r.Disk.Persistence != nil || !r.Disk.Divisible())
}

// withReservations returns a meta like m with another reservation stack.
func (m *meta) withReservations(s reservation.Stack) *meta {
	r := Resource{Name: m.name, Type: m.typ, Reservations: s, Disk: m.disk, Shared: m.shared, Revocable: m.revocable, ProviderID: m.provider}
	if len(s) == 0 {
		r.Reservations = nil
	}
	return metaOf(&r)
}

// sameMeta reports whether a and b are the same kind.
func sameMeta(a, b *meta) bool {
	if a == b {
		return true
	}
	if a.plain || b.plain {
		return false // plain metas are unique per name and type
	}
	return a.id == b.id && a.typ == b.typ && a.shared == b.shared && a.revocable == b.revocable &&
		a.provider == b.provider && a.reservations.Equal(b.reservations) && a.disk.Equal(b.disk)
}

// entryOf makes the entry of r, which is valid, normalised and not empty.
func entryOf(r *Resource, copies int32) entry {
	return entryWith(r, metaOf(r), copies)
}

// entryWith makes the entry of r with kind m.
func entryWith(r *Resource, m *meta, copies int32) entry {
	e := entry{m: m, alloc: allocRoleOf(r.AllocationRole), scalar: r.Scalar}
	switch r.Type {
	case RangesType:
		e.vals = rangesValues(r.Ranges)
	case SetType:
		e.vals = setValues(r.Set)
	}
	if m.shared && copies > 1 {
		e.setCopies(copies)
	}
	return e
}

// lookupEntry is entryOf for an entry that only looks others up and does
// not outlive the call: a kind that is not plain (reservations, disk,
// sharing...) is described in the caller's *m rather than in a new meta,
// so that a lookup of a volume or a reservation allocates nothing (plain
// kinds must be the shared ones: sameMeta tells them apart by pointer),
// and a ranges or set value is kept as given, in one allocation (see
// lookupValues).
func lookupEntry(r *Resource, m *meta) entry {
	if len(r.Reservations) == 0 && r.Disk == nil && !r.Shared && !r.Revocable && r.ProviderID == "" {
		m = metaOf(r)
	} else {
		fillMeta(m, r, names.Intern(r.Name))
	}
	e := entry{m: m, alloc: allocRoleOf(r.AllocationRole), scalar: r.Scalar}
	switch r.Type {
	case RangesType:
		e.vals = lookupValuesOf(r.Ranges, nil)
	case SetType:
		e.vals = lookupValuesOf(nil, r.Set)
	}
	return e
}

// resource returns the view of e.
func (e *entry) resource() Resource { return e.view(nil) }

// view returns the view of e, its narrow ranges unpacked into buf: a view
// that does not outlive its caller's buffer on the stack allocates
// nothing.
func (e *entry) view(buf Ranges) Resource {
	m := e.m
	r := Resource{
		Name: m.name, Type: m.typ, Scalar: e.scalar,
		Reservations: m.reservations, Disk: m.disk, Shared: m.shared, Revocable: m.revocable,
		ProviderID: m.provider, AllocationRole: e.alloc.String(),
	}
	switch m.typ {
	case RangesType:
		r.Ranges = e.vals.unpack(buf)
	case SetType:
		r.Set = e.set()
	}
	return r
}

func (e *entry) set() Set {
	if e.vals == nil || e.vals.more == nil {
		return nil
	}
	return e.vals.more.set
}

// sameKind reports whether a and b agree on everything but their value.
func sameKind(a, b *entry) bool {
	return a.alloc == b.alloc && sameMeta(a.m, b.m)
}

// addable reports whether b merges into a.
func addable(a, b *entry) bool {
	if !sameKind(a, b) {
		return false
	}
	if a.m.shared {
		return sameValue(a, b)
	}
	// Non-shared volumes and indivisible disks stay separate entries.
	return !a.m.whole
}

// subtractable reports whether b can be taken from a.
func subtractable(a, b *entry) bool {
	if !sameKind(a, b) {
		return false
	}
	if a.m.shared || a.m.whole {
		return sameValue(a, b)
	}
	return true
}

func sameValue(a, b *entry) bool {
	switch a.m.typ {
	case ScalarType:
		return a.scalar == b.scalar
	case RangesType:
		return a.vals.sameRanges(b.vals)
	case SetType:
		return slices.Equal(a.set(), b.set())
	}
	return false
}

// containsValue reports whether a's value holds b's (same kind assumed).
func containsValue(a, b *entry) bool {
	switch a.m.typ {
	case ScalarType:
		return a.scalar >= b.scalar
	case RangesType:
		return a.vals.containsRanges(b.vals)
	case SetType:
		return a.set().Contains(b.set())
	}
	return false
}
