package offer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	rgen "github.com/allot-go/allot/internal/gen"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

// The properties run ALLOT_PROP_COUNT cases each (100 by default) from
// the seed ALLOT_PROP_SEED (from the clock by default); the seed is
// logged, and printed again when a property fails:
//
//	ALLOT_PROP_SEED=42 ALLOT_PROP_COUNT=5000 go test ./offer -run TestProperties

// world is a generated offer and a program of bytes from which operations
// on it are decoded (see genOp).
type world struct {
	Offered  resources.Resources
	Role     string
	Operator bool
	Program  []byte
}

func genWorld() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		b := make([]byte, 64+p.Rng.Intn(512))
		p.Rng.Read(b)
		s := &byteSource{b: b}
		offered, role := genOffer(s)
		operator := s.chance(6)
		if operator {
			offered = offered.Unallocate()
		}
		return gopter.NewGenResult(world{offered, role, operator, b[s.i:]}, gopter.NoShrinker)
	}
}

// ops decodes up to n operations, each generated on the resources the
// previous ones left (operations that fail leave them as they were).
func (w world) ops(n int) []Operation {
	s := &byteSource{b: w.Program}
	state := w.Offered
	var out []Operation
	for range n {
		op := genOp(s, state, w.Role)
		out = append(out, op)
		if next, err := Apply(state, op); err == nil {
			state = next
		}
	}
	return out
}

func (w world) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "offered to %q (operator %v): %s", w.Role, w.Operator, w.Offered)
	for i, op := range w.ops(12) {
		fmt.Fprintf(&b, "\n  op %d: %v", i, op)
	}
	return b.String()
}

// reservable returns a part of an entry of w.Offered that can be reserved,
// and the reservation to push: for w.Role, or for a sub-role of it when the
// entry is already reserved for w.Role.
func (w world) reservable() (resources.Resources, reservation.Reservation, bool) {
	s := &byteSource{b: w.Program}
	var list []resources.Resource
	for r := range w.Offered.All() {
		if !r.IsPersistentVolume() && !r.Revocable {
			list = append(list, r)
		}
	}
	if len(list) == 0 {
		return resources.Resources{}, reservation.Reservation{}, false
	}
	e := pickOf(s, list)
	x := e
	if e.Type == resources.ScalarType && e.Name != "gpus" && (e.Disk == nil || e.Disk.Divisible()) {
		x.Scalar = max(e.Scalar*resources.Scalar(1+s.intn(4))/4, 1)
	}
	target := w.Role
	if e.Role() == w.Role {
		target = w.Role + "/sub"
	}
	return single(x), genReservation(s, reservation.Dynamic, target), true
}

func TestProperties(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))

	props.Property("reserve then unreserve gives back the original", prop.ForAll(
		func(w world) string {
			x, res, ok := w.reservable()
			if !ok {
				return ""
			}
			reserved, err := x.PushReservation(res)
			if err != nil {
				return fmt.Sprintf("push %v on %s: %v", res, x, err)
			}
			for _, op := range []Reserve{{Resources: reserved}, {Resources: reserved, Source: x}} {
				mid, err := Apply(w.Offered, op)
				if err != nil {
					return fmt.Sprintf("%v: %v", op, err)
				}
				if !mid.Contains(reserved) || mid.Equal(w.Offered) {
					return fmt.Sprintf("%v gave %s", op, mid)
				}
				back, err := Apply(mid, Unreserve{Resources: reserved})
				if err != nil {
					return fmt.Sprintf("unreserve %s from %s: %v", reserved, mid, err)
				}
				if !back.Equal(w.Offered) {
					return fmt.Sprintf("%v then unreserve gave %s", op, back)
				}
				if all, err := Apply(w.Offered, op, Unreserve{Resources: reserved}); err != nil || !all.Equal(w.Offered) {
					return fmt.Sprintf("in one call: %s, %v", all, err)
				}
			}
			return ""
		},
		genWorld()))

	props.Property("create then destroy gives back the original", prop.ForAll(
		func(w world, size uint16, shared, mount bool) string {
			s := &byteSource{b: w.Program}
			d := resources.ScalarResource("disk", resources.Scalar(1+int64(size)))
			d.Reservations = genStack(s, w.Role)
			if !w.Operator {
				d.AllocationRole = w.Role
			}
			if mount {
				d.Disk = &volume.Disk{Source: &volume.Source{Type: volume.Mount, Root: "/mnt/new"}}
			}
			offered := w.Offered.Plus(single(d))
			v := d
			if !mount {
				v.Scalar = max(d.Scalar/resources.Scalar(1+s.intn(3)), 1)
			}
			v.Disk = &volume.Disk{
				Persistence: &volume.Persistence{ID: "new", Principal: "ops"},
				Volume:      &volume.Volume{ContainerPath: "new", Mode: volume.RW},
			}
			if mount {
				v.Disk.Source = d.Disk.Source
			}
			v.Shared = shared
			vols := single(v)
			created, err := Apply(offered, Create{Volumes: vols})
			if err != nil {
				return fmt.Sprintf("create %s on %s: %v", vols, offered, err)
			}
			if !created.Contains(vols) || created.Contains(single(d)) && mount {
				return fmt.Sprintf("create gave %s", created)
			}
			back, err := Apply(created, Destroy{Volumes: vols})
			if err != nil {
				return fmt.Sprintf("destroy %s on %s: %v", vols, created, err)
			}
			if !back.Equal(offered) {
				return fmt.Sprintf("create then destroy gave %s, want %s", back, offered)
			}
			return ""
		},
		genWorld(), gopter.Gen(func(p *gopter.GenParameters) *gopter.GenResult {
			return gopter.NewGenResult(uint16(p.Rng.Intn(1<<16)), gopter.NoShrinker)
		}), gopter.Gen(func(p *gopter.GenParameters) *gopter.GenResult {
			return gopter.NewGenResult(p.Rng.Intn(2) == 0, gopter.NoShrinker)
		}), gopter.Gen(func(p *gopter.GenParameters) *gopter.GenResult {
			return gopter.NewGenResult(p.Rng.Intn(4) == 0, gopter.NoShrinker)
		})))

	props.Property("apply conserves every resource kind", prop.ForAll(
		func(w world) string {
			ops := w.ops(8)
			want := summary(w.Offered)
			for i, op := range ops {
				if got, err := Apply(w.Offered, op); err == nil && summary(got) != want {
					return fmt.Sprintf("op %d %v: amounts %s, want %s", i, op, summary(got), want)
				}
			}
			got, err := Apply(w.Offered, ops...)
			if err != nil {
				got = w.Offered
			}
			if summary(got) != want {
				return fmt.Sprintf("amounts %s, want %s", summary(got), want)
			}
			return ""
		},
		genWorld()))

	props.Property("random sequences of operations never produce invalid resources", prop.ForAll(
		func(w world) string {
			s := &byteSource{b: w.Program}
			ctx := genContext(s, w.Offered, w.Role, w.Operator)
			var accepted []Operation
			last := Applied{Resources: w.Offered, Unused: w.Offered}
			for i := range 10 {
				op := genOp(s, last.Resources, w.Role)
				a, err := ApplyAll(w.Offered, append(accepted, op)...)
				if bad := checkAccept(w.Offered, a, err); bad != nil {
					return fmt.Sprintf("op %d %v: %v", i, op, bad)
				}
				one, oneErr := ApplyAll(last.Resources, op)
				if bad := checkAccept(last.Resources, one, oneErr); bad != nil {
					return fmt.Sprintf("op %d %v alone: %v", i, op, bad)
				}
				if bad := checkValidate(op, ctx, last.Resources, oneErr); bad != nil {
					return fmt.Sprintf("op %d: %v", i, bad)
				}
				if err == nil {
					if oneErr != nil || !one.Resources.Equal(a.Resources) {
						return fmt.Sprintf("op %d %v: alone %s (%v), in sequence %s", i, op, one.Resources, oneErr, a.Resources)
					}
					accepted, last = append(accepted, op), a
				}
			}
			return ""
		},
		genWorld()))

	props.TestingRun(t)
}
