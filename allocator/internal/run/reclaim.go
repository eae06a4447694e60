package run

import (
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// The run's part in reclaim: it hands package reclaim (whose doc gives
// the rules) the cluster and the run's offers, and holds for each chosen
// room the part of it already free; the end of a chosen task holds what
// it frees (holds.go).

// defaultReclaimIntervals is how long, in allocation intervals, a chosen
// task has to end before the choice lapses, when Options.ReclaimTimeout is
// zero.
const defaultReclaimIntervals = 10

// reclaimTimeout is Options.ReclaimTimeout or its default.
func (e *Engine) reclaimTimeout() time.Duration {
	if e.opts.ReclaimTimeout > 0 {
		return e.opts.ReclaimTimeout
	}
	return defaultReclaimIntervals * e.opts.AllocationInterval
}

// chooseVictims makes the run's choices of tasks to end (with reclaim on)
// and withdraws the earlier ones whose need went.
func (e *Engine) chooseVictims(r *runState) (chosen, withdrawn []reclaim.Chosen) {
	if e.opts.Reclaim == reclaim.Off {
		return nil, nil
	}
	rr := &reclaim.Run{
		ID: r.id, Now: r.now, Timeout: e.reclaimTimeout(), Mode: e.opts.Reclaim,
		Cluster: e.cs, Roles: e.roles, Tasks: e.tasks.Live,
		Usable: e.usableBy, Share: e.weightedShareWith, Frameworks: e.mayBeOffered, Holdable: e.holdable,
	}
	if e.opts.Reclaim == reclaim.FairShare {
		rr.Offered = map[string]bool{}
		for i := range r.offers {
			rr.Offered[r.offers[i].Key.Role] = true
		}
	}
	c, w := e.reclaims.Reclaim(rr)
	for i := range c {
		if !c[i].Free.IsEmpty() {
			e.holdFreePart(&c[i])
		}
	}
	return c, w
}

// holdFreePart holds, for the task a group of victims makes room for, the
// part of it that is free on their agent, so that the room is whole when
// they end, within what holdable allows (reclaim counted on no more).
// What it cannot hold is added to the room of the group's first victim,
// to be held when the victims end (see holdFreed).
func (e *Engine) holdFreePart(c *reclaim.Chosen) {
	node := e.roles.Get(c.HeldIn)
	var held resources.Quantities
	if node != nil {
		ag := e.cs.Agents.Get(c.Agent)
		held = e.holdRoom(c.ForFramework, c.HeldIn, ag, plainScalars(ag.Available), c.Free.Min(e.holdable(node, c.Reason)))
	}
	if rest := c.Free.Minus(held); !rest.IsEmpty() {
		if p := e.reclaims.Choices[c.Ref]; p != nil {
			p.Room = p.Room.Plus(rest)
		}
	}
}

// holdable is how much of what is free the allocator holds at once for a
// room held in role n (reclaim.Run.Holdable): within the headroom the run
// leaves to spare beyond what unmet guarantees need (for a guarantee,
// plus what the role is owed), and within what the limits of n and its
// ancestors leave now, before the victims end.
func (e *Engine) holdable(n *roles.Node, reason reclaim.Reason) resources.Quantities {
	allowed := e.cs.FreeHeadroom.Minus(e.roles.RequiredHeadroom())
	if reason == reclaim.ForGuarantee {
		allowed.Add(e.roles.UnsatisfiedGuarantees(n))
	}
	if left, limited := e.roles.LimitHeadroom(n); limited {
		allowed = left.Cap(allowed)
	}
	return allowed
}

// mayBeOffered returns the frameworks of role n that may be offered what
// is freed there (active, subscribed, not suppressing offers in n), in
// the order of n's framework sorter.
func (e *Engine) mayBeOffered(n *roles.Node) []*cluster.Framework {
	fs := n.FrameworkSorter
	if fs == nil {
		return nil
	}
	var out []*cluster.Framework
	Walk(fs.Sorter, func(id string) bool {
		fw := e.cs.Frameworks.Get(id)
		if fw != nil && fw.Active && fw.Roles.Has(n.Path, tables.Subscribed) && !fw.Roles.Has(n.Path, tables.Suppressed) {
			out = append(out, fw)
		}
		return true
	})
	return out
}

// usableBy reports whether what a task frees on ag could be offered to fw.
func (e *Engine) usableBy(fw *cluster.Framework, role string, ag *cluster.Agent) bool {
	if !ag.Active || !e.whitelisted(ag) || !e.capableOfAgent(fw, ag) {
		return false
	}
	if cs, ok := fw.Info.Constraints[role]; ok && !cs.Admits(ag.Info.Attributes) {
		return false
	}
	return true
}

// weightedShareWith is a role's own weighted dominant share of the
// cluster (what the role sorter charges it, by the cluster's totals,
// divided by its weight) with plus added to its holdings and minus taken
// from them.
func (e *Engine) weightedShareWith(n *roles.Node, plus, minus resources.Quantities) float64 {
	var q resources.Quantities
	if e.roleSorter.Contains(n.Path) {
		q = e.roleSorter.AllocationQuantities(n.Path).Clone()
	}
	q.Add(plus)
	q.Subtract(minus)
	w := 1.0
	if x, ok := e.roles.Weights[n.Path]; ok {
		w = x
	}
	share, _ := q.DominantShare(e.cs.Totals, e.opts.Excluded)
	return share / w
}
