package reservation_test

import (
	"errors"
	"fmt"

	"github.com/allot-go/allot/reservation"
)

func ExampleValidateRole() {
	for _, role := range []string{"*", "eng/backend", "eng//backend", "-eng", "eng/..", "a b"} {
		fmt.Printf("%q: %v\n", role, reservation.ValidateRole(role))
	}
	// Output:
	// "*": <nil>
	// "eng/backend": <nil>
	// "eng//backend": reservation: invalid role "eng//backend": contains '//'
	// "-eng": reservation: invalid role "-eng": component "-eng" starts with '-'
	// "eng/..": reservation: invalid role "eng/..": component ".." is reserved
	// "a b": reservation: invalid role "a b": contains whitespace or control character ' '
}

func ExampleAncestors() {
	fmt.Println(reservation.Ancestors("eng/backend/db"))
	parent, ok := reservation.Parent("eng/backend")
	fmt.Println(parent, ok)
	fmt.Println(reservation.IsStrictSubrole("eng/backend/db", "eng"))
	fmt.Println(reservation.IsStrictSubrole("engineering", "eng"))
	// Output:
	// [eng/backend eng]
	// eng true
	// true
	// false
}

// A reservation is made, refined to a sub-role, and undone one step at a
// time.
func ExampleStack() {
	var s reservation.Stack
	s, err := s.Push(reservation.Reservation{Type: reservation.Dynamic, Role: "eng", Principal: "ops"})
	if err != nil {
		panic(err)
	}
	s, err = s.Push(reservation.Reservation{
		Type: reservation.Dynamic, Role: "eng/backend", Principal: "ops",
		Labels: reservation.Labels{{Key: "team", Value: "storage"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(s, s.Role())
	fmt.Println("for eng:", s.AllocatableTo("eng"), "for eng/backend/db:", s.AllocatableTo("eng/backend/db"))

	// A refinement must be dynamic and for a strict sub-role.
	_, err = s.Push(reservation.Reservation{Type: reservation.Dynamic, Role: "eng"})
	fmt.Println(errors.Is(err, reservation.ErrInvalidStack), err)

	s, popped, _ := s.Pop()
	fmt.Println("popped", popped, "now", s.Role())
	s, _, _ = s.Pop()
	fmt.Println("unreserved:", !s.IsReserved(), s.Role())
	// Output:
	// [(DYNAMIC,eng,ops), (DYNAMIC,eng/backend,ops,{team: storage})] eng/backend
	// for eng: false for eng/backend/db: true
	// true reservation: invalid reservation stack: refined role "eng" is not a strict sub-role of "eng/backend"
	// popped (DYNAMIC,eng/backend,ops,{team: storage}) now eng
	// unreserved: true *
}

func ExampleLabels_Equal() {
	a := reservation.Labels{{Key: "a", Value: "1"}, {Key: "b"}}
	b := reservation.Labels{{Key: "b"}, {Key: "a", Value: "1"}}
	fmt.Println(a.Equal(b))
	// No labels differs from empty labels, as in Mesos.
	fmt.Println(reservation.Labels(nil).Equal(reservation.Labels{}))
	// Output:
	// true
	// false
}
