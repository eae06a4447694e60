package sim

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/allot-go/allot/offer"
)

// agentState is what happens to an agent in the run. An agent is in the
// cluster (its resources count in the measures) unless it failed or is in
// its maintenance window.
type agentState struct {
	failed   bool
	inWindow bool
	// announced is its maintenance window, from the announcement to the
	// window's end.
	announced *offer.Unavailability
	// tasks are the tasks launched on it since it last lost its tasks,
	// cut now and then of those that ended (see placeOn); those still
	// running there are its running tasks. cutAt is the length at which
	// it is next cut.
	tasks []*liveTask
	cutAt int
}

func (s *agentState) up() bool { return !s.failed && !s.inWindow }

// actionKind is a step of an event.
type actionKind uint8

const (
	fromEvent   actionKind = iota // the workload's event itself
	agentBack                     // a failed agent comes back
	windowStart                   // a maintenance window starts
	windowEnd                     // and ends
)

// action is something due at a time: a workload event, or a later step of
// one.
type action struct {
	at    time.Duration
	no    int // order among actions due at the same time
	kind  actionKind
	event Event
}

func (r *run) schedule(at time.Duration, a action) {
	a.at, a.no = at, r.actionNo
	r.actionNo++
	heap.Push(&r.actions, a)
}

// fireActions carries out the actions due.
func (r *run) fireActions() error {
	for len(r.actions) > 0 && r.actions[0].at <= r.now {
		a := heap.Pop(&r.actions).(action)
		ag := r.m.agentIndex[a.event.Agent]
		var err error
		switch {
		case a.kind == fromEvent && a.event.Kind == AgentFailure:
			err = r.fail(ag, a.event)
		case a.kind == fromEvent:
			err = r.announce(ag, a.event)
		case a.kind == agentBack:
			err = r.back(ag)
		case a.kind == windowStart:
			err = r.startWindow(ag)
		default:
			err = r.endWindow(ag)
		}
		if err != nil {
			return fmt.Errorf("%w: %s of agent %q: %w", ErrAllocator, a.event.Kind, a.event.Agent, err)
		}
	}
	return nil
}

// fail loses the agent with its tasks; an agent already down is left so.
func (r *run) fail(ag int, e Event) error {
	s := &r.agents[ag]
	if s.failed {
		return nil
	}
	if err := r.a.RemoveAgent(e.Agent); err != nil {
		return err
	}
	if s.up() {
		r.meter.agentDown(r.m.agents[ag].qty)
	}
	s.failed = true
	if e.For > 0 {
		r.schedule(r.now+e.For, action{kind: agentBack, event: e})
	}
	return r.loseTasks(ag, false)
}

// back adds a failed agent again, with its maintenance window if one is
// announced.
func (r *run) back(ag int) error {
	s := &r.agents[ag]
	spec := r.m.agents[ag]
	info := spec.info
	info.Unavailability = s.announced
	if err := r.a.AddAgent(spec.id, info, spec.total, nil); err != nil {
		return err
	}
	s.failed = false
	if s.inWindow {
		return r.a.DeactivateAgent(spec.id)
	}
	r.meter.agentUp(spec.qty)
	return nil
}

// announce schedules a maintenance window; one announced while another is
// ahead is ignored.
func (r *run) announce(ag int, e Event) error {
	s := &r.agents[ag]
	if s.announced != nil {
		return nil
	}
	s.announced = &offer.Unavailability{Start: r.opts.Start.Add(r.now + e.Notice), Duration: e.For}
	r.schedule(r.now+e.Notice, action{kind: windowStart, event: e})
	r.schedule(r.now+e.Notice+e.For, action{kind: windowEnd, event: e})
	if s.failed {
		return nil
	}
	return r.a.UpdateUnavailability(e.Agent, s.announced)
}

// startWindow kills the tasks left on the agent and takes it out.
func (r *run) startWindow(ag int) error {
	s := &r.agents[ag]
	wasUp := s.up()
	s.inWindow = true
	if s.failed {
		return nil
	}
	if err := r.loseTasks(ag, true); err != nil {
		return err
	}
	if wasUp {
		r.meter.agentDown(r.m.agents[ag].qty)
	}
	return r.a.DeactivateAgent(r.m.agents[ag].id)
}

// endWindow puts the agent back.
func (r *run) endWindow(ag int) error {
	s := &r.agents[ag]
	s.inWindow, s.announced = false, nil
	if s.failed {
		return nil
	}
	id := r.m.agents[ag].id
	if err := r.a.ActivateAgent(id); err != nil {
		return err
	}
	r.meter.agentUp(r.m.agents[ag].qty)
	return r.a.UpdateUnavailability(id, nil)
}

// loseTasks sends the tasks running on the agent back to their backlogs,
// as new submissions at the front. With kill, the tasks are ended in the
// allocator first (the agent stays); without, the agent is gone with them.
func (r *run) loseTasks(ag int, kill bool) error {
	s := &r.agents[ag]
	lost := s.tasks
	s.tasks = nil
	for k := len(lost) - 1; k >= 0; k-- { // backwards: pushed to the front, they keep their order
		ts := lost[k]
		if ts.phase != running || ts.agent != ag {
			continue
		}
		spec := ts.spec
		fw := r.fws[spec.fw]
		if kill {
			if err := r.a.EndTask(fw.spec.ID, spec.ID); err != nil {
				return err
			}
		}
		fw.stopped(spec, r.m.agents[ag].id)
		r.meter.lost(spec)
		if err := r.enqueue(ts, r.now, true); err != nil {
			return err
		}
	}
	return nil
}

// end is when a launched task ends.
type end struct {
	at      time.Duration
	task    *liveTask
	attempt int
}

// endQueue orders ends by time, then by task, in submission order.
type endQueue []end

func (q endQueue) Len() int { return len(q) }
func (q endQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].task.ord < q[j].task.ord
}
func (q endQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *endQueue) Push(x any)   { *q = append(*q, x.(end)) }
func (q *endQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// actionQueue orders actions by time, then by the order they were made.
type actionQueue []action

func (q actionQueue) Len() int { return len(q) }
func (q actionQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].no < q[j].no
}
func (q actionQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *actionQueue) Push(x any)   { *q = append(*q, x.(action)) }
func (q *actionQueue) Pop() any {
	old := *q
	a := old[len(old)-1]
	*q = old[:len(old)-1]
	return a
}
