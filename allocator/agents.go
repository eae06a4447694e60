package allocator

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// ---- agents ----

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
	if err := validID("agent", id); err != nil {
		return err
	}
	if _, ok := a.agents.Lookup(id); ok {
		return fmt.Errorf("%w: %q", ErrDuplicateAgent, id)
	}
	totalQ, err := checkTotal(total)
	if err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	if err := a.checkReportedUse(id, used); err != nil {
		return err
	}
	usedQ, err := usedQuantities(used, "the used resources")
	if err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	if err := a.checkSums(agentChange{total: totalQ, held: usedQ}); err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	ag := &agent{
		id:     id,
		info:   info.clone(),
		total:  a.shape(total),
		active: true,
		refGen: 1,
	}
	if unclaimed := a.unknownUse(used); unclaimed != nil {
		ag.more().unclaimed = unclaimed
	}
	a.numberAgent(ag)
	a.agents.Put(ag)
	i, _ := a.agentPlace(id)
	a.agentList = slices.Insert(a.agentList, i, ag)
	a.addTotal(ag)
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := a.frameworks.Lookup(fwID); ok {
			a.trackAllocation(fw, ag, used[fwID], true)
		}
	}
	a.wantsRun(ag)
	return nil
}

// shape returns total without allocation roles, in the storage of an
// earlier agent's equal total when there is one (see Allocator.shapes).
func (a *Allocator) shape(total resources.Resources) resources.Resources {
	if role, ok := total.AllocationRole(); !ok || role != "" {
		total = total.Unallocate().Frozen() // a copy of the caller's
	}
	return a.shapes.Intern(total)
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

// addTotal adds an agent's total to the cluster totals and its reservations
// to the role tree, and recomputes its available resources.
func (a *Allocator) addTotal(ag *agent) {
	a.uncapped()
	if a.obs != nil {
		a.obs.clusterDirty = true
	}
	a.totals.Add(ag.total.Quantities())
	a.totalsVersion++
	a.setFlags(ag)
	a.trackReservations(ag.total, true)
	a.recomputeAvailable(ag)
}

func (a *Allocator) removeTotal(ag *agent) {
	a.uncapped()
	if a.obs != nil {
		a.obs.clusterDirty = true
	}
	a.totals.Subtract(ag.total.Quantities())
	a.totalsVersion++
	if ag.hasRevocable || ag.hasShared {
		a.revocableOrSharedAgents--
	}
	ag.hasRevocable, ag.hasShared = false, false
	a.trackReservations(ag.total, false)
	a.freeHeadroom.Subtract(ag.headroom)
	ag.headroom = resources.Quantities{}
	if ag.rare != nil {
		a.excess.Subtract(ag.rare.excess)
		ag.rare.excess = resources.Quantities{}
	}
}

// trackReservations adds (or removes) the scalar reservations of res to the
// role tree, under their current reservation roles.
func (a *Allocator) trackReservations(res resources.Resources, add bool) {
	a.uncapped()
	if !res.IsEmpty() {
		for r := range res.All() {
			if r.IsReserved() && r.Type == resources.ScalarType {
				a.roles.TrackReserved(r.Role(), quantityOf(r), add)
				a.syncAllowance(r.Role())
				a.observeRole(r.Role())
			}
		}
	}
}

// setFlags records what the agent's total holds, for the hot path, and
// keeps the count of agents with revocable or shared resources.
func (a *Allocator) setFlags(ag *agent) {
	before := ag.hasRevocable || ag.hasShared
	ag.hasReserved, ag.hasShared, ag.hasRevocable, ag.hasRefined, ag.hasGPUs = false, false, false, false, false
	for r := range ag.total.All() {
		ag.hasReserved = ag.hasReserved || r.IsReserved()
		ag.hasShared = ag.hasShared || r.Shared
		ag.hasRevocable = ag.hasRevocable || r.Revocable
		ag.hasRefined = ag.hasRefined || r.Reservations.IsRefined()
		ag.hasGPUs = ag.hasGPUs || (r.Name == "gpus" && r.Type == resources.ScalarType && r.Scalar > 0)
	}
	switch after := ag.hasRevocable || ag.hasShared; {
	case after && !before:
		a.revocableOrSharedAgents++
	case before && !after:
		a.revocableOrSharedAgents--
	}
}

func quantityOf(r resources.Resource) resources.Quantities {
	var q resources.Quantities
	q.SetScalar(r.Name, r.Scalar)
	return q
}

// recomputeAvailable derives available from total minus everything offered
// or allocated, and refreshes the agent's headroom share.
func (a *Allocator) recomputeAvailable(ag *agent) {
	a.uncapped()
	a.excess.Subtract(ag.excess())
	used := a.measureUse(ag)
	if used.IsEmpty() {
		// Nothing in use: available is the total, in the same storage (the
		// total is only ever replaced, never changed in place; available,
		// frozen, copies its entries before its first change).
		ag.total = ag.total.Frozen()
		ag.available = ag.total
	} else {
		ag.available = ag.total.Minus(used)
	}
	a.availableGrew(ag)
	ag.version++
	a.agentChanged(ag)
	a.refreshHeadroom(ag)
}

// measureUse returns what is offered, allocated, held and in use by
// frameworks not added yet on ag (shared volumes aside, without allocation
// roles), and sets ag.overAllocated and
// its excess from it, adding the excess to the cluster's.
func (a *Allocator) measureUse(ag *agent) resources.Resources {
	var used, shared resources.Resources
	add := func(res resources.Resources) {
		used.AddUnallocated(res, false)
		if res.HasShared() {
			shared.AddUnallocated(res.Shared(), true)
		}
	}
	for _, held := range []*tables.PerFramework{&ag.offered, &ag.allocated} {
		for _, fwID := range held.IDs() {
			add(held.Get(fwID))
		}
	}
	for _, h := range ag.holds() {
		used.AddUnallocated(h.res, false)
	}
	for _, fwID := range slices.Sorted(maps.Keys(ag.unclaimed())) {
		add(ag.unclaimed()[fwID])
	}
	ag.overAllocated = !ag.total.Contains(used)
	if ag.rare != nil {
		ag.rare.excess = resources.Quantities{}
	}
	if ag.overAllocated {
		rare := ag.more()
		rare.excess = used.Quantities().Minus(ag.total.Quantities())
		a.excess.Add(rare.excess)
	}
	// A shared volume held by anyone must still be part of the total (one
	// copy of it, however many hold it).
	for r := range shared.All() {
		ag.overAllocated = ag.overAllocated || !ag.total.ContainsResource(r)
	}
	return used
}

// refreshHeadroom recomputes the agent's share of the free headroom in
// place.
func (a *Allocator) refreshHeadroom(ag *agent) {
	a.freeHeadroom.Subtract(ag.headroom)
	ag.headroom.Reset()
	if !ag.hasReserved && !ag.hasRevocable {
		ag.available.AddQuantitiesTo(&ag.headroom)
	} else {
		ag.headroom.Add(headroomOf(ag.available))
	}
	a.freeHeadroom.Add(ag.headroom)
}

// headroomOf returns the unreserved, non-revocable scalar quantities: what
// quota headroom and limits are about.
func headroomOf(res resources.Resources) resources.Quantities {
	var q resources.Quantities
	res.AddUnreservedQuantitiesTo(&q)
	return q
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
	ag, err := a.agent(id)
	if err != nil {
		return err
	}
	a.holdsToOffered(ag, "")
	for _, fwID := range ag.frameworkIDs() {
		if fw, ok := a.frameworks.Lookup(fwID); ok {
			a.untrackAllocation(fw, ag, ag.held(fwID), false)
		}
	}
	for fw := range a.frameworks.All() {
		a.dropTasksOn(fw, id)
	}
	a.removeTotal(ag)
	a.forgetAgentFilters(ag)
	a.unnumberAgent(ag)
	a.agents.Delete(id)
	if i, ok := a.agentPlace(id); ok {
		a.agentList = slices.Delete(a.agentList, i, i+1)
	}
	a.pending.Delete(id)
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
	ag, err := a.agent(id)
	if err != nil {
		return err
	}
	if total != nil {
		totalQ, err := checkTotal(*total)
		if err != nil {
			return fmt.Errorf("agent %q: %w", id, err)
		}
		if err := a.checkSums(agentChange{ag: ag, total: totalQ}); err != nil {
			return fmt.Errorf("agent %q: %w", id, err)
		}
	}
	changed := false
	if !attributesEqual(ag.info.Attributes, info.Attributes) {
		changed = true
		a.forgetAgentFilters(ag)
	}
	if ag.info.Hostname != info.Hostname || ag.info.Region != info.Region || ag.info.Capabilities != info.Capabilities {
		changed = true
	}
	ag.info = info.clone()
	if changed {
		ag.version++
		a.agentChanged(ag)
	}
	if total != nil {
		if shaped := a.shape(*total); !shaped.Equal(ag.total) {
			changed = true
			a.removeTotal(ag)
			ag.total = shaped
			a.addTotal(ag)
		}
	}
	if changed {
		a.wantsRun(ag)
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
	ag, err := a.agent(agentID)
	if err != nil {
		return err
	}
	providerQ, err := checkTotal(total)
	if err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	if err := a.checkReportedUse(agentID, used); err != nil {
		return err
	}
	usedQ, err := usedQuantities(used, "the used resources")
	if err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	agentQ := ag.total.Quantities()
	if err := addWithin(&agentQ, providerQ, "the agent and its resource provider"); err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	if err := a.checkSums(agentChange{ag: ag, total: agentQ, held: usedQ}); err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	a.removeTotal(ag)
	ag.total = ag.total.Plus(total.Unallocate())
	for fwID, res := range a.unknownUse(used) {
		rare := ag.more()
		if rare.unclaimed == nil {
			rare.unclaimed = map[string]resources.Resources{}
		}
		rare.unclaimed[fwID] = rare.unclaimed[fwID].Plus(res)
	}
	a.addTotal(ag)
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := a.frameworks.Lookup(fwID); ok {
			a.trackAllocation(fw, ag, used[fwID], true)
		}
	}
	return nil
}

// ActivateAgent makes an agent's resources offerable again. No allocation.
func (a *Allocator) ActivateAgent(id string) error {
	return a.stepErr(Entry{Event: EventActivateAgent, Agent: id})
}

// activateAgent is ActivateAgent's handler (see events.go).
func (a *Allocator) activateAgent(id string) error {
	ag, err := a.agent(id)
	if err != nil {
		return err
	}
	ag.active = true
	return nil
}

// DeactivateAgent keeps an agent's resources from being offered; nothing is
// recovered. No allocation.
func (a *Allocator) DeactivateAgent(id string) error {
	return a.stepErr(Entry{Event: EventDeactivateAgent, Agent: id})
}

// deactivateAgent is DeactivateAgent's handler (see events.go).
func (a *Allocator) deactivateAgent(id string) error {
	ag, err := a.agent(id)
	if err != nil {
		return err
	}
	ag.active = false
	return nil
}

// UpdateWhitelist restricts offers to agents whose hostnames are listed; nil
// lifts the restriction, an empty list stops all offers. No allocation.
func (a *Allocator) UpdateWhitelist(hostnames []string) {
	_ = a.stepErr(Entry{Event: EventUpdateWhitelist, Hostnames: hostnames})
}

// updateWhitelist is UpdateWhitelist's handler (see events.go).
func (a *Allocator) updateWhitelist(hostnames []string) {
	if hostnames == nil {
		a.whitelist = nil
		return
	}
	a.whitelist = make(map[string]struct{}, len(hostnames))
	for _, h := range hostnames {
		a.whitelist[h] = struct{}{}
	}
}

func (a *Allocator) agent(id string) (*agent, error) {
	ag, ok := a.agents.Lookup(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownAgent, id)
	}
	return ag, nil
}

// offeredOrUsed returns what a framework is offered or uses on the agent:
// what it may operate on or give back (what is held for it, RecoverHeld,
// is neither until it is offered).
func (ag *agent) offeredOrUsed(fwID string) resources.Resources {
	return ag.offered.Get(fwID).Plus(ag.allocated.Get(fwID))
}

// held returns what a framework holds on the agent: offered, allocated or
// held for it.
func (ag *agent) held(fwID string) resources.Resources {
	held := ag.offered.Get(fwID).Plus(ag.allocated.Get(fwID))
	if len(ag.holds()) > 0 {
		held.Add(ag.holds().of(fwID))
	}
	return held
}

func (ag *agent) frameworkIDs() []string {
	if len(ag.holds()) == 0 {
		if ag.allocated.Len() == 0 {
			return ag.offered.IDs()
		}
		if ag.offered.Len() == 0 {
			return ag.allocated.IDs()
		}
	}
	ids := ag.offered.IDs()
	for id := range ag.allocated.All() {
		if !ag.offered.Has(id) {
			ids = append(ids, id)
		}
	}
	for _, h := range ag.holds() {
		if !slices.Contains(ids, h.framework) {
			ids = append(ids, h.framework)
		}
	}
	slices.Sort(ids)
	return ids
}
