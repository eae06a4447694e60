package offer

import (
	"fmt"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

// This file holds the rules that need no Context: the shape of each
// operation and of the resources it names. Conversions, Apply and ApplyAll
// enforce them, and Validate checks them first.

// checkOp dereferences op and checks it on its own.
func checkOp(op Operation) (Operation, error) {
	o, err := deref(op)
	if err != nil {
		return nil, err
	}
	switch o := o.(type) {
	case Launch:
		err = checkLaunch(o)
	case Reserve:
		err = checkReserve(o)
	case Unreserve:
		err = checkUnreserve(o)
	case Create:
		err = checkVolumes(o.Volumes)
	case Destroy:
		err = checkVolumes(o.Volumes)
	case GrowVolume:
		err = checkGrow(o)
	case ShrinkVolume:
		err = checkShrink(o)
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// checkResource applies Mesos's common checks (resource::validate) to one
// resource named by an operation.
func checkResource(r resources.Resource) error {
	for i := 1; i < len(r.Reservations); i++ {
		prev, cur := r.Reservations[i-1], r.Reservations[i]
		if cur.Role != "" && prev.Role != "" && !reservation.IsStrictSubrole(cur.Role, prev.Role) {
			return fmt.Errorf("%w: %s: %q refines %q", ErrRefinementNotStrict, r, cur.Role, prev.Role)
		}
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidResources, r, err)
	}
	if r.Name == "gpus" && r.Type == resources.ScalarType && r.Scalar%resources.Units(1) != 0 {
		return fmt.Errorf("%w: %s: gpus must be a whole number", ErrInvalidResources, r)
	}
	if r.Disk != nil && r.Disk.IsEmpty() {
		return fmt.Errorf("%w: %s: disk metadata is set but empty", ErrInvalidResources, r)
	}
	if r.IsPersistentVolume() {
		if r.Revocable {
			return fmt.Errorf("%w: %s", ErrVolumeFromRevocable, r)
		}
		if !r.IsReserved() {
			return fmt.Errorf("%w: %s", ErrVolumeFromUnreserved, r)
		}
		if r.Disk.Volume == nil {
			return fmt.Errorf("%w: %s: persistent volume without a container path", ErrNotPersistentVolume, r)
		}
	}
	if r.IsDynamicallyReserved() && r.Revocable {
		return fmt.Errorf("%w: %s", ErrDynamicFromRevocable, r)
	}
	return nil
}

// checkEach applies checkResource to every resource.
func checkEach(rs resources.Resources) error {
	for r := range rs.All() {
		if err := checkResource(r); err != nil {
			return err
		}
	}
	return nil
}

// checkResources applies checkResource to every resource and checks that
// they all come from one resource provider (or none), as every operation
// but LAUNCH must.
func checkResources(rs resources.Resources) error {
	if err := checkEach(rs); err != nil {
		return err
	}
	provider, first := "", true
	for r := range rs.All() {
		if first {
			provider, first = r.ProviderID, false
		} else if r.ProviderID != provider {
			return fmt.Errorf("%w: %q and %q", ErrMultipleProviders, provider, r.ProviderID)
		}
	}
	return nil
}

func checkLaunch(l Launch) error {
	if len(l.Tasks) == 0 {
		return fmt.Errorf("%w: no tasks", ErrEmpty)
	}
	seen := make(map[string]bool, len(l.Tasks))
	for _, t := range l.Tasks {
		if t.ID == "" {
			return fmt.Errorf("%w: task without an id", ErrInvalidTask)
		}
		if seen[t.ID] {
			return fmt.Errorf("%w: task id %q used twice", ErrInvalidTask, t.ID)
		}
		seen[t.ID] = true
		// A task, unlike the other operations, may use the resources of
		// several providers: a provider's volume with the agent's cpus.
		if err := checkEach(t.Resources); err != nil {
			return fmt.Errorf("task %q: %w", t.ID, err)
		}
	}
	if err := checkEach(l.Executor); err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	return nil
}

// singleStack returns the reservation stack shared by every resource of rs,
// or ErrMixedReservations.
func singleStack(rs resources.Resources, what string) (reservation.Stack, error) {
	var stack reservation.Stack
	first := true
	for r := range rs.All() {
		if first {
			stack, first = r.Reservations, false
		} else if !stack.Equal(r.Reservations) {
			return nil, fmt.Errorf("%w: %s: %s and %s", ErrMixedReservations, what, stack, r.Reservations)
		}
	}
	return stack, nil
}

func checkReserve(o Reserve) error {
	if o.Resources.IsEmpty() {
		return fmt.Errorf("%w: nothing to reserve", ErrEmpty)
	}
	if err := checkResources(o.Resources); err != nil {
		return err
	}
	if err := checkResources(o.Source); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	var source, target reservation.Stack
	if !o.Source.IsEmpty() {
		var err error
		if source, err = singleStack(o.Source, "source"); err != nil {
			return err
		}
		if target, err = singleStack(o.Resources, "resources"); err != nil {
			return err
		}
		if a, b := o.Source.ToUnreserved(), o.Resources.ToUnreserved(); !a.Equal(b) {
			return fmt.Errorf("%w: %s vs. %s", ErrSourceMismatch, a, b)
		}
	}
	for r := range o.Resources.All() {
		if !r.IsDynamicallyReserved() {
			return fmt.Errorf("%w: %s", ErrNotDynamicallyReserved, r)
		}
		if r.IsPersistentVolume() {
			return fmt.Errorf("%w: %s", ErrReserveVolume, r)
		}
	}
	if o.Source.IsEmpty() {
		return nil
	}
	for r := range o.Source.All() {
		if r.IsPersistentVolume() {
			return fmt.Errorf("%w: source %s", ErrReserveVolume, r)
		}
	}
	if len(source) > 0 && source[0].Type == reservation.Static && !target[0].Equal(source[0]) {
		return fmt.Errorf("%w: source %s: a static reservation is never removed", ErrNotDynamicallyReserved, source)
	}
	if source.IsReserved() && !reservation.IsSubroleOrSelf(target.Role(), source.Role()) {
		return fmt.Errorf("%w: reservation for %q replaces one for %q", ErrRefinementNotStrict, target.Role(), source.Role())
	}
	return nil
}

func checkUnreserve(o Unreserve) error {
	if o.Resources.IsEmpty() {
		return fmt.Errorf("%w: nothing to unreserve", ErrEmpty)
	}
	if err := checkResources(o.Resources); err != nil {
		return err
	}
	for r := range o.Resources.All() {
		if !r.IsDynamicallyReserved() {
			return fmt.Errorf("%w: %s", ErrNotDynamicallyReserved, r)
		}
		if r.IsPersistentVolume() {
			return fmt.Errorf("%w: %s", ErrVolumeHeld, r)
		}
	}
	return nil
}

// checkVolume checks that r is a read-write persistent volume.
func checkVolume(r resources.Resource) error {
	if !r.IsPersistentVolume() {
		return fmt.Errorf("%w: %s", ErrNotPersistentVolume, r)
	}
	if r.Disk.Volume == nil {
		return fmt.Errorf("%w: %s: persistent volume without a container path", ErrNotPersistentVolume, r)
	}
	if r.Disk.Volume.Mode == volume.RO {
		return fmt.Errorf("%w: %s", ErrReadOnlyVolume, r)
	}
	return nil
}

// checkVolumes checks the volumes of a Create or Destroy: valid persistent
// volumes, each persistence id once per role.
func checkVolumes(vols resources.Resources) error {
	if vols.IsEmpty() {
		return fmt.Errorf("%w: no volumes", ErrEmpty)
	}
	if err := checkResources(vols); err != nil {
		return err
	}
	ids := make(map[volumeKey]bool, vols.Len())
	for r := range vols.All() {
		if err := checkVolume(r); err != nil {
			return err
		}
		k := keyOf(r)
		if ids[k] || vols.Copies(r) > 1 {
			return fmt.Errorf("%w: %q for role %q is named twice", ErrPersistenceIDNotUnique, k.id, k.role)
		}
		ids[k] = true
	}
	return nil
}

// volumeKey identifies a persistent volume on an agent: persistence ids are
// unique per reservation role.
type volumeKey struct{ role, id string }

func keyOf(r resources.Resource) volumeKey {
	return volumeKey{r.Role(), r.Disk.Persistence.ID}
}

// strip returns the disk a persistent volume is made of: the same resource
// without persistence, volume and sharing. Disk metadata is kept only for
// its source.
func strip(r resources.Resource) resources.Resource {
	r.Shared = false
	if r.Disk != nil && r.Disk.Source != nil {
		src := *r.Disk.Source
		r.Disk = &volume.Disk{Source: &src}
	} else {
		r.Disk = nil
	}
	return r
}

func checkGrow(o GrowVolume) error {
	v := o.Volume
	if err := checkResource(v); err != nil {
		return fmt.Errorf("volume: %w", err)
	}
	if v.IsEmpty() {
		return fmt.Errorf("%w: volume %s is empty", ErrInvalidResources, v)
	}
	if err := checkResources(o.Addition); err != nil {
		return fmt.Errorf("addition: %w", err)
	}
	if o.Addition.IsEmpty() {
		return fmt.Errorf("%w: %s", ErrGrowAmount, o.Addition)
	}
	if v.ProviderID != "" {
		return fmt.Errorf("%w: growing a volume of resource provider %q", ErrUnsupported, v.ProviderID)
	}
	if err := checkVolume(v); err != nil {
		return err
	}
	if v.Shared {
		return fmt.Errorf("%w: %s", ErrGrowShared, v)
	}
	disk, err := resources.New(strip(v))
	if err != nil {
		return fmt.Errorf("%w: volume %s: %w", ErrInvalidResources, v, err)
	}
	if disk.Plus(o.Addition).Len() != 1 {
		return fmt.Errorf("%w: %s and %s", ErrIncompatibleAddition, v, o.Addition)
	}
	return nil
}

func checkShrink(o ShrinkVolume) error {
	v := o.Volume
	if err := checkResource(v); err != nil {
		return fmt.Errorf("volume: %w", err)
	}
	if v.IsEmpty() {
		return fmt.Errorf("%w: volume %s is empty", ErrInvalidResources, v)
	}
	if o.Subtract <= 0 {
		return fmt.Errorf("%w: subtract %s", ErrShrinkAmount, o.Subtract)
	}
	if v.Type != resources.ScalarType || v.Scalar <= o.Subtract {
		return fmt.Errorf("%w: subtract %s from %s", ErrShrinkAmount, o.Subtract, v)
	}
	if v.ProviderID != "" {
		return fmt.Errorf("%w: shrinking a volume of resource provider %q", ErrUnsupported, v.ProviderID)
	}
	if !v.Disk.Divisible() {
		return fmt.Errorf("%w: %s", ErrShrinkMount, v)
	}
	if err := checkVolume(v); err != nil {
		return err
	}
	if v.Shared {
		return fmt.Errorf("%w: %s", ErrShrinkShared, v)
	}
	return nil
}
