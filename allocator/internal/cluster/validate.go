package cluster

import (
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// HeadroomOf returns the unreserved, non-revocable scalar quantities: what
// quota headroom and limits are about.
func HeadroomOf(res resources.Resources) resources.Quantities {
	var q resources.Quantities
	res.AddUnreservedQuantitiesTo(&q)
	return q
}

// CheckUsed checks resources a host says a framework uses: valid, each
// allocated to one of the framework's roles and reservable to it.
func CheckUsed(used resources.Resources, roles []string) error {
	for r := range used.All() {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidResources, err)
		}
		if r.AllocationRole == "" {
			return fmt.Errorf("%w: %s has no allocation role", ErrInvalidResources, r)
		}
		if !slices.Contains(roles, r.AllocationRole) {
			return fmt.Errorf("%w: %q", ErrRoleNotSubscribed, r.AllocationRole)
		}
		if !r.Reservations.AllocatableTo(r.AllocationRole) {
			return fmt.Errorf("%w: %s is reserved for another role", ErrInvalidResources, r)
		}
	}
	return nil
}

// pickRoles returns the roles an event names for fw, all its roles when
// it names none; a role fw is not subscribed to is an error.
func pickRoles(fw *Framework, roles []string) ([]string, error) {
	if len(roles) == 0 {
		return fw.Roles.List(tables.Subscribed), nil
	}
	for _, role := range roles {
		if !fw.Roles.Has(role, tables.Subscribed) {
			return nil, fmt.Errorf("%w: framework %q, role %q", ErrRoleNotSubscribed, fw.ID, role)
		}
	}
	return roles, nil
}

// ValidID checks an agent's, framework's or task's id: not empty, valid
// UTF-8 (the journal writes ids as JSON strings, which would replace a
// byte that is not with U+FFFD, and a replay would then name another id),
// no control characters (C0, DEL or C1).
func ValidID(kind, id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty %s id", ErrInvalidID, kind)
	}
	if !utf8.ValidString(id) {
		return fmt.Errorf("%w: %s id %q is not valid UTF-8", ErrInvalidID, kind, id)
	}
	for _, c := range id {
		if unicode.IsControl(c) {
			return fmt.Errorf("%w: %s id %q has control characters", ErrInvalidID, kind, id)
		}
	}
	return nil
}

// AgentChange is what an event would do to one agent's sums: its total
// quantities after the event and the non-shared scalars it adds to what is
// held there. Ag is nil for an agent being added.
type AgentChange struct {
	Ag    *Agent
	Total resources.Quantities
	Held  resources.Quantities
}
