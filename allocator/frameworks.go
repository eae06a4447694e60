package allocator

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// AddFramework adds a framework subscribed to info.Roles. used lists, per
// agent, what the framework already runs there (tagged with allocation roles
// among its roles); agents not yet added are skipped, as AddAgent reports
// them later. Usage that an agent reported for the framework before it was
// added (see AddAgent) becomes its allocation now: used may list it again
// for that agent, the same, or leave it out. An active framework triggers
// an allocation over all agents.
func (a *Allocator) AddFramework(id string, info FrameworkInfo, used map[string]resources.Resources, state Activation) error {
	return a.stepErr(Entry{Event: EventAddFramework, Framework: id, FrameworkInfo: &info, Used: used, Active: bool(state)})
}

// addFramework is AddFramework's handler (see events.go).
func (a *Allocator) addFramework(id string, info FrameworkInfo, used map[string]resources.Resources, active bool) error {
	if err := cluster.ValidID("framework", id); err != nil {
		return err
	}
	if _, ok := a.cs.Frameworks.Lookup(id); ok {
		return fmt.Errorf("%w: %q", ErrDuplicateFramework, id)
	}
	if err := info.validate(); err != nil {
		return fmt.Errorf("framework %q: %w", id, err)
	}
	claims, err := a.cs.Claims(id, info.Roles, used)
	if err != nil {
		return err
	}
	var changes []cluster.AgentChange
	for _, agentID := range slices.Sorted(maps.Keys(used)) {
		ag, ok := a.cs.Agents.Lookup(agentID)
		if !ok || claims[agentID] {
			continue
		}
		if err := cluster.CheckUsed(used[agentID], info.Roles); err != nil {
			return fmt.Errorf("framework %q on agent %q: %w", id, agentID, err)
		}
		q, err := quantitiesWithin(used[agentID], true, "the used resources")
		if err != nil {
			return fmt.Errorf("framework %q on agent %q: %w", id, agentID, err)
		}
		changes = append(changes, cluster.AgentChange{Ag: ag, Total: ag.Total.Quantities(), Held: q})
	}
	if err := a.cs.CheckSums(changes...); err != nil {
		return fmt.Errorf("framework %q: %w", id, err)
	}
	fw := &cluster.Framework{
		ID:     id,
		Joined: a.engine.Runs,
		Info:   info.clone().spec(),
		Active: active,
	}
	fw.Roles.MarkOnly(tables.Subscribed, info.Roles)
	fw.Roles.MarkOnly(tables.Suppressed, info.SuppressedRoles)
	a.cs.Frameworks.Put(fw)
	for _, role := range info.Roles {
		a.books.TrackUnderRole(fw, role)
	}
	for _, agentID := range slices.Sorted(maps.Keys(used)) {
		if ag, ok := a.cs.Agents.Lookup(agentID); ok && !claims[agentID] {
			a.books.TrackAllocation(fw, ag, used[agentID], true)
		}
	}
	a.claim(fw, claims)
	if active {
		a.engine.AllWantRun()
	}
	return nil
}

// RemoveFramework drops a framework: everything it was offered or uses goes
// back to the agents' available pools. No allocation is triggered.
func (a *Allocator) RemoveFramework(id string) error {
	return a.stepErr(Entry{Event: EventRemoveFramework, Framework: id})
}

// removeFramework is RemoveFramework's handler (see events.go).
func (a *Allocator) removeFramework(id string) error {
	fw, err := a.cs.Framework(id)
	if err != nil {
		return err
	}
	a.dec.ForgetFilters(fw, "")
	a.dec.LeaveRounds(fw)
	a.dec.ReleaseNum(fw)
	// The agents hold what each framework holds there: no index of a
	// framework's agents is kept, so that an offer costs no insert into
	// one.
	for _, ag := range a.cs.AgentList {
		if ag.Offered.Has(id) || ag.Allocated.Has(id) || ag.Holds().Has(id) {
			a.engine.HoldsToOffered(ag, id)
			a.books.UntrackAllocation(fw, ag, ag.Held(id), false)
		}
	}
	for ag := range a.cs.Agents.All() {
		delete(ag.Inverse(), id)
		ag.DropOffers(id)
	}
	for _, role := range fw.Roles.List(tables.Tracked) {
		a.books.UntrackUnderRole(fw, role)
	}
	for _, t := range fw.Tasks {
		a.tasks.Forget(fw, t)
	}
	a.cs.Frameworks.Delete(id)
	a.explain.Forget(fw, a.engine.Runs)
	if a.obs != nil {
		a.obs.Removed(fw.ID)
	}
	return nil
}

// ActivateFramework makes a framework eligible for offers again in its
// roles that are not suppressed, and triggers an allocation over all agents.
func (a *Allocator) ActivateFramework(id string) error {
	return a.stepErr(Entry{Event: EventActivateFramework, Framework: id})
}

// activateFramework is ActivateFramework's handler (see events.go).
func (a *Allocator) activateFramework(id string) error {
	fw, err := a.cs.Framework(id)
	if err != nil {
		return err
	}
	fw.Active = true
	for role := range fw.Roles.All(tables.Subscribed) {
		a.books.SyncActivation(fw, role)
	}
	a.engine.AllWantRun()
	return nil
}

// DeactivateFramework stops offers to a framework. Its allocations stay
// (they still count for fairness); its refusal and inverse-offer filters are
// cleared, as in Mesos.
func (a *Allocator) DeactivateFramework(id string) error {
	return a.stepErr(Entry{Event: EventDeactivateFramework, Framework: id})
}

// deactivateFramework is DeactivateFramework's handler (see events.go).
func (a *Allocator) deactivateFramework(id string) error {
	fw, err := a.cs.Framework(id)
	if err != nil {
		return err
	}
	fw.Active = false
	for role := range fw.Roles.All(tables.Tracked) {
		a.books.SyncActivation(fw, role)
	}
	a.dec.ForgetFilters(fw, "")
	a.dec.LeaveRounds(fw)
	clear(fw.InverseFilters)
	return nil
}

// UpdateFramework replaces a framework's info: new roles are tracked, roles
// dropped lose their filters and suppression (and are untracked once the
// framework holds nothing in them), suppression follows info.SuppressedRoles
// (reviving here triggers nothing). No allocation is triggered.
func (a *Allocator) UpdateFramework(id string, info FrameworkInfo) error {
	return a.stepErr(Entry{Event: EventUpdateFramework, Framework: id, FrameworkInfo: &info})
}

// updateFramework is UpdateFramework's handler (see events.go).
func (a *Allocator) updateFramework(id string, info FrameworkInfo) error {
	fw, err := a.cs.Framework(id)
	if err != nil {
		return err
	}
	if err := info.validate(); err != nil {
		return fmt.Errorf("framework %q: %w", id, err)
	}
	a.parking.Uncapped() // minimum allocatable resources may have changed
	for _, role := range fw.Roles.List(tables.Subscribed) {
		if slices.Contains(info.Roles, role) {
			continue
		}
		fw.Roles.Unmark(role, tables.Subscribed)
		a.dec.ForgetFilters(fw, role)
		fw.Roles.Unmark(role, tables.Suppressed)
		delete(fw.Demand, role)
		if len(fw.Demand) == 0 {
			fw.Demand = nil
		}
		a.books.SyncActivation(fw, role)
		if a.cs.HeldInRole(id, role).IsEmpty() {
			a.books.UntrackUnderRole(fw, role)
		}
	}
	fw.Info = info.clone().spec()
	fw.Roles.MarkOnly(tables.Suppressed, info.SuppressedRoles)
	for _, role := range info.Roles {
		fw.Roles.Mark(role, tables.Subscribed)
		a.books.TrackUnderRole(fw, role)
	}
	for _, role := range fw.Roles.List(tables.Subscribed) {
		a.books.SyncActivation(fw, role)
	}
	return nil
}

// SuppressOffers stops offers to a framework in the given roles (all its
// roles when none are given) until ReviveOffers. No allocation is triggered.
func (a *Allocator) SuppressOffers(id string, roles ...string) error {
	return a.stepErr(Entry{Event: EventSuppressOffers, Framework: id, Roles: roles})
}

// suppressOffers is SuppressOffers's handler (see events.go).
func (a *Allocator) suppressOffers(id string, roles ...string) error {
	fw, roles, err := a.cs.FrameworkRoles(id, roles)
	if err != nil {
		return err
	}
	for _, role := range roles {
		fw.Roles.Mark(role, tables.Suppressed)
		a.books.SyncActivation(fw, role)
	}
	return nil
}

// ReviveOffers lifts suppression and refusal filters of a framework in the
// given roles (all its roles when none are given), clears all its
// inverse-offer filters, and triggers an allocation over all agents.
func (a *Allocator) ReviveOffers(id string, roles ...string) error {
	return a.stepErr(Entry{Event: EventReviveOffers, Framework: id, Roles: roles})
}

// reviveOffers is ReviveOffers's handler (see events.go).
func (a *Allocator) reviveOffers(id string, roles ...string) error {
	fw, roles, err := a.cs.FrameworkRoles(id, roles)
	if err != nil {
		return err
	}
	for _, role := range roles {
		fw.Roles.Unmark(role, tables.Suppressed)
		a.dec.ForgetFilters(fw, role)
		a.books.SyncActivation(fw, role)
	}
	a.dec.LeaveRounds(fw)
	clear(fw.InverseFilters)
	a.engine.AllWantRun()
	return nil
}
