package machine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// AddFramework applies the event of Allocator.AddFramework.
func (m *Machine) AddFramework(id string, info cluster.FrameworkInfo, used map[string]resources.Resources, active bool) error {
	if err := cluster.ValidID("framework", id); err != nil {
		return err
	}
	if _, ok := m.cs.Frameworks.Lookup(id); ok {
		return fmt.Errorf("%w: %q", cluster.ErrDuplicateFramework, id)
	}
	if err := ValidateInfo(info); err != nil {
		return fmt.Errorf("framework %q: %w", id, err)
	}
	claims, err := m.cs.Claims(id, info.Roles, used)
	if err != nil {
		return err
	}
	var changes []cluster.AgentChange
	for _, agentID := range slices.Sorted(maps.Keys(used)) {
		ag, ok := m.cs.Agents.Lookup(agentID)
		if !ok || claims[agentID] {
			continue
		}
		if err := cluster.CheckUsed(used[agentID], info.Roles); err != nil {
			return fmt.Errorf("framework %q on agent %q: %w", id, agentID, err)
		}
		q, err := QuantitiesWithin(used[agentID], true, "the used resources")
		if err != nil {
			return fmt.Errorf("framework %q on agent %q: %w", id, agentID, err)
		}
		changes = append(changes, cluster.AgentChange{Ag: ag, Total: ag.Total.Quantities(), Held: q})
	}
	if err := m.cs.CheckSums(changes...); err != nil {
		return fmt.Errorf("framework %q: %w", id, err)
	}
	fw := &cluster.Framework{
		ID:     id,
		Joined: m.engine.Runs,
		Info:   info,
		Active: active,
	}
	fw.Roles.MarkOnly(tables.Subscribed, info.Roles)
	fw.Roles.MarkOnly(tables.Suppressed, info.SuppressedRoles)
	m.cs.Frameworks.Put(fw)
	for _, role := range info.Roles {
		m.books.TrackUnderRole(fw, role)
	}
	for _, agentID := range slices.Sorted(maps.Keys(used)) {
		if ag, ok := m.cs.Agents.Lookup(agentID); ok && !claims[agentID] {
			m.books.TrackAllocation(fw, ag, used[agentID], true)
		}
	}
	m.claim(fw, claims)
	if active {
		m.engine.AllWantRun()
	}
	return nil
}

// RemoveFramework applies the event of Allocator.RemoveFramework.
func (m *Machine) RemoveFramework(id string) error {
	fw, err := m.cs.Framework(id)
	if err != nil {
		return err
	}
	m.dec.ForgetFilters(fw, "")
	m.dec.LeaveRounds(fw)
	m.dec.ReleaseNum(fw)
	// The agents hold what each framework holds there: no index of a
	// framework's agents is kept, so that an offer costs no insert into
	// one.
	for _, ag := range m.cs.AgentList {
		if ag.Offered.Has(id) || ag.Allocated.Has(id) || ag.Holds().Has(id) {
			m.engine.HoldsToOffered(ag, id)
			m.books.UntrackAllocation(fw, ag, ag.Held(id), false)
		}
	}
	for ag := range m.cs.Agents.All() {
		delete(ag.Inverse(), id)
		ag.DropOffers(id)
	}
	for _, role := range fw.Roles.List(tables.Tracked) {
		m.books.UntrackUnderRole(fw, role)
	}
	for _, t := range fw.Tasks {
		m.tasks.Forget(fw, t)
	}
	m.cs.Frameworks.Delete(id)
	m.explain.Forget(fw, m.engine.Runs)
	if m.obs != nil {
		m.obs.Removed(fw.ID)
	}
	return nil
}

// ActivateFramework applies the event of Allocator.ActivateFramework.
func (m *Machine) ActivateFramework(id string) error {
	fw, err := m.cs.Framework(id)
	if err != nil {
		return err
	}
	fw.Active = true
	for role := range fw.Roles.All(tables.Subscribed) {
		m.books.SyncActivation(fw, role)
	}
	m.engine.AllWantRun()
	return nil
}

// DeactivateFramework applies the event of Allocator.DeactivateFramework.
func (m *Machine) DeactivateFramework(id string) error {
	fw, err := m.cs.Framework(id)
	if err != nil {
		return err
	}
	fw.Active = false
	for role := range fw.Roles.All(tables.Tracked) {
		m.books.SyncActivation(fw, role)
	}
	m.dec.ForgetFilters(fw, "")
	m.dec.LeaveRounds(fw)
	clear(fw.InverseFilters)
	return nil
}

// UpdateFramework applies the event of Allocator.UpdateFramework.
func (m *Machine) UpdateFramework(id string, info cluster.FrameworkInfo) error {
	fw, err := m.cs.Framework(id)
	if err != nil {
		return err
	}
	if err := ValidateInfo(info); err != nil {
		return fmt.Errorf("framework %q: %w", id, err)
	}
	m.parking.Uncapped() // minimum allocatable resources may have changed
	for _, role := range fw.Roles.List(tables.Subscribed) {
		if slices.Contains(info.Roles, role) {
			continue
		}
		fw.Roles.Unmark(role, tables.Subscribed)
		m.dec.ForgetFilters(fw, role)
		fw.Roles.Unmark(role, tables.Suppressed)
		delete(fw.Demand, role)
		if len(fw.Demand) == 0 {
			fw.Demand = nil
		}
		m.books.SyncActivation(fw, role)
		if m.cs.HeldInRole(id, role).IsEmpty() {
			m.books.UntrackUnderRole(fw, role)
		}
	}
	fw.Info = info
	fw.Roles.MarkOnly(tables.Suppressed, info.SuppressedRoles)
	for _, role := range info.Roles {
		fw.Roles.Mark(role, tables.Subscribed)
		m.books.TrackUnderRole(fw, role)
	}
	for _, role := range fw.Roles.List(tables.Subscribed) {
		m.books.SyncActivation(fw, role)
	}
	return nil
}

// SuppressOffers applies the event of Allocator.SuppressOffers.
func (m *Machine) SuppressOffers(id string, roles ...string) error {
	fw, roles, err := m.cs.FrameworkRoles(id, roles)
	if err != nil {
		return err
	}
	for _, role := range roles {
		fw.Roles.Mark(role, tables.Suppressed)
		m.books.SyncActivation(fw, role)
	}
	return nil
}

// ReviveOffers applies the event of Allocator.ReviveOffers.
func (m *Machine) ReviveOffers(id string, roles ...string) error {
	fw, roles, err := m.cs.FrameworkRoles(id, roles)
	if err != nil {
		return err
	}
	for _, role := range roles {
		fw.Roles.Unmark(role, tables.Suppressed)
		m.dec.ForgetFilters(fw, role)
		m.books.SyncActivation(fw, role)
	}
	m.dec.LeaveRounds(fw)
	clear(fw.InverseFilters)
	m.engine.AllWantRun()
	return nil
}

// ValidateInfo checks what a framework says of itself: roles valid, and
// everything it says per role said of a role it subscribes to.
func ValidateInfo(info cluster.FrameworkInfo) error {
	if len(info.Roles) == 0 {
		return fmt.Errorf("%w: framework has no roles", cluster.ErrInvalidRole)
	}
	for _, role := range info.Roles {
		if err := reservation.ValidateRole(role); err != nil {
			return fmt.Errorf("%w: %w", cluster.ErrInvalidRole, err)
		}
	}
	for _, role := range info.SuppressedRoles {
		if !slices.Contains(info.Roles, role) {
			return fmt.Errorf("%w: suppressed role %q is not subscribed", cluster.ErrInvalidRole, role)
		}
	}
	for role := range info.MinAllocatable {
		if !slices.Contains(info.Roles, role) {
			return fmt.Errorf("%w: minimum allocatable for unsubscribed role %q", cluster.ErrInvalidRole, role)
		}
	}
	for role, cs := range info.Constraints {
		if !slices.Contains(info.Roles, role) {
			return fmt.Errorf("%w: constraints for unsubscribed role %q", cluster.ErrInvalidRole, role)
		}
		for _, g := range cs {
			for _, c := range g {
				if c.Op < cluster.OpExists || c.Op > cluster.OpNotEquals {
					return fmt.Errorf("%w: unknown constraint operator %d", cluster.ErrInvalidRole, c.Op)
				}
			}
		}
	}
	return nil
}
