package reservation

import (
	"fmt"
	"strings"
)

// Stack is the reservation history of a resource, oldest first. An empty
// stack means unreserved. The first entry is static or dynamic; every later
// entry is dynamic and reserves for a strict sub-role of the entry before it
// (a refinement; levels may be skipped: "eng" to "eng/backend/db"). The last
// entry is the current reservation.
//
// A Stack is a value: Push and Pop return new stacks and never modify the
// receiver's backing array.
type Stack []Reservation

// Role returns the role the stack currently reserves for, or "*" when empty.
func (s Stack) Role() string {
	if len(s) == 0 {
		return Any
	}
	return s[len(s)-1].Role
}

// IsReserved reports whether the stack holds any reservation.
func (s Stack) IsReserved() bool { return len(s) > 0 }

// IsDynamic reports whether the current (last) reservation is dynamic.
func (s Stack) IsDynamic() bool { return len(s) > 0 && s[len(s)-1].Type == Dynamic }

// IsRefined reports whether the stack holds more than one reservation.
func (s Stack) IsRefined() bool { return len(s) > 1 }

// Last returns the current reservation and true, or false when unreserved.
func (s Stack) Last() (Reservation, bool) {
	if len(s) == 0 {
		return Reservation{}, false
	}
	return s[len(s)-1], true
}

// Equal compares two stacks entry by entry.
func (s Stack) Equal(o Stack) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if !s[i].Equal(o[i]) {
			return false
		}
	}
	return true
}

// CommonAncestor returns the longest stack both s and o start with: the
// reservations they share before they part (Mesos's
// getReservationAncestor). Two refinements of one reservation have it as
// their common ancestor; stacks that differ from the first entry, or an
// unreserved one, have the empty stack. The result shares s's storage.
func (s Stack) CommonAncestor(o Stack) Stack {
	n := 0
	for n < len(s) && n < len(o) && s[n].Equal(o[n]) {
		n++
	}
	if n == 0 {
		return nil
	}
	return s[:n:n]
}

// Validate checks every entry and the refinement rules between entries.
func (s Stack) Validate() error {
	for i, r := range s {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("%w: entry %d: %w", ErrInvalidStack, i, err)
		}
		if i == 0 {
			continue
		}
		if r.Type != Dynamic {
			return fmt.Errorf("%w: refined entry %d %s is not dynamic", ErrInvalidStack, i, r)
		}
		if !IsStrictSubrole(r.Role, s[i-1].Role) {
			return fmt.Errorf("%w: refined role %q is not a strict sub-role of %q", ErrInvalidStack, r.Role, s[i-1].Role)
		}
	}
	return nil
}

// CanPush reports, as an error, whether r may be pushed onto s: r must be
// valid, and on a non-empty stack dynamic and for a strict sub-role of the
// current role.
func (s Stack) CanPush(r Reservation) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if len(s) == 0 {
		return nil
	}
	if r.Type != Dynamic {
		return fmt.Errorf("%w: refinement %s is not dynamic", ErrInvalidStack, r)
	}
	if !IsStrictSubrole(r.Role, s.Role()) {
		return fmt.Errorf("%w: refined role %q is not a strict sub-role of %q", ErrInvalidStack, r.Role, s.Role())
	}
	return nil
}

// Push returns a new stack with r on top, or an error (and s unchanged) if r
// may not be pushed.
func (s Stack) Push(r Reservation) (Stack, error) {
	if err := s.CanPush(r); err != nil {
		return s, err
	}
	out := make(Stack, len(s), len(s)+1)
	copy(out, s)
	r.Labels = r.Labels.Canonical()
	return append(out, r), nil
}

// Pop returns the stack without its current reservation, and that
// reservation. Popping an empty stack is an error. The resources go back to
// the previous entry's role, or become unreserved: popping the only entry
// gives a nil stack.
func (s Stack) Pop() (Stack, Reservation, error) {
	if len(s) == 0 {
		return s, Reservation{}, ErrNotReserved
	}
	if len(s) == 1 {
		return nil, s[0], nil
	}
	return s[: len(s)-1 : len(s)-1], s[len(s)-1], nil
}

// AllocatableTo reports whether resources reserved with s may be offered to
// role: unreserved resources may go to anyone; reserved ones to the current
// reservation role and its sub-roles.
func (s Stack) AllocatableTo(role string) bool {
	return len(s) == 0 || IsSubroleOrSelf(role, s.Role())
}

// String renders the stack as Mesos does: [(STATIC,a),(DYNAMIC,a/b,p,{k: v})].
func (s Stack) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	b.WriteByte(']')
	return b.String()
}
