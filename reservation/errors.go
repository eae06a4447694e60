package reservation

import "errors"

// Errors returned by this package. They are wrapped with detail; test for them
// with errors.Is.
var (
	// ErrInvalidRole: a role name breaks the naming rules of ValidateRole.
	ErrInvalidRole = errors.New("reservation: invalid role")
	// ErrInvalidReservation: a single reservation is malformed (no role, the
	// role "*", an unknown type, a label without key).
	ErrInvalidReservation = errors.New("reservation: invalid reservation")
	// ErrInvalidStack: a reservation stack breaks the refinement rules.
	ErrInvalidStack = errors.New("reservation: invalid reservation stack")
	// ErrNotReserved: a pop from an empty stack.
	ErrNotReserved = errors.New("reservation: not reserved")
)
