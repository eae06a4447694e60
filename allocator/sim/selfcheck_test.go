package sim_test

import (
	"cmp"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The self-check reads its seed and run count from flags, so that a
// failure can be replayed and a long run asked for:
//
//	go test ./allocator/sim -run SelfCheck -sim.seed=42 -sim.runs=2000
//
// The default seed is fixed so that every run checks the same workloads; 0
// picks one from the clock. A failure prints the seed, the workload and
// what broke.
var (
	flagSeed = flag.Int64("sim.seed", 1, "seed of the self-check (0: from the clock)")
	flagRuns = flag.Int("sim.runs", 0, "random workloads the self-check runs (0: its default)")
)

// TestSelfCheck runs random small workloads (one to four agents, two to
// four roles and frameworks, tens of tasks; with and without stated
// demand, reclaim and a delay to end the tasks it chooses) and checks the
// lab against what the allocator itself was told, rebuilt from its
// journal (Options.Journal) and the workload alone, not from the lab's
// own bookkeeping:
//
//   - every wait the lab measures (Result.Waits) is the time from a task's
//     submission (its Submit, or the end-task that preempted it) to the
//     interval of the accept that launched it; the counts of the Summary
//     and of every Sample (running, pending per role) are the journal's;
//   - no framework declines an offer that would hold a task of its
//     backlog in the offer's role: a framework places what fits, not only
//     the head of its backlog; no task that fits an idle agent waits more
//     than a bounded number of intervals while the agent stays idle, and a
//     run that stalls leaves waiting no task that fits an agent (when no
//     guarantee sets resources aside for the roles below it, which the
//     allocator serves first);
//   - no agent runs more than it has, and no Sample's utilisation exceeds
//     1 or differs from the journal's.
func TestSelfCheck(t *testing.T) {
	seed := *flagSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -sim.seed=%d)", seed, seed)
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = 150
	if *flagRuns > 0 {
		p.MinSuccessfulTests = *flagRuns
	}
	properties := gopter.NewProperties(p)
	properties.Property("the lab's measures are the allocator's", prop.ForAll(
		func(seed int64) (bool, error) {
			c := drawCase(rand.New(rand.NewPCG(uint64(seed), 0x5e1f)))
			if err := c.check(); err != nil {
				return false, fmt.Errorf("case %d: %s\n%w", seed, c, err)
			}
			return true, nil
		},
		gen.Int64().WithShrinker(gopter.NoShrinker),
	))
	properties.TestingRun(t)
}

// checkCase is a workload and a configuration to check the lab on.
type checkCase struct {
	w    sim.Workload
	cfg  sim.Config
	opts sim.RunOptions
}

// drawCase draws a small workload and configuration.
func drawCase(rng *rand.Rand) checkCase {
	c := checkCase{opts: sim.RunOptions{Seed: rng.Uint64(), Interval: time.Second, MaxIntervals: 1500}}
	if rng.IntN(4) == 0 {
		c.opts.Interval = 2 * time.Second
	}
	agentShapes := []string{"cpus:2;mem:4096", "cpus:4;mem:8192", "cpus:8;mem:16384"}
	for g := range 1 + rng.IntN(2) {
		c.w.Agents = append(c.w.Agents, sim.AgentGroup{
			Name: fmt.Sprint("ag", g), Count: 1 + rng.IntN(2), Resources: agentShapes[rng.IntN(len(agentShapes))],
		})
	}
	nRoles, nFrameworks := 2+rng.IntN(3), 2+rng.IntN(3)
	role := func(i int) string { return fmt.Sprint("r", i%nRoles) }
	refuses := []time.Duration{0, 0, 0, 2 * time.Second, 10 * time.Second, 10 * time.Second}
	for f := range nFrameworks {
		fw := sim.Framework{ID: fmt.Sprint("f", f), Roles: []string{role(f)}, Refuse: refuses[rng.IntN(len(refuses))]}
		if rng.IntN(3) == 0 && role(f+1) != role(f) {
			fw.Roles = append(fw.Roles, role(f+1))
		}
		c.w.Frameworks = append(c.w.Frameworks, fw)
	}
	switch rng.IntN(3) {
	case 1:
		c.cfg.Options.Reclaim = allocator.ReclaimFairShare
	case 2:
		c.cfg.Options.Reclaim = allocator.ReclaimGuarantees
		for r := range nRoles {
			if rng.IntN(2) == 0 {
				c.w.Roles = append(c.w.Roles, sim.Role{Name: role(r), Quota: allocator.Quota{Guarantees: qty("cpus:2;mem:2048")}})
			}
		}
	}
	c.cfg.StateDemand = rng.IntN(2) == 0
	c.cfg.PreemptDelay = rng.IntN(3)
	c.cfg.Name = fmt.Sprintf("reclaim-%d-demand-%t-delay-%d", c.cfg.Options.Reclaim, c.cfg.StateDemand, c.cfg.PreemptDelay)
	// Tasks of mixed shapes, some that fit no agent, a backlog at 0 s and
	// arrivals over a minute, lasting up to 40 s.
	taskShapes := []string{"cpus:0.5;mem:512", "cpus:1;mem:1024", "cpus:2;mem:2048", "cpus:3;mem:6144", "cpus:4;mem:4096", "cpus:6;mem:12288"}
	for i := range 10 + rng.IntN(50) {
		fw := c.w.Frameworks[rng.IntN(nFrameworks)]
		shape := taskShapes[rng.IntN(len(taskShapes))]
		if rng.IntN(30) == 0 {
			shape = "cpus:16;mem:32768"
		}
		task := sim.Task{
			Framework: fw.ID, Role: fw.Roles[rng.IntN(len(fw.Roles))], ID: fmt.Sprint("t", i),
			Resources: qty(shape), Duration: time.Duration(1+rng.IntN(40000)) * time.Millisecond,
		}
		if rng.IntN(2) == 0 {
			task.Submit = time.Duration(rng.IntN(60000)) * time.Millisecond
		}
		if rng.IntN(10) == 0 {
			task.Group, task.DifferentMachines = "spread-"+fw.ID, true
		}
		c.w.Tasks = append(c.w.Tasks, task)
	}
	return c
}

// String writes the case so that a failure can be read and replayed.
func (c checkCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "config %s, interval %s, seed %d\nagents:", c.cfg.Name, c.opts.Interval, c.opts.Seed)
	for _, g := range c.w.Agents {
		fmt.Fprintf(&b, " %s %dx %s;", g.Name, g.Count, g.Resources)
	}
	b.WriteString("\nframeworks:")
	for _, f := range c.w.Frameworks {
		fmt.Fprintf(&b, " %s %v refuse %s;", f.ID, f.Roles, f.Refuse)
	}
	for _, r := range c.w.Roles {
		fmt.Fprintf(&b, "\nrole %s guarantees %s", r.Name, r.Quota.Guarantees)
	}
	b.WriteString("\ntasks:\n")
	sim.WriteCSV(&b, c.w.Tasks)
	return b.String()
}

// check runs the case with a recorder on the allocator's journal and on
// every sample, and checks the result against it.
func (c checkCase) check() error {
	rec := newRecorder(c)
	cfg := c.cfg
	cfg.Options.Journal = rec.journal
	opts := c.opts
	opts.OnSample = rec.sample
	res, err := sim.Run(c.w, cfg, opts)
	if err != nil {
		return err
	}
	if rec.err != nil {
		return rec.err
	}
	return rec.finish(res)
}

// taskLife is a task's life as the journal tells it.
type taskLife struct {
	spec    sim.Task
	pending bool
	running bool
	since   time.Duration // its latest submission, or its launch
	agent   string
}

// agentLife is what the journal says an agent runs.
type agentLife struct {
	total  resources.Quantities
	used   resources.Quantities
	groups map[string]int
}

// entry is what the recorder keeps of a journal entry, taken from it as it
// comes (an entry refers to the caller's arguments).
type entry struct {
	event           allocator.EventKind
	framework       string
	agent, task     string
	launched        []string
	declined        resources.Quantities
	declinedToRoles []string
}

// recorder rebuilds the run from the allocator's journal, interval by
// interval (a Sample closes each), and checks every interval.
type recorder struct {
	c        checkCase
	entries  []entry
	tasks    map[[2]string]*taskLife
	order    []*taskLife // by Submit, as the lab submits them
	next     int
	agents   map[string]*agentLife
	names    []string // resources, sorted
	roles    []string // sorted
	waits    map[string][]time.Duration
	counts   struct{ submitted, launched, finished, preempted int }
	stuck    map[*taskLife]int
	bound    int  // intervals a task may wait with an idle agent that fits it
	bounded  bool // whether bound is checked
	interval int
	err      error
}

func newRecorder(c checkCase) *recorder {
	rec := &recorder{
		c: c, tasks: map[[2]string]*taskLife{}, agents: map[string]*agentLife{},
		waits: map[string][]time.Duration{}, stuck: map[*taskLife]int{},
	}
	for _, g := range c.w.Agents {
		total := resources.MustParse(g.Resources, "*").Quantities()
		for i := 1; i <= g.Count; i++ {
			rec.agents[fmt.Sprintf("%s-%d", g.Name, i)] = &agentLife{total: total, groups: map[string]int{}}
		}
		for _, n := range total.Names() {
			if !slices.Contains(rec.names, n) {
				rec.names = append(rec.names, n)
			}
		}
	}
	slices.Sort(rec.names)
	for _, f := range c.w.Frameworks {
		for _, r := range f.Roles {
			if !slices.Contains(rec.roles, r) {
				rec.roles = append(rec.roles, r)
			}
		}
	}
	for _, r := range c.w.Roles {
		if !slices.Contains(rec.roles, r.Name) {
			rec.roles = append(rec.roles, r.Name)
		}
	}
	slices.Sort(rec.roles)
	for _, t := range c.w.Tasks {
		life := &taskLife{spec: t}
		rec.tasks[[2]string{t.Framework, t.ID}] = life
		rec.order = append(rec.order, life)
	}
	slices.SortStableFunc(rec.order, func(a, b *taskLife) int { return cmp.Compare(a.spec.Submit, b.spec.Submit) })
	// The allocator offers an idle agent to every framework and role that
	// waits, in turn, when a decline keeps each out for as many runs as
	// there are of them: then a task that fits an idle agent waits at
	// most for its framework's last refusal of the agent to pass and for
	// the others to decline it, and an ended task's room held for its
	// taker (up to the reclaim timeout, ten intervals). Shorter refusals
	// can keep a role behind decliners for good (offer starvation, as in
	// Mesos), and guarantees set resources aside for the roles below
	// them: the allocator's policies, not the lab's, so the bound is not
	// checked then.
	longest, shortest, pairs := time.Duration(0), time.Duration(1<<62), 0
	for _, f := range c.w.Frameworks {
		refuse := f.Refuse
		if refuse == 0 {
			refuse = allocator.DefaultRefuse
		}
		longest, shortest = max(longest, refuse), min(shortest, refuse)
		pairs += len(f.Roles)
	}
	rec.bound = int(longest/c.opts.Interval) + 2*pairs + 2
	if c.cfg.Options.Reclaim != allocator.ReclaimOff {
		rec.bound += 10
	}
	rec.bounded = len(c.w.Roles) == 0 && int(shortest/c.opts.Interval) >= pairs
	return rec
}

// journal keeps what the checks need of an entry.
func (rec *recorder) journal(e allocator.Entry) {
	switch e.Event {
	case allocator.EventAccept, allocator.EventAcceptEach:
		en := entry{event: allocator.EventAccept, framework: e.Framework, agent: e.Agent}
		for _, op := range e.Operations {
			if l, ok := op.(offer.Launch); ok {
				for _, task := range l.Tasks {
					en.launched = append(en.launched, task.ID)
				}
			}
		}
		rec.entries = append(rec.entries, en)
	case allocator.EventEndTask:
		rec.entries = append(rec.entries, entry{event: e.Event, framework: e.Framework, task: e.Task})
	case allocator.EventRecoverResources:
		rec.entries = append(rec.entries, entry{
			event: e.Event, framework: e.Framework, agent: e.Agent,
			declined: e.Resources.Quantities(), declinedToRoles: e.Resources.AllocationRoles(),
		})
	}
}

func (rec *recorder) fail(format string, args ...any) error {
	if rec.err == nil {
		rec.err = fmt.Errorf("interval %d: %s", rec.interval, fmt.Sprintf(format, args...))
	}
	return rec.err
}

// sample closes an interval: the entries since the last sample happened
// at s.At, after the tasks submitted by then joined their backlogs.
func (rec *recorder) sample(_ string, s sim.Sample) error {
	now := s.At
	for ; rec.next < len(rec.order) && rec.order[rec.next].spec.Submit <= now; rec.next++ {
		life := rec.order[rec.next]
		// The wait runs from the submission itself, though the task
		// joins its backlog at the interval.
		life.pending, life.since = true, life.spec.Submit
		rec.counts.submitted++
	}
	for _, en := range rec.entries {
		if err := rec.apply(en, now); err != nil {
			return err
		}
	}
	rec.entries = rec.entries[:0]
	if err := rec.compare(s); err != nil {
		return err
	}
	if err := rec.checkIdle(); err != nil {
		return err
	}
	rec.interval++
	return nil
}

// apply plays one entry at time now.
func (rec *recorder) apply(en entry, now time.Duration) error {
	switch en.event {
	case allocator.EventAccept:
		ag := rec.agents[en.agent]
		for _, id := range en.launched {
			life := rec.tasks[[2]string{en.framework, id}]
			if life == nil || !life.pending {
				return rec.fail("task %s of %s launched while not waiting", id, en.framework)
			}
			wait := now - life.since
			rec.waits[life.spec.Role] = append(rec.waits[life.spec.Role], wait)
			rec.counts.launched++
			life.pending, life.running, life.since, life.agent = false, true, now, en.agent
			ag.used.Add(life.spec.Resources)
			if life.spec.DifferentMachines {
				ag.groups[life.spec.Group]++
			}
			if !ag.total.Contains(ag.used) {
				return rec.fail("agent %s runs %s, more than its %s", en.agent, ag.used, ag.total)
			}
		}
	case allocator.EventEndTask:
		life := rec.tasks[[2]string{en.framework, en.task}]
		if life == nil || !life.running {
			return rec.fail("task %s of %s ended while not running", en.task, en.framework)
		}
		ag := rec.agents[life.agent]
		ag.used.Subtract(life.spec.Resources)
		if life.spec.DifferentMachines {
			ag.groups[life.spec.Group]--
		}
		life.running = false
		if now-life.since >= life.spec.Duration {
			rec.counts.finished++
			break
		}
		// Ended before its time: preempted, and submitted again now.
		rec.counts.preempted++
		rec.counts.submitted++
		life.pending, life.since = true, now
	case allocator.EventRecoverResources:
		// A decline: nothing of the framework's backlog in the offer's
		// role fits it whole.
		ag := rec.agents[en.agent]
		for _, life := range rec.order[:rec.next] {
			if !life.pending || life.spec.Framework != en.framework || !slices.Contains(en.declinedToRoles, life.spec.Role) {
				continue
			}
			if life.spec.DifferentMachines && ag.groups[life.spec.Group] > 0 {
				continue
			}
			if en.declined.Contains(life.spec.Resources) {
				return rec.fail("%s declined %s on %s, which holds its waiting task %s (%s in %s)",
					en.framework, en.declined, en.agent, life.spec.ID, life.spec.Resources, life.spec.Role)
			}
		}
	}
	return nil
}

// compare checks the sample against the journal: utilisation, tasks
// running and waiting.
func (rec *recorder) compare(s sim.Sample) error {
	var used, total resources.Quantities
	for _, ag := range rec.agents {
		used.Add(ag.used)
		total.Add(ag.total)
	}
	for i, name := range rec.names {
		want := used.Float64(name) / total.Float64(name)
		if got := s.Utilisation[i]; got > 1 || got < 0 || abs(got-want) > 1e-9 {
			return rec.fail("utilisation of %s %v, the journal's %v", name, got, want)
		}
	}
	running, pending := 0, make([]int, len(rec.roles))
	for _, life := range rec.order[:rec.next] {
		if life.running {
			running++
		}
		if life.pending {
			pending[slices.Index(rec.roles, life.spec.Role)]++
		}
	}
	if s.Running != running || !slices.Equal(s.Pending, pending) {
		return rec.fail("sample says %d running, %v waiting per role %v; the journal %d and %v", s.Running, s.Pending, rec.roles, running, pending)
	}
	return nil
}

// checkIdle counts, for each waiting task, the intervals in a row it
// fits an idle agent, and fails past the bound.
func (rec *recorder) checkIdle() error {
	for _, life := range rec.order[:rec.next] {
		if !life.pending || !rec.fitsIdle(life) {
			delete(rec.stuck, life)
			continue
		}
		rec.stuck[life]++
		if rec.bounded && rec.stuck[life] > rec.bound {
			return rec.fail("task %s of %s (%s) waited %d intervals with an idle agent that fits it (bound %d)",
				life.spec.ID, life.spec.Framework, life.spec.Resources, rec.stuck[life], rec.bound)
		}
	}
	return nil
}

func (rec *recorder) fitsIdle(life *taskLife) bool {
	for _, ag := range rec.agents {
		if ag.used.IsEmpty() && ag.total.Contains(life.spec.Resources) {
			return true
		}
	}
	return false
}

// finish checks the result against the whole journal.
func (rec *recorder) finish(res *sim.Result) error {
	for i, role := range res.Roles {
		want := slices.Clone(rec.waits[role])
		slices.Sort(want)
		if !slices.Equal(res.Waits[i], want) && !(len(want) == 0 && len(res.Waits[i]) == 0) {
			return fmt.Errorf("waits of %s: the lab measured %v, the journal says %v", role, res.Waits[i], want)
		}
	}
	s, c := res.Summary, rec.counts
	if s.Submitted != c.submitted || s.Launched != c.launched || s.Finished != c.finished || s.Preempted != c.preempted {
		return fmt.Errorf("summary: %d submitted, %d launched, %d finished, %d preempted; the journal %+v",
			s.Submitted, s.Launched, s.Finished, s.Preempted, c)
	}
	switch res.Stopped {
	case sim.StopDone:
	case sim.StopLimit:
		// Reclaim may end tasks for a role's pending task over and over
		// (the allocator's policy): the run then never settles.
		if rec.c.cfg.Options.Reclaim == allocator.ReclaimOff {
			return fmt.Errorf("the run stopped at its limit of %d intervals without reclaim", s.Intervals)
		}
	case sim.StopStalled:
		// Nothing runs: every agent is idle, and what waits fits none
		// (unless guarantees set resources aside).
		for _, life := range rec.order {
			if !rec.bounded {
				break
			}
			if life.pending && rec.fitsIdle(life) {
				return fmt.Errorf("the run stalled at interval %d with task %s of %s (%s) waiting, which fits an idle agent",
					s.Intervals, life.spec.ID, life.spec.Framework, life.spec.Resources)
			}
		}
	default:
		return fmt.Errorf("the run stopped: %s", res.Stopped)
	}
	return nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
