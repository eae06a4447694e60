package offer

import (
	"fmt"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	rgen "github.com/allot-go/allot/internal/gen"
	"github.com/allot-go/allot/resources"
)

func TestPick(t *testing.T) {
	q := resources.MustParseQuantities
	cases := []struct {
		name    string
		offered string
		need    string
		role    string
		want    string // "" with ok false
	}{
		{"own reservation before unreserved", "cpus:4; cpus(reservations: [(DYNAMIC,web,ops)]):2", "cpus:2", "web",
			"cpus(reservations: [(DYNAMIC,web,ops)]):2"},
		{"own reservation, then unreserved", "cpus:4; cpus(reservations: [(DYNAMIC,web,ops)]):2", "cpus:3", "web",
			"cpus(reservations: [(DYNAMIC,web,ops)]):2; cpus:1"},
		{"most specific role first",
			"cpus:4; cpus(reservations: [(DYNAMIC,web,ops)]):2; cpus(reservations: [(DYNAMIC,web,ops),(DYNAMIC,web/api,ops)]):1",
			"cpus:2", "web/api",
			"cpus(reservations: [(DYNAMIC,web,ops),(DYNAMIC,web/api,ops)]):1; cpus(reservations: [(DYNAMIC,web,ops)]):1"},
		{"nearest ancestor first",
			"cpus(web):2; cpus(reservations: [(DYNAMIC,web/api,ops)]):2; cpus:8", "cpus:3", "web/api/v2",
			"cpus(reservations: [(DYNAMIC,web/api,ops)]):2; cpus(web):1"},
		{"static reservations count as reservations", "cpus:4; cpus(web):1", "cpus:1", "web", "cpus(web):1"},
		{"labelled reservations are taken in offer order",
			"cpus(reservations: [(DYNAMIC,web,ops,{k: b})]):1; cpus(reservations: [(DYNAMIC,web,ops,{k: a})]):1", "cpus:1.5", "web",
			"cpus(reservations: [(DYNAMIC,web,ops,{k: b})]):1; cpus(reservations: [(DYNAMIC,web,ops,{k: a})]):0.5"},
		{"revocable last", "cpus{REV}:4; cpus:1", "cpus:2", "web", "cpus:1; cpus{REV}:1"},
		{"revocable reserved after unreserved", "cpus(web){REV}:4; cpus:1", "cpus:2", "web", "cpus:1; cpus(web){REV}:1"},
		{"sub-role reservations are not for the parent", "cpus(reservations: [(DYNAMIC,web/api,ops)]):4; cpus:1", "cpus:2", "web", ""},
		{"other roles' reservations are not picked", "cpus(db):4; cpus:1", "cpus:2", "web", ""},
		{"no role takes only unreserved", "cpus(web):4; cpus:1", "cpus:1", "", "cpus:1"},
		{"volumes and shared volumes are not picked",
			"disk(reservations: [(DYNAMIC,web,ops)])[id:v,path:v]:100; disk(reservations: [(DYNAMIC,web,ops)])[id:s,path:s]<SHARED>:100; disk:10",
			"disk:50", "web", ""},
		{"MOUNT disk taken whole when it fits", "disk[MOUNT:/m]:100; disk:500", "disk:150", "web", "disk[MOUNT:/m]:100; disk:50"},
		{"MOUNT disk skipped when too large", "disk[MOUNT:/m]:100; disk:500", "disk:50", "web", "disk:50"},
		{"several names", "cpus:4; mem:1024; mem(web):256; ports:[1-10]", "cpus:1;mem:512", "web", "cpus:1; mem(web):256; mem:256"},
		{"ranges are not picked", "ports:[1-10]", "ports:2", "web", ""},
		{"not enough", "cpus:1; cpus(web):1", "cpus:3", "web", ""},
		{"missing name", "cpus:4", "cpus:1;gpus:1", "web", ""},
		{"allocation roles are kept", "cpus(allocated: web):4", "cpus:1", "web", "cpus(allocated: web):1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			offered := rs(c.offered)
			got, ok := Pick(offered, q(c.need), c.role)
			if c.want == "" {
				expect(t, !ok && got.IsEmpty(), "Pick = %s, %v; want nothing", got, ok)
				return
			}
			expect(t, ok, "Pick failed")
			sameRes(t, got, rs(c.want))
			expect(t, offered.Contains(got), "%s is not within %s", got, offered)
			expect(t, got.Quantities().Equal(q(c.need)), "picked %s, need %s", got.Quantities(), c.need)
		})
	}
	got, ok := Pick(rs("cpus:1"), resources.Quantities{}, "web")
	expect(t, ok && got.IsEmpty(), "empty need: %s, %v", got, ok)
}

func TestPickLaunch(t *testing.T) {
	offered := rs("cpus(allocated: web):4; mem(allocated: web):1024; cpus(allocated: web)(reservations: [(DYNAMIC,web,ops)]):1")
	need := resources.MustParseQuantities("cpus:1;mem:256")
	l, left, ok := PickLaunch(offered, "web",
		TaskNeed{ID: "a", Need: need}, TaskNeed{ID: "b", Need: need})
	expect(t, ok, "PickLaunch failed")
	if len(l.Tasks) != 2 {
		t.Fatalf("got %d tasks", len(l.Tasks))
	}
	sameRes(t, l.Tasks[0].Resources, rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,ops)]):1; mem(allocated: web):256"))
	sameRes(t, l.Tasks[1].Resources, rs("cpus(allocated: web):1; mem(allocated: web):256"))
	sameRes(t, left, rs("cpus(allocated: web):3; mem(allocated: web):512"))
	a, err := ApplyAll(offered, l)
	require.NoError(t, err)
	sameRes(t, a.Unused, left)

	_, left, ok = PickLaunch(offered, "web", TaskNeed{ID: "a", Need: need}, TaskNeed{ID: "b", Need: resources.MustParseQuantities("cpus:5")})
	expect(t, !ok, "PickLaunch of too much succeeded")
	sameRes(t, left, offered)

	task, ok := PickTask(offered, "c", need, "web")
	expect(t, ok && task.ID == "c", "PickTask: %+v, %v", task, ok)
	_, ok = PickTask(offered, "c", resources.MustParseQuantities("gpus:1"), "web")
	expect(t, !ok, "PickTask of gpus succeeded")
}

// TestPickProperties checks that Pick returns exactly what is needed from
// what is offered, and takes every usable reservation before unreserved
// resources of the same name.
func TestPickProperties(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))
	props.Property("pick takes exactly the need, reservations first", prop.ForAll(
		func(w world, other resources.Quantities) string {
			// Mostly a part of what is offered, sometimes anything.
			need := other
			if s := (&byteSource{b: w.Program}); !s.chance(4) {
				need = resources.Quantities{}
				for name, v := range w.Offered.Quantities().All() {
					if s.chance(2) {
						need.SetScalar(name, v*resources.Scalar(1+s.intn(6))/4)
					}
				}
			}
			got, ok := Pick(w.Offered, need, w.Role)
			if !ok {
				if !got.IsEmpty() {
					return fmt.Sprintf("failed Pick returned %s", got)
				}
				return ""
			}
			if !w.Offered.Contains(got) {
				return fmt.Sprintf("%s not within the offer", got)
			}
			if !got.Quantities().Equal(need) {
				return fmt.Sprintf("picked %s, need %s", got.Quantities(), need)
			}
			for name := range need.All() {
				if got.Get(name).Unreserved().NonRevocable().IsEmpty() {
					continue
				}
				// Unreserved resources were used: every usable reservation of
				// the name must be used up.
				for r := range w.Offered.Get(name).All() {
					usable := r.IsReserved() && r.Reservations.AllocatableTo(w.Role) && !r.Revocable &&
						!r.IsPersistentVolume() && (r.Disk == nil || r.Disk.Divisible())
					if usable && !got.ContainsResource(r) {
						return fmt.Sprintf("unreserved %s picked before reserved %s", name, r)
					}
				}
			}
			return ""
		},
		genWorld(), rgen.Quantities()))
	props.TestingRun(t)
}

func TestIDsNextN(t *testing.T) {
	var one, many IDs
	one.Prefix, many.Prefix = "offer-", "offer-"
	var want []string
	for range 12 {
		want = append(want, one.Next())
	}
	got := append(many.NextN(5), many.NextN(7)...)
	if len(got) != len(want) {
		t.Fatalf("NextN gave %d ids, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("id %d: NextN %q, Next %q", i, got[i], want[i])
		}
	}
	if many.Last() != 12 || many.NextN(0) != nil {
		t.Fatalf("Last = %d after 12 ids", many.Last())
	}

	// Across the lengths of the numbers (9 to 10, 99 to 100, ...), with
	// the default prefix, and where the counter wraps as Next's does.
	for _, from := range []uint64{0, 5, 95, 995, 99995, math.MaxUint64 - 3} {
		one, many := IDs{last: from}, IDs{last: from}
		got := many.NextN(10)
		for i := range 10 {
			if want := one.Next(); got[i] != want {
				t.Fatalf("from %d, id %d: NextN %q, Next %q", from, i, got[i], want)
			}
		}
		if many.Last() != one.Last() {
			t.Fatalf("from %d: Last %d after NextN, %d after Next", from, many.Last(), one.Last())
		}
	}
	var ids IDs
	if allocs := testing.AllocsPerRun(10, func() { ids.NextN(1000) }); allocs > 2 {
		t.Fatalf("NextN(1000) made %.0f allocations, want 2", allocs)
	}
}
