package allocator

import (
	"time"

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
// run offers them to it alone (see the package doc and above). res must
// be among what the framework uses there, carry allocation roles, and hold
// no shared volume; d must be positive and at most MaxRefuse. It triggers an
// allocation of the agent.
func (a *Allocator) RecoverHeld(fwID, agentID string, res resources.Resources, d time.Duration) error {
	return a.stepErr(Entry{Event: EventRecoverHeld, Framework: fwID, Agent: agentID, Resources: res, Hold: d})
}

// PreemptTask ends a task of the ledger (see EndTask) and holds its
// resources for the framework for d, as RecoverHeld does. Shared volumes
// the task used are given back as EndTask gives them back.
func (a *Allocator) PreemptTask(fwID, taskID string, d time.Duration) error {
	return a.stepErr(Entry{Event: EventPreemptTask, Framework: fwID, Task: taskID, Hold: d})
}
