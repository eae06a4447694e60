package allocator

import (
	"errors"
	"fmt"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
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
	MaxPending      = 1024
	MaxPendingCount = 1<<31 - 1
)

// ErrInvalidDemand: a statement of demand with a shape of no resources (or
// of an amount that is not positive), a count below one or above
// MaxPendingCount, or more than MaxPending shapes.
var ErrInvalidDemand = errors.New("allocator: invalid demand")

// UpdateDemand states what a framework waits for in one of its roles: its
// pending tasks as shapes with counts, in the order it would run them
// (offers are sized to the first shape that fits). It replaces the
// previous statement; an empty one means nothing waits. A statement with
// something pending triggers an allocation over all agents, as
// ReviveOffers does. The framework must be subscribed to the role.
func (a *Allocator) UpdateDemand(fwID, role string, pending []Pending) error {
	return a.stepErr(Entry{Event: EventUpdateDemand, Framework: fwID, Role: role, Demand: pending})
}

// updateDemand is UpdateDemand's handler (see events.go).
func (a *Allocator) updateDemand(fwID, role string, pending []Pending) error {
	fw, roles, err := a.cs.FrameworkRoles(fwID, []string{role})
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
	a.parking.Uncapped()
	a.books.SyncActivation(fw, role)
	if len(stated) > 0 {
		a.allWantRun()
	}
	return nil
}

func validateDemand(pending []Pending) error {
	if len(pending) > MaxPending {
		return fmt.Errorf("%w: %d shapes, at most %d", ErrInvalidDemand, len(pending), MaxPending)
	}
	for i, p := range pending {
		if p.Resources.IsEmpty() {
			return fmt.Errorf("%w: shape %d needs no resources", ErrInvalidDemand, i)
		}
		for name, v := range p.Resources.All() {
			if v <= 0 {
				return fmt.Errorf("%w: shape %d needs %v of %s", ErrInvalidDemand, i, v, name)
			}
		}
		if p.Count < 1 || p.Count > MaxPendingCount {
			return fmt.Errorf("%w: shape %d (%s) has count %d, not 1 to %d", ErrInvalidDemand, i, p.Resources, p.Count, MaxPendingCount)
		}
	}
	return nil
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

// pendingFit returns the index of the first pending task of list that res
// holds, or -1.
func pendingFit(list []cluster.Pending, res resources.Resources) int {
	for i, p := range list {
		if p.Count > 0 && res.ContainsQuantities(p.Resources) {
			return i
		}
	}
	return -1
}

// consumeDemand counts an offer of res to fw in role off its statement:
// the task it was sized for (sizedFor), or, for an offer not sized, as
// many pending tasks as fit in it, in the statement's order. A statement
// used up takes the framework out of the role's sorter.
func (a *Allocator) consumeDemand(fw *cluster.Framework, role string, res resources.Resources, sizedFor int) {
	list, ok := fw.PendingIn(role)
	if !ok {
		return
	}
	if sizedFor >= 0 {
		list[sizedFor].Count--
	} else {
		left := res.Quantities()
		for i := range list {
			for list[i].Count > 0 && left.Contains(list[i].Resources) {
				left.Subtract(list[i].Resources)
				list[i].Count--
			}
		}
	}
	if fw.WaitsForNothing(role) {
		a.books.SyncActivation(fw, role)
	}
}

// floorEntry is a role's demand floor in one run (see demandFloor).
type floorEntry struct {
	q  resources.Quantities
	ok bool
}

// demandFloor returns, when every framework the role's walk could offer
// something states demand in the role, the least of each resource that
// all their pending tasks need: an agent whose leftover does not hold it
// fits none of them, and the role's walk there would pass every framework
// over one by one (ReasonNoFit). The walk is skipped instead (counted in
// RunStats.Unchanged), so that a leftover nobody's task fits costs one
// comparison an agent, not one a framework. It is worked out once a role
// and run: offers within the run only use statements up, which can only
// raise the floor, so the one found first stays a safe bound. A
// cache-free allocator walks every role (see cachefree.go), and so the
// checks compare each skip with the walk it saves.
func (a *Allocator) demandFloor(r *run, n *roles.Node) (resources.Quantities, bool) {
	if e, ok := r.floors[n]; ok {
		return e.q, e.ok
	}
	var floor resources.Quantities
	ok, first := true, true
	n.Frameworks.Any(func(id string) bool {
		fw := a.cs.Frameworks.Get(id)
		if fw == nil || !fw.Active || !fw.Roles.Has(n.Path, tables.Subscribed) || fw.Roles.Has(n.Path, tables.Suppressed) {
			return false
		}
		list, stated := fw.PendingIn(n.Path)
		if _, own := fw.Info.MinAllocatable[n.Path]; !stated || own {
			// A framework without demand may take anything; one with
			// minimum allocatable resources of its own may be passed over
			// for them first.
			ok = false
			return true
		}
		for _, p := range list {
			if p.Count == 0 {
				continue
			}
			if first {
				floor, first = p.Resources.Clone(), false
			} else {
				floor = floor.Min(p.Resources)
			}
		}
		return false
	})
	if r.floors == nil {
		r.floors = map[*roles.Node]floorEntry{}
	}
	r.floors[n] = floorEntry{floor, ok && !first}
	return floor, ok && !first
}

// fitsNoTask reports whether the role's demand floor shows that none of
// its frameworks' pending tasks fits what ag has for the role; such a
// pair counts as unchanged. It is used only where the walk would pass
// every framework over for that and nothing before it (see offerTo's
// order): not with quota, which may cut an offer below the minimum
// allocatable first, nor on agents whose shared, revocable or refined
// resources a framework may be unable to take, nor where what is left is
// below the minimum allocatable, nor with a framework sorter whose walks
// change it (a random one draws numbers as it walks: a cache-free copy
// walks, so this one must too; see skipsWalks). (Constraints and
// capabilities for the whole agent come first in the walk too: Explain
// finds those itself.)
func (a *Allocator) fitsNoTask(r *run, ag *cluster.Agent, n *roles.Node) bool {
	if r.quota || ag.HasShared || ag.HasRevocable || ag.HasRefined || !a.anyDemand(r) {
		return false
	}
	floor, ok := a.demandFloor(r, n)
	if !ok {
		return false
	}
	available := ag.Available
	if ag.HasReserved {
		available = available.AllocatableTo(n.Path)
	}
	if available.ContainsQuantities(floor) || !a.allocatable(available, n.Path, plainFramework) {
		return false
	}
	r.stats.Unchanged++
	return true
}

// plainFramework stands for any framework without minimum allocatable
// resources of its own (demandFloor leaves out roles with one): allocatable
// then checks the global ones.
var plainFramework = &cluster.Framework{}

// offeredHere reports whether the fair-share stage has offered fw
// something in role on the agent it is at.
func (a *Allocator) offeredHere(r *run, fw *cluster.Framework, role string) bool {
	for i := r.agentOffers; i < len(r.offers); i++ {
		if k := r.offers[i].Key; k.Framework == fw.ID && k.Role == role {
			return true
		}
	}
	return false
}

// demandKnown is whether some framework states demand, as a run found
// out.
type demandKnown uint8

const (
	demandUnknown demandKnown = iota
	demandNone
	demandSome
)

// anyDemand reports whether some framework states demand, looked up once
// a run: a run without any spends nothing on demand floors.
func (a *Allocator) anyDemand(r *run) bool {
	if r.demand == demandUnknown {
		r.demand = demandNone
		for fw := range a.cs.Frameworks.All() {
			if fw.Demand != nil {
				r.demand = demandSome
				break
			}
		}
	}
	return r.demand == demandSome
}
