package resources

import "errors"

// Errors returned by this package. Each is wrapped with the offending token
// and the rule it breaks; test with errors.Is.
var (
	// ErrInvalidScalar: NaN, infinite, negative, too large, or a non-zero
	// value that rounds to zero at three decimals.
	ErrInvalidScalar = errors.New("resources: invalid scalar")
	// ErrInvalidRanges: a range with begin > end, or overlapping ranges.
	ErrInvalidRanges = errors.New("resources: invalid ranges")
	// ErrInvalidSet: an empty or duplicate set item.
	ErrInvalidSet = errors.New("resources: invalid set")
	// ErrInvalidName: an empty resource name or one with reserved characters.
	ErrInvalidName = errors.New("resources: invalid name")
	// ErrInvalidReservation: the reservation stack breaks the refinement
	// rules, or reserves for "*".
	ErrInvalidReservation = errors.New("resources: invalid reservation")
	// ErrInvalidDisk: disk metadata on a non-disk resource, or invalid disk
	// metadata.
	ErrInvalidDisk = errors.New("resources: invalid disk")
	// ErrInvalidShared: shared on something that is not a persistent volume.
	ErrInvalidShared = errors.New("resources: shared resource is not a persistent volume")
	// ErrInvalidRole: an invalid role in text or JSON.
	ErrInvalidRole = errors.New("resources: invalid role")
	// ErrMixedTypes: the same name with two value types.
	ErrMixedTypes = errors.New("resources: same name with different types")
	// ErrSyntax: text or JSON that cannot be read.
	ErrSyntax = errors.New("resources: syntax error")
	// ErrInvalidQuantities: text or values that are not quantities.
	ErrInvalidQuantities = errors.New("resources: invalid quantities")
	// ErrNotReserved: popping a reservation from unreserved resources.
	ErrNotReserved = errors.New("resources: not reserved")
)
