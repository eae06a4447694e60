package resources

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/allot-go/allot/internal/fixed"
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
// resource and the rule it breaks. Ranges and sets may be given in any order;
// overlapping ranges and duplicate set items are invalid. A zero value is
// valid (the resource is empty and dropped from Resources); a negative one is
// not. Every string must be valid UTF-8.
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
		if r.Scalar > MaxTotal {
			return fmt.Errorf("%w: %s:%s: larger than %s", ErrInvalidScalar, r.Name, r.Scalar, MaxTotal)
		}
	case RangesType:
		if r.Scalar != 0 || r.Set != nil {
			return fmt.Errorf("%w: %s: ranges with a scalar or set value", ErrMixedTypes, r.Name)
		}
		if err := validateRanges(r.Ranges); err != nil {
			return fmt.Errorf("%w: %s:%s: %w", ErrInvalidRanges, r.Name, r.Ranges, err)
		}
	case SetType:
		if r.Scalar != 0 || r.Ranges != nil {
			return fmt.Errorf("%w: %s: set with a scalar or ranges value", ErrMixedTypes, r.Name)
		}
		if err := validateSet(r.Set); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalidSet, r.Name, err)
		}
	default:
		return fmt.Errorf("%w: %s: unknown value type %d", ErrMixedTypes, r.Name, r.Type)
	}
	if err := r.Reservations.Validate(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidReservation, r.Name, err)
	}
	if !r.Disk.IsEmpty() {
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
	if s, ok := r.invalidUTF8(); ok {
		return fmt.Errorf("%w: %s: %q is not valid UTF-8", ErrInvalidName, r.Name, s)
	}
	return nil
}

// MaxScalar is 10^12 units, the bound Mesos puts on quota values (a
// memory amount of 1 EB in MB): the allocator refuses quota guarantees and
// limits above it.
const MaxScalar = Scalar(fixed.Max * fixed.Scale)

// MaxTotal is the largest amount a resource may hold, and the largest sum
// of one resource name that the allocator keeps (a cluster's totals, what
// its frameworks hold, the quota guarantees of all roles): 10^15 units, a
// thousand times MaxScalar. Resources of one kind merge (an UNRESERVE adds
// a reservation back to the agent's unreserved cpus), so one entry may pass
// MaxScalar and must still print and read back. Sums of two or three such
// amounts still fit in a Scalar exactly, so bounding the inputs by MaxTotal
// keeps every figure derived from them exact; the allocator refuses the
// event that would pass it.
const MaxTotal = Scalar(fixed.MaxTotal * fixed.Scale)

// validateRanges accepts ranges in any order but refuses inverted and
// overlapping ones; adjacent ranges ([1-2, 3-4]) are fine.
func validateRanges(list Ranges) error {
	for _, x := range list {
		if x.Begin > x.End {
			return fmt.Errorf("[%d-%d] begins after it ends", x.Begin, x.End)
		}
	}
	sorted := list
	if !slices.IsSortedFunc(list, compareRange) {
		sorted = slices.Clone(list)
		slices.SortFunc(sorted, compareRange)
	}
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Begin <= sorted[i-1].End {
			return fmt.Errorf("[%d-%d] and [%d-%d] overlap", sorted[i-1].Begin, sorted[i-1].End, sorted[i].Begin, sorted[i].End)
		}
	}
	return nil
}

// validateSet accepts items in any order but refuses empty and duplicate
// ones.
func validateSet(set Set) error {
	sorted := set
	if !slices.IsSorted(set) {
		sorted = slices.Clone(set)
		slices.Sort(sorted)
	}
	for i, item := range sorted {
		if item == "" {
			return fmt.Errorf("empty item")
		}
		if i > 0 && item == sorted[i-1] {
			return fmt.Errorf("duplicate item %q", item)
		}
	}
	return nil
}

// invalidUTF8 returns the first string of r that is not valid UTF-8: JSON
// could not carry it unchanged.
func (r *Resource) invalidUTF8() (string, bool) {
	check := func(s string) bool { return !utf8.ValidString(s) }
	for _, item := range r.Set {
		if check(item) {
			return item, true
		}
	}
	for _, res := range r.Reservations {
		if check(res.Principal) {
			return res.Principal, true
		}
		for _, l := range res.Labels {
			if check(l.Key) {
				return l.Key, true
			}
			if check(l.Value) {
				return l.Value, true
			}
		}
	}
	if check(r.ProviderID) {
		return r.ProviderID, true
	}
	if d := r.Disk; d != nil {
		for _, s := range []*string{sourceField(d, true), sourceField(d, false)} {
			if s != nil && check(*s) {
				return *s, true
			}
		}
		if p := d.Persistence; p != nil {
			if check(p.ID) {
				return p.ID, true
			}
			if check(p.Principal) {
				return p.Principal, true
			}
		}
		if v := d.Volume; v != nil && check(v.ContainerPath) {
			return v.ContainerPath, true
		}
	}
	return "", false
}

func sourceField(d *volume.Disk, root bool) *string {
	if d.Source == nil {
		return nil
	}
	if root {
		return &d.Source.Root
	}
	return &d.Source.ID
}

func validateName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty name", ErrInvalidName)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("%w %q: not valid UTF-8", ErrInvalidName, name)
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

// normalized returns r in canonical form: ranges coalesced, set sorted,
// labels sorted. It copies what it changes.
func (r Resource) normalized() Resource {
	if r.Disk.IsEmpty() {
		r.Disk = nil
	}
	if len(r.Reservations) == 0 {
		r.Reservations = nil
	}
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
