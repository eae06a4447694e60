package allocator

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// AddAgent adds an agent with its total resources. used lists, per
// framework, what runs there already (tagged with allocation roles). What a
// framework not added yet uses counts as in use on the agent, not offered,
// until AddFramework claims it (unclaimed.go), as Mesos counts it. It
// triggers an allocation of this agent.
func (a *Allocator) AddAgent(id string, info AgentInfo, total resources.Resources, used map[string]resources.Resources) error {
	return a.stepErr(Entry{Event: EventAddAgent, Agent: id, AgentInfo: &info, Resources: total, Used: used})
}

// addAgent is AddAgent's handler (see events.go).
func (a *Allocator) addAgent(id string, info AgentInfo, total resources.Resources, used map[string]resources.Resources) error {
	if err := cluster.ValidID("agent", id); err != nil {
		return err
	}
	if _, ok := a.cs.Agents.Lookup(id); ok {
		return fmt.Errorf("%w: %q", ErrDuplicateAgent, id)
	}
	totalQ, err := checkTotal(total)
	if err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	if err := a.cs.CheckReportedUse(id, used); err != nil {
		return err
	}
	usedQ, err := usedQuantities(used, "the used resources")
	if err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	if err := a.cs.CheckSums(cluster.AgentChange{Total: totalQ, Held: usedQ}); err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	ag := &cluster.Agent{
		ID:     id,
		Info:   cluster.AgentInfo(info.clone()),
		Total:  a.cs.Shape(total),
		Active: true,
		RefGen: 1,
	}
	if unclaimed := a.cs.UnknownUse(used); unclaimed != nil {
		ag.More().Unclaimed = unclaimed
	}
	a.cs.NumberAgent(ag)
	a.cs.Agents.Put(ag)
	i, _ := a.cs.AgentPlace(id)
	a.cs.AgentList = slices.Insert(a.cs.AgentList, i, ag)
	a.books.AddTotal(ag)
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := a.cs.Frameworks.Lookup(fwID); ok {
			a.books.TrackAllocation(fw, ag, used[fwID], true)
		}
	}
	a.engine.WantsRun(ag)
	return nil
}

// checkTotal validates an agent's total and returns its scalar quantities.
func checkTotal(total resources.Resources) (resources.Quantities, error) {
	for r := range total.All() {
		if err := r.Validate(); err != nil {
			return resources.Quantities{}, fmt.Errorf("%w: %w", ErrInvalidResources, err)
		}
	}
	return quantitiesWithin(total, false, "the total")
}

// RemoveAgent drops an agent with everything offered, allocated, held and
// reported in use on it, and every filter that names it. The tasks of the
// ledger that ran there leave it (they were lost with the agent): EndTask
// of one of them is then ErrUnknownTask. No allocation is triggered.
func (a *Allocator) RemoveAgent(id string) error {
	return a.stepErr(Entry{Event: EventRemoveAgent, Agent: id})
}

// removeAgent is RemoveAgent's handler (see events.go).
func (a *Allocator) removeAgent(id string) error {
	ag, err := a.cs.Agent(id)
	if err != nil {
		return err
	}
	a.engine.HoldsToOffered(ag, "")
	for _, fwID := range ag.FrameworkIDs() {
		if fw, ok := a.cs.Frameworks.Lookup(fwID); ok {
			a.books.UntrackAllocation(fw, ag, ag.Held(fwID), false)
		}
	}
	for fw := range a.cs.Frameworks.All() {
		a.tasks.DropOn(fw, id)
	}
	a.books.RemoveTotal(ag)
	a.dec.ForgetAgentFilters(ag)
	a.cs.UnnumberAgent(ag)
	a.cs.Forget(ag)
	a.cs.Agents.Delete(id)
	if i, ok := a.cs.AgentPlace(id); ok {
		a.cs.AgentList = slices.Delete(a.cs.AgentList, i, i+1)
	}
	a.engine.Pending.Delete(id)
	return nil
}

// UpdateAgent replaces an agent's info and, when total is not nil, its total
// resources. Changed attributes clear every framework's filters for the
// agent. The total may drop below what is in use; the agent is then
// over-allocated and offers nothing until enough is recovered. Triggers an
// allocation of the agent when anything changed.
func (a *Allocator) UpdateAgent(id string, info AgentInfo, total *resources.Resources) error {
	return a.stepErr(Entry{Event: EventUpdateAgent, Agent: id, AgentInfo: &info, Total: total})
}

// updateAgent is UpdateAgent's handler (see events.go).
func (a *Allocator) updateAgent(id string, info AgentInfo, total *resources.Resources) error {
	ag, err := a.cs.Agent(id)
	if err != nil {
		return err
	}
	if total != nil {
		totalQ, err := checkTotal(*total)
		if err != nil {
			return fmt.Errorf("agent %q: %w", id, err)
		}
		if err := a.cs.CheckSums(cluster.AgentChange{Ag: ag, Total: totalQ}); err != nil {
			return fmt.Errorf("agent %q: %w", id, err)
		}
	}
	changed := false
	if !attributesEqual(ag.Info.Attributes, info.Attributes) {
		changed = true
		a.dec.ForgetAgentFilters(ag)
	}
	if ag.Info.Hostname != info.Hostname || ag.Info.Region != info.Region || ag.Info.Capabilities != info.Capabilities {
		changed = true
	}
	ag.Info = cluster.AgentInfo(info.clone())
	if changed {
		ag.Version++
		a.dec.AgentChanged(ag)
	}
	if total != nil {
		if shaped := a.cs.Shape(*total); !shaped.Equal(ag.Total) {
			changed = true
			a.books.RemoveTotal(ag)
			ag.Total = shaped
			a.books.AddTotal(ag)
		}
	}
	if changed {
		a.engine.WantsRun(ag)
	}
	return nil
}

// AddResourceProvider grows an agent's total by a resource provider's
// resources and records what frameworks already use of them (frameworks
// not added yet as AddAgent does). No allocation.
func (a *Allocator) AddResourceProvider(agentID string, total resources.Resources, used map[string]resources.Resources) error {
	return a.stepErr(Entry{Event: EventAddResourceProvider, Agent: agentID, Resources: total, Used: used})
}

// addResourceProvider is AddResourceProvider's handler (see events.go).
func (a *Allocator) addResourceProvider(agentID string, total resources.Resources, used map[string]resources.Resources) error {
	ag, err := a.cs.Agent(agentID)
	if err != nil {
		return err
	}
	providerQ, err := checkTotal(total)
	if err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	if err := a.cs.CheckReportedUse(agentID, used); err != nil {
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
	if err := a.cs.CheckSums(cluster.AgentChange{Ag: ag, Total: agentQ, Held: usedQ}); err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	a.books.RemoveTotal(ag)
	ag.Total = ag.Total.Plus(total.Unallocate())
	for fwID, res := range a.cs.UnknownUse(used) {
		rare := ag.More()
		if rare.Unclaimed == nil {
			rare.Unclaimed = map[string]resources.Resources{}
		}
		rare.Unclaimed[fwID] = rare.Unclaimed[fwID].Plus(res)
	}
	a.books.AddTotal(ag)
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := a.cs.Frameworks.Lookup(fwID); ok {
			a.books.TrackAllocation(fw, ag, used[fwID], true)
		}
	}
	return nil
}

// ActivateAgent makes an agent's resources offerable again. No allocation.
func (a *Allocator) ActivateAgent(id string) error {
	return a.stepErr(Entry{Event: EventActivateAgent, Agent: id})
}

// DeactivateAgent keeps an agent's resources from being offered; nothing is
// recovered. No allocation.
func (a *Allocator) DeactivateAgent(id string) error {
	return a.stepErr(Entry{Event: EventDeactivateAgent, Agent: id})
}

// UpdateWhitelist restricts offers to agents whose hostnames are listed; nil
// lifts the restriction, an empty list stops all offers. No allocation.
func (a *Allocator) UpdateWhitelist(hostnames []string) {
	_ = a.stepErr(Entry{Event: EventUpdateWhitelist, Hostnames: hostnames})
}

// updateWhitelist is UpdateWhitelist's handler (see events.go).
func (a *Allocator) updateWhitelist(hostnames []string) {
	if hostnames == nil {
		a.engine.Whitelist = nil
		return
	}
	a.engine.Whitelist = make(map[string]struct{}, len(hostnames))
	for _, h := range hostnames {
		a.engine.Whitelist[h] = struct{}{}
	}
}
