package allocator

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// Holds: in-framework preemption.
//
// A host that preempts a framework's task to make room for another task of
// the same framework gives the task's resources back with RecoverHeld (or
// PreemptTask, for a task of the ledger): instead of going back to the
// common pool, they are held for the framework, in the role they were
// allocated to, and offered to it alone at the next run, ahead of every
// other offer on the agent. They stay held while the framework is inactive,
// has suppressed the role, or has a refusal filter that covers them, until
// the hold time runs out (what it can no longer take, having dropped a
// capability or being excluded from the agent by its constraints since, or
// what is below its minimum allocatable resources, goes back to the pool
// at once); then, at the first run
// after the expiry that looks at the agent (a run at the very instant
// still holds them, as with refusal filters), they go back to the pool. A
// periodic run looks at every agent: one it leaves out (inactive,
// over-allocated, off the whitelist) has its expired holds given back all
// the same. Declining the offer made from
// a hold gives the resources back to the pool as any decline does.
//
// While held, resources count in the framework's and its role's shares and
// in the role's quota consumption, exactly as when they were in use, so
// holding cannot be used to game fairness; they are neither available nor
// offered, so they count once. Removing the framework or the agent ends its
// holds.

// RecoverHeld gives back resources a framework uses on an agent (as
// RecoverAllocated does) but holds them for the framework for d: the next
// run offers them to it alone (see the package doc and holds.go). res must
// be among what the framework uses there, carry allocation roles, and hold
// no shared volume; d must be positive and at most MaxRefuse. It triggers an
// allocation of the agent.
func (a *Allocator) RecoverHeld(fwID, agentID string, res resources.Resources, d time.Duration) error {
	return a.stepErr(Entry{Event: EventRecoverHeld, Framework: fwID, Agent: agentID, Resources: res, Hold: d})
}

// recoverHeld is RecoverHeld's handler (see events.go).
func (a *Allocator) recoverHeld(fwID, agentID string, res resources.Resources, d time.Duration) error {
	fw, ag, err := a.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	if err := checkHold(res, d); err != nil {
		return err
	}
	if !ag.Allocated.Get(fwID).Contains(res) {
		return fmt.Errorf("%w: framework %q does not use %s on agent %q", ErrNotHeld, fwID, res, agentID)
	}
	a.holdFor(fw, ag, res, d)
	return nil
}

// PreemptTask ends a task of the ledger (see EndTask) and holds its
// resources for the framework for d, as RecoverHeld does. Shared volumes
// the task used are given back as EndTask gives them back.
func (a *Allocator) PreemptTask(fwID, taskID string, d time.Duration) error {
	return a.stepErr(Entry{Event: EventPreemptTask, Framework: fwID, Task: taskID, Hold: d})
}

// preemptTask is PreemptTask's handler (see events.go).
func (a *Allocator) preemptTask(fwID, taskID string, d time.Duration) error {
	fw, t, err := a.cs.Task(fwID, taskID)
	if err != nil {
		return err
	}
	held := t.Owns.NonShared()
	if err := checkHold(held, d); err != nil {
		return err
	}
	ag := a.cs.Agents.Get(t.Agent)
	if !ag.Allocated.Get(fwID).Contains(held) {
		return fmt.Errorf("%w: framework %q, task %q on agent %q: %s (given back already?)", ErrNotHeld, fwID, taskID, t.Agent, held)
	}
	if shared := t.Owns.Shared(); !shared.IsEmpty() {
		// The task's shared volumes go as EndTask lets them go; its other
		// resources are held. EndTask refuses before it changes anything,
		// and then the task owns what it owned.
		owns := t.Owns
		t.Owns = shared
		if err := a.endTask(fwID, taskID); err != nil {
			t.Owns = owns
			return err
		}
	} else {
		a.tasks.Forget(fw, t)
	}
	a.holdFor(fw, ag, held, d)
	return nil
}

func checkHold(res resources.Resources, d time.Duration) error {
	if d <= 0 || d > MaxRefuse {
		return fmt.Errorf("%w: hold of %s, want a positive duration of at most %s", ErrInvalidHold, d, MaxRefuse)
	}
	if res.IsEmpty() {
		return fmt.Errorf("%w: nothing to hold", ErrInvalidHold)
	}
	if res.HasShared() {
		return fmt.Errorf("%w: shared volumes stay available and cannot be held: %s", ErrInvalidHold, res.Shared())
	}
	if role, single := res.AllocationRole(); (single && role == "") || (!single && slices.Contains(res.AllocationRoles(), "")) {
		return fmt.Errorf("%w: %s has no allocation role", ErrInvalidResources, res)
	}
	return nil
}

// holdFor moves res (checked) from what fw uses on ag to a hold for it.
// Nothing else changes: held resources count as they did in use.
func (a *Allocator) holdFor(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, d time.Duration) {
	ag.Allocated.Set(fw.ID, ag.Allocated.Get(fw.ID).Minus(res))
	ag.More().Holds.Add(fw.ID, res.Clone(), a.opts.Clock().Add(d))
	a.engine.WantsRun(ag)
}
