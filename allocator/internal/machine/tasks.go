package machine

import (
	"fmt"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/resources"
)

// EndTask applies the event of Allocator.EndTask.
func (m *Machine) EndTask(fwID, taskID string) error {
	fw, t, err := m.cs.Task(fwID, taskID)
	if err != nil {
		return err
	}
	ag := m.cs.Agents.Get(t.Agent)
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
		return fmt.Errorf("%w: framework %q, task %q on agent %q: %s (given back already?)", cluster.ErrNotHeld, fwID, taskID, t.Agent, free)
	}
	for heir, owns := range heirs {
		heir.Owns = heir.Owns.Plus(owns)
	}
	m.tasks.Forget(fw, t)
	m.books.UntrackAllocation(fw, ag, free, true)
	if p, chosen := m.reclaims.Choices[reclaim.TaskRef{Framework: fwID, Task: taskID}]; chosen {
		delete(m.reclaims.Choices, reclaim.TaskRef{Framework: fwID, Task: taskID})
		m.engine.HoldFreed(p, ag, free)
	}
	return nil
}
