package reservation_test

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	rgen "github.com/allot-go/allot/internal/gen"
	"github.com/allot-go/allot/reservation"
)

func TestProperties(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))
	props.Property("a stack rebuilt by pushes equals the original and pops back to empty", prop.ForAll(
		func(s reservation.Stack) bool {
			var built reservation.Stack
			for _, r := range s {
				next, err := built.Push(r)
				if err != nil {
					return false
				}
				built = next
			}
			if !built.Equal(s) || built.Validate() != nil {
				return false
			}
			for range s {
				next, _, err := built.Pop()
				if err != nil || next.Validate() != nil {
					return false
				}
				built = next
			}
			_, _, err := built.Pop()
			return len(built) == 0 && err != nil
		}, rgen.Stack()))
	props.Property("reserved resources go to the role and its sub-roles only", prop.ForAll(
		func(s reservation.Stack, role string) bool {
			want := !s.IsReserved() || role == s.Role() || reservation.IsStrictSubrole(role, s.Role())
			return s.AllocatableTo(role) == want
		}, rgen.Stack(), rgen.Role()))
	props.Property("ancestors are strict super-roles, nearest first", prop.ForAll(
		func(role string) bool {
			prev := role
			for _, a := range reservation.Ancestors(role) {
				if !reservation.IsStrictSubrole(prev, a) || !reservation.IsStrictSubrole(role, a) {
					return false
				}
				prev = a
			}
			return reservation.TopLevel(role) == prev
		}, rgen.Role()))
	props.TestingRun(t)
}
