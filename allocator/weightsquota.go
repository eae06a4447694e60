package allocator

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// UpdateWeights sets role weights (default 1). A role with weight 2 is
// entitled to twice the share of a role with weight 1. Weights apply to the
// role's node in the role tree; the default role "*" is a top-level role
// like any other. No allocation is triggered.
func (a *Allocator) UpdateWeights(weights map[string]float64) error {
	return a.stepErr(Entry{Event: EventUpdateWeights, Weights: weights})
}

// updateWeights is UpdateWeights's handler (see events.go).
func (a *Allocator) updateWeights(weights map[string]float64) error {
	for _, role := range slices.Sorted(maps.Keys(weights)) {
		w := weights[role]
		if err := reservation.ValidateRole(role); err != nil {
			return fmt.Errorf("%w: weight for %q", ErrInvalidRole, role)
		}
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("%w: %q: %v", ErrInvalidWeight, role, w)
		}
	}
	for _, role := range slices.Sorted(maps.Keys(weights)) {
		w := weights[role]
		a.obs.markRole(role)
		_ = a.roleSorter.UpdateWeight(role, w)
		if w == 1 {
			delete(a.roles.Weights, role)
			a.roles.Prune(role)
		} else {
			a.roles.Weights[role] = w
			a.roles.Ensure(role)
		}
	}
	return nil
}

// UpdateQuota sets a role's quota; the zero Quota removes it. Quota may be
// set on nested roles: a child's consumption counts against every ancestor's
// guarantee and limit. The default role "*" takes quota like any top-level
// role, as in Mesos: a limit on it caps the frameworks that run in "*". Guarantees above the role's own limits or an
// ancestor's, and limits below a descendant's guarantees, are rejected. No
// allocation is triggered.
func (a *Allocator) UpdateQuota(role string, q Quota) error {
	return a.stepErr(Entry{Event: EventUpdateQuota, Role: role, Quota: q})
}

// updateQuota is UpdateQuota's handler (see events.go).
func (a *Allocator) updateQuota(role string, q Quota) error {
	if err := reservation.ValidateRole(role); err != nil {
		return fmt.Errorf("%w: quota for %q", ErrInvalidRole, role)
	}
	if !q.Limits.Contains(q.Guarantees) {
		return fmt.Errorf("%w: %q: guarantees %s exceed limits %s", ErrInvalidQuota, role, q.Guarantees, q.Limits)
	}
	if !q.Guarantees.Within(resources.MaxScalar) || !resources.LimitsWithin(q.Limits, resources.MaxScalar) {
		return fmt.Errorf("%w: %q: an amount above %s, the bound of quota values", ErrInvalidQuota, role, resources.MaxScalar)
	}
	if err := a.checkGuarantees(role, q.Guarantees); err != nil {
		return fmt.Errorf("quota for %q: %w", role, err)
	}
	for _, anc := range reservation.Ancestors(role) {
		if n := a.roles.Get(anc); n != nil && !n.Q().Limits.Contains(q.Guarantees) {
			return fmt.Errorf("%w: %q: guarantees %s exceed the limits %s of %q", ErrInvalidQuota, role, q.Guarantees, n.Q().Limits, anc)
		}
	}
	for _, path := range a.roles.Nodes.Keys() {
		n := a.roles.Nodes.Get(path)
		if reservation.IsStrictSubrole(path, role) && !q.Limits.Contains(n.Q().Guarantees) {
			return fmt.Errorf("%w: %q: limits %s are below the guarantees %s of %q", ErrInvalidQuota, role, q.Limits, n.Q().Guarantees, path)
		}
	}
	a.parking.Uncapped()
	a.obs.markRole(role)
	defer a.allowances.Sync(a.roles, a.roleSorter.Sorter, role)
	q = Quota{Guarantees: q.Guarantees.Clone(), Limits: q.Limits.Clone()}
	if q.IsZero() {
		if n := a.roles.Get(role); n != nil {
			n.SetQuota(roles.Quota{})
			a.roles.Prune(role)
		}
		return nil
	}
	a.roles.Ensure(role).SetQuota(roles.Quota(q))
	return nil
}
