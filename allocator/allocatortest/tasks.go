package allocatortest

import (
	"slices"
	"time"

	"github.com/allot-go/allot/allocator"
)

// The handlers of the events that end tasks: EndTask and Preempt.

func (h *Harness) onEndTask(ev Event, s Views, eff *effects) {
	x := ev.Args
	id := existingFramework(s, x[0])
	tasks := h.a.Tasks(id)
	var taskID string
	var want error
	switch ended, chosen := h.ended[id], h.a.Preempting(); {
	case x[2]%8 == 5 && len(chosen) > 0:
		// A task a run chose to end, as a host ends it.
		p := chosen[int(x[1])%len(chosen)]
		id, taskID = p.FrameworkID, p.TaskID
	case x[2]%8 == 6 && len(ended) > 0:
		taskID, want = ended[int(x[1])%len(ended)], allocator.ErrUnknownTask
	case x[2]%8 == 7 || len(tasks) == 0:
		taskID, want = "no-such-task", allocator.ErrUnknownTask
	default:
		taskID = tasks[int(x[1])%len(tasks)].ID
	}
	if id == unknownFramework {
		want = allocator.ErrUnknownFramework
	}
	eff.bad, eff.want = want != nil, want
	err := h.a.EndTask(id, taskID)
	if err == nil {
		h.ended[id] = append(h.ended[id], taskID)
		if slices.ContainsFunc(h.a.Tasks(id), func(t allocator.TaskView) bool { return t.ID == taskID }) {
			eff.fail("task %s of %s ended, and is listed still", taskID, id)
		}
	}
	h.record(eff, err, "EndTask(%s, %s)", id, taskID)
}

// onPreempt holds a task's resources (or part of what a framework uses on
// an agent) for its framework.
func (h *Harness) onPreempt(ev Event, s Views, eff *effects) {
	x := ev.Args
	hold := []time.Duration{time.Second, 5 * time.Second, time.Minute, 0}[x[2]%4]
	id := existingFramework(s, x[0])
	if x[3]%4 == 3 && h.recoverHeld(x, s, eff, id, hold) {
		return
	}
	tasks := h.a.Tasks(id)
	taskID := "no-such-task"
	switch {
	case id == unknownFramework:
		eff.bad, eff.want = true, allocator.ErrUnknownFramework
	case len(tasks) == 0 || x[2]%8 == 7:
		eff.bad, eff.want = true, allocator.ErrUnknownTask
	default:
		taskID = tasks[int(x[1])%len(tasks)].ID
		if hold == 0 {
			eff.bad, eff.want = true, allocator.ErrInvalidHold
		}
	}
	err := h.a.PreemptTask(id, taskID, hold)
	if err == nil {
		h.ended[id] = append(h.ended[id], taskID)
	}
	h.record(eff, err, "PreemptTask(%s, %s, %s)", id, taskID, hold)
}

// recoverHeld holds, with RecoverHeld, all or half (x[1]) of what
// framework id uses on the first agent where it uses something, and
// reports whether there was one.
func (h *Harness) recoverHeld(x [4]uint8, s Views, eff *effects, id string, hold time.Duration) bool {
	for _, v := range s.Agents {
		used := v.Allocated[id].NonShared()
		if used.IsEmpty() {
			continue
		}
		part := used.Shrink(used.Quantities(), nil)
		if x[1]%2 == 1 {
			half := used.Quantities()
			for name, amount := range half.All() {
				half.SetScalar(name, amount/2)
			}
			part = used.Shrink(half, nil)
		}
		if part.IsEmpty() {
			continue
		}
		if hold == 0 {
			eff.bad, eff.want = true, allocator.ErrInvalidHold
		}
		h.record(eff, h.a.RecoverHeld(id, v.ID, part, hold), "RecoverHeld(%s, %s, %s, %s)", id, v.ID, part, hold)
		return true
	}
	return false
}
