package machine

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// UpdateWeights applies the event of Allocator.UpdateWeights.
func (m *Machine) UpdateWeights(weights map[string]float64) error {
	for _, role := range slices.Sorted(maps.Keys(weights)) {
		w := weights[role]
		if err := reservation.ValidateRole(role); err != nil {
			return fmt.Errorf("%w: weight for %q", cluster.ErrInvalidRole, role)
		}
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("%w: %q: %v", cluster.ErrInvalidWeight, role, w)
		}
	}
	for _, role := range slices.Sorted(maps.Keys(weights)) {
		w := weights[role]
		m.markRole(role)
		_ = m.roleSorter.UpdateWeight(role, w)
		if w == 1 {
			delete(m.roles.Weights, role)
			m.roles.Prune(role)
		} else {
			m.roles.Weights[role] = w
			m.roles.Ensure(role)
		}
	}
	return nil
}

// UpdateQuota applies the event of Allocator.UpdateQuota.
func (m *Machine) UpdateQuota(role string, q roles.Quota) error {
	if err := reservation.ValidateRole(role); err != nil {
		return fmt.Errorf("%w: quota for %q", cluster.ErrInvalidRole, role)
	}
	if !q.Limits.Contains(q.Guarantees) {
		return fmt.Errorf("%w: %q: guarantees %s exceed limits %s", cluster.ErrInvalidQuota, role, q.Guarantees, q.Limits)
	}
	if !q.Guarantees.Within(resources.MaxScalar) || !resources.LimitsWithin(q.Limits, resources.MaxScalar) {
		return fmt.Errorf("%w: %q: an amount above %s, the bound of quota values", cluster.ErrInvalidQuota, role, resources.MaxScalar)
	}
	if err := m.checkGuarantees(role, q.Guarantees); err != nil {
		return fmt.Errorf("quota for %q: %w", role, err)
	}
	for _, anc := range reservation.Ancestors(role) {
		if n := m.roles.Get(anc); n != nil && !n.Q().Limits.Contains(q.Guarantees) {
			return fmt.Errorf("%w: %q: guarantees %s exceed the limits %s of %q", cluster.ErrInvalidQuota, role, q.Guarantees, n.Q().Limits, anc)
		}
	}
	for _, path := range m.roles.Nodes.Keys() {
		n := m.roles.Nodes.Get(path)
		if reservation.IsStrictSubrole(path, role) && !q.Limits.Contains(n.Q().Guarantees) {
			return fmt.Errorf("%w: %q: limits %s are below the guarantees %s of %q", cluster.ErrInvalidQuota, role, q.Limits, n.Q().Guarantees, path)
		}
	}
	m.parking.Uncapped()
	m.markRole(role)
	defer m.allowances.Sync(m.roles, m.roleSorter.Sorter, role)
	q = roles.Quota{Guarantees: q.Guarantees.Clone(), Limits: q.Limits.Clone()}
	if q.IsZero() {
		if n := m.roles.Get(role); n != nil {
			n.SetQuota(roles.Quota{})
			m.roles.Prune(role)
		}
		return nil
	}
	m.roles.Ensure(role).SetQuota(q)
	return nil
}
