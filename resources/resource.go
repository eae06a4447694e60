package resources

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/volume"
)

// Resource is one kind of resource with its value and everything that tells it
// apart from other resources of the same name: reservations, disk metadata,
// sharing, revocability, provider and allocation role. Two resources that
// agree on all of that merge when added to a Resources.
//
// Build resources with ScalarResource, RangesResource and SetResource, or
// parse them with Parse. A Resource is a value; its slices and pointers are
// never modified by this package once the resource is inside a Resources.
type Resource struct {
	Name string
	Type ValueType
	// Scalar holds the value of a ScalarType resource.
	Scalar Scalar
	// Ranges holds the value of a RangesType resource.
	Ranges Ranges
	// Set holds the value of a SetType resource.
	Set Set

	// Reservations is the reservation stack; empty means unreserved.
	Reservations reservation.Stack
	// Disk is disk metadata (source, persistence, volume); only on "disk".
	Disk *volume.Disk
	// Shared marks a shared persistent volume, which may be used by several
	// tasks at once and stays available while in use.
	Shared bool
	// Revocable marks resources that may be taken back (oversubscription).
	Revocable bool
	// ProviderID names the resource provider, if any; resources of different
	// providers never merge.
	ProviderID string
	// AllocationRole is the role the resource is offered or allocated to; ""
	// when unallocated.
	AllocationRole string
}

// ScalarResource returns an unreserved scalar resource.
func ScalarResource(name string, v Scalar) Resource {
	return Resource{Name: name, Type: ScalarType, Scalar: v}
}

// RangesResource returns an unreserved ranges resource.
func RangesResource(name string, r Ranges) Resource {
	return Resource{Name: name, Type: RangesType, Ranges: r}
}

// SetResource returns an unreserved set resource.
func SetResource(name string, s Set) Resource {
	return Resource{Name: name, Type: SetType, Set: s}
}

// Role returns the role the resource is currently reserved for, or "*".
func (r Resource) Role() string { return r.Reservations.Role() }

// IsReserved reports whether the resource carries a reservation.
func (r Resource) IsReserved() bool { return r.Reservations.IsReserved() }

// IsDynamicallyReserved reports whether the current reservation is dynamic.
func (r Resource) IsDynamicallyReserved() bool { return r.Reservations.IsDynamic() }

// IsPersistentVolume reports whether the resource is a persistent volume.
func (r Resource) IsPersistentVolume() bool { return r.Disk.IsPersistentVolume() }

// IsEmpty reports whether the value is zero: a zero scalar, no ranges, an
// empty set. Empty resources are dropped from Resources.
func (r Resource) IsEmpty() bool {
	switch r.Type {
	case ScalarType:
		return r.Scalar == 0
	case RangesType:
		return len(r.Ranges) == 0
	case SetType:
		return len(r.Set) == 0
	}
	return true
}

// Validate checks the resource on its own and returns an error that names the
// resource and the rule it breaks.
func (r Resource) Validate() error {
	if err := validateName(r.Name); err != nil {
		return err
	}
	switch r.Type {
	case ScalarType:
		if r.Ranges != nil || r.Set != nil {
			return fmt.Errorf("%w: %s: scalar with a ranges or set value", ErrMixedTypes, r.Name)
		}
		if r.Scalar < 0 {
			return fmt.Errorf("%w: %s:%s: negative", ErrInvalidScalar, r.Name, r.Scalar)
		}
	case RangesType:
		if r.Scalar != 0 || r.Set != nil {
			return fmt.Errorf("%w: %s: ranges with a scalar or set value", ErrMixedTypes, r.Name)
		}
		for i, x := range r.Ranges {
			if x.Begin > x.End {
				return fmt.Errorf("%w: %s: [%d-%d] begins after it ends", ErrInvalidRanges, r.Name, x.Begin, x.End)
			}
			if i > 0 && x.Begin <= r.Ranges[i-1].End {
				return fmt.Errorf("%w: %s: %s overlaps or is out of order", ErrInvalidRanges, r.Name, r.Ranges)
			}
		}
	case SetType:
		if r.Scalar != 0 || r.Ranges != nil {
			return fmt.Errorf("%w: %s: set with a scalar or ranges value", ErrMixedTypes, r.Name)
		}
		for i, item := range r.Set {
			if item == "" {
				return fmt.Errorf("%w: %s: empty item", ErrInvalidSet, r.Name)
			}
			if i > 0 && item <= r.Set[i-1] {
				if item == r.Set[i-1] {
					return fmt.Errorf("%w: %s: duplicate item %q", ErrInvalidSet, r.Name, item)
				}
				return fmt.Errorf("%w: %s: items out of order", ErrInvalidSet, r.Name)
			}
		}
	default:
		return fmt.Errorf("%w: %s: unknown value type %d", ErrMixedTypes, r.Name, r.Type)
	}
	if err := r.Reservations.Validate(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidReservation, r.Name, err)
	}
	if r.Disk != nil {
		if r.Name != "disk" {
			return fmt.Errorf("%w: %s: disk metadata on a resource that is not disk", ErrInvalidDisk, r.Name)
		}
		if r.Type != ScalarType {
			return fmt.Errorf("%w: %s: disk metadata on a non-scalar", ErrInvalidDisk, r.Name)
		}
		if err := r.Disk.Validate(); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalidDisk, r.Name, err)
		}
	}
	if r.Shared && !r.IsPersistentVolume() {
		return fmt.Errorf("%w: %s", ErrInvalidShared, r.Name)
	}
	if r.AllocationRole != "" {
		if err := reservation.ValidateRole(r.AllocationRole); err != nil {
			return fmt.Errorf("%w: %s: allocation role: %w", ErrInvalidRole, r.Name, err)
		}
	}
	if r.ProviderID != "" && !printable(r.ProviderID) {
		return fmt.Errorf("%w: %s: provider id %q has control characters", ErrInvalidName, r.Name, r.ProviderID)
	}
	return nil
}

func validateName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty name", ErrInvalidName)
	}
	for _, c := range name {
		if unicode.IsSpace(c) || unicode.IsControl(c) || strings.ContainsRune(specialChars, c) {
			return fmt.Errorf("%w %q: character %q is not allowed", ErrInvalidName, name, c)
		}
	}
	return nil
}

func printable(s string) bool {
	for _, c := range s {
		if unicode.IsControl(c) {
			return false
		}
	}
	return true
}

// sameKind reports whether a and b agree on everything but their value.
func sameKind(a, b *Resource) bool {
	return a.Name == b.Name && a.Type == b.Type && a.Shared == b.Shared &&
		a.Revocable == b.Revocable && a.ProviderID == b.ProviderID &&
		a.AllocationRole == b.AllocationRole && a.Reservations.Equal(b.Reservations) &&
		a.Disk.Equal(b.Disk)
}

// whole reports whether the resource is consumed only whole: persistent
// volumes (each one an item of its own) and MOUNT or BLOCK disks.
func (r *Resource) whole() bool {
	return r.Disk != nil && (r.Disk.Persistence != nil || !r.Disk.Divisible())
}

// addable reports whether b merges into a.
func addable(a, b *Resource) bool {
	if !sameKind(a, b) {
		return false
	}
	if a.Shared {
		return sameValue(a, b)
	}
	// Non-shared volumes and indivisible disks stay separate entries.
	return !a.whole()
}

// subtractable reports whether b can be taken from a.
func subtractable(a, b *Resource) bool {
	if !sameKind(a, b) {
		return false
	}
	if a.Shared || a.whole() {
		return sameValue(a, b)
	}
	return true
}

func sameValue(a, b *Resource) bool {
	switch a.Type {
	case ScalarType:
		return a.Scalar == b.Scalar
	case RangesType:
		return rangesEqual(a.Ranges, b.Ranges)
	case SetType:
		return setEqual(a.Set, b.Set)
	}
	return false
}

func rangesEqual(a, b Ranges) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func setEqual(a, b Set) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// containsValue reports whether a's value holds b's (same kind assumed).
func containsValue(a, b *Resource) bool {
	switch a.Type {
	case ScalarType:
		return a.Scalar >= b.Scalar
	case RangesType:
		return a.Ranges.Contains(b.Ranges)
	case SetType:
		return a.Set.Contains(b.Set)
	}
	return false
}

// normalized returns r in canonical form: ranges coalesced, set sorted,
// labels sorted. It copies what it changes.
func (r Resource) normalized() Resource {
	if r.Type == RangesType {
		r.Ranges = coalesce(append(Ranges(nil), r.Ranges...))
	}
	if r.Type == SetType && len(r.Set) > 1 {
		s, _ := NewSet(r.Set...)
		if s != nil {
			r.Set = s
		}
	}
	for i, res := range r.Reservations {
		if c := res.Labels.Canonical(); len(c) > 1 && &c[0] != &res.Labels[0] {
			stack := make(reservation.Stack, len(r.Reservations))
			copy(stack, r.Reservations)
			stack[i].Labels = c
			r.Reservations = stack
		}
	}
	return r
}

// String prints the resource in the text format Parse reads back.
func (r Resource) String() string {
	var b strings.Builder
	writeResource(&b, &r, 1)
	return b.String()
}
