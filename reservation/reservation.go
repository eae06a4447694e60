package reservation

import (
	"fmt"
	"slices"
	"strings"
)

// Type says how a reservation was made.
type Type uint8

const (
	// Static reservations are made by the agent's configuration. They can be
	// neither unreserved nor refined by an operation.
	Static Type = iota + 1
	// Dynamic reservations are made and removed by operations (RESERVE and
	// UNRESERVE) from frameworks or operators.
	Dynamic
)

// String returns "STATIC" or "DYNAMIC", as Mesos prints them.
func (t Type) String() string {
	switch t {
	case Static:
		return "STATIC"
	case Dynamic:
		return "DYNAMIC"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Label is a key with an optional value attached to a reservation.
type Label struct {
	Key   string
	Value string
}

// Labels is a list of labels compared without regard to order. A nil Labels
// means "no labels" and differs from a non-nil empty Labels ("labels present
// but empty"), as in Mesos, so reservations with the one and with the other
// never merge.
type Labels []Label

// Equal reports whether l and o hold the same labels, in any order. Duplicate
// labels count: {a, a} differs from {a}. A nil Labels equals only a nil Labels.
func (l Labels) Equal(o Labels) bool {
	if (l == nil) != (o == nil) || len(l) != len(o) {
		return false
	}
	if len(l) == 0 || slices.Equal(l, o) {
		return true
	}
	if slices.IsSortedFunc(l, compareLabel) && slices.IsSortedFunc(o, compareLabel) {
		// Canonical labels (as Resources keeps them) differ element-wise
		// exactly when they differ as sets: no copies needed.
		return false
	}
	a, b := slices.Clone(l), slices.Clone(o)
	slices.SortFunc(a, compareLabel)
	slices.SortFunc(b, compareLabel)
	return slices.Equal(a, b)
}

// Canonical returns the labels sorted by key and value; nil stays nil and
// empty stays empty. Sorted labels let equal label sets compare element-wise.
func (l Labels) Canonical() Labels {
	if l == nil || slices.IsSortedFunc(l, compareLabel) {
		return l
	}
	c := slices.Clone(l)
	slices.SortFunc(c, compareLabel)
	return c
}

func compareLabel(a, b Label) int {
	if c := strings.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	return strings.Compare(a.Value, b.Value)
}

// String renders the labels as Mesos does: {k: v, k2}.
func (l Labels) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, label := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(label.Key)
		if label.Value != "" {
			b.WriteString(": ")
			b.WriteString(label.Value)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// Reservation is one entry of a reservation stack: the role the resources are
// reserved for, how, by whom, and with which labels.
type Reservation struct {
	Type Type
	Role string
	// Principal that made a dynamic reservation; "" means none.
	Principal string
	// Labels attached by the reserver; see Labels for nil versus empty.
	Labels Labels
}

// Equal reports whether r and o are the same reservation: type, role,
// principal and labels (order-free).
func (r Reservation) Equal(o Reservation) bool {
	return r.Type == o.Type && r.Role == o.Role && r.Principal == o.Principal && r.Labels.Equal(o.Labels)
}

// Validate checks the reservation on its own: a known type, a valid role that
// is not "*", labels with keys.
func (r Reservation) Validate() error {
	if r.Type != Static && r.Type != Dynamic {
		return fmt.Errorf("%w: unknown type %d", ErrInvalidReservation, r.Type)
	}
	if r.Role == "" {
		return fmt.Errorf("%w: no role", ErrInvalidReservation)
	}
	if r.Role == Any {
		return fmt.Errorf("%w: role '*' cannot be reserved for", ErrInvalidReservation)
	}
	if err := ValidateRole(r.Role); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidReservation, err)
	}
	for _, label := range r.Labels {
		if label.Key == "" {
			return fmt.Errorf("%w: label with empty key", ErrInvalidReservation)
		}
	}
	return nil
}

// String renders the reservation as Mesos does: (DYNAMIC,role,principal,{labels}).
func (r Reservation) String() string {
	var b strings.Builder
	b.WriteByte('(')
	b.WriteString(r.Type.String())
	b.WriteByte(',')
	b.WriteString(r.Role)
	if r.Principal != "" || r.Labels != nil {
		b.WriteByte(',')
		b.WriteString(r.Principal)
	}
	if r.Labels != nil {
		b.WriteByte(',')
		b.WriteString(r.Labels.String())
	}
	b.WriteByte(')')
	return b.String()
}
