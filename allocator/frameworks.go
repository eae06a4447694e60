package allocator

import (
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

// RemoveFramework drops a framework: everything it was offered or uses goes
// back to the agents' available pools. No allocation is triggered.
func (a *Allocator) RemoveFramework(id string) error {
	return a.stepErr(Entry{Event: EventRemoveFramework, Framework: id})
}

// ActivateFramework makes a framework eligible for offers again in its
// roles that are not suppressed, and triggers an allocation over all agents.
func (a *Allocator) ActivateFramework(id string) error {
	return a.stepErr(Entry{Event: EventActivateFramework, Framework: id})
}

// DeactivateFramework stops offers to a framework. Its allocations stay
// (they still count for fairness); its refusal and inverse-offer filters are
// cleared, as in Mesos.
func (a *Allocator) DeactivateFramework(id string) error {
	return a.stepErr(Entry{Event: EventDeactivateFramework, Framework: id})
}

// UpdateFramework replaces a framework's info: new roles are tracked, roles
// dropped lose their filters and suppression (and are untracked once the
// framework holds nothing in them), suppression follows info.SuppressedRoles
// (reviving here triggers nothing). No allocation is triggered.
func (a *Allocator) UpdateFramework(id string, info FrameworkInfo) error {
	return a.stepErr(Entry{Event: EventUpdateFramework, Framework: id, FrameworkInfo: &info})
}

// SuppressOffers stops offers to a framework in the given roles (all its
// roles when none are given) until ReviveOffers. No allocation is triggered.
func (a *Allocator) SuppressOffers(id string, roles ...string) error {
	return a.stepErr(Entry{Event: EventSuppressOffers, Framework: id, Roles: roles})
}

// ReviveOffers lifts suppression and refusal filters of a framework in the
// given roles (all its roles when none are given), clears all its
// inverse-offer filters, and triggers an allocation over all agents.
func (a *Allocator) ReviveOffers(id string, roles ...string) error {
	return a.stepErr(Entry{Event: EventReviveOffers, Framework: id, Roles: roles})
}
