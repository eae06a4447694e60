package allocator

import (
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// Demand: what a framework says it waits for.
//
// Mesos never knew what a framework waited for: its scheduler API has a
// requestResources call (REQUEST in v1), a list of resources a framework
// would like, which the hierarchical allocator only logs. Offers were
// made blind, and a framework that could not use one declined it. Here a
// host may state, per framework and role, the tasks it has pending
// (UpdateDemand): a list of shapes, what one task needs, each with a
// count. That is requestResources with a count per request and without
// an agent: the allocator then
//
//   - offers an agent to such a framework only when one of its pending
//     tasks fits what is left there for it, so nobody is offered what it
//     must decline (a pass-over for ReasonNoFit otherwise);
//   - sizes the offer to that task, and hands the agent out task by task
//     in DRF order (the DRF paper's progressive filling: after each task
//     the framework with the lowest share is asked again), unless
//     Options.WholeOffers;
//   - counts each task offered off the statement, so that a task is not
//     offered for twice while its offer is outstanding. A host states its
//     demand again after it has answered its offers (the README's host
//     loop does), which replaces what is left of the statement.
//
// A statement with nothing pending (no shapes, or counts all used up)
// means the framework waits for nothing in the role: it is offered
// nothing there, as if it had suppressed offers, until it states more. A
// framework that never states demand in a role is offered as in Mesos.

// Pending is one kind of task a framework waits to run: what one such
// task needs, and how many wait.
type Pending struct {
	// Resources are what one task needs, as scalar quantities (cpus, mem,
	// disk, gpus).
	Resources resources.Quantities
	// Count is how many such tasks wait: at least one.
	Count int
}

// MaxPending is the most shapes one statement of demand may hold, and
// MaxPendingCount the most tasks of one shape.
const (
	MaxPending      = cluster.MaxPending
	MaxPendingCount = cluster.MaxPendingCount
)

// ErrInvalidDemand: a statement of demand with a shape of no resources (or
// of an amount that is not positive), a count below one or above
// MaxPendingCount, or more than MaxPending shapes.
var ErrInvalidDemand = cluster.ErrInvalidDemand

// UpdateDemand states what a framework waits for in one of its roles: its
// pending tasks as shapes with counts, in the order it would run them
// (offers are sized to the first shape that fits). It replaces the
// previous statement; an empty one means nothing waits. A statement with
// something pending triggers an allocation over all agents, as
// ReviveOffers does. The framework must be subscribed to the role.
func (a *Allocator) UpdateDemand(fwID, role string, pending []Pending) error {
	return a.stepErr(Entry{Event: EventUpdateDemand, Framework: fwID, Role: role, Demand: pending})
}

// Demand returns what is left of a framework's statements of demand, by
// role: the tasks stated and not yet offered for (shapes whose count ran
// out are left out). Roles it never stated demand in are absent.
func (a *Allocator) Demand(fwID string) (map[string][]Pending, error) {
	fw, err := a.cs.Framework(fwID)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]Pending, len(fw.Demand))
	for role, list := range fw.Demand {
		left := []Pending{}
		for _, p := range list {
			if p.Count > 0 {
				left = append(left, Pending{Resources: p.Resources.Clone(), Count: p.Count})
			}
		}
		out[role] = left
	}
	return out, nil
}

// pendingSpec is pending as the framework records keep it (not copied).
func pendingSpec(pending []Pending) []cluster.Pending {
	if pending == nil {
		return nil
	}
	out := make([]cluster.Pending, len(pending))
	for i, p := range pending {
		out[i] = cluster.Pending(p)
	}
	return out
}
