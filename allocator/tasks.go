package allocator

import (
	"slices"

	"github.com/allot-go/allot/resources"
)

// TaskView is one launched task that has not ended.
type TaskView struct {
	ID, Agent, Role string
	// Resources are the task's resources, tagged with its role.
	Resources resources.Resources
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
