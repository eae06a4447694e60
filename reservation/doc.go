// Package reservation models roles and reservations: role names and their
// hierarchy, single reservations (static or dynamic, with principal and
// labels) and reservation stacks, which record how a reservation was refined
// down the role hierarchy.
//
// It has no dependencies inside the module; package resources attaches a
// Stack to every resource.
//
// # Usage
//
// Roles are "/"-separated paths. Check names from outside with ValidateRole
// and walk the hierarchy with Parent, Ancestors, TopLevel and
// IsStrictSubrole:
//
//	if err := reservation.ValidateRole("eng/backend"); err != nil { ... }
//	reservation.IsStrictSubrole("eng/backend/db", "eng") // true
//	reservation.Ancestors("eng/backend/db")              // [eng/backend eng]
//
// A Reservation says for which role resources are reserved, how (Static, by
// the agent's configuration, or Dynamic, by an operation), by which principal
// and with which labels. A Stack is the history of reservations of a
// resource, oldest first; an empty stack means unreserved. Push reserves or
// refines, Pop undoes the last step:
//
//	var s reservation.Stack
//	s, err := s.Push(reservation.Reservation{Type: reservation.Dynamic, Role: "eng", Principal: "ops"})
//	s, err = s.Push(reservation.Reservation{Type: reservation.Dynamic, Role: "eng/backend"})
//	s.Role()                   // "eng/backend"
//	s.AllocatableTo("eng")     // false: refined away from the parent
//	s, last, err := s.Pop()    // back to "eng"
//
// # Implementation notes
//
// The rules are Mesos's (src/common/roles.cpp and the reservation refinement
// design):
//
//   - A role is "*" or a non-empty path with no leading, trailing or doubled
//     "/", no component ".", ".." or "*", no component starting with "-", and
//     no whitespace or control characters (Mesos names the ASCII whitespace
//     and DEL; here every Unicode space and control character is refused, and
//     so is text that is not valid UTF-8).
//   - "*" stands for unreserved resources and can never be reserved for; it
//     is not part of the hierarchy, so nothing is its sub-role.
//   - A stack's first entry is static or dynamic. Every later entry is
//     dynamic and reserves for a strict sub-role of the entry before it;
//     levels may be skipped ("eng" to "eng/backend/db"). Stack.Validate,
//     Stack.CanPush and Stack.Push enforce this; Pop refuses an empty stack
//     with ErrNotReserved.
//   - Two reservations are equal when type, role, principal and labels are.
//     Labels compare as multisets: order does not matter, duplicates count
//     ({a, a} differs from {a, b}; Mesos's check, "same size and each label
//     found in the other", would call {a, a, b} and {a, b, b} equal). A nil
//     Labels ("no labels") differs from an empty non-nil one ("labels present
//     but empty"), as in Mesos, so reservations that differ only there never
//     merge. A label value "" is the same as no value.
//   - Push stores labels sorted (Labels.Canonical), so equal stacks print
//     alike.
//   - Stack is a value: Push and Pop never write to the receiver's backing
//     array, so stacks may be shared freely.
//
// Errors wrap ErrInvalidRole, ErrInvalidReservation, ErrInvalidStack or
// ErrNotReserved and name the offending role or entry; test with errors.Is.
package reservation
