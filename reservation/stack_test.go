package reservation

import (
	"errors"
	"strings"
	"testing"
)

func dyn(role string) Reservation    { return Reservation{Type: Dynamic, Role: role} }
func static(role string) Reservation { return Reservation{Type: Static, Role: role} }

func TestStackValidate(t *testing.T) {
	tests := []struct {
		name  string
		stack Stack
		rule  string
	}{
		{"empty", nil, ""},
		{"static", Stack{static("a")}, ""},
		{"dynamic", Stack{dyn("a")}, ""},
		{"static then refined", Stack{static("a"), dyn("a/b")}, ""},
		{"skips a level", Stack{dyn("eng"), dyn("eng/backend/db")}, ""},
		{"three levels", Stack{static("a"), dyn("a/b"), dyn("a/b/c")}, ""},
		{"refined static", Stack{static("a"), static("a/b")}, "not dynamic"},
		{"same role", Stack{dyn("a"), dyn("a")}, "not a strict sub-role"},
		{"sibling", Stack{dyn("a/b"), dyn("a/c")}, "not a strict sub-role"},
		{"parent", Stack{dyn("a/b"), dyn("a")}, "not a strict sub-role"},
		{"prefix but not sub-role", Stack{dyn("a"), dyn("ab")}, "not a strict sub-role"},
		{"star", Stack{dyn("*")}, "'*' cannot be reserved"},
		{"bad role", Stack{dyn("a/")}, "ends with '/'"},
		{"bad later entry", Stack{dyn("a"), {Role: "a/b"}}, "unknown type"},
	}
	for _, tt := range tests {
		err := tt.stack.Validate()
		if tt.rule == "" {
			if err != nil {
				t.Errorf("%s: Validate(%v) = %v", tt.name, tt.stack, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalidStack) || !strings.Contains(err.Error(), tt.rule) {
			t.Errorf("%s: Validate(%v) = %v, want ErrInvalidStack naming %q", tt.name, tt.stack, err, tt.rule)
		}
	}
}

func TestStackPushPop(t *testing.T) {
	var s Stack
	if s.IsReserved() || s.IsDynamic() || s.IsRefined() || s.Role() != Any {
		t.Fatal("empty stack is not unreserved")
	}
	if _, ok := s.Last(); ok {
		t.Fatal("empty stack has a last reservation")
	}
	if _, _, err := s.Pop(); !errors.Is(err, ErrNotReserved) {
		t.Fatalf("Pop of empty stack = %v, want ErrNotReserved", err)
	}

	s1, err := s.Push(static("eng"))
	if err != nil {
		t.Fatal(err)
	}
	if s1.Role() != "eng" || !s1.IsReserved() || s1.IsDynamic() || s1.IsRefined() {
		t.Fatalf("after static push: %v", s1)
	}
	if _, err := s1.Push(static("eng/a")); !errors.Is(err, ErrInvalidStack) {
		t.Fatalf("pushing a static refinement = %v, want ErrInvalidStack", err)
	}
	if _, err := s1.Push(dyn("other")); !errors.Is(err, ErrInvalidStack) {
		t.Fatalf("pushing an unrelated role = %v, want ErrInvalidStack", err)
	}
	if _, err := s1.Push(dyn("*")); !errors.Is(err, ErrInvalidReservation) {
		t.Fatalf("pushing '*' = %v, want ErrInvalidReservation", err)
	}
	s2, err := s1.Push(Reservation{Type: Dynamic, Role: "eng/backend/db", Principal: "ops", Labels: Labels{{"z", ""}, {"a", "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if s2.Role() != "eng/backend/db" || !s2.IsDynamic() || !s2.IsRefined() {
		t.Fatalf("after refinement: %v", s2)
	}
	if got := s2.String(); got != "[(STATIC,eng), (DYNAMIC,eng/backend/db,ops,{a: 1, z})]" {
		t.Fatalf("String = %q (labels should be sorted by Push)", got)
	}
	if err := s2.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(s1) != 1 {
		t.Fatal("Push changed its receiver")
	}

	back, popped, err := s2.Pop()
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(s1) || popped.Role != "eng/backend/db" || popped.Principal != "ops" {
		t.Fatalf("Pop = %v, %v", back, popped)
	}
	// Pushing onto a popped stack must not overwrite the original's entry.
	other, err := back.Push(dyn("eng/web"))
	if err != nil {
		t.Fatal(err)
	}
	if s2[1].Role != "eng/backend/db" || other.Role() != "eng/web" {
		t.Fatal("Push after Pop wrote into a shared backing array")
	}
	empty, _, err := s1.Pop()
	if err != nil || empty != nil {
		t.Fatalf("popping the last reservation = %v, %v", empty, err)
	}
}

func TestStackEqual(t *testing.T) {
	a := Stack{static("a"), {Type: Dynamic, Role: "a/b", Labels: Labels{{"x", "1"}, {"y", "2"}}}}
	b := Stack{static("a"), {Type: Dynamic, Role: "a/b", Labels: Labels{{"y", "2"}, {"x", "1"}}}}
	if !a.Equal(b) {
		t.Error("stacks differing only in label order differ")
	}
	if a.Equal(a[:1]) || a.Equal(Stack{dyn("a"), a[1]}) {
		t.Error("different stacks are equal")
	}
	if !Stack(nil).Equal(Stack{}) {
		t.Error("nil and empty stacks differ")
	}
}

// TestStackAllocatableTo is the role-family example: a reservation for a
// role may be offered to that role and its sub-roles, never to its parent
// or siblings.
func TestStackAllocatableTo(t *testing.T) {
	roles := []string{"a", "a/b", "a/b/c", "a/bc", "a/d", "b", "*"}
	tests := []struct {
		stack Stack
		to    []string
	}{
		{nil, roles},
		{Stack{static("a")}, []string{"a", "a/b", "a/b/c", "a/bc", "a/d"}},
		{Stack{dyn("a"), dyn("a/b")}, []string{"a/b", "a/b/c"}},
		{Stack{dyn("a/b/c")}, []string{"a/b/c"}},
		{Stack{dyn("b")}, []string{"b"}},
	}
	for _, tt := range tests {
		for _, role := range roles {
			want := false
			for _, r := range tt.to {
				want = want || r == role
			}
			if got := tt.stack.AllocatableTo(role); got != want {
				t.Errorf("%v.AllocatableTo(%q) = %v, want %v", tt.stack, role, got, want)
			}
		}
	}
}

func TestCommonAncestor(t *testing.T) {
	eng := Reservation{Type: Dynamic, Role: "eng", Principal: "ops"}
	static := Reservation{Type: Static, Role: "eng"}
	db := Reservation{Type: Dynamic, Role: "eng/db", Principal: "ops"}
	web := Reservation{Type: Dynamic, Role: "eng/web", Principal: "ops"}
	dbLabelled := Reservation{Type: Dynamic, Role: "eng/db", Principal: "ops", Labels: Labels{{Key: "k", Value: "v"}}}
	for _, tc := range []struct {
		name string
		a, b Stack
		want Stack
	}{
		{"two refinements of one reservation", Stack{eng, db}, Stack{eng, web}, Stack{eng}},
		{"a refinement and its parent", Stack{eng, db}, Stack{eng}, Stack{eng}},
		{"the same stack", Stack{eng, db}, Stack{eng, db}, Stack{eng, db}},
		{"labels tell refinements apart", Stack{eng, db}, Stack{eng, dbLabelled}, Stack{eng}},
		{"different first reservations", Stack{eng, db}, Stack{static, db}, nil},
		{"one unreserved", Stack{eng}, nil, nil},
		{"both unreserved", nil, nil, nil},
	} {
		got := tc.a.CommonAncestor(tc.b)
		if !got.Equal(tc.want) {
			t.Errorf("%s: %v.CommonAncestor(%v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
		if back := tc.b.CommonAncestor(tc.a); !back.Equal(tc.want) {
			t.Errorf("%s: not symmetric: %v", tc.name, back)
		}
	}
	// The result never lets an append change the receiver.
	s := Stack{eng, db}
	anc := s.CommonAncestor(Stack{eng, web})
	_ = append(anc, web)
	if !s.Equal(Stack{eng, db}) {
		t.Fatalf("appending to the ancestor changed the stack: %v", s)
	}
}
