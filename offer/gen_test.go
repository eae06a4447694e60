package offer

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

// This file builds offers, operations and contexts from a stream of bytes,
// for the property tests (which draw the bytes from gopter) and the fuzz
// test (which lets the fuzzer choose them), and checks the invariants every
// Apply must keep.

// byteSource hands out the bytes of a program one by one, then zeros.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) next() byte {
	if s.i >= len(s.b) {
		return 0
	}
	x := s.b[s.i]
	s.i++
	return x
}

// intn returns a number in [0, n) (0 when n <= 0).
func (s *byteSource) intn(n int) int {
	if n <= 0 {
		return 0
	}
	if n > 256 {
		return (int(s.next())<<8 | int(s.next())) % n
	}
	return int(s.next()) % n
}

// chance is true about once in k draws.
func (s *byteSource) chance(k int) bool { return s.intn(k) == 0 }

func pickOf[T any](s *byteSource, list []T) T { return list[s.intn(len(list))] }

var (
	genRoles      = []string{"web", "web/api", "web/api/v2", "db"}
	genPrincipals = []string{"ops", "bob", ""}
	genIDs        = []string{"p0", "p1", "p2"}
)

// chain returns role and its ancestors, outermost first.
func chain(role string) []string {
	anc := reservation.Ancestors(role)
	out := make([]string, 0, len(anc)+1)
	for i := len(anc) - 1; i >= 0; i-- {
		out = append(out, anc[i])
	}
	return append(out, role)
}

func genReservation(s *byteSource, typ reservation.Type, role string) reservation.Reservation {
	r := reservation.Reservation{Type: typ, Role: role}
	if typ == reservation.Dynamic {
		r.Principal = pickOf(s, genPrincipals)
		if s.chance(3) {
			r.Labels = reservation.Labels{{Key: "k", Value: pickOf(s, []string{"a", "b"})}}
		}
	}
	return r
}

// genStack returns a valid stack down the chain of role: every entry is for
// role or one of its ancestors, so the resources may be offered to role.
func genStack(s *byteSource, role string) reservation.Stack {
	c := chain(role)
	var stack reservation.Stack
	for i, r := range c {
		if i < len(c)-1 && !s.chance(2) {
			continue
		}
		typ := reservation.Dynamic
		if len(stack) == 0 && s.chance(4) {
			typ = reservation.Static
		}
		stack = append(stack, genReservation(s, typ, r))
		if s.chance(3) {
			break
		}
	}
	return stack
}

// genOffer returns resources offered to a role, and the role: unreserved
// cpus, mem, disk and ports, and some reservations, persistent volumes
// (shared ones too), a MOUNT disk and revocable cpus.
func genOffer(s *byteSource) (resources.Resources, string) {
	role := pickOf(s, genRoles[:3])
	var out resources.Resources
	add := func(r resources.Resource, copies int) {
		r.AllocationRole = role
		for range copies {
			_ = out.AddResource(r)
		}
	}
	add(resources.ScalarResource("cpus", resources.Units(int64(1+s.intn(16)))), 1)
	add(resources.ScalarResource("mem", resources.Units(int64(1024*(1+s.intn(8))))), 1)
	add(resources.ScalarResource("disk", resources.Units(int64(1000*(1+s.intn(10))))), 1)
	first := uint64(31000 + s.intn(100))
	add(resources.RangesResource("ports", resources.Ranges{{Begin: first, End: first + uint64(s.intn(200))}}), 1)
	if s.chance(3) {
		add(resources.ScalarResource("gpus", resources.Units(int64(1+s.intn(4)))), 1)
	}
	for range s.intn(5) {
		var r resources.Resource
		switch s.intn(4) {
		case 0:
			r = resources.ScalarResource("cpus", resources.Scalar(1+s.intn(4000)))
		case 1:
			r = resources.ScalarResource("mem", resources.Units(int64(1+s.intn(2048))))
		case 2:
			r = resources.ScalarResource("disk", resources.Units(int64(1+s.intn(2048))))
		default:
			b := uint64(32000 + s.intn(100))
			r = resources.RangesResource("ports", resources.Ranges{{Begin: b, End: b + uint64(s.intn(10))}})
		}
		r.Reservations = genStack(s, role)
		add(r, 1)
	}
	for range s.intn(3) {
		r := resources.ScalarResource("disk", resources.Units(int64(1+s.intn(512))))
		r.Reservations = genStack(s, role)
		r.Disk = &volume.Disk{
			Persistence: &volume.Persistence{ID: pickOf(s, genIDs), Principal: pickOf(s, genPrincipals)},
			Volume:      &volume.Volume{ContainerPath: "data", Mode: volume.RW},
		}
		copies := 1
		if s.chance(3) {
			r.Shared = true
			copies += s.intn(2)
		}
		add(r, copies)
	}
	if s.chance(3) {
		r := resources.ScalarResource("disk", resources.Units(int64(100*(1+s.intn(10)))))
		r.Disk = &volume.Disk{Source: &volume.Source{Type: volume.Mount, Root: pickOf(s, []string{"/mnt/a", "/mnt/b"})}}
		if s.chance(2) {
			r.Reservations = genStack(s, role)
		}
		add(r, 1)
	}
	if s.chance(4) {
		r := resources.ScalarResource("cpus", resources.Units(int64(1+s.intn(4))))
		r.Revocable = true
		add(r, 1)
	}
	return out, role
}

// part returns a part of r: a fraction of a divisible scalar (sometimes
// more than r holds), one range of ports, one item of a set; indivisible
// disks and volumes whole.
func part(s *byteSource, r resources.Resource) resources.Resource {
	switch r.Type {
	case resources.ScalarType:
		if r.IsPersistentVolume() || r.Shared || (r.Disk != nil && !r.Disk.Divisible()) {
			return r
		}
		v := r.Scalar * resources.Scalar(1+s.intn(4)) / 4
		if s.chance(10) {
			v = r.Scalar + resources.Units(1)
		}
		if v <= 0 {
			v = r.Scalar
		}
		r.Scalar = v
	case resources.RangesType:
		if len(r.Ranges) > 0 {
			x := r.Ranges[s.intn(len(r.Ranges))]
			n := x.End - x.Begin
			end := x.Begin + uint64(s.intn(int(min(n, 1000)+1)))
			r.Ranges = resources.Ranges{{Begin: x.Begin, End: end}}
		}
	case resources.SetType:
		if len(r.Set) > 0 {
			r.Set = resources.Set{r.Set[s.intn(len(r.Set))]}
		}
	}
	return r
}

func single(r resources.Resource) resources.Resources {
	out, err := resources.New(r)
	if err != nil {
		return resources.Resources{}
	}
	return out
}

// pickEntry returns an entry of rs for which keep holds (any entry, now and
// then, so that operations on the wrong resources are tried too).
func pickEntry(s *byteSource, rs resources.Resources, keep func(resources.Resource) bool) (resources.Resource, bool) {
	var list []resources.Resource
	anything := s.chance(8)
	for r := range rs.All() {
		if anything || keep(r) {
			list = append(list, r)
		}
	}
	if len(list) == 0 {
		return resources.Resource{}, false
	}
	return pickOf(s, list), true
}

func isDisk(r resources.Resource) bool { return r.Name == "disk" && !r.IsPersistentVolume() }

// genOp returns an operation on state, a framework's offer to role. Most
// are valid; some break one rule or another.
func genOp(s *byteSource, state resources.Resources, role string) Operation {
	switch s.intn(9) {
	case 0:
		var l Launch
		for i := range 1 + s.intn(2) {
			e, ok := pickEntry(s, state, func(resources.Resource) bool { return true })
			if !ok {
				break
			}
			id := "t" + strconv.Itoa(i)
			if s.chance(16) {
				id = pickOf(s, []string{"", "t0"})
			}
			l.Tasks = append(l.Tasks, Task{ID: id, Resources: single(part(s, e))})
		}
		if s.chance(4) {
			if e, ok := pickEntry(s, state, func(r resources.Resource) bool { return r.Name == "mem" }); ok {
				l.Executor = single(part(s, e))
			}
		}
		return l
	case 1, 2:
		e, ok := pickEntry(s, state, func(r resources.Resource) bool { return !r.IsPersistentVolume() })
		if !ok {
			return Reserve{}
		}
		x := single(part(s, e))
		target := role
		switch s.intn(5) {
		case 0:
			target = pickOf(s, genRoles)
		case 1:
			target = e.Role()
		}
		res := genReservation(s, reservation.Dynamic, target)
		if s.chance(12) {
			res.Type = reservation.Static
		}
		pushed, err := x.PushReservation(res)
		if err != nil {
			return Reserve{Resources: x}
		}
		if s.chance(3) {
			// A source: the same resources, or a re-labelled reservation.
			if !s.chance(3) {
				return Reserve{Resources: pushed, Source: x}
			}
			relabel, err := x.PushReservation(genReservation(s, reservation.Dynamic, target))
			if err == nil {
				return Reserve{Resources: relabel, Source: pushed}
			}
		}
		return Reserve{Resources: pushed}
	case 3:
		e, ok := pickEntry(s, state, func(r resources.Resource) bool { return r.IsDynamicallyReserved() && !r.IsPersistentVolume() })
		if !ok {
			return Unreserve{}
		}
		return Unreserve{Resources: single(part(s, e))}
	case 4:
		e, ok := pickEntry(s, state, func(r resources.Resource) bool { return isDisk(r) && r.IsReserved() })
		if !ok {
			return Create{}
		}
		v := part(s, e)
		d := &volume.Disk{
			Persistence: &volume.Persistence{ID: pickOf(s, genIDs), Principal: pickOf(s, genPrincipals)},
			Volume:      &volume.Volume{ContainerPath: "data", Mode: volume.RW},
		}
		if e.Disk != nil && e.Disk.Source != nil {
			src := *e.Disk.Source
			d.Source = &src
		}
		if s.chance(16) {
			d.Volume.Mode = volume.RO
		}
		v.Disk = d
		v.Shared = s.chance(3)
		return Create{Volumes: single(v)}
	case 5:
		e, ok := pickEntry(s, state, func(r resources.Resource) bool { return r.IsPersistentVolume() })
		if !ok {
			return Destroy{}
		}
		return Destroy{Volumes: single(e)}
	case 6, 7:
		e, ok := pickEntry(s, state, func(r resources.Resource) bool { return r.IsPersistentVolume() })
		if !ok {
			return GrowVolume{}
		}
		if s.chance(2) {
			d, ok := pickEntry(s, state, func(r resources.Resource) bool {
				return isDisk(r) && r.Reservations.Equal(e.Reservations) && r.AllocationRole == e.AllocationRole
			})
			if !ok {
				return GrowVolume{Volume: e}
			}
			return GrowVolume{Volume: e, Addition: single(part(s, d))}
		}
		sub := resources.Scalar(1 + s.intn(int(min(e.Scalar, 1<<20))))
		if s.chance(8) {
			sub = e.Scalar
		}
		return ShrinkVolume{Volume: e, Subtract: sub}
	}
	var need resources.Quantities
	for _, name := range []string{"cpus", "mem", "disk", "gpus"} {
		if s.chance(2) {
			need.SetScalar(name, resources.Scalar(1+s.intn(8000)))
		}
	}
	l, _, _ := PickLaunch(state, role, TaskNeed{ID: "picked", Need: need})
	return l
}

// genContext returns a Context for operations on offered (a framework's
// offer to role, or unallocated resources on the operator path).
func genContext(s *byteSource, offered resources.Resources, role string, operator bool) Context {
	ctx := Context{
		Principal:             pickOf(s, genPrincipals),
		Operator:              operator,
		FrameworkCapabilities: ReservationRefinement | SharedResources,
		AgentCapabilities:     HierarchicalRole | ReservationRefinement | ResizeVolume,
	}
	if s.chance(3) {
		ctx.FrameworkCapabilities = Capabilities(s.next())
		ctx.AgentCapabilities = Capabilities(s.next())
	}
	if !s.chance(8) {
		ctx.Roles = append(ctx.Roles, role)
	}
	if s.chance(3) {
		ctx.Roles = append(ctx.Roles, pickOf(s, genRoles))
	}
	for r := range offered.All() {
		if r.IsDynamicallyReserved() && !s.chance(8) {
			one := single(r).Unallocate()
			ctx.Checkpointed.Add(one)
			if r.IsPersistentVolume() && s.chance(4) {
				ctx.InUse.Add(one)
			}
		}
	}
	return ctx
}

// sentinels are the errors every failure of this package wraps one of.
var sentinels = []error{
	ErrUnsupported, ErrEmpty, ErrInvalidResources, ErrInvalidTask, ErrMultipleProviders,
	ErrNotDynamicallyReserved, ErrReserveVolume, ErrVolumeHeld, ErrDynamicFromRevocable,
	ErrMixedReservations, ErrSourceMismatch, ErrRefinementNotStrict, ErrRefinementCapability,
	ErrHierarchicalRoleCapability, ErrNoPrincipal, ErrPrincipalMismatch, ErrNotAllocated,
	ErrAllocationRoleMismatch, ErrRoleNotSubscribed, ErrMultipleAllocationRoles, ErrAllocated,
	ErrNotPersistentVolume, ErrReadOnlyVolume, ErrVolumeFromUnreserved, ErrVolumeFromRevocable,
	ErrPersistenceIDNotUnique, ErrSharedCapability, ErrVolumeNotFound, ErrVolumeInUse,
	ErrSharedCopiesRemain, ErrGrowShared, ErrGrowAmount, ErrIncompatibleAddition, ErrShrinkShared,
	ErrShrinkMount, ErrShrinkAmount, ErrResizeCapability, ErrDoesNotContain, ErrConservation,
}

func knownError(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// summary prints the amount of every resource name with all metadata
// stripped, computed without the package's own conservation check.
func summary(rs resources.Resources) string {
	var out resources.Resources
	for r := range rs.All() {
		_ = out.AddResource(resources.Resource{Name: r.Name, Type: r.Type, Scalar: r.Scalar, Ranges: r.Ranges, Set: r.Set})
	}
	var names []string
	for r := range out.All() {
		names = append(names, r.String())
	}
	return strings.Join(sortedStrings(names), "; ")
}

func sortedStrings(list []string) []string {
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && list[j] < list[j-1]; j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
	return list
}

// validResources reports the first resource of rs that is invalid, or that
// breaks a rule no operation may break and was not already in before.
func validResources(rs, before resources.Resources) error {
	for r := range rs.All() {
		if err := r.Validate(); err != nil {
			return err
		}
		if before.ContainsResource(r) {
			continue
		}
		if r.IsPersistentVolume() && (!r.IsReserved() || r.Revocable) {
			return fmt.Errorf("volume %s is unreserved or revocable", r)
		}
		if r.IsDynamicallyReserved() && r.Revocable {
			return fmt.Errorf("dynamic reservation %s is revocable", r)
		}
	}
	return nil
}

func volumeCounts(rs resources.Resources) map[volumeKey]int {
	out := make(map[volumeKey]int)
	for r := range rs.All() {
		if r.IsPersistentVolume() {
			out[keyOf(r)]++
		}
	}
	return out
}

// checkAccept checks what ApplyAll(before, ops...) returned: nothing changed
// on error, and on success valid resources with the same amounts, no new
// duplicate volume, and launched resources within the result.
func checkAccept(before resources.Resources, a Applied, err error) error {
	if err != nil {
		var opErr *OpError
		if !errors.As(err, &opErr) {
			return fmt.Errorf("error %v is not an *OpError", err)
		}
		if !knownError(err) {
			return fmt.Errorf("error %v wraps no sentinel", err)
		}
		if !strings.HasPrefix(err.Error(), "offer: ") {
			return fmt.Errorf("error %q lacks the package prefix", err)
		}
		if a.Resources.String() != before.String() || a.Unused.String() != before.String() || !a.Launched.IsEmpty() {
			return fmt.Errorf("failed ApplyAll returned %+v, want the offered %s", a, before)
		}
		return nil
	}
	if err := validResources(a.Resources, before); err != nil {
		return fmt.Errorf("invalid result %s: %w", a.Resources, err)
	}
	if b, c := summary(before), summary(a.Resources); b != c {
		return fmt.Errorf("amounts changed: %s before, %s after", b, c)
	}
	had := volumeCounts(before)
	for k, n := range volumeCounts(a.Resources) {
		if n > max(had[k], 1) {
			return fmt.Errorf("volume %v appears %d times", k, n)
		}
	}
	if !a.Resources.Contains(a.Launched) {
		return fmt.Errorf("launched %s not within %s", a.Launched, a.Resources)
	}
	if !a.Unused.Plus(a.Launched).Equal(a.Resources) {
		return fmt.Errorf("unused %s + launched %s != %s", a.Unused, a.Launched, a.Resources)
	}
	return nil
}

// applyOnly are the rules Apply checks that Validate cannot: they depend on
// the offered resources.
var applyOnly = []error{ErrDoesNotContain, ErrPersistenceIDNotUnique, ErrSharedCopiesRemain}

// checkValidate checks that Validate and Conversions agree: the rules
// Conversions enforces are checked by Validate first, and an operation
// Validate accepts fails in Apply only for a reason Validate cannot see.
func checkValidate(op Operation, ctx Context, state resources.Resources, applyErr error) error {
	verr := Validate(op, ctx)
	if verr != nil && !knownError(verr) {
		return fmt.Errorf("Validate error %v wraps no sentinel", verr)
	}
	_, cerr := Conversions(op)
	if cerr != nil && (verr == nil || verr.Error() != cerr.Error()) {
		return fmt.Errorf("Conversions: %v, but Validate: %v", cerr, verr)
	}
	if verr == nil && applyErr != nil {
		for _, e := range applyOnly {
			if errors.Is(applyErr, e) {
				return nil
			}
		}
		return fmt.Errorf("Validate accepted %v but Apply on %s failed: %v", op, state, applyErr)
	}
	return nil
}
