package resources

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/volume"
)

// The reference's arithmetic examples, and the merge rules, as text.
func TestAddSubtract(t *testing.T) {
	tests := []struct {
		name           string
		a, b           string
		plus, minus    string
		aContainsB     bool
		plusContainsAB bool
	}{
		{"scalars", "cpus:1;mem:10", "cpus:0.5", "cpus:1.5; mem:10", "cpus:0.5; mem:10", true, true},
		{"goes negative", "cpus:1", "cpus:2", "cpus:3", "{}", false, true},
		{"exactly zero", "cpus:2", "cpus:2", "cpus:4", "{}", true, true},
		{"other role untouched", "cpus(role1):5;cpus(role2):3", "cpus(role1):1", "cpus(role1):6; cpus(role2):3", "cpus(role1):4; cpus(role2):3", true, true},
		{"no matching metadata", "cpus(r1):8", "cpus(r2):8", "cpus(r1):8; cpus(r2):8", "cpus(r1):8", false, true},
		{"unreserved versus reserved", "cpus:8", "cpus(r):1", "cpus:8; cpus(r):1", "cpus:8", false, true},
		{"ranges", "ports:[1-10]", "ports:[3-4, 8-12]", "ports:[1-12]", "ports:[1-2, 5-7]", false, true},
		{"ranges subset", "ports:[1-10, 20-30]", "ports:[5-6, 25-30]", "ports:[1-10, 20-30]", "ports:[1-4, 7-10, 20-24]", true, true},
		{"ranges adjacent", "ports:[1-5]", "ports:[6-9]", "ports:[1-9]", "ports:[1-5]", false, true},
		{"sets", "disks:{a,b,c}", "disks:{b,d}", "disks:{a,b,c,d}", "disks:{a,c}", false, true},
		{"set subset", "disks:{a,b,c}", "disks:{c,a}", "disks:{a,b,c}", "disks:{b}", true, true},
		{"revocable apart", "cpus:4", "cpus{REV}:1", "cpus:4; cpus{REV}:1", "cpus:4", false, true},
		{"providers apart", "cpus:4", "cpus(provider: rp):1", "cpus:4; cpus(provider: rp):1", "cpus:4", false, true},
		{"allocation apart", "cpus:4", "cpus(allocated: a):1", "cpus:4; cpus(allocated: a):1", "cpus:4", false, true},
		// Labels and principals: equal ones merge, others never touch.
		{"same labels merge", "cpus(reservations: [(DYNAMIC,a,p,{x: 1, y})]):2", "cpus(reservations: [(DYNAMIC,a,p,{y, x: 1})]):1",
			"cpus(reservations: [(DYNAMIC,a,p,{x: 1, y})]):3", "cpus(reservations: [(DYNAMIC,a,p,{x: 1, y})]):1", true, true},
		{"other labels apart", "cpus(reservations: [(DYNAMIC,a,p,{x: 1})]):2", "cpus(reservations: [(DYNAMIC,a,p,{x: 2})]):1",
			"cpus(reservations: [(DYNAMIC,a,p,{x: 1})]):2; cpus(reservations: [(DYNAMIC,a,p,{x: 2})]):1",
			"cpus(reservations: [(DYNAMIC,a,p,{x: 1})]):2", false, true},
		{"no labels and empty labels apart", "cpus(reservations: [(DYNAMIC,a,p)]):2", "cpus(reservations: [(DYNAMIC,a,p,{})]):1",
			"cpus(reservations: [(DYNAMIC,a,p)]):2; cpus(reservations: [(DYNAMIC,a,p,{})]):1",
			"cpus(reservations: [(DYNAMIC,a,p)]):2", false, true},
		{"other principal apart", "cpus(reservations: [(DYNAMIC,a,p)]):2", "cpus(reservations: [(DYNAMIC,a,q)]):1",
			"cpus(reservations: [(DYNAMIC,a,p)]):2; cpus(reservations: [(DYNAMIC,a,q)]):1",
			"cpus(reservations: [(DYNAMIC,a,p)]):2", false, true},
		{"static and dynamic apart", "cpus(a):2", "cpus(reservations: [(DYNAMIC,a)]):1",
			"cpus(a):2; cpus(reservations: [(DYNAMIC,a)]):1", "cpus(a):2", false, true},
		{"refined apart", "cpus(a):2", "cpus(reservations: [(STATIC,a), (DYNAMIC,a/b)]):1",
			"cpus(a):2; cpus(reservations: [(STATIC,a), (DYNAMIC,a/b)]):1", "cpus(a):2", false, true},
		// Disk sources.
		{"PATH same root merges", "disk[PATH:/p]:10", "disk[PATH:/p]:5", "disk[PATH:/p]:15", "disk[PATH:/p]:5", true, true},
		{"PATH other root apart", "disk[PATH:/p]:10", "disk[PATH:/q]:5", "disk[PATH:/p]:10; disk[PATH:/q]:5", "disk[PATH:/p]:10", false, true},
		{"MOUNT never merges", "disk[MOUNT:/m]:10", "disk[MOUNT:/m]:10", "disk[MOUNT:/m]:10; disk[MOUNT:/m]:10", "{}", true, true},
		{"MOUNT not partly", "disk[MOUNT:/m]:10", "disk[MOUNT:/m]:4", "disk[MOUNT:/m]:10; disk[MOUNT:/m]:4", "disk[MOUNT:/m]:10", false, true},
		{"BLOCK never merges", "disk[BLOCK]:10", "disk[BLOCK]:10", "disk[BLOCK]:10; disk[BLOCK]:10", "{}", true, true},
		{"RAW without id merges", "disk[RAW]:10", "disk[RAW]:4", "disk[RAW]:14", "disk[RAW]:6", true, true},
		{"RAW with id whole", "disk[RAW(id:r)]:10", "disk[RAW(id:r)]:4", "disk[RAW(id:r)]:10; disk[RAW(id:r)]:4", "disk[RAW(id:r)]:10", false, true},
		// Persistent volumes.
		{"volumes never merge", "disk(a)[id:v,path:p]:10", "disk(a)[id:v,path:p]:10", "disk(a)[id:v,path:p]:10; disk(a)[id:v,path:p]:10", "{}", true, true},
		{"volume not partly", "disk(a)[id:v,path:p]:10", "disk(a)[id:v,path:p]:4", "disk(a)[id:v,path:p]:10; disk(a)[id:v,path:p]:4", "disk(a)[id:v,path:p]:10", false, true},
		{"other volume apart", "disk(a)[id:v,path:p]:10", "disk(a)[id:w,path:p]:10", "disk(a)[id:v,path:p]:10; disk(a)[id:w,path:p]:10", "disk(a)[id:v,path:p]:10", false, true},
		{"volume and plain disk apart", "disk(a):10", "disk(a)[id:v,path:p]:10", "disk(a):10; disk(a)[id:v,path:p]:10", "disk(a):10", false, true},
		// Shared volumes count copies.
		{"shared copies add", "disk(a)[id:v,path:p]<SHARED>:10", "disk(a)[id:v,path:p]<SHARED>:10", "disk(a)[id:v,path:p]<SHARED>:10<2>", "{}", true, true},
		{"shared copies subtract", "disk(a)[id:v,path:p]<SHARED>:10<3>", "disk(a)[id:v,path:p]<SHARED>:10", "disk(a)[id:v,path:p]<SHARED>:10<4>", "disk(a)[id:v,path:p]<SHARED>:10<2>", true, true},
		{"too many copies", "disk(a)[id:v,path:p]<SHARED>:10", "disk(a)[id:v,path:p]<SHARED>:10<2>", "disk(a)[id:v,path:p]<SHARED>:10<3>", "{}", false, true},
		{"shared and not apart", "disk(a)[id:v,path:p]<SHARED>:10", "disk(a)[id:v,path:p]:10", "disk(a)[id:v,path:p]<SHARED>:10; disk(a)[id:v,path:p]:10", "disk(a)[id:v,path:p]<SHARED>:10", false, true},
	}
	for _, tt := range tests {
		a, b := mustParse(t, tt.a), mustParse(t, tt.b)
		if got := a.Plus(b).String(); got != tt.plus {
			t.Errorf("%s: %s + %s = %s, want %s", tt.name, a, b, got, tt.plus)
		}
		if got := a.Minus(b).String(); got != tt.minus {
			t.Errorf("%s: %s - %s = %s, want %s", tt.name, a, b, got, tt.minus)
		}
		if got := a.Contains(b); got != tt.aContainsB {
			t.Errorf("%s: %s contains %s = %v, want %v", tt.name, a, b, got, tt.aContainsB)
		}
		if sum := a.Plus(b); !sum.Contains(a) || !sum.Contains(b) {
			t.Errorf("%s: sum does not contain its parts", tt.name)
		}
		if a.String() != mustParse(t, tt.a).String() {
			t.Errorf("%s: Plus or Minus changed its receiver", tt.name)
		}
	}
}

func TestContainsVolumesOneToOne(t *testing.T) {
	one := mustParse(t, "disk(a)[id:v,path:p]:10")
	two := one.Plus(one)
	if one.Contains(two) || one.Equal(two) {
		t.Error("one volume contains two")
	}
	if !two.Contains(one) || !two.Contains(two) {
		t.Error("two volumes do not contain themselves")
	}
	mount := mustParse(t, "disk[MOUNT:/m]:10")
	if mount.Contains(mount.Plus(mount)) {
		t.Error("one MOUNT disk contains two")
	}
	if !one.ContainsResource(one.Slice()[0]) {
		t.Error("ContainsResource misses a volume")
	}
	// A volume mounted elsewhere is the same volume.
	other := mustParse(t, "disk(a)[id:v,path:elsewhere]:10")
	if !one.Contains(other) {
		t.Error("the container path takes part in containment")
	}
}

func TestSubtractAliased(t *testing.T) {
	a := mustParse(t, "cpus:1;mem:2;ports:[1-3];disk[MOUNT:/m]:5")
	alias := a
	a.Subtract(alias)
	if !a.IsEmpty() {
		t.Errorf("a - a = %v", a)
	}
	b := mustParse(t, "cpus:1;mem:2")
	b.Add(b)
	if b.String() != "cpus:2; mem:4" {
		t.Errorf("b + b = %v", b)
	}
}

func TestNoDrift(t *testing.T) {
	step := mustParse(t, "cpus:1.001")
	var sum Resources
	for range 100000 {
		sum.Add(step)
	}
	if sum.String() != "cpus:100100" {
		t.Fatalf("sum = %v", sum)
	}
	for range 100000 {
		sum.Subtract(step)
	}
	if !sum.IsEmpty() {
		t.Fatalf("after removal: %v", sum)
	}
	q := step.Quantities()
	var qs Quantities
	for range 100000 {
		qs.Add(q)
	}
	for range 99999 {
		qs.Subtract(q)
	}
	if !qs.Equal(q) {
		t.Fatalf("quantities drifted: %v", qs)
	}
}

// TestAllocatableTo is the reference's role-family example: unreserved
// resources go to every role, reservations to their role and its
// descendants, never to a parent or sibling.
func TestAllocatableTo(t *testing.T) {
	all := mustParse(t, "cpus:1;cpus(a):2;cpus(reservations: [(STATIC,a), (DYNAMIC,a/b)]):4;"+
		"cpus(reservations: [(DYNAMIC,a/b/c)]):8;cpus(a/bc):16;cpus(b):32")
	tests := []struct {
		role string
		want string // as total cpus
	}{
		{"a", "3"},        // unreserved + a
		{"a/b", "7"},      // + refined a/b
		{"a/b/c", "15"},   // + a/b/c
		{"a/b/c/d", "15"}, // inherits all of its ancestors'
		{"a/bc", "19"},    // a, a/bc, not a/b
		{"b", "33"},       // unreserved + b
		{"b/x", "33"},     // b's reservation
		{"c", "1"},        // only unreserved
		{"*", "1"},        // only unreserved
		{"ab", "1"},       // not a sub-role of a
	}
	for _, tt := range tests {
		got := all.AllocatableTo(tt.role).Quantities().Scalar("cpus").String()
		if got != tt.want {
			t.Errorf("AllocatableTo(%q) has %s cpus, want %s (%v)", tt.role, got, tt.want, all.AllocatableTo(tt.role))
		}
	}
	if got := all.Reserved("a").String(); got != "cpus(a):2" {
		t.Errorf("Reserved(a) = %s", got)
	}
	if got := all.ReservedToSubtree("a").Quantities().Scalar("cpus").String(); got != "30" {
		t.Errorf("ReservedToSubtree(a) = %s cpus", got)
	}
	if got := all.Unreserved().String(); got != "cpus:1" {
		t.Errorf("Unreserved = %s", got)
	}
	if got := all.Refined().String(); got != "cpus(reservations: [(STATIC,a), (DYNAMIC,a/b)]):4" {
		t.Errorf("Refined = %s", got)
	}
}

func TestFiltersAndViews(t *testing.T) {
	r := mustParse(t, "cpus:4;cpus{REV}:1;mem:8;ports:[1-5];disks:{a};"+
		"disk(a)[id:v,path:p]<SHARED>:10<2>;disk(a)[id:w,path:p]:5;disk:100")
	for name, tt := range map[string]struct {
		got  Resources
		want string
	}{
		"Revocable":         {r.Revocable(), "cpus{REV}:1"},
		"NonRevocable":      {r.NonRevocable(), "cpus:4; mem:8; ports:[1-5]; disks:{a}; disk(a)[id:v,path:p]<SHARED>:10<2>; disk(a)[id:w,path:p]:5; disk:100"},
		"Shared":            {r.Shared(), "disk(a)[id:v,path:p]<SHARED>:10<2>"},
		"PersistentVolumes": {r.PersistentVolumes(), "disk(a)[id:v,path:p]<SHARED>:10<2>; disk(a)[id:w,path:p]:5"},
		"Scalars":           {r.Scalars(), "cpus:4; cpus{REV}:1; mem:8; disk(a)[id:v,path:p]<SHARED>:10<2>; disk(a)[id:w,path:p]:5; disk:100"},
		"NonScalars":        {r.NonScalars(), "ports:[1-5]; disks:{a}"},
		"Get(cpus)":         {r.Get("cpus"), "cpus:4; cpus{REV}:1"},
		"Get(none)":         {r.Get("none"), "{}"},
		"Filter(>4)":        {r.Filter(func(x Resource) bool { return x.Type == ScalarType && x.Scalar > Units(4) }), "mem:8; disk(a)[id:v,path:p]<SHARED>:10<2>; disk(a)[id:w,path:p]:5; disk:100"},
	} {
		if got := tt.got.String(); got != tt.want {
			t.Errorf("%s = %s, want %s", name, got, tt.want)
		}
	}
	if got := r.Names(); !slices.Equal(got, []string{"cpus", "disk", "disks", "mem", "ports"}) {
		t.Errorf("Names = %v", got)
	}
	if got := r.NonShared().Len(); got != 7 {
		t.Errorf("NonShared has %d entries", got)
	}
	// Has* agree with the views, without copying.
	for _, x := range []Resources{r, r.Revocable(), r.NonRevocable(), r.Shared(), r.NonShared(), {}} {
		if got, want := x.HasRevocable(), !x.Revocable().IsEmpty(); got != want {
			t.Errorf("%s: HasRevocable = %v, want %v", x, got, want)
		}
		if got, want := x.HasShared(), !x.Shared().IsEmpty(); got != want {
			t.Errorf("%s: HasShared = %v, want %v", x, got, want)
		}
	}
	// A shared volume counts once in quantities.
	if got := r.Quantities().String(); got != "cpus:5; disk:115; mem:8" {
		t.Errorf("Quantities = %s", got)
	}
}

func TestPushPopReservation(t *testing.T) {
	r := mustParse(t, "cpus:4;mem:1024")
	eng := reservation.Reservation{Type: reservation.Dynamic, Role: "eng", Principal: "ops", Labels: reservation.Labels{{Key: "k", Value: "v"}}}
	reserved, err := r.PushReservation(eng)
	if err != nil {
		t.Fatal(err)
	}
	want := "cpus(reservations: [(DYNAMIC,eng,ops,{k: v})]):4; mem(reservations: [(DYNAMIC,eng,ops,{k: v})]):1024"
	if reserved.String() != want {
		t.Fatalf("reserved = %s", reserved)
	}
	refined, err := reserved.PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: "eng/db"})
	if err != nil {
		t.Fatal(err)
	}
	if !refined.AllocatableTo("eng").IsEmpty() || !refined.AllocatableTo("eng/db").Equal(refined) {
		t.Errorf("refined resources allocatable to the parent: %v", refined.AllocatableTo("eng"))
	}
	for _, bad := range []reservation.Reservation{
		{Type: reservation.Dynamic, Role: "other"},
		{Type: reservation.Static, Role: "eng/x"},
		{Type: reservation.Dynamic, Role: "*"},
	} {
		got, err := reserved.PushReservation(bad)
		if !errors.Is(err, ErrInvalidReservation) {
			t.Errorf("PushReservation(%v) = %v", bad, err)
		}
		if got.String() != reserved.String() {
			t.Errorf("failed push changed the resources")
		}
	}
	back, err := refined.PopReservation()
	if err != nil || !back.Equal(reserved) {
		t.Fatalf("pop of refinement = %v, %v", back, err)
	}
	plain, err := back.PopReservation()
	if err != nil || !plain.Equal(r) {
		t.Fatalf("pop of reservation = %v, %v", plain, err)
	}
	if _, err := plain.PopReservation(); !errors.Is(err, ErrNotReserved) {
		t.Errorf("pop of unreserved = %v", err)
	}
	if _, err := r.Plus(reserved).PopReservation(); !errors.Is(err, ErrNotReserved) {
		t.Errorf("pop of partly unreserved = %v", err)
	}
	if got := refined.Plus(r).ToUnreserved().String(); got != "cpus:8; mem:2048" {
		t.Errorf("ToUnreserved merges to %s", got)
	}
	// Popping merges entries that become identical.
	mixed := mustParse(t, "cpus(reservations: [(DYNAMIC,a), (DYNAMIC,a/b)]):1;cpus(reservations: [(DYNAMIC,a), (DYNAMIC,a/c)]):2")
	popped, err := mixed.PopReservation()
	if err != nil || popped.String() != "cpus(reservations: [(DYNAMIC,a)]):3" {
		t.Errorf("popping two refinements = %v, %v", popped, err)
	}
}

func TestAllocate(t *testing.T) {
	r := mustParse(t, "cpus:4;mem(a):8")
	a := r.Allocate("web")
	if a.String() != "cpus(allocated: web):4; mem(allocated: web)(a):8" {
		t.Errorf("Allocate = %s", a)
	}
	if !a.AllocatedTo("web").Equal(a) || !a.AllocatedTo("db").IsEmpty() {
		t.Error("AllocatedTo is wrong")
	}
	if r.Contains(a) || a.Contains(r) {
		t.Error("allocated and unallocated resources overlap")
	}
	both := a.Plus(r.Allocate("db")).Plus(r)
	if got := both.AllocationRoles(); !slices.Equal(got, []string{"", "db", "web"}) {
		t.Errorf("AllocationRoles = %q", got)
	}
	if got := both.Unallocate().String(); got != "cpus:12; mem(a):24" {
		t.Errorf("Unallocate = %s", got)
	}
}

func TestNewAndValidate(t *testing.T) {
	vol := func(id string) *volume.Disk {
		return &volume.Disk{Persistence: &volume.Persistence{ID: id}, Volume: &volume.Volume{ContainerPath: "p", Mode: volume.RW}}
	}
	static := reservation.Stack{{Type: reservation.Static, Role: "a"}}
	tests := []struct {
		name string
		r    Resource
		err  error
	}{
		{"scalar", ScalarResource("cpus", Units(1)), nil},
		{"zero is empty, not invalid", ScalarResource("cpus", 0), nil},
		{"unsorted ranges", RangesResource("ports", Ranges{{5, 6}, {1, 2}}), nil},
		{"unsorted set", SetResource("disks", Set{"b", "a"}), nil},
		{"negative", ScalarResource("cpus", -1), ErrInvalidScalar},
		{"too large", ScalarResource("cpus", MaxTotal+1), ErrInvalidScalar},
		{"inverted range", RangesResource("ports", Ranges{{5, 1}}), ErrInvalidRanges},
		{"overlapping ranges", RangesResource("ports", Ranges{{5, 9}, {1, 5}}), ErrInvalidRanges},
		{"duplicate item", SetResource("disks", Set{"a", "b", "a"}), ErrInvalidSet},
		{"empty item", SetResource("disks", Set{""}), ErrInvalidSet},
		{"empty name", ScalarResource("", 1), ErrInvalidName},
		{"name with space", ScalarResource("a b", 1), ErrInvalidName},
		{"name with colon", ScalarResource("a:b", 1), ErrInvalidName},
		{"name not UTF-8", ScalarResource("a\xff", 1), ErrInvalidName},
		{"label not UTF-8", Resource{Name: "cpus", Type: ScalarType, Scalar: 1, Reservations: reservation.Stack{{Type: reservation.Dynamic, Role: "a", Labels: reservation.Labels{{Key: "\xff"}}}}}, ErrInvalidName},
		{"no type", Resource{Name: "cpus", Scalar: 1}, ErrMixedTypes},
		{"two values", Resource{Name: "cpus", Type: ScalarType, Scalar: 1, Set: Set{"a"}}, ErrMixedTypes},
		{"reserved for *", Resource{Name: "cpus", Type: ScalarType, Scalar: 1, Reservations: reservation.Stack{{Type: reservation.Static, Role: "*"}}}, ErrInvalidReservation},
		{"refined static", Resource{Name: "cpus", Type: ScalarType, Scalar: 1, Reservations: append(static, reservation.Reservation{Type: reservation.Static, Role: "a/b"})}, ErrInvalidReservation},
		{"refined not a sub-role", Resource{Name: "cpus", Type: ScalarType, Scalar: 1, Reservations: append(static, reservation.Reservation{Type: reservation.Dynamic, Role: "b"})}, ErrInvalidReservation},
		{"disk on cpus", Resource{Name: "cpus", Type: ScalarType, Scalar: 1, Disk: vol("v")}, ErrInvalidDisk},
		{"bad persistence id", Resource{Name: "disk", Type: ScalarType, Scalar: 1, Reservations: static, Disk: vol("a/b")}, ErrInvalidDisk},
		{"shared non-volume", Resource{Name: "cpus", Type: ScalarType, Scalar: 1, Shared: true}, ErrInvalidShared},
		{"shared volume", Resource{Name: "disk", Type: ScalarType, Scalar: 1, Reservations: static, Disk: vol("v"), Shared: true}, nil},
		{"bad allocation role", Resource{Name: "cpus", Type: ScalarType, Scalar: 1, AllocationRole: "/x"}, ErrInvalidRole},
		{"provider with control", Resource{Name: "cpus", Type: ScalarType, Scalar: 1, ProviderID: "a\x00"}, ErrInvalidName},
	}
	for _, tt := range tests {
		err := tt.r.Validate()
		if tt.err == nil && err != nil || tt.err != nil && !errors.Is(err, tt.err) {
			t.Errorf("%s: Validate = %v, want %v", tt.name, err, tt.err)
		}
		rs, err := New(tt.r)
		if tt.err == nil && err != nil || tt.err != nil && (!errors.Is(err, tt.err) || !rs.IsEmpty()) {
			t.Errorf("%s: New = %v, %v", tt.name, rs, err)
		}
	}
	rs, err := New(RangesResource("ports", Ranges{{5, 6}, {1, 2}, {3, 4}}), SetResource("disks", Set{"b", "a"}), ScalarResource("gpus", 0))
	if err != nil || rs.String() != "ports:[1-6]; disks:{a,b}" {
		t.Errorf("New normalises to %v, %v", rs, err)
	}
	// AddResource leaves the receiver unchanged on error.
	if err := rs.AddResource(ScalarResource("cpus", -1)); err == nil || rs.Len() != 2 {
		t.Errorf("AddResource of an invalid resource: %v, %v", err, rs)
	}
}

func TestShrink(t *testing.T) {
	r := mustParse(t, "cpus:2;cpus(a):2;mem:100;disk[MOUNT:/m]:50;disk:30;disk(a)[id:v,path:p]:20;ports:[1-10]")
	tests := []struct {
		target string
		want   string
	}{
		{"cpus:3", "cpus:2; cpus(a):1"},
		{"cpus:1;mem:10", "cpus:1; mem:10"},
		{"disk:60", "disk[MOUNT:/m]:50; disk:10"},
		{"disk:40", "disk:30"}, // the MOUNT disk does not fit whole, the volume no longer does
		{"disk:100", "disk[MOUNT:/m]:50; disk:30; disk(a)[id:v,path:p]:20"},
		{"gpus:4", "{}"},
		{"", "{}"},
	}
	for _, tt := range tests {
		got := r.Shrink(MustParseQuantities(tt.target), nil)
		if got.String() != tt.want {
			t.Errorf("Shrink(%s) = %s, want %s", tt.target, got, tt.want)
		}
	}
	// With a random order the result still fits, and some order takes the
	// reserved cpus whole and cuts the unreserved ones.
	sawReservedCut := false
	for seed := range uint64(20) {
		got := r.Shrink(MustParseQuantities("cpus:3"), rand.New(rand.NewPCG(seed, 0)))
		if !got.Quantities().Equal(MustParseQuantities("cpus:3")) || !r.Contains(got) {
			t.Fatalf("random Shrink = %s", got)
		}
		sawReservedCut = sawReservedCut || got.Reserved("a").Quantities().Scalar("cpus") == Units(2)
	}
	if !sawReservedCut {
		t.Error("a random order never took the reserved cpus first")
	}
}

func TestShrinkToLimits(t *testing.T) {
	r := mustParse(t, "cpus:2;cpus(a):2;mem:100;disk[MOUNT:/m]:50;ports:[1-10]")
	tests := []struct {
		limits string
		want   string
	}{
		{"", "cpus:2; cpus(a):2; mem:100; disk[MOUNT:/m]:50; ports:[1-10]"},
		{"cpus:3", "cpus:2; cpus(a):1; mem:100; disk[MOUNT:/m]:50; ports:[1-10]"},
		{"cpus:0;mem:0", "disk[MOUNT:/m]:50; ports:[1-10]"},
		{"disk:49", "cpus:2; cpus(a):2; mem:100; ports:[1-10]"},
		{"disk:50", "cpus:2; cpus(a):2; mem:100; disk[MOUNT:/m]:50; ports:[1-10]"},
	}
	for _, tt := range tests {
		got := r.ShrinkToLimits(MustParseLimits(tt.limits), nil)
		if got.String() != tt.want {
			t.Errorf("ShrinkToLimits(%s) = %s, want %s", tt.limits, got, tt.want)
		}
	}
}

func TestContainsQuantities(t *testing.T) {
	r := mustParse(t, "cpus:1;cpus(a):2;cpus{REV}:0.5;ports:[1-10];ports(a):[20-24];disks:{a,b}")
	tests := []struct {
		q    string
		want bool
	}{
		{"cpus:3.5", true},
		{"cpus:3.501", false},
		{"ports:15", true},
		{"ports:16", false},
		{"disks:2", true},
		{"disks:3", false},
		{"gpus:1", false},
		{"", true},
	}
	for _, tt := range tests {
		if got := r.ContainsQuantities(MustParseQuantities(tt.q)); got != tt.want {
			t.Errorf("ContainsQuantities(%s) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestCopiesAndAll(t *testing.T) {
	r := mustParse(t, "cpus:4;disk(a)[id:v,path:p]<SHARED>:10<3>")
	var seen []string
	for x := range r.All() {
		seen = append(seen, x.String())
	}
	if !slices.Equal(seen, []string{"cpus:4", "disk(a)[id:v,path:p]<SHARED>:10"}) {
		t.Errorf("All yields %q", seen)
	}
	vol := r.Slice()[1]
	if r.Copies(vol) != 3 || r.Copies(r.Slice()[0]) != 1 || r.Copies(ScalarResource("mem", 1)) != 0 {
		t.Error("Copies is wrong")
	}
	if !r.ContainsResource(ScalarResource("cpus", Units(3))) || r.ContainsResource(ScalarResource("cpus", Units(5))) ||
		!r.ContainsResource(ScalarResource("cpus", 0)) || r.ContainsResource(ScalarResource("cpus", -1)) {
		t.Error("ContainsResource is wrong")
	}
}

// A frozen value is shared by its holders: a change in place by any of
// them copies first, so the others never see it.
func TestFrozenCopiesBeforeChange(t *testing.T) {
	orig := MustParse("cpus:4;mem:1024;ports:[1-10]", "*")
	shared := orig.Frozen()
	a, b := shared, shared
	a.Add(MustParse("cpus:1", "*"))
	b.Subtract(MustParse("mem:24;ports:[1-5]", "*"))
	if got := shared.String(); got != "cpus:4; mem:1024; ports:[1-10]" {
		t.Fatalf("the frozen value changed: %s", got)
	}
	if got := a.String(); got != "cpus:5; mem:1024; ports:[1-10]" {
		t.Fatalf("a = %s", got)
	}
	if got := b.String(); got != "cpus:4; mem:1000; ports:[6-10]" {
		t.Fatalf("b = %s", got)
	}
	c := shared
	if err := c.AddResource(ScalarResource("gpus", Units(1))); err != nil {
		t.Fatal(err)
	}
	if shared.Len() != 3 || c.Len() != 4 {
		t.Fatalf("AddResource on a copy of a frozen value: %s / %s", shared, c)
	}
	// Filters of a frozen value that keep everything are the value itself;
	// of a value that is not frozen, a copy.
	if !shared.Unreserved().Identical(shared) {
		t.Fatal("a filter keeping all of a frozen value copied it")
	}
	plain := MustParse("cpus:4", "*")
	kept := plain.Unreserved()
	plain.Add(MustParse("cpus:1", "*"))
	if got := kept.String(); got != "cpus:4" {
		t.Fatalf("a change in place of the original shows through its filter: %s", got)
	}
}

// An entry is four machine words: a Resources of cpus, mem, disk and ports
// fits in 128 bytes, the size class an agent's total, available resources
// and each offer take (BENCHMARKS.md, "Four words an entry"), and a ranges
// value in 32.
func TestEntryIsFourWords(t *testing.T) {
	if got, want := unsafe.Sizeof(values{}), 4*unsafe.Sizeof(uintptr(0)); got != want {
		t.Fatalf("a ranges value takes %d bytes, want %d", got, want)
	}
	// Three words and the scalar, which is 64 bits everywhere: four words
	// on a 64-bit platform, 20 bytes on a 32-bit one.
	if got, want := unsafe.Sizeof(entry{}), 3*unsafe.Sizeof(uintptr(0))+unsafe.Sizeof(Scalar(0)); got != want {
		t.Fatalf("an entry takes %d bytes, want %d", got, want)
	}
}

// TestAllocateKeepsRolesInterned: tagging resources with a role whose
// tagged values are all gone (an offer declined, then a collection) finds
// the role in the table of roles rather than interning it again (several
// allocations). It counts internings: counting allocations around a
// collection, as it did before, counted what the runtime allocates then
// too, which a loaded machine made more than the bound allowed.
func TestAllocateKeepsRolesInterned(t *testing.T) {
	rs := MustParse("cpus:1;mem:10", "*")
	role := fmt.Sprintf("kept-%d", rand.Int())
	if got := rs.Allocate(role).AllocationRoles(); !slices.Equal(got, []string{role}) {
		t.Fatalf("roles %q, want %q", got, role)
	}
	before := roleInterns.Load()
	for range 5 {
		runtime.GC() // forgets what no value holds
		if got := rs.Allocate(role).AllocationRoles(); !slices.Equal(got, []string{role}) {
			t.Fatalf("roles %q, want %q", got, role)
		}
	}
	if n := roleInterns.Load() - before; n != 0 {
		t.Fatalf("a role no value held was interned again %d times after collections", n)
	}
}

// TestRoleCacheEvicts: a fifth role whose set is full takes one of the four
// slots, and every role still tags right, kept or evicted.
func TestRoleCacheEvicts(t *testing.T) {
	bySet := map[uint32][]string{}
	var roles []string
	for i := 0; roles == nil; i++ {
		role := fmt.Sprintf("evict-%d", i)
		set := roleHash(role) % uint32(len(roleCache))
		if bySet[set] = append(bySet[set], role); len(bySet[set]) == 5 {
			roles = bySet[set]
		}
	}
	set := &roleCache[roleHash(roles[0])%uint32(len(roleCache))]
	for i := range set {
		set[i].Store(nil) // roles other tests left there
	}
	rs := MustParse("cpus:1", "*")
	for range 2 {
		for _, role := range roles {
			if got, ok := rs.Allocate(role).AllocationRole(); !ok || got != role {
				t.Fatalf("tagged with %q: role %q", role, got)
			}
		}
	}
	var held []string
	for i := range set {
		if c := set[i].Load(); c != nil && slices.Contains(roles, c.String()) {
			held = append(held, c.String())
		}
	}
	// The last role tagged, met with its set full, took a slot.
	if len(held) != 4 || !slices.Contains(held, roles[4]) {
		t.Fatalf("the set holds %q of %q, want four with the last", held, roles)
	}
}

// TestAllocateFromManyGoroutines: tagging from several goroutines with more
// roles than the cache of interned roles holds in a set gives every value
// its own role (run with -race, it checks the cache's slots too).
func TestAllocateFromManyGoroutines(t *testing.T) {
	rs := MustParse("cpus:1", "*")
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := range 2000 {
				role := fmt.Sprintf("g%d-r%d", g, i%300)
				if got, ok := rs.Allocate(role).AllocationRole(); !ok || got != role {
					done <- fmt.Errorf("tagged with %q: role %q", role, got)
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
