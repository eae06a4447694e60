package allocator

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// forgetTask takes t out of fw's ledger.
func (a *Allocator) forgetTask(fw *cluster.Framework, t *cluster.Task) {
	delete(fw.Tasks, t.ID)
	t.Ended = true
	a.ledgerEnded++
}

// liveLedger returns the tasks of every framework's ledger, in launch
// order. It is kept as tasks are launched and compacted when more than
// half of it has ended; an allocator restored from a snapshot builds it
// at its first use (its count of live tasks tells).
func (a *Allocator) liveLedger() []*cluster.Task {
	live := 0
	for fw := range a.cs.Frameworks.All() {
		live += len(fw.Tasks)
	}
	if !a.ledgerBuilt || live != len(a.ledger)-a.ledgerEnded {
		// Built anew where tasks came another way (a restored snapshot).

		a.ledger = a.ledger[:0]
		for fw := range a.cs.Frameworks.All() {
			for _, t := range fw.Tasks {
				t.Framework = fw
				a.ledger = append(a.ledger, t)
			}
		}
		slices.SortFunc(a.ledger, func(x, y *cluster.Task) int { return cmp.Compare(x.Seq, y.Seq) })
		a.ledgerBuilt, a.ledgerEnded = true, 0
	}
	if a.ledgerEnded > len(a.ledger)/2 {
		a.ledger = slices.DeleteFunc(a.ledger, func(t *cluster.Task) bool { return t.Ended })
		a.ledgerEnded = 0
	}
	return a.ledger
}

// TaskView is one launched task that has not ended.
type TaskView struct {
	ID, Agent, Role string
	// Resources are the task's resources, tagged with its role.
	Resources resources.Resources
}

// checkNewTasks refuses a launch (operation i of a call) whose task ids the
// framework already runs, or that an earlier launch of the call used (seen,
// which it extends).
func checkNewTasks(fw *cluster.Framework, i int, op offer.Operation, seen map[string]bool) error {
	l, ok := launchOf(op)
	if !ok {
		return nil
	}
	for _, t := range l.Tasks {
		if _, running := fw.Tasks[t.ID]; running || seen[t.ID] {
			return fmt.Errorf("%w: operation %d (LAUNCH): framework %q already runs a task %q", ErrDuplicateTask, i, fw.ID, t.ID)
		}
	}
	for _, t := range l.Tasks {
		seen[t.ID] = true
	}
	return nil
}

func launchOf(op offer.Operation) (offer.Launch, bool) {
	switch l := op.(type) {
	case offer.Launch:
		return l, true
	case *offer.Launch:
		if l != nil {
			return *l, true
		}
	}
	return offer.Launch{}, false
}

// recordTasks adds the tasks of the launches among ops, applied on ag in
// role, to the framework's ledger.
func (a *Allocator) recordTasks(fw *cluster.Framework, agentID, role string, ops []offer.Operation) {
	var seen resources.Resources // shared volumes owned by a task of this call
	for _, op := range ops {
		l, ok := launchOf(op)
		if !ok {
			continue
		}
		for _, t := range l.Tasks {
			uses := t.Resources.Clone()
			owns := uses.NonShared()
			for r := range uses.Shared().All() {
				if seen.Copies(r) == 0 {
					_ = owns.AddResource(r)
					_ = seen.AddResource(r)
				}
			}
			if fw.Tasks == nil {
				fw.Tasks = map[string]*cluster.Task{}
			}
			a.taskSeq++
			nt := &cluster.Task{ID: t.ID, Agent: agentID, Role: role, Uses: uses, Owns: owns, Seq: a.taskSeq, Framework: fw}
			fw.Tasks[t.ID] = nt
			if a.ledgerBuilt {
				a.ledger = append(a.ledger, nt)
			}
		}
	}
}

// EndTask records that a task launched through Accept or UpdateAllocation
// ended (finished, failed, was killed or lost): what it used goes back to
// the agent's available pool. Status updates may be delivered more than
// once; an id that is unknown or has already ended is ErrUnknownTask and
// changes nothing, so a repeated report never frees another task's
// resources. Shared volumes stay allocated while another task of the
// framework on the agent still uses them; executor resources are given back
// with RecoverAllocated when the executor ends. No allocation is triggered.
//
// Hosts that account for tasks themselves use RecoverAllocated instead; a
// host should not give back a ledger task's resources both ways.
func (a *Allocator) EndTask(fwID, taskID string) error {
	return a.stepErr(Entry{Event: EventEndTask, Framework: fwID, Task: taskID})
}

// endTask is EndTask's handler (see events.go).
func (a *Allocator) endTask(fwID, taskID string) error {
	fw, t, err := a.cs.Task(fwID, taskID)
	if err != nil {
		return err
	}
	ag := a.cs.Agents.Get(t.Agent)
	free := t.Owns.NonShared()
	heirs := map[*cluster.Task]resources.Resources{}
	for r := range t.Owns.Shared().All() {
		heir := fw.SharedHeir(t, r)
		to := free
		if heir != nil {
			to = heirs[heir]
		}
		for range t.Owns.Copies(r) {
			_ = to.AddResource(r)
		}
		if heir != nil {
			heirs[heir] = to
		} else {
			free = to
		}
	}
	if !ag.Allocated.Get(fwID).Contains(free) {
		return fmt.Errorf("%w: framework %q, task %q on agent %q: %s (given back already?)", ErrNotHeld, fwID, taskID, t.Agent, free)
	}
	for heir, owns := range heirs {
		heir.Owns = heir.Owns.Plus(owns)
	}
	a.forgetTask(fw, t)
	a.untrackAllocation(fw, ag, free, true)
	if p, chosen := a.preempting[taskRef{fwID, taskID}]; chosen {
		delete(a.preempting, taskRef{fwID, taskID})
		a.holdFreed(p, ag, free)
	}
	return nil
}

// dropTasksOn forgets the framework's tasks on an agent (the agent was
// removed: its tasks are gone with it).
func (a *Allocator) dropTasksOn(fw *cluster.Framework, agentID string) {
	for _, t := range fw.Tasks {
		if t.Agent == agentID {
			a.forgetTask(fw, t)
		}
	}
}

// Tasks returns the framework's launched tasks that have not ended, sorted
// by id; nil for an unknown framework.
func (a *Allocator) Tasks(fwID string) []TaskView {
	a.ready()
	fw, ok := a.cs.Frameworks.Lookup(fwID)
	if !ok {
		return nil
	}
	out := make([]TaskView, 0, len(fw.Tasks))
	for _, t := range fw.Tasks {
		out = append(out, TaskView{ID: t.ID, Agent: t.Agent, Role: t.Role, Resources: t.Uses.Clone()})
	}
	slices.SortFunc(out, func(x, y TaskView) int {
		if x.ID < y.ID {
			return -1
		}
		if x.ID > y.ID {
			return 1
		}
		return 0
	})
	return out
}
