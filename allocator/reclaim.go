package allocator

import (
	"maps"
	"slices"
	"strconv"

	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/resources"
)

// Reclaim: ending other roles' tasks so that a pending task of a role
// owed more can run (Options.Reclaim). Mesos never did this: a guarantee
// is kept there only with free resources, and a role below it waits for
// other roles' tasks to end by themselves. The choice is package
// reclaim's (allocator/internal/reclaim, whose doc gives the rules); here
// the run (allocator/internal/run) hands it the cluster, this package
// turns its choices into Preemptions, and the end of a chosen task holds
// what it frees.

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
	// ForTask is the pending task (one task's quantities, as its
	// framework stated them with UpdateDemand) whose room the task's end
	// makes, with the other tasks chosen with it on its agent.
	ForTask resources.Quantities
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

// Reclaim and PreemptReason are package reclaim's Mode and Reason value
// for value: a change on one side fails to compile here.
const (
	_ = uint8(reclaim.Off-reclaim.Mode(ReclaimOff)) + uint8(reclaim.Mode(ReclaimOff)-reclaim.Off)
	_ = uint8(reclaim.Guarantees-reclaim.Mode(ReclaimGuarantees)) + uint8(reclaim.Mode(ReclaimGuarantees)-reclaim.Guarantees)
	_ = uint8(reclaim.FairShare-reclaim.Mode(ReclaimFairShare)) + uint8(reclaim.Mode(ReclaimFairShare)-reclaim.FairShare)
	_ = uint8(reclaim.ForGuarantee-reclaim.Reason(PreemptForGuarantee)) + uint8(reclaim.Reason(PreemptForGuarantee)-reclaim.ForGuarantee)
	_ = uint8(reclaim.ForFairShare-reclaim.Reason(PreemptForFairShare)) + uint8(reclaim.Reason(PreemptForFairShare)-reclaim.ForFairShare)
)

// preemptions returns reclaim's choices as Preemptions.
func preemptions(cs []reclaim.Chosen) []Preemption {
	if len(cs) == 0 {
		return nil
	}
	out := make([]Preemption, len(cs))
	for i, c := range cs {
		out[i] = preemptionOf(c.Ref, c.Agent, c.Role, &c.Choice)
		out[i].ForShare, out[i].RoleShare = c.ForShare, c.RoleShare
	}
	return out
}

// preemptionOf returns the choice of the task ref (on agent, in role) as a
// Preemption, without shares.
func preemptionOf(ref reclaim.TaskRef, agent, role string, c *reclaim.Choice) Preemption {
	return Preemption{FrameworkID: ref.Framework, TaskID: ref.Task, AgentID: agent, Role: role,
		For: c.ForRole, ForFramework: c.ForFramework, HeldIn: c.HeldIn, Reason: PreemptReason(c.Reason),
		Frees: c.Frees.Clone(), ForTask: c.Task.Clone()}
}

// Preempting returns the tasks runs chose to end that have not ended yet
// and whose choice has not lapsed nor been withdrawn, sorted by framework
// and task id. Their shares are not kept (zero).
func (a *Allocator) Preempting() []Preemption {
	a.ready()
	var out []Preemption
	for _, ref := range slices.SortedFunc(maps.Keys(a.reclaims.Choices), reclaim.TaskRef.Compare) {
		fw := a.cs.Frameworks.Get(ref.Framework)
		if fw == nil || fw.Tasks[ref.Task] == nil {
			continue
		}
		t := fw.Tasks[ref.Task]
		out = append(out, preemptionOf(ref, t.Agent, t.Role, a.reclaims.Choices[ref]))
	}
	return out
}
