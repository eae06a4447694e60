package offer

import (
	"fmt"
	"slices"

	"github.com/allot-go/allot/resources"
)

// Conversion is one step of an operation: Consumed is taken from the
// resources and Converted put in its place. The two always hold the same
// amount of every resource kind.
type Conversion struct {
	Consumed, Converted resources.Resources
}

// String prints "<consumed> -> <converted>".
func (c Conversion) String() string {
	return c.Consumed.String() + " -> " + c.Converted.String()
}

// Conversions returns the conversions an operation makes, after checking
// the operation's rules that need no Context (see Validate for the others):
//
//   - RESERVE: Source (or, without one, Resources with their last
//     reservation popped) becomes Resources;
//   - UNRESERVE: each resource becomes itself with its last reservation
//     popped;
//   - CREATE: each volume's disk (the volume without persistence, volume
//     and sharing) becomes the volume;
//   - DESTROY: each volume becomes its disk;
//   - GROW_VOLUME: the volume and the addition become one larger volume;
//   - SHRINK_VOLUME: the volume becomes a smaller volume and the freed disk.
//
// LAUNCH converts nothing: it returns nil, nil. The returned resources
// share no storage with op.
func Conversions(op Operation) ([]Conversion, error) {
	o, err := checkOp(op)
	if err != nil {
		return nil, err
	}
	convs, err := conversions(o)
	for i := range convs {
		convs[i].Consumed = convs[i].Consumed.Clone()
		convs[i].Converted = convs[i].Converted.Clone()
	}
	return convs, err
}

// conversions returns the conversions of o, an operation checkOp accepted.
// They may share storage with o.
func conversions(o Operation) ([]Conversion, error) {
	switch o := o.(type) {
	case Reserve:
		if !o.Source.IsEmpty() {
			return []Conversion{{Consumed: o.Source, Converted: o.Resources}}, nil
		}
		consumed, err := o.Resources.PopReservation()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotDynamicallyReserved, err)
		}
		return []Conversion{{Consumed: consumed, Converted: o.Resources}}, nil
	case Unreserve:
		out := make([]Conversion, 0, o.Resources.Len())
		for r := range o.Resources.All() {
			one, err := resources.New(r)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalidResources, err)
			}
			popped, err := one.PopReservation()
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrNotDynamicallyReserved, err)
			}
			out = append(out, Conversion{Consumed: one, Converted: popped})
		}
		return out, nil
	case Create:
		return volumeConversions(o.Volumes, false)
	case Destroy:
		return volumeConversions(o.Volumes, true)
	case GrowVolume:
		var add resources.Scalar
		for r := range o.Addition.All() {
			add += r.Scalar
		}
		grown := o.Volume
		grown.Scalar += add
		consumed, err1 := resources.New(o.Volume)
		converted, err2 := resources.New(grown)
		if err := firstError(err1, err2); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidResources, err)
		}
		consumed.Add(o.Addition)
		return []Conversion{{Consumed: consumed, Converted: converted}}, nil
	case ShrinkVolume:
		shrunk, freed := o.Volume, strip(o.Volume)
		shrunk.Scalar -= o.Subtract
		freed.Scalar = o.Subtract
		consumed, err1 := resources.New(o.Volume)
		converted, err2 := resources.New(shrunk, freed)
		if err := firstError(err1, err2); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidResources, err)
		}
		return []Conversion{{Consumed: consumed, Converted: converted}}, nil
	}
	return nil, nil
}

func volumeConversions(vols resources.Resources, destroy bool) ([]Conversion, error) {
	out := make([]Conversion, 0, vols.Len())
	for v := range vols.All() {
		vol, err1 := resources.New(v)
		disk, err2 := resources.New(strip(v))
		if err := firstError(err1, err2); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidResources, err)
		}
		if destroy {
			out = append(out, Conversion{Consumed: vol, Converted: disk})
		} else {
			out = append(out, Conversion{Consumed: disk, Converted: vol})
		}
	}
	return out, nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Apply applies ops to offered in order, all or nothing, and returns the
// resources after every conversion. A LAUNCH changes nothing, but its
// resources must be among those offered and not used by an earlier LAUNCH
// of the same call; later conversions cannot consume them either.
//
// On any error Apply returns offered unchanged and an *OpError that names
// the failing operation and wraps the rule it broke. Apply enforces the
// rules that need no Context (see Conversions), that each conversion
// applies (ErrDoesNotContain), that no persistence id is created twice for
// a role (ErrPersistenceIDNotUnique), that a destroyed shared volume leaves
// no copy behind (ErrSharedCopiesRemain), and, after every operation, that
// the amount of every resource kind is unchanged (ErrConservation). Callers
// that act for a framework or an operator call Validate first.
func Apply(offered resources.Resources, ops ...Operation) (resources.Resources, error) {
	a, err := ApplyAll(offered, ops...)
	if err != nil {
		return offered, err
	}
	return a.Resources, nil
}

// Applied is the outcome of ApplyAll. Resources are the offered resources
// after the conversions; Launched are the resources the LAUNCH operations
// use (a shared volume counts once however many tasks use it), all within
// Resources; Unused = Resources − Launched, what goes back to the agent's
// pool.
type Applied struct {
	Resources, Launched, Unused resources.Resources
}

// ApplyAll applies ops in order like Apply, and also returns what the LAUNCH
// operations use. On error it returns the offered resources, as Resources
// and as Unused, with an *OpError. When nothing is launched, Unused and
// Resources share storage: Clone one before changing it in place.
func ApplyAll(offered resources.Resources, ops ...Operation) (Applied, error) {
	// One copy for the whole call, changed in place; offered itself is never
	// touched, so on error it is returned as it was.
	cur := offered.Clone()
	var launched resources.Resources
	for i, op := range ops {
		if err := step(&cur, &launched, op); err != nil {
			return Applied{Resources: offered, Unused: offered}, &OpError{Index: i, Kind: kindOf(op), Err: err}
		}
	}
	unused := cur
	if !launched.IsEmpty() {
		unused = cur.Minus(launched)
	}
	return Applied{Resources: cur, Launched: launched, Unused: unused}, nil
}

// step applies one operation to cur in place; launched ⊆ cur are the
// resources used by earlier launches. On error cur may be half changed and
// the caller drops it.
func step(cur, launched *resources.Resources, op Operation) error {
	o, err := checkOp(op)
	if err != nil {
		return err
	}
	unused := func() resources.Resources {
		if launched.IsEmpty() {
			return *cur
		}
		return cur.Minus(*launched)
	}
	if l, ok := o.(Launch); ok {
		all := l.Resources()
		nonShared := all.NonShared()
		if free := unused(); !fits(free, nonShared) {
			return fmt.Errorf("%w: %s does not contain %s", ErrDoesNotContain, free, nonShared)
		}
		for r := range all.Shared().All() {
			if !cur.ContainsResource(r) {
				return fmt.Errorf("%w: %s does not contain %s", ErrDoesNotContain, cur, r)
			}
		}
		launched.Add(nonShared)
		for r := range all.Shared().All() {
			if launched.Copies(r) == 0 {
				if err := launched.AddResource(r); err != nil {
					return fmt.Errorf("%w: %w", ErrInvalidResources, err)
				}
			}
		}
		return nil
	}
	convs, err := conversions(o)
	if err != nil {
		return err
	}
	before := amountsOf(*cur)
	if len(convs) > 1 {
		// Everything the operation names must be there before it starts: an
		// UNRESERVE of a refined reservation and of its parent must not
		// consume the parent it has just made.
		var all resources.Resources
		for _, c := range convs {
			all.Add(c.Consumed)
		}
		if free := unused(); !fits(free, all) {
			return fmt.Errorf("%w: %s does not contain %s", ErrDoesNotContain, free, all)
		}
	}
	for _, c := range convs {
		if free := unused(); !fits(free, c.Consumed) {
			return fmt.Errorf("%w: %s does not contain %s", ErrDoesNotContain, free, c.Consumed)
		}
		if o.Kind() == KindCreate {
			if err := checkNewVolumes(*cur, c.Converted); err != nil {
				return err
			}
		}
		cur.Subtract(c.Consumed)
		cur.Add(c.Converted)
		if o.Kind() == KindDestroy {
			for v := range c.Consumed.All() {
				if v.Shared && cur.ContainsResource(v) {
					return fmt.Errorf("%w: %s", ErrSharedCopiesRemain, v)
				}
			}
		}
	}
	return conserved(before, amountsOf(*cur))
}

// fits reports whether b can be taken from a: every entry of b within one
// of a, each persistent volume and each MOUNT or BLOCK disk (which never
// merge) needing one of its own.
func fits(a, b resources.Resources) bool { return a.Contains(b) }

// checkNewVolumes refuses volumes whose persistence id the role already
// uses in cur.
func checkNewVolumes(cur, created resources.Resources) error {
	for v := range created.All() {
		k := keyOf(v)
		for have := range cur.All() {
			if have.IsPersistentVolume() && keyOf(have) == k {
				return fmt.Errorf("%w: %q for role %q exists: %s", ErrPersistenceIDNotUnique, k.id, k.role, have)
			}
		}
	}
	return nil
}

// amounts sums resources by name with all metadata stripped: scalars add
// (a shared volume counts once, as in resources.Quantities), ranges and
// sets unite.
type amounts struct {
	scalars resources.Quantities
	ranges  map[string]resources.Ranges
	sets    map[string]resources.Set
}

func amountsOf(rs resources.Resources) amounts {
	a := amounts{scalars: rs.Quantities()}
	for r := range rs.All() {
		switch r.Type {
		case resources.RangesType:
			if a.ranges == nil {
				a.ranges = make(map[string]resources.Ranges)
			}
			a.ranges[r.Name] = a.ranges[r.Name].Union(r.Ranges)
		case resources.SetType:
			if a.sets == nil {
				a.sets = make(map[string]resources.Set)
			}
			a.sets[r.Name] = a.sets[r.Name].Union(r.Set)
		}
	}
	return a
}

// conserved returns ErrConservation, naming a resource kind whose amount
// differs, unless a (before) and b (after) are the same amounts.
func conserved(a, b amounts) error {
	if !a.scalars.Equal(b.scalars) {
		return fmt.Errorf("%w: %s before, %s after", ErrConservation, a.scalars, b.scalars)
	}
	if len(a.ranges) != len(b.ranges) || len(a.sets) != len(b.sets) {
		return fmt.Errorf("%w: %d ranges and %d sets before, %d and %d after", ErrConservation, len(a.ranges), len(a.sets), len(b.ranges), len(b.sets))
	}
	for name, r := range a.ranges {
		if !slices.Equal(r, b.ranges[name]) {
			return fmt.Errorf("%w: %s: %s before, %s after", ErrConservation, name, r, b.ranges[name])
		}
	}
	for name, s := range a.sets {
		if !slices.Equal(s, b.sets[name]) {
			return fmt.Errorf("%w: %s: %s before, %s after", ErrConservation, name, s, b.sets[name])
		}
	}
	return nil
}
