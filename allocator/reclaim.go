package allocator

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// Reclaim: ending other roles' tasks so that a role gets what it is owed
// on a cluster full of them (Options.Reclaim). Mesos never did this: a
// guarantee is kept there only with free resources, and a role below it
// waits for other roles' tasks to end by themselves.
//
// At the end of a run with reclaim on, each role below its quota
// guarantee (in path order) whose unmet part the free resources cannot
// meet has tasks of other roles chosen to end, enough to meet it (see
// chooseVictim for the order). With ReclaimFairShare, each role that
// still got nothing in the run and wants more then has one task chosen,
// from a role with a higher weighted share, if after it the role's share
// stays at or below the other's: at most one a run, and none in the run
// that offers it what an earlier choice freed. The run returns them as
// Result.Preemptions; the host ends them (kill requests, or Mesos-style
// inverse offers, as it likes) and reports EndTask as for any task. What such an end frees (unreserved,
// non-revocable, non-shared scalars; the rest goes back to the pool) is
// then held for the framework it was taken for, as the holds of
// PreemptTask are, and offered to it at the next run.
//
// The rules that keep it from storms:
//   - no task is chosen for a role at or above what it is owed;
//   - a task is never chosen if its end would take its role, or an
//     ancestor of it, below its guarantee;
//   - a task chosen and not ended yet counts as freed: the next run does
//     not choose another for the same need, until the preemption times out
//     (Options.ReclaimTimeout) or the task ends otherwise;
//   - fair-share reclaim takes only while the taker stays at or below the
//     victim, so the victim cannot take the resources back by the same
//     rule; and never from a role that tasks are being ended for, or were
//     chosen for in this run or the one before, so that no choice is
//     undone by the next run.

// Reclaim says whether and why runs choose other roles' tasks to end.
type Reclaim uint8

const (
	// ReclaimOff: runs never choose tasks to end (Mesos's behaviour).
	ReclaimOff Reclaim = iota
	// ReclaimGuarantees: for roles below their quota guarantees.
	ReclaimGuarantees
	// ReclaimFairShare: for guarantees, then for roles that got nothing
	// and have a lower weighted share than another role.
	ReclaimFairShare
)

// String returns "off", "guarantees" or "fair-share".
func (r Reclaim) String() string {
	switch r {
	case ReclaimOff:
		return "off"
	case ReclaimGuarantees:
		return "guarantees"
	case ReclaimFairShare:
		return "fair-share"
	}
	return "reclaim(" + strconv.Itoa(int(r)) + ")"
}

// PreemptReason says why a task was chosen to end.
type PreemptReason uint8

const (
	// PreemptForGuarantee: the role it is taken for is below its quota
	// guarantee.
	PreemptForGuarantee PreemptReason = iota + 1
	// PreemptForFairShare: the role it is taken for got nothing and has a
	// lower weighted share than the task's role.
	PreemptForFairShare
)

// String returns "guarantee" or "fair share".
func (r PreemptReason) String() string {
	switch r {
	case PreemptForGuarantee:
		return "guarantee"
	case PreemptForFairShare:
		return "fair share"
	}
	return "unknown"
}

// Preemption is a task a run chose to end for another role.
type Preemption struct {
	// FrameworkID and TaskID name the task (from the task ledger), AgentID
	// where it runs, Role the role it runs in.
	FrameworkID, TaskID, AgentID, Role string
	// For is the role it is ended for; ForFramework the framework what it
	// frees is held for, in role HeldIn: For, or, for a guarantee on a
	// role whose frameworks are in its sub-roles, one of those.
	For, ForFramework, HeldIn string
	Reason                    PreemptReason
	// Frees is what its end frees that counts towards For's guarantee:
	// its unreserved, non-revocable, non-shared scalars.
	Frees resources.Quantities
	// ForShare and RoleShare are the weighted dominant shares of For and
	// of Role (each role's own holdings, by the cluster's totals, divided
	// by its weight), before the task ends and after its resources move;
	// the tasks chosen before it in the same run count as ended.
	ForShare, RoleShare [2]float64
}

// String describes the preemption in one line.
func (p Preemption) String() string {
	return "end task " + p.TaskID + " of " + p.FrameworkID + " (" + p.Role + ") on " + p.AgentID +
		" for " + p.For + " (" + p.Reason.String() + "): frees " + p.Frees.String() +
		"; shares " + shareText(p.ForShare[0]) + "→" + shareText(p.ForShare[1]) + " and " +
		shareText(p.RoleShare[0]) + "→" + shareText(p.RoleShare[1])
}

// defaultReclaimIntervals is how long, in allocation intervals, a chosen
// task has to end before the choice lapses, when Options.ReclaimTimeout is
// zero.
const defaultReclaimIntervals = 10

// taskRef names a task of the ledger.
type taskRef struct{ framework, task string }

// pendingPreemption is a task chosen to end that has not ended yet.
type pendingPreemption struct {
	forRole, forFramework, heldIn string
	reason                        PreemptReason
	frees                         resources.Quantities
	// until: past it, at a run, the choice lapses.
	until time.Time
}

// reclaimTimeout is Options.ReclaimTimeout or its default.
func (a *Allocator) reclaimTimeout() time.Duration {
	if a.opts.ReclaimTimeout > 0 {
		return a.opts.ReclaimTimeout
	}
	return defaultReclaimIntervals * a.opts.AllocationInterval
}

// reclaim makes the run's preemptions (with Options.Reclaim on).
func (a *Allocator) reclaim(r *run) []Preemption {
	if a.opts.Reclaim == ReclaimOff {
		return nil
	}
	rc := &reclaimer{a: a, r: r, taken: map[*roles.Node]resources.Quantities{}, pendingFor: map[string]resources.Quantities{},
		gained: map[*roles.Node]resources.Quantities{}}
	rc.lapse()
	if a.opts.Reclaim == ReclaimFairShare {
		rc.offeredRoles = map[string]bool{}
		for i := range r.offers {
			rc.offeredRoles[r.offers[i].key.role] = true
		}
	}
	for _, path := range a.roles.Nodes.Keys() {
		n := a.roles.Nodes.Get(path)
		if n.Q().Guarantees.IsEmpty() {
			continue
		}
		rc.forGuarantee(n)
	}
	if a.opts.Reclaim == ReclaimFairShare {
		for _, path := range a.roles.Nodes.Keys() {
			rc.forFairShare(a.roles.Nodes.Get(path))
		}
	}
	return rc.out
}

// lapse drops the pending preemptions whose task is gone or whose time is
// up, and sums the others by the role they are for.
func (rc *reclaimer) lapse() {
	a := rc.a
	for role, run := range a.tookAt {
		if run+1 < rc.r.id {
			delete(a.tookAt, role)
		}
	}
	for ref, p := range a.preempting {
		fw := a.cs.Frameworks.Get(ref.framework)
		if fw == nil || fw.Tasks[ref.task] == nil || rc.r.now.After(p.until) {
			delete(a.preempting, ref)
			continue
		}
		q := rc.pendingFor[p.forRole]
		q.Add(p.frees)
		rc.pendingFor[p.forRole] = q
	}
}

func compareTaskRefs(x, y taskRef) int {
	return cmp.Or(strings.Compare(x.framework, y.framework), strings.Compare(x.task, y.task))
}

// beneficiary returns the framework that what is freed for role n is
// held for, and the role it is held in: the first framework, in n's
// framework sorter's order, that is active, subscribed to n and does not
// suppress offers in it; else, when subtree is set (a guarantee covers
// n's subtree), the first found so in n's sub-roles, depth first in path
// order. Nil if none.
func (a *Allocator) beneficiary(n *roles.Node, subtree bool) (*cluster.Framework, string) {
	if fs := n.FrameworkSorter; fs != nil {
		var found *cluster.Framework
		walk(fs.Sorter, func(id string) bool {
			fw := a.cs.Frameworks.Get(id)
			if fw != nil && fw.Active && fw.Roles.Has(n.Path, tables.Subscribed) && !fw.Roles.Has(n.Path, tables.Suppressed) {
				found = fw
				return false
			}
			return true
		})
		if found != nil {
			return found, n.Path
		}
	}
	if subtree {
		for _, c := range n.Children {
			if fw, role := a.beneficiary(c, true); fw != nil {
				return fw, role
			}
		}
	}
	return nil, ""
}

// usableBy reports whether what a task frees on ag could be offered to fw.
func (a *Allocator) usableBy(fw *cluster.Framework, role string, ag *cluster.Agent) bool {
	if !ag.Active || !a.whitelisted(ag) || !a.capableOfAgent(fw, ag) {
		return false
	}
	if cs, ok := fw.Info.Constraints[role]; ok && !cs.Admits(ag.Info.Attributes) {
		return false
	}
	return true
}

// forGuarantee chooses tasks to end for a role below its guarantee.
func (rc *reclaimer) forGuarantee(n *roles.Node) {
	a := rc.a
	var need resources.Quantities
	n.UnmetInto(&need)
	if need.IsEmpty() {
		return
	}
	fw, in := a.beneficiary(n, true)
	if fw == nil {
		return
	}
	need.Subtract(rc.pendingFor[n.Path])
	need.Subtract(rc.freeFor(fw, in))
	if need.IsEmpty() {
		return
	}
	rc.gather()
	for !need.IsEmpty() {
		c := rc.chooseVictim(n, fw, in, need)
		if c == nil {
			return
		}
		rc.choose(c, n, fw, in, PreemptForGuarantee)
		need.Subtract(c.frees)
	}
}

// forFairShare chooses at most one task to end for a role that got
// nothing in this run and wants more: of the roles whose weighted share
// is above the role's, the task that frees the least (by its dominant
// share), then the youngest, whose end leaves the role at or below the
// victim.
func (rc *reclaimer) forFairShare(n *roles.Node) {
	a := rc.a
	if _, pending := rc.pendingFor[n.Path]; pending || rc.offeredRoles[n.Path] {
		return
	}
	fw, _ := a.beneficiary(n, false)
	if fw == nil {
		return
	}
	if free := rc.freeFor(fw, n.Path); !free.IsEmpty() && containsAnyMin(free, a.minsOf(fw, n.Path)) {
		return
	}
	none := resources.Quantities{}
	share := rc.share(n, none, none)
	if share >= rc.highestShare() {
		return // no role is above it
	}
	rc.gather()
	rc.sortVictims()
	var best *reclaimCandidate
	for _, v := range rc.victims {
		if v.share <= share || rc.tookRecently(v.node.Path) {
			continue
		}
		for _, c := range v.tasks {
			if best != nil && !fairBefore(c, best) {
				break // the rest of v's free more, or are older
			}
			if !rc.eligible(c, n, fw, n.Path) {
				continue
			}
			if rc.share(n, c.frees, none) > rc.share(c.node, none, c.frees) {
				continue
			}
			best = c
			break
		}
	}
	if best != nil {
		rc.choose(best, n, fw, n.Path, PreemptForFairShare)
	}
}

// tookRecently reports whether tasks are being ended for role, or were
// chosen for it in this run or the one before.
func (rc *reclaimer) tookRecently(role string) bool {
	if _, pending := rc.pendingFor[role]; pending {
		return true
	}
	last, ok := rc.a.tookAt[role]
	return ok && last+1 >= rc.r.id
}

// fairBefore orders fair-share choices: the least resources freed, then
// the youngest task, then by framework and task id.
func fairBefore(x, y *reclaimCandidate) bool {
	if x.dominant != y.dominant {
		return x.dominant < y.dominant
	}
	return youngerFirst(x, y) < 0
}

// youngerFirst orders tasks youngest first, then by framework and task id.
func youngerFirst(x, y *reclaimCandidate) int {
	return cmp.Or(-cmp.Compare(x.t.Seq, y.t.Seq), strings.Compare(x.fw.ID, y.fw.ID), strings.Compare(x.t.ID, y.t.ID))
}

// minsOf returns the minimum allocatable alternatives of fw in role.
func (a *Allocator) minsOf(fw *cluster.Framework, role string) []resources.Quantities {
	if mins, ok := fw.Info.MinAllocatable[role]; ok {
		return mins
	}
	return a.opts.MinAllocatable
}

// containsAnyMin reports whether q holds one of the alternatives (any q
// when there are none).
func containsAnyMin(q resources.Quantities, mins []resources.Quantities) bool {
	if len(mins) == 0 {
		return !q.IsEmpty()
	}
	for _, m := range mins {
		if q.Contains(m) {
			return true
		}
	}
	return false
}

// choose records c as chosen for n, to be held for fw in role in.
func (rc *reclaimer) choose(c *reclaimCandidate, n *roles.Node, fw *cluster.Framework, in string, reason PreemptReason) {
	a := rc.a
	none := resources.Quantities{}
	p := Preemption{
		FrameworkID: c.fw.ID, TaskID: c.t.ID, AgentID: c.ag.ID, Role: c.node.Path,
		For: n.Path, ForFramework: fw.ID, HeldIn: in, Reason: reason, Frees: c.frees.Clone(),
		ForShare:  [2]float64{rc.share(n, none, none), rc.share(n, c.frees, none)},
		RoleShare: [2]float64{rc.share(c.node, none, none), rc.share(c.node, none, c.frees)},
	}
	rc.out = append(rc.out, p)
	for q := c.node; q != nil && q.Path != ""; q = q.Parent {
		t := rc.taken[q]
		t.Add(c.frees)
		rc.taken[q] = t
	}
	g := rc.gained[n]
	g.Add(c.frees)
	rc.gained[n] = g
	if v := rc.victimOf[c.node]; v != nil {
		v.share = rc.share(c.node, none, none)
	}
	pf := rc.pendingFor[n.Path]
	pf.Add(c.frees)
	rc.pendingFor[n.Path] = pf
	a.tookAt[n.Path] = rc.r.id
	a.preempting[taskRef{c.fw.ID, c.t.ID}] = &pendingPreemption{
		forRole: n.Path, forFramework: fw.ID, heldIn: in, reason: reason, frees: c.frees.Clone(),
		until: rc.r.now.Add(a.reclaimTimeout()),
	}
	c.chosen = true
}

// weightedShareWith is a role's own weighted dominant share of the
// cluster (what the role sorter charges it, by the cluster's totals,
// divided by its weight) with plus added to its holdings and minus taken
// from them.
func (a *Allocator) weightedShareWith(n *roles.Node, plus, minus resources.Quantities) float64 {
	var q resources.Quantities
	if a.roleSorter.Contains(n.Path) {
		q = a.roleSorter.AllocationQuantities(n.Path).Clone()
	}
	q.Add(plus)
	q.Subtract(minus)
	w := 1.0
	if x, ok := a.roles.Weights[n.Path]; ok {
		w = x
	}
	share, _ := q.DominantShare(a.cs.Totals, a.excluded)
	return share / w
}

// Preempting returns the tasks runs chose to end that have not ended yet
// and whose choice has not lapsed, sorted by framework and task id. Their
// shares are not kept (zero).
func (a *Allocator) Preempting() []Preemption {
	a.ready()
	var out []Preemption
	for _, ref := range slices.SortedFunc(maps.Keys(a.preempting), compareTaskRefs) {
		p := a.preempting[ref]
		fw := a.cs.Frameworks.Get(ref.framework)
		if fw == nil || fw.Tasks[ref.task] == nil {
			continue
		}
		t := fw.Tasks[ref.task]
		out = append(out, Preemption{FrameworkID: ref.framework, TaskID: ref.task, AgentID: t.Agent, Role: t.Role,
			For: p.forRole, ForFramework: p.forFramework, HeldIn: p.heldIn, Reason: p.reason, Frees: p.frees.Clone()})
	}
	return out
}
