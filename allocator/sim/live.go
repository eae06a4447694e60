package sim

import (
	"slices"
	"time"
)

// taskPhase is where a task is in its life.
type taskPhase uint8

const (
	pending taskPhase = iota + 1
	running
	ended
)

// liveTask is a task's life in the run, from its first submission to its
// end. The run holds one only while its task waits or runs (backlogs,
// agents, the frameworks' byID, the ends to come), so that a run's memory
// follows the tasks under way, not the length of the workload: a month of
// trace costs what its busiest hours cost. Ord is the task's place in
// submission order, which orders ends due at one time as the workload's
// order does. Attempt counts its launches, so that the end of an attempt
// lost with its agent is not taken for the end of the next. Class and
// shape are its numbers for placement's window and for Config.StateDemand
// (see interner).
type liveTask struct {
	spec      *taskSpec
	ord       int
	phase     taskPhase
	submitted time.Duration
	agent     int
	attempt   int
	class     int
	shape     int
}

// classKey is what makes tasks alike for placement's window: framework,
// role, resources, and group when the group wants different machines.
type classKey struct {
	fw          int
	role, group string
	resources   string
}

// shapeKey is what makes tasks alike in a statement of demand: framework,
// role and resources.
type shapeKey struct {
	fw              int
	role, resources string
}

// interner numbers keys while tasks under way hold them, and takes a
// number back, for another key, once no task holds it: classes of groups
// that want different machines are as many as the jobs of a trace, and
// scratch indexed by number then stays as small as the classes under way.
type interner[K comparable] struct {
	ids  map[K]int
	keys []K
	refs []int
	free []int
}

// hold returns k's number, and whether the number is new to k (its
// scratch is then to be reset).
func (in *interner[K]) hold(k K) (id int, fresh bool) {
	if id, ok := in.ids[k]; ok {
		in.refs[id]++
		return id, false
	}
	if in.ids == nil {
		in.ids = map[K]int{}
	}
	if n := len(in.free); n > 0 {
		id = in.free[n-1]
		in.free = in.free[:n-1]
		in.keys[id], in.refs[id] = k, 1
	} else {
		id = len(in.refs)
		in.keys, in.refs = append(in.keys, k), append(in.refs, 1)
	}
	in.ids[k] = id
	return id, true
}

// release lets a task's hold on number id go.
func (in *interner[K]) release(id int) {
	if in.refs[id]--; in.refs[id] > 0 {
		return
	}
	var zero K
	delete(in.ids, in.keys[id])
	in.keys[id] = zero
	in.free = append(in.free, id)
}

// newLive makes the state of a task submitted for the first time: its
// class, its shape when the run states demand, and its entry in its
// framework's byID. A task whose ID is that of a task of its framework
// still under way is an error: the allocator tells tasks apart by ID. (A
// stream's task may take the ID of one that ended: the run no longer
// knows it.)
func (r *run) newLive(spec *taskSpec) (*liveTask, error) {
	fw := r.fws[spec.fw]
	if _, dup := fw.byID[spec.ID]; dup {
		return nil, invalid("task %q of framework %q submitted twice (the first is still under way)", spec.ID, fw.spec.ID)
	}
	t := &liveTask{spec: spec, ord: r.submittedTasks}
	r.submittedTasks++
	k := classKey{fw: spec.fw, role: spec.Role, resources: spec.Resources.String()}
	if spec.DifferentMachines {
		k.group = spec.Group
	}
	id, fresh := r.classes.hold(k)
	if id == len(r.classRound) {
		r.classRound, r.classNext = append(r.classRound, 0), append(r.classNext, 0)
	} else if fresh {
		r.classRound[id], r.classNext[id] = 0, 0
	}
	t.class = id
	if r.cfg.StateDemand {
		id, fresh := r.shapes.hold(shapeKey{fw: spec.fw, role: spec.Role, resources: k.resources})
		if id == len(r.shapeRole) {
			r.shapeRole, r.shapeSlot = append(r.shapeRole, 0), append(r.shapeSlot, 0)
		}
		if fresh {
			r.shapeRole[id] = slices.Index(fw.spec.Roles, spec.Role)
			r.shapeSlot[id] = 0
		}
		t.shape = id
	}
	fw.byID[spec.ID] = t
	r.live++
	return t, nil
}

// forget drops a task that ended: the run keeps nothing of it but what
// the meter counted.
func (r *run) forget(t *liveTask) {
	t.phase = ended
	delete(r.fws[t.spec.fw].byID, t.spec.ID)
	r.classes.release(t.class)
	if r.cfg.StateDemand {
		r.shapes.release(t.shape)
	}
	r.live--
}

// placeOn records that t runs on agent ag, among the agent's tasks. The
// list keeps the tasks launched there since it last lost its tasks,
// including those that ended since; once it has doubled since it was
// last cut, the tasks no longer running there are cut from it, in order,
// so that an agent that never fails does not keep every task it ran.
func (r *run) placeOn(t *liveTask, ag int) {
	s := &r.agents[ag]
	if len(s.tasks) >= s.cutAt {
		s.tasks = slices.DeleteFunc(s.tasks, func(u *liveTask) bool { return u.phase != running || u.agent != ag })
		s.cutAt = max(minCut, 2*len(s.tasks))
	}
	s.tasks = append(s.tasks, t)
}

// minCut is the length of an agent's task list below which it is not cut.
const minCut = 64
