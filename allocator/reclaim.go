package allocator

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/reservation"
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
// still got nothing and wants more then has one task chosen, from a role
// with a higher weighted share, if after it the role's share stays at or
// below the other's. The run returns them as Result.Preemptions; the host
// ends them (kill requests, or Mesos-style inverse offers, as it likes)
// and reports EndTask as for any task. What such an end frees (unreserved,
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
	return "reclaim(" + string(rune('0'+r)) + ")"
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
	// For is the role it is ended for, ForFramework the framework of that
	// role what it frees is held for.
	For, ForFramework string
	Reason            PreemptReason
	// Frees is what its end frees that counts towards For's guarantee:
	// its unreserved, non-revocable, non-shared scalars.
	Frees resources.Quantities
	// ForShare and RoleShare are the weighted dominant shares of For and
	// of Role (each role's own holdings, by the cluster's totals, divided
	// by its weight), before the task ends and after its resources move.
	ForShare, RoleShare [2]float64
}

// String describes the preemption in one line.
func (p Preemption) String() string {
	return "end task " + p.TaskID + " of " + p.FrameworkID + " (" + p.Role + ") on " + p.AgentID +
		" for " + p.For + " (" + p.Reason.String() + "): frees " + p.Frees.String() +
		"; shares " + shareText(p.ForShare[0]) + "→" + shareText(p.ForShare[1]) + " and " +
		shareText(p.RoleShare[0]) + "→" + shareText(p.RoleShare[1])
}

// DefaultReclaimTimeout is how long a chosen task has to end before the
// choice lapses, when Options.ReclaimTimeout is zero: ten allocation
// intervals.
const defaultReclaimIntervals = 10

// taskRef names a task of the ledger.
type taskRef struct{ framework, task string }

// pendingPreemption is a task chosen to end that has not ended yet.
type pendingPreemption struct {
	forRole, forFramework string
	reason                PreemptReason
	frees                 resources.Quantities
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

// reclaimCandidate is a task that could be chosen.
type reclaimCandidate struct {
	t     *task
	fw    *framework
	ag    *agent
	node  *roleNode
	frees resources.Quantities
	// dominant is frees' dominant share of the cluster, for the order of
	// fair-share choices.
	dominant float64
}

// reclaimer is one run's reclaim: the candidates, what was chosen, and
// what each role has given up in this run.
type reclaimer struct {
	a          *Allocator
	r          *run
	candidates []*reclaimCandidate
	// taken is what tasks chosen in this run free, by the node of their
	// role and by each of its ancestors.
	taken map[*roleNode]resources.Quantities
	// pendingFor is what chosen tasks not ended yet will free, by the role
	// they were chosen for.
	pendingFor map[string]resources.Quantities
	out        []Preemption
}

// reclaim makes the run's preemptions (with Options.Reclaim on).
func (a *Allocator) reclaim(r *run) []Preemption {
	if a.opts.Reclaim == ReclaimOff {
		return nil
	}
	rc := &reclaimer{a: a, r: r, taken: map[*roleNode]resources.Quantities{}, pendingFor: map[string]resources.Quantities{}}
	rc.lapse()
	for _, path := range slices.Sorted(maps.Keys(a.roles.nodes)) {
		n := a.roles.nodes[path]
		if n.quota.Guarantees.IsEmpty() {
			continue
		}
		rc.forGuarantee(n)
	}
	if a.opts.Reclaim == ReclaimFairShare {
		for _, path := range slices.Sorted(maps.Keys(a.roles.nodes)) {
			rc.forFairShare(a.roles.nodes[path])
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
	for _, ref := range slices.SortedFunc(maps.Keys(a.preempting), compareTaskRefs) {
		p := a.preempting[ref]
		fw := a.frameworks[ref.framework]
		if fw == nil || fw.tasks[ref.task] == nil || rc.r.now.After(p.until) {
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

// beneficiary returns the framework of role n that what is freed for n is
// held for: the first, in n's framework sorter's order, that is active,
// subscribed to n and does not suppress offers in it; nil if none.
func (a *Allocator) beneficiary(n *roleNode) *framework {
	fs := a.frameworkSorters[n.path]
	if fs == nil {
		return nil
	}
	var found *framework
	walk(fs.Sorter, func(id string) bool {
		fw := a.frameworks[id]
		if fw != nil && fw.active && fw.roles.has(n.path) && !fw.suppressed.has(n.path) {
			found = fw
			return false
		}
		return true
	})
	return found
}

// usableBy reports whether what a task frees on ag could be offered to fw.
func (a *Allocator) usableBy(fw *framework, role string, ag *agent) bool {
	if !ag.active || !a.whitelisted(ag) || !a.capableOfAgent(fw, ag) {
		return false
	}
	if cs, ok := fw.info.Constraints[role]; ok && !cs.admits(ag.info.Attributes) {
		return false
	}
	return true
}

// freeFor is the unreserved, non-revocable scalars free on the agents fw
// could be offered them on.
func (a *Allocator) freeFor(fw *framework, role string) resources.Quantities {
	var q resources.Quantities
	for _, id := range a.agentIDs {
		if ag := a.agents[id]; a.usableBy(fw, role, ag) {
			q.Add(ag.headroom)
		}
	}
	return q
}

// forGuarantee chooses tasks to end for a role below its guarantee.
func (rc *reclaimer) forGuarantee(n *roleNode) {
	a := rc.a
	var need resources.Quantities
	n.unmetInto(&need)
	if need.IsEmpty() {
		return
	}
	fw := a.beneficiary(n)
	if fw == nil {
		return
	}
	need.Subtract(rc.pendingFor[n.path])
	need.Subtract(a.freeFor(fw, n.path))
	if need.IsEmpty() {
		return
	}
	rc.gather()
	for !need.IsEmpty() {
		c := rc.chooseVictim(n, fw, need)
		if c == nil {
			return
		}
		rc.choose(c, n, fw, PreemptForGuarantee)
		need.Subtract(c.frees)
	}
}

// forFairShare chooses at most one task to end for a role that got
// nothing in this run and wants more.
func (rc *reclaimer) forFairShare(n *roleNode) {
	a := rc.a
	if _, pending := rc.pendingFor[n.path]; pending {
		return
	}
	if rc.offeredTo(n.path) {
		return
	}
	fw := a.beneficiary(n)
	if fw == nil {
		return
	}
	if free := a.freeFor(fw, n.path); !free.IsEmpty() && containsAnyMin(free, a.minsOf(fw, n.path)) {
		return
	}
	rc.gather()
	share := a.weightedShare(n)
	var best *reclaimCandidate
	for _, c := range rc.candidates {
		if !rc.eligible(c, n, fw) {
			continue
		}
		if rc.tookRecently(c.node.path) {
			continue
		}
		victim := a.weightedShare(c.node)
		if victim <= share {
			continue
		}
		if a.weightedShareWith(n, c.frees, resources.Quantities{}) > a.weightedShareWith(c.node, resources.Quantities{}, c.frees) {
			continue
		}
		if best == nil || fairBefore(c, best) {
			best = c
		}
	}
	if best != nil {
		rc.choose(best, n, fw, PreemptForFairShare)
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
	return cmp.Or(-cmp.Compare(x.t.seq, y.t.seq), strings.Compare(x.fw.id, y.fw.id), strings.Compare(x.t.id, y.t.id))
}

// offeredTo reports whether the run offered role anything.
func (rc *reclaimer) offeredTo(role string) bool {
	for i := range rc.r.offers {
		if rc.r.offers[i].key.role == role {
			return true
		}
	}
	return false
}

// minsOf returns the minimum allocatable alternatives of fw in role.
func (a *Allocator) minsOf(fw *framework, role string) []resources.Quantities {
	if mins, ok := fw.info.MinAllocatable[role]; ok {
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

// gather lists, once a run, the tasks that could be chosen: those whose
// end frees something that counts towards a guarantee, not chosen before.
func (rc *reclaimer) gather() {
	if rc.candidates != nil {
		return
	}
	a := rc.a
	rc.candidates = []*reclaimCandidate{}
	for _, fwID := range slices.Sorted(maps.Keys(a.frameworks)) {
		fw := a.frameworks[fwID]
		for _, id := range slices.Sorted(maps.Keys(fw.tasks)) {
			t := fw.tasks[id]
			if _, chosen := a.preempting[taskRef{fwID, id}]; chosen {
				continue
			}
			frees := headroomOf(t.owns.NonShared())
			node, ag := a.roles.get(t.role), a.agents[t.agent]
			if frees.IsEmpty() || node == nil || ag == nil {
				continue
			}
			dominant, _ := frees.DominantShare(a.totals, a.excluded)
			rc.candidates = append(rc.candidates, &reclaimCandidate{t: t, fw: fw, ag: ag, node: node, frees: frees, dominant: dominant})
		}
	}
}

// eligible reports whether c may be ended for role n (fw the framework
// what it frees would be held for): not chosen in this run, of a role
// outside n's subtree (whose consumption does not count as n's), on an
// agent fw could use, and without taking its role or an ancestor below its
// guarantee.
func (rc *reclaimer) eligible(c *reclaimCandidate, n *roleNode, fw *framework) bool {
	if c.t == nil || c.node == n || reservation.IsStrictSubrole(c.node.path, n.path) {
		return false
	}
	if !rc.a.usableBy(fw, n.path, c.ag) {
		return false
	}
	for q := range c.node.quotaAncestry {
		if q.quota.Guarantees.IsEmpty() {
			continue
		}
		left := q.consumed()
		left.Subtract(rc.taken[q])
		for name, g := range q.quota.Guarantees.All() {
			if f := c.frees.Scalar(name); f > 0 && left.Scalar(name)-f < g {
				return false
			}
		}
	}
	return true
}

// chooseVictim returns the task to end next for n's need: of those
// eligible, the one that covers most of the need (the sum, over the
// resources needed, of the part of each it frees), then the one that
// frees the least beyond the need (each resource by the cluster's total),
// then the youngest; nil when none covers anything.
func (rc *reclaimer) chooseVictim(n *roleNode, fw *framework, need resources.Quantities) *reclaimCandidate {
	var best *reclaimCandidate
	var bestCover, bestExcess float64
	for _, c := range rc.candidates {
		if !rc.eligible(c, n, fw) {
			continue
		}
		cover, excess := coverage(c.frees, need, rc.a.totals)
		if cover <= 0 {
			continue
		}
		if best == nil || cover > bestCover || (cover == bestCover && (excess < bestExcess || (excess == bestExcess && youngerFirst(c, best) < 0))) {
			best, bestCover, bestExcess = c, cover, excess
		}
	}
	return best
}

// coverage returns how much of need frees covers (the sum over need's
// resources of the part covered, each between 0 and 1) and how much it
// frees beyond need (each resource as a part of the cluster's total).
func coverage(frees, need, totals resources.Quantities) (cover, excess float64) {
	for name, v := range need.All() {
		if v <= 0 {
			continue
		}
		cover += float64(min(frees.Scalar(name), v)) / float64(v)
	}
	for name, v := range frees.All() {
		if beyond := v - need.Scalar(name); beyond > 0 {
			if total := totals.Scalar(name); total > 0 {
				excess += float64(beyond) / float64(total)
			}
		}
	}
	return cover, excess
}

// choose records c as chosen for n, to be held for fw.
func (rc *reclaimer) choose(c *reclaimCandidate, n *roleNode, fw *framework, reason PreemptReason) {
	a := rc.a
	p := Preemption{
		FrameworkID: c.fw.id, TaskID: c.t.id, AgentID: c.ag.id, Role: c.node.path,
		For: n.path, ForFramework: fw.id, Reason: reason, Frees: c.frees.Clone(),
		ForShare:  [2]float64{a.weightedShare(n), a.weightedShareWith(n, c.frees, resources.Quantities{})},
		RoleShare: [2]float64{a.weightedShare(c.node), a.weightedShareWith(c.node, resources.Quantities{}, c.frees)},
	}
	rc.out = append(rc.out, p)
	for q := c.node; q != nil && q.path != ""; q = q.parent {
		t := rc.taken[q]
		t.Add(c.frees)
		rc.taken[q] = t
	}
	pf := rc.pendingFor[n.path]
	pf.Add(c.frees)
	rc.pendingFor[n.path] = pf
	a.tookAt[n.path] = rc.r.id
	a.preempting[taskRef{c.fw.id, c.t.id}] = &pendingPreemption{
		forRole: n.path, forFramework: fw.id, reason: reason, frees: c.frees.Clone(),
		until: rc.r.now.Add(a.reclaimTimeout()),
	}
	c.t = nil // chosen: no longer a candidate in this run
}

// weightedShare is a role's own weighted dominant share of the cluster:
// what the role sorter charges it, by the cluster's totals, divided by
// its weight.
func (a *Allocator) weightedShare(n *roleNode) float64 {
	return a.weightedShareWith(n, resources.Quantities{}, resources.Quantities{})
}

// weightedShareWith is weightedShare with plus added to the role's
// holdings and minus taken from them.
func (a *Allocator) weightedShareWith(n *roleNode, plus, minus resources.Quantities) float64 {
	var q resources.Quantities
	if a.roleSorter.Contains(n.path) {
		q = a.roleSorter.AllocationQuantities(n.path).Clone()
	}
	q.Add(plus)
	q.Subtract(minus)
	w := 1.0
	if x, ok := a.roles.weights[n.path]; ok {
		w = x
	}
	share, _ := q.DominantShare(a.totals, a.excluded)
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
		fw := a.frameworks[ref.framework]
		if fw == nil || fw.tasks[ref.task] == nil {
			continue
		}
		t := fw.tasks[ref.task]
		out = append(out, Preemption{FrameworkID: ref.framework, TaskID: ref.task, AgentID: t.agent, Role: t.role,
			For: p.forRole, ForFramework: p.forFramework, Reason: p.reason, Frees: p.frees.Clone()})
	}
	return out
}
