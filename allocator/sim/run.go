package sim

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer/placement"
)

// Run runs workload w with one configuration and returns what it measured.
func Run(w Workload, cfg Config, opts RunOptions) (*Result, error) {
	opts, err := opts.resolved()
	if err != nil {
		return nil, err
	}
	m, err := compile(w, opts.Seed)
	if err != nil {
		return nil, err
	}
	if err := checkConfigs([]Config{cfg}); err != nil {
		return nil, err
	}
	return runModel(m, cfg, opts)
}

// run is one simulation under way.
type run struct {
	m     *model
	cfg   Config
	opts  RunOptions
	a     *allocator.Allocator
	clock *allocator.ManualClock
	now   time.Duration

	src      *taskSource
	fws      []*simFramework
	agents   []agentState
	ends     endQueue
	actions  actionQueue
	actionNo int // numbers actions in the order they were made
	agentsIn map[string]placement.Agent
	// chosen are the tasks allocation runs chose to end, not ended yet,
	// in order of due (see reclaim.go).
	chosen []chosen
	// live counts the tasks under way (see liveTask), submittedTasks
	// the tasks taken from the source.
	live, submittedTasks int
	// classes number the classes of the tasks under way for placement
	// (see window); classRound and classNext are scratch of a
	// framework's window, per class: the round a class was last met in,
	// and the offer its search resumes at. round counts the windows
	// made.
	classes               interner[classKey]
	classRound, classNext []int
	round                 int
	// shapes number the shapes of the tasks under way for
	// Config.StateDemand; shapeRole is a shape's role, as an index of its
	// framework's roles; shapeSlot is scratch: a shape's place in the
	// statement being made, plus one.
	shapes               interner[shapeKey]
	shapeRole, shapeSlot []int

	meter *meter
	// idle counts the intervals in a row in which nothing was
	// submitted, launched or ended.
	idle int
}

// runModel runs a compiled workload.
func runModel(m *model, cfg Config, opts RunOptions) (*Result, error) {
	r, err := newRun(m, cfg, opts)
	if err != nil {
		return nil, err
	}
	defer r.src.close()
	stop, err := r.loop()
	if err != nil {
		return nil, fmt.Errorf("config %q at %s: %w", cfg.Name, r.now, err)
	}
	if err := r.meter.flush(); err != nil {
		return nil, fmt.Errorf("config %q: samples: %w", cfg.Name, err)
	}
	return r.meter.result(stop, r.unfinished()), nil
}

// newRun makes a run ready for its first interval: the allocator with the
// cluster, roles and frameworks, the events queued, and the source of the
// tasks, which the caller closes.
func newRun(m *model, cfg Config, opts RunOptions) (*run, error) {
	r := &run{m: m, cfg: cfg, opts: opts, clock: allocator.NewManualClock(opts.Start)}
	aopts, err := cfg.options(r.clock.Now, opts.Seed, opts.Interval)
	if err != nil {
		return nil, err
	}
	if r.a, err = allocator.New(aopts); err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrInvalidConfig, cfg.Name, err)
	}
	r.meter = newMeter(m, cfg, opts)
	if err := r.setUp(); err != nil {
		return nil, err
	}
	r.src = newTaskSource(m, m.stream)
	return r, nil
}

// setUp adds the agents, roles and frameworks, and queues the events.
func (r *run) setUp() error {
	r.agents = make([]agentState, len(r.m.agents))
	r.agentsIn = make(map[string]placement.Agent, len(r.m.agents))
	for _, ag := range r.m.agents {
		if err := r.a.AddAgent(ag.id, ag.info, ag.total, nil); err != nil {
			return fmt.Errorf("%w: agent %q: %w", ErrInvalidWorkload, ag.id, err)
		}
		r.agentsIn[ag.id] = placement.Agent{Attributes: placement.Attributes(ag.info.Attributes), Total: ag.qty}
	}
	if err := r.setRoles(); err != nil {
		return err
	}
	for _, f := range r.m.frameworks {
		fw, err := r.addFramework(f)
		if err != nil {
			return err
		}
		r.fws = append(r.fws, fw)
	}
	for _, e := range r.m.events {
		r.schedule(e.At, action{event: e})
	}
	if r.cfg.StateDemand {
		r.setUpDemand()
	}
	return nil
}

func (r *run) setRoles() error {
	weights := map[string]float64{}
	for _, role := range r.m.roles {
		if role.Weight != 1 {
			weights[role.Name] = role.Weight
		}
		if !role.Quota.IsZero() {
			if err := r.a.UpdateQuota(role.Name, role.Quota); err != nil {
				return fmt.Errorf("%w: role %q: %w", ErrInvalidWorkload, role.Name, err)
			}
		}
	}
	if len(weights) > 0 {
		if err := r.a.UpdateWeights(weights); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidWorkload, err)
		}
	}
	return nil
}

// loop runs the intervals and says why it stopped.
func (r *run) loop() (StopReason, error) {
	limit := r.opts.Intervals
	if limit == 0 {
		limit = r.opts.MaxIntervals
	}
	stall := r.stallIntervals()
	for i := range limit {
		if err := r.step(i); err != nil {
			return "", err
		}
		if r.opts.Intervals > 0 {
			continue
		}
		switch {
		case r.done():
			return StopDone, nil
		case r.idle >= stall && r.nothingToCome():
			return StopStalled, nil
		}
	}
	if r.opts.Intervals > 0 {
		return StopIntervals, nil
	}
	return StopLimit, nil
}

// step is one interval: the events due, the tasks that ended and those
// chosen to end that are due, the tasks submitted, the frameworks' demand,
// then an allocation run whose offers the frameworks take or decline and
// whose choices of tasks to end the host acts on, then the measures.
func (r *run) step(i int) error {
	r.now = time.Duration(i) * r.opts.Interval
	r.clock.Set(r.opts.Start.Add(r.now))
	before := r.meter.counts
	if err := r.fireActions(); err != nil {
		return err
	}
	if err := r.endTasks(); err != nil {
		return err
	}
	if err := r.endChosen(i); err != nil {
		return err
	}
	if err := r.submitTasks(); err != nil {
		return err
	}
	if r.cfg.StateDemand {
		if err := r.stateDemand(); err != nil {
			return err
		}
	}
	var began time.Duration
	if r.opts.Stopwatch != nil {
		began = r.opts.Stopwatch()
	}
	res := r.a.AllocateAll()
	var took time.Duration
	if r.opts.Stopwatch != nil {
		took = r.opts.Stopwatch() - began
	}
	declined, err := r.takeOffers(res.Offers)
	if err != nil {
		return err
	}
	for _, io := range res.InverseOffers {
		if err := r.a.UpdateInverseOffer(io.AgentID, io.FrameworkID, allocator.InverseAccepted, nil); err != nil {
			return fmt.Errorf("%w: inverse offer %s: %w", ErrAllocator, io.ID, err)
		}
	}
	// Choices of this run due at once are ended now, before the next
	// interval; what they free is held for the framework they were chosen
	// for, and offered to it at the next run.
	r.takePreemptions(i, res)
	if err := r.endChosen(i); err != nil {
		return err
	}
	if err := r.suppressIdle(); err != nil {
		return err
	}
	if r.meter.counts == before {
		r.idle++
	} else {
		r.idle = 0
	}
	return r.meter.sample(r.now, len(res.Offers), declined, took)
}

// submitTasks hands the tasks submitted by now to their frameworks.
func (r *run) submitTasks() error {
	for {
		spec, err := r.src.next()
		if err != nil || spec == nil || spec.Submit > r.now {
			return err
		}
		r.src.take(spec)
		t, err := r.newLive(spec)
		if err != nil {
			return err
		}
		if err := r.enqueue(t, spec.Submit, false); err != nil {
			return err
		}
	}
}

// enqueue puts task t in its framework's backlog, submitted at the given
// time: at the back, or at the front for a task lost with its agent.
func (r *run) enqueue(t *liveTask, submitted time.Duration, front bool) error {
	t.phase, t.submitted = pending, submitted
	r.meter.submitted(t.spec)
	fw := r.fws[t.spec.fw]
	fw.push(t, front)
	return r.revive(fw)
}

// endTasks ends the tasks whose time is up.
func (r *run) endTasks() error {
	for len(r.ends) > 0 && r.ends[0].at <= r.now {
		e := heap.Pop(&r.ends).(end)
		ts := e.task
		if ts.phase != running || ts.attempt != e.attempt {
			continue // lost with its agent
		}
		spec := ts.spec
		fw := r.fws[spec.fw]
		if err := r.a.EndTask(fw.spec.ID, spec.ID); err != nil {
			return fmt.Errorf("%w: end of task %q: %w", ErrAllocator, spec.ID, err)
		}
		fw.stopped(spec, r.m.agents[ts.agent].id)
		r.meter.finished(spec)
		r.forget(ts)
	}
	return nil
}

// launch records that task ts was launched on agent ag.
func (r *run) launch(ts *liveTask, ag int) {
	spec := ts.spec
	ts.phase, ts.agent = running, ag
	ts.attempt++
	heap.Push(&r.ends, end{at: r.now + spec.Duration, task: ts, attempt: ts.attempt}) // both at most maxTime: no overflow
	r.placeOn(ts, ag)
	r.fws[spec.fw].started(spec, r.m.agents[ag].id)
	r.meter.launched(spec, r.now-ts.submitted)
}

// unfinished counts the tasks submitted and not ended when the run stops.
func (r *run) unfinished() int { return r.live }

// done reports whether everything has been submitted, has run and ended,
// and no event is left.
func (r *run) done() bool {
	return r.nothingToCome() && r.meter.running == 0 && r.meter.pendingTotal() == 0
}

// nothingToCome reports whether no submission or event is left and no
// task is running: nothing can change the cluster any more.
func (r *run) nothingToCome() bool {
	return r.src.done() && len(r.actions) == 0 && r.meter.running == 0
}

// stallIntervals is how many intervals in a row in which nothing was
// submitted, launched or ended, with nothing to come, make a stall:
// enough for every refusal filter to expire and for each agent to be
// offered, in turn, to every framework that waits, so that a framework
// behind others that decline an agent is offered it before the run
// gives up. They count from the last change (a task that ends frees what
// a framework waits for), not from the last launch.
func (r *run) stallIntervals() int {
	longest := allocator.DefaultRefuse
	for _, fw := range r.fws {
		longest = max(longest, fw.filter.Refuse)
	}
	return int(longest/r.opts.Interval) + len(r.fws) + 1
}
