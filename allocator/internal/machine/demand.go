package machine

import (
	"fmt"

	"github.com/allot-go/allot/allocator/internal/cluster"
)

// UpdateDemand applies the event of Allocator.UpdateDemand.
func (m *Machine) UpdateDemand(fwID, role string, pending []cluster.Pending) error {
	fw, roles, err := m.cs.FrameworkRoles(fwID, []string{role})
	if err != nil {
		return err
	}
	if err := validateDemand(pending); err != nil {
		return fmt.Errorf("framework %q, role %q: %w", fwID, roles[0], err)
	}
	if fw.Demand == nil {
		fw.Demand = map[string][]cluster.Pending{}
	}
	stated := make([]cluster.Pending, len(pending))
	for i, p := range pending {
		stated[i] = cluster.Pending{Resources: p.Resources.Clone(), Count: p.Count}
	}
	fw.Demand[role] = stated
	m.parking.Uncapped()
	m.books.SyncActivation(fw, role)
	if len(stated) > 0 {
		m.engine.AllWantRun()
	}
	return nil
}

func validateDemand(pending []cluster.Pending) error {
	if len(pending) > cluster.MaxPending {
		return fmt.Errorf("%w: %d shapes, at most %d", cluster.ErrInvalidDemand, len(pending), cluster.MaxPending)
	}
	for i, p := range pending {
		if p.Resources.IsEmpty() {
			return fmt.Errorf("%w: shape %d needs no resources", cluster.ErrInvalidDemand, i)
		}
		for name, v := range p.Resources.All() {
			if v <= 0 {
				return fmt.Errorf("%w: shape %d needs %v of %s", cluster.ErrInvalidDemand, i, v, name)
			}
		}
		if p.Count < 1 || p.Count > cluster.MaxPendingCount {
			return fmt.Errorf("%w: shape %d (%s) has count %d, not 1 to %d", cluster.ErrInvalidDemand, i, p.Resources, p.Count, cluster.MaxPendingCount)
		}
	}
	return nil
}
