package run

import (
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// Demand (package allocator's doc says what a host states): an agent is
// offered to a framework that states demand in the role only when one of
// its pending tasks fits what is left there for it, sized to that task
// unless whole offers are asked for, and each task offered is counted off
// the statement.

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
func (e *Engine) consumeDemand(fw *cluster.Framework, role string, res resources.Resources, sizedFor int) {
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
		e.books.SyncActivation(fw, role)
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
func (e *Engine) demandFloor(r *runState, n *roles.Node) (resources.Quantities, bool) {
	if f, ok := r.floors[n]; ok {
		return f.q, f.ok
	}
	var floor resources.Quantities
	ok, first := true, true
	n.Frameworks.Any(func(id string) bool {
		fw := e.cs.Frameworks.Get(id)
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
func (e *Engine) fitsNoTask(r *runState, ag *cluster.Agent, n *roles.Node) bool {
	if r.quota || ag.HasShared || ag.HasRevocable || ag.HasRefined || !e.anyDemand(r) {
		return false
	}
	floor, ok := e.demandFloor(r, n)
	if !ok {
		return false
	}
	available := ag.Available
	if ag.HasReserved {
		available = available.AllocatableTo(n.Path)
	}
	if available.ContainsQuantities(floor) || !e.allocatable(available, n.Path, plainFramework) {
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
func (e *Engine) offeredHere(r *runState, fw *cluster.Framework, role string) bool {
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
func (e *Engine) anyDemand(r *runState) bool {
	if r.demand == demandUnknown {
		r.demand = demandNone
		for fw := range e.cs.Frameworks.All() {
			if fw.Demand != nil {
				r.demand = demandSome
				break
			}
		}
	}
	return r.demand == demandSome
}
