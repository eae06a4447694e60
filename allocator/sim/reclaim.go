package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/allot-go/allot/allocator"
)

// chosen is a task an allocation run chose to end (Result.Preemptions),
// due to be ended by the host at the start of interval due, or at the end
// of it for a choice of that interval. Attempt is the task's launch the
// choice was of, so that a task that ended or was lost meanwhile, and
// launched again, is not taken for it.
type chosen struct {
	due       int
	task      *liveTask
	attempt   int
	withdrawn bool
}

// takePreemptions handles what a run says of tasks to end: the Withdrawn
// choices not ended yet are dropped, then the new Preemptions are queued
// to end after Config.PreemptDelay intervals. Withdrawals come first: a
// task withdrawn from an earlier choice may be chosen again by this run.
func (r *run) takePreemptions(i int, res allocator.Result) {
	for _, p := range res.Withdrawn {
		task, ok := r.taskOf(p)
		if !ok {
			continue
		}
		for k := range r.chosen {
			if c := &r.chosen[k]; c.task == task && !c.withdrawn {
				c.withdrawn = true
			}
		}
	}
	due := i + min(r.cfg.PreemptDelay, math.MaxInt-i) // saturates: a delay past the run never comes
	for _, p := range res.Preemptions {
		task, ok := r.taskOf(p)
		if !ok || task.phase != running {
			continue
		}
		attempt := task.attempt
		if slices.ContainsFunc(r.chosen, func(c chosen) bool {
			return c.task == task && c.attempt == attempt && !c.withdrawn
		}) {
			continue // chosen again after its choice lapsed: it is due already
		}
		r.chosen = append(r.chosen, chosen{due: due, task: task, attempt: attempt})
	}
}

// taskOf returns the task a choice names, and false for a task the run
// does not know (which the allocator never names).
func (r *run) taskOf(p allocator.Preemption) (*liveTask, bool) {
	fw, ok := r.m.fwIndex[p.FrameworkID]
	if !ok {
		return nil, false
	}
	task, ok := r.fws[fw].byID[p.TaskID]
	return task, ok
}

// endChosen ends the chosen tasks due by interval i, as a host kills them:
// EndTask, then back to the front of their framework's backlog as new
// submissions, as lost tasks go. The delay is the same for every choice,
// so the queue is in order of due and the ones due are at its head.
func (r *run) endChosen(i int) error {
	n := 0
	for n < len(r.chosen) && r.chosen[n].due <= i {
		n++
	}
	if n == 0 {
		return nil
	}
	due := r.chosen[:n]
	// Backwards: pushed to the front, the tasks of a framework keep the
	// order they were chosen in.
	for k := len(due) - 1; k >= 0; k-- {
		c := due[k]
		ts := c.task
		if c.withdrawn || ts.phase != running || ts.attempt != c.attempt {
			continue // its need went, or it ended or was lost first
		}
		spec := ts.spec
		fw := r.fws[spec.fw]
		if err := r.a.EndTask(fw.spec.ID, spec.ID); err != nil {
			return fmt.Errorf("%w: end of preempted task %q: %w", ErrAllocator, spec.ID, err)
		}
		fw.stopped(spec, r.m.agents[ts.agent].id)
		r.meter.preempted(spec)
		if err := r.enqueue(ts, r.now, true); err != nil {
			return err
		}
	}
	r.chosen = append(r.chosen[:0], r.chosen[n:]...)
	return nil
}

// setUpDemand makes the frameworks' scratch of the statement of demand
// (Config.StateDemand); the tasks' shapes are numbered as they are
// submitted (newLive).
func (r *run) setUpDemand() {
	for _, fw := range r.fws {
		fw.demand = make([][]allocator.Pending, len(fw.spec.Roles))
		fw.full = make([]bool, len(fw.spec.Roles))
	}
}

// stateDemand has every framework state, per role, what its backlog
// holds: the pending tasks grouped by resources, shapes in the order their
// first task comes. A role's statement holds at most allocator.MaxPending
// shapes: the head of the backlog up to the first task of a shape more,
// as a framework states what it would run first. A framework that stated
// nothing waits and still has nothing is not asked again: the statement
// stands.
func (r *run) stateDemand() error {
	for _, fw := range r.fws {
		if fw.pending() == 0 && fw.statedNothing {
			continue
		}
		for k := range fw.demand {
			fw.demand[k], fw.full[k] = fw.demand[k][:0], false
		}
		for _, t := range fw.backlog[fw.head:] {
			s := t.shape
			k := r.shapeRole[s]
			if fw.full[k] {
				continue
			}
			if slot := r.shapeSlot[s]; slot > 0 {
				if p := &fw.demand[k][slot-1]; p.Count < allocator.MaxPendingCount {
					p.Count++
				}
				continue
			}
			if len(fw.demand[k]) == allocator.MaxPending {
				fw.full[k] = true // what follows in the role is not the head any more
				continue
			}
			fw.demand[k] = append(fw.demand[k], allocator.Pending{Resources: t.spec.Resources, Count: 1})
			r.shapeSlot[s] = len(fw.demand[k])
		}
		// Clear the slots for the next statement.
		for _, t := range fw.backlog[fw.head:] {
			r.shapeSlot[t.shape] = 0
		}
		for k, role := range fw.spec.Roles {
			if err := r.a.UpdateDemand(fw.spec.ID, role, fw.demand[k]); err != nil {
				return fmt.Errorf("%w: demand of %q in %q: %w", ErrAllocator, fw.spec.ID, role, err)
			}
		}
		fw.statedNothing = fw.pending() == 0
	}
	return nil
}
