package machine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// AddAgent applies the event of Allocator.AddAgent.
func (m *Machine) AddAgent(id string, info cluster.AgentInfo, total resources.Resources, used map[string]resources.Resources) error {
	if err := cluster.ValidID("agent", id); err != nil {
		return err
	}
	if _, ok := m.cs.Agents.Lookup(id); ok {
		return fmt.Errorf("%w: %q", cluster.ErrDuplicateAgent, id)
	}
	totalQ, err := checkTotal(total)
	if err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	if err := m.cs.CheckReportedUse(id, used); err != nil {
		return err
	}
	usedQ, err := usedQuantities(used, "the used resources")
	if err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	if err := m.cs.CheckSums(cluster.AgentChange{Total: totalQ, Held: usedQ}); err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	ag := &cluster.Agent{
		ID:     id,
		Info:   info,
		Total:  m.cs.Shape(total),
		Active: true,
		RefGen: 1,
	}
	if unclaimed := m.cs.UnknownUse(used); unclaimed != nil {
		ag.More().Unclaimed = unclaimed
	}
	m.cs.NumberAgent(ag)
	m.cs.Agents.Put(ag)
	i, _ := m.cs.AgentPlace(id)
	m.cs.AgentList = slices.Insert(m.cs.AgentList, i, ag)
	m.books.AddTotal(ag)
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := m.cs.Frameworks.Lookup(fwID); ok {
			m.books.TrackAllocation(fw, ag, used[fwID], true)
		}
	}
	m.engine.WantsRun(ag)
	return nil
}

// checkTotal validates an agent's total and returns its scalar quantities.
func checkTotal(total resources.Resources) (resources.Quantities, error) {
	for r := range total.All() {
		if err := r.Validate(); err != nil {
			return resources.Quantities{}, fmt.Errorf("%w: %w", cluster.ErrInvalidResources, err)
		}
	}
	return QuantitiesWithin(total, false, "the total")
}

// RemoveAgent applies the event of Allocator.RemoveAgent.
func (m *Machine) RemoveAgent(id string) error {
	ag, err := m.cs.Agent(id)
	if err != nil {
		return err
	}
	m.engine.HoldsToOffered(ag, "")
	for _, fwID := range ag.FrameworkIDs() {
		if fw, ok := m.cs.Frameworks.Lookup(fwID); ok {
			m.books.UntrackAllocation(fw, ag, ag.Held(fwID), false)
		}
	}
	for fw := range m.cs.Frameworks.All() {
		m.tasks.DropOn(fw, id)
	}
	m.books.RemoveTotal(ag)
	m.dec.ForgetAgentFilters(ag)
	m.cs.UnnumberAgent(ag)
	m.cs.Forget(ag)
	m.cs.Agents.Delete(id)
	if i, ok := m.cs.AgentPlace(id); ok {
		m.cs.AgentList = slices.Delete(m.cs.AgentList, i, i+1)
	}
	m.engine.Pending.Delete(id)
	return nil
}

// UpdateAgent applies the event of Allocator.UpdateAgent.
func (m *Machine) UpdateAgent(id string, info cluster.AgentInfo, total *resources.Resources) error {
	ag, err := m.cs.Agent(id)
	if err != nil {
		return err
	}
	if total != nil {
		totalQ, err := checkTotal(*total)
		if err != nil {
			return fmt.Errorf("agent %q: %w", id, err)
		}
		if err := m.cs.CheckSums(cluster.AgentChange{Ag: ag, Total: totalQ}); err != nil {
			return fmt.Errorf("agent %q: %w", id, err)
		}
	}
	changed := false
	if !attributesEqual(ag.Info.Attributes, info.Attributes) {
		changed = true
		m.dec.ForgetAgentFilters(ag)
	}
	if ag.Info.Hostname != info.Hostname || ag.Info.Region != info.Region || ag.Info.Capabilities != info.Capabilities {
		changed = true
	}
	ag.Info = info
	if changed {
		ag.Version++
		m.dec.AgentChanged(ag)
	}
	if total != nil {
		if shaped := m.cs.Shape(*total); !shaped.Equal(ag.Total) {
			changed = true
			m.books.RemoveTotal(ag)
			ag.Total = shaped
			m.books.AddTotal(ag)
		}
	}
	if changed {
		m.engine.WantsRun(ag)
	}
	return nil
}

// AddResourceProvider applies the event of Allocator.AddResourceProvider.
func (m *Machine) AddResourceProvider(agentID string, total resources.Resources, used map[string]resources.Resources) error {
	ag, err := m.cs.Agent(agentID)
	if err != nil {
		return err
	}
	providerQ, err := checkTotal(total)
	if err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	if err := m.cs.CheckReportedUse(agentID, used); err != nil {
		return err
	}
	usedQ, err := usedQuantities(used, "the used resources")
	if err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	agentQ := ag.Total.Quantities()
	if err := addWithin(&agentQ, providerQ, "the agent and its resource provider"); err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	if err := m.cs.CheckSums(cluster.AgentChange{Ag: ag, Total: agentQ, Held: usedQ}); err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	m.books.RemoveTotal(ag)
	ag.Total = ag.Total.Plus(total.Unallocate())
	for fwID, res := range m.cs.UnknownUse(used) {
		rare := ag.More()
		if rare.Unclaimed == nil {
			rare.Unclaimed = map[string]resources.Resources{}
		}
		rare.Unclaimed[fwID] = rare.Unclaimed[fwID].Plus(res)
	}
	m.books.AddTotal(ag)
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := m.cs.Frameworks.Lookup(fwID); ok {
			m.books.TrackAllocation(fw, ag, used[fwID], true)
		}
	}
	return nil
}

// UpdateWhitelist applies the event of Allocator.UpdateWhitelist.
func (m *Machine) UpdateWhitelist(hostnames []string) {
	if hostnames == nil {
		m.engine.Whitelist = nil
		return
	}
	m.engine.Whitelist = make(map[string]struct{}, len(hostnames))
	for _, h := range hostnames {
		m.engine.Whitelist[h] = struct{}{}
	}
}

func attributesEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
