package allocator_test

import (
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

var (
	reclaimWorldsFlag = flag.Int("allocator.reclaimworlds", 0, "random worlds per mode of TestPropertyReclaimRandomWorlds; 0 means a default that keeps the package's tests short")
	reclaimWorldFlag  = flag.Int64("allocator.reclaimworld", 0, "replay one world of TestPropertyReclaimRandomWorlds by its seed (in both modes)")
)

// Runs of a random reclaim world: events (new demand, tasks that end by
// themselves, the roles' quotas) come in the first randomEventRuns runs
// only; then, with nothing but runs and the host's answers to them,
// preemptions for guarantees must stop within randomSettleRuns runs, and
// all preemptions must stop and not come back in the randomQuietRuns
// after the last one. Fair share makes room for a role at most every
// other run, one task at a time, so shares far apart in small tasks take
// a while to even out (of 1500 worlds, the slowest, a role of weight 3
// taking tasks of a 56th of the cluster from one at a weighted share of
// 0.8, preempted last 51 runs after the last event; the 99th percentile
// 12): fair-share preemptions must stop within randomSettleRuns runs
// plus two a task running when events stop, each such room moving one
// task.
const (
	randomEventRuns  = 12
	randomSettleRuns = 20
	randomQuietRuns  = 50
)

// randomWorld is a small cluster (2 to 6 agents) with 2 to 4 roles, some
// nested, with random weights and, from the third run on, random
// guarantees and limits. Each role has one framework, whose tasks are
// all of one random size; its host wants a number of them running (the
// framework's wanted), states before every run the ones not running
// (UpdateDemand), launches on its offers as many as fit and are wanted,
// declines the rest, and ends every task a run chooses right after the
// run (a task so ended is wanted again: the host restates it). Events
// change what frameworks want, or end a task that is then not wanted
// again.
type randomWorld struct {
	a     *allocator.Allocator
	clock *allocator.ManualClock
	rng   *rand.Rand
	mode  allocator.Reclaim
	// fws are the frameworks, role each one's role, shape its task.
	fws    []string
	role   map[string]string
	shape  map[string]resources.Quantities
	wanted map[string]int
	// live are each framework's running tasks, in launch order.
	live   map[string][]string
	ids    int
	totals resources.Quantities
	// launched are the tasks the last step launched, by framework and
	// agent.
	launched map[[2]string][]string
	// log says what happened, for a failure's message.
	log []string
}

func newRandomWorld(seed int64, mode allocator.Reclaim) (*randomWorld, error) {
	rng := rand.New(rand.NewSource(seed))
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: seed, Clock: clock.Now, Reclaim: mode})
	if err != nil {
		return nil, err
	}
	w := &randomWorld{a: a, clock: clock, rng: rng, mode: mode, role: map[string]string{},
		shape: map[string]resources.Quantities{}, wanted: map[string]int{}, live: map[string][]string{}}
	for i := range 2 + rng.Intn(5) {
		cpus := []float64{4, 8}[rng.Intn(2)]
		mem := cpus * []float64{1024, 2048}[rng.Intn(2)]
		q := fmt.Sprintf("cpus:%g;mem:%g", cpus, mem)
		if err := a.AddAgent(fmt.Sprintf("a%d", i), allocator.AgentInfo{}, resources.MustParse(q, "*"), nil); err != nil {
			return nil, err
		}
		w.totals.Add(resources.MustParseQuantities(q))
	}
	var top []string
	weights := map[string]float64{}
	for i := range 2 + rng.Intn(3) {
		role := fmt.Sprintf("r%d", i)
		if len(top) > 0 && rng.Intn(3) == 0 {
			role = fmt.Sprintf("%s/c%d", top[rng.Intn(len(top))], i)
		} else {
			top = append(top, role)
		}
		fw := fmt.Sprintf("f%d", i)
		if err := a.AddFramework(fw, allocator.FrameworkInfo{Roles: []string{role}}, nil, allocator.Active); err != nil {
			return nil, err
		}
		cpus := []float64{0.5, 1, 2}[rng.Intn(3)]
		w.fws = append(w.fws, fw)
		w.role[fw] = role
		w.shape[fw] = resources.MustParseQuantities(fmt.Sprintf("cpus:%g;mem:%g", cpus, cpus*[]float64{512, 1024, 2048}[rng.Intn(3)]))
		w.wanted[fw] = rng.Intn(int(w.totals.Float64("cpus")/cpus) + 1)
		if x := []float64{1, 1, 2, 3, 0.5}[rng.Intn(5)]; x != 1 {
			weights[role] = x
		}
	}
	if len(weights) > 0 {
		if err := a.UpdateWeights(weights); err != nil {
			return nil, err
		}
	}
	w.logf("agents %s; frameworks %s; weights %v", w.totals, w.describe(), weights)
	return w, nil
}

func (w *randomWorld) logf(format string, args ...any) {
	w.log = append(w.log, fmt.Sprintf(format, args...))
}

func (w *randomWorld) describe() string {
	var b strings.Builder
	for _, fw := range w.fws {
		fmt.Fprintf(&b, "%s in %s wants %d of %s; ", fw, w.role[fw], w.wanted[fw], w.shape[fw])
	}
	return b.String()
}

// setQuotas gives roles, parents first, random guarantees and limits; a
// quota the allocator refuses (guarantees above an ancestor's limits, or
// limits below a sub-role's guarantees) is tried again without its
// guarantee, then left out.
func (w *randomWorld) setQuotas() {
	cpus := w.totals.Float64("cpus")
	roles := slices.Sorted(maps.Values(w.role))
	for _, role := range roles {
		var q allocator.Quota
		var g float64
		if w.rng.Intn(2) == 0 {
			g = float64(1 + w.rng.Intn(max(1, int(cpus)/len(roles))))
			q.Guarantees = resources.MustParseQuantities(fmt.Sprintf("cpus:%g;mem:%g", g, g*1024))
		}
		if w.rng.Intn(2) == 0 {
			l := g + float64(w.rng.Intn(int(cpus)/2+1))
			if l == 0 {
				l = 1
			}
			if w.rng.Intn(2) == 0 {
				q.Limits = resources.MustParseLimits(fmt.Sprintf("cpus:%g", l))
			} else {
				q.Limits = resources.MustParseLimits(fmt.Sprintf("cpus:%g;mem:%g", l, max(g*1024, l*1024*float64(w.rng.Intn(3))/2)))
			}
		}
		if q.IsZero() {
			continue
		}
		if err := w.a.UpdateQuota(role, q); err != nil {
			q.Guarantees = resources.Quantities{}
			if q.Limits.IsEmpty() || w.a.UpdateQuota(role, q) != nil {
				continue
			}
		}
		w.logf("quota of %s: guarantees %s, limits %s", role, q.Guarantees, q.Limits)
	}
}

// event changes the world at random: what a framework wants, or a task
// ends by itself (and is not wanted again). It reports whether anything
// changed.
func (w *randomWorld) event(run int) (bool, error) {
	fw := w.fws[w.rng.Intn(len(w.fws))]
	switch w.rng.Intn(3) {
	case 0, 1:
		n := w.rng.Intn(int(w.totals.Float64("cpus")/w.shape[fw].Float64("cpus")) + 1)
		if n == w.wanted[fw] {
			return false, nil
		}
		w.wanted[fw] = n
		w.logf("run %d: %s wants %d", run, fw, n)
	default:
		if len(w.live[fw]) == 0 {
			return false, nil
		}
		i := w.rng.Intn(len(w.live[fw]))
		id := w.live[fw][i]
		if err := w.a.EndTask(fw, id); err != nil {
			return false, fmt.Errorf("ending %s/%s: %w", fw, id, err)
		}
		w.live[fw] = slices.Delete(w.live[fw], i, i+1)
		w.wanted[fw] = max(0, w.wanted[fw]-1)
		w.logf("run %d: %s's %s ends, %s wants %d", run, fw, id, fw, w.wanted[fw])
	}
	return true, nil
}

// consumed is what role consumes (its quota consumption).
func (w *randomWorld) consumed(role string) resources.Quantities {
	v, _ := w.a.Role(role)
	return v.Consumed
}

// pending is how many tasks fw wants and does not run.
func (w *randomWorld) pending(fw string) int { return max(0, w.wanted[fw]-len(w.live[fw])) }

// step states every framework's demand, runs once, and plays the host:
// it ends the tasks chosen, launches on the offers, and declines what it
// cannot use. It returns the run's result, what each framework stated
// before it, and each agent's free and held resources right after it.
func (w *randomWorld) step(run int) (allocator.Result, map[string]int, map[string]resources.Quantities, error) {
	w.launched = map[[2]string][]string{}
	stated := map[string]int{}
	for _, fw := range w.fws {
		var list []allocator.Pending
		if n := w.pending(fw); n > 0 {
			list = []allocator.Pending{{Resources: w.shape[fw], Count: n}}
		}
		stated[fw] = w.pending(fw)
		if err := w.a.UpdateDemand(fw, w.role[fw], list); err != nil {
			return allocator.Result{}, nil, nil, err
		}
	}
	w.clock.Advance(time.Second)
	res := w.a.AllocateAll()
	free := map[string]resources.Quantities{}
	for _, v := range w.a.Agents() {
		q := v.Available.Quantities()
		for _, held := range v.Held {
			q.Add(held.Quantities())
		}
		free[v.ID] = q
	}
	for _, p := range res.Preemptions {
		if err := w.a.EndTask(p.FrameworkID, p.TaskID); err != nil {
			return res, stated, free, fmt.Errorf("run %d: ending %s/%s: %w", run, p.FrameworkID, p.TaskID, err)
		}
		w.live[p.FrameworkID] = slices.DeleteFunc(w.live[p.FrameworkID], func(id string) bool { return id == p.TaskID })
		w.logf("run %d: %s", run, p)
	}
	for _, o := range res.Offers {
		var tasks []offer.Task
		left := o.Resources.Quantities()
		q := w.shape[o.FrameworkID]
		for n := w.pending(o.FrameworkID); n > len(tasks) && left.Contains(q); left.Subtract(q) {
			w.ids++
			id := fmt.Sprintf("t%04d", w.ids)
			tasks = append(tasks, offer.Task{ID: id, Resources: resources.MustParse(q.String(), "*").Allocate(o.Role)})
		}
		if len(tasks) == 0 {
			if err := w.a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil); err != nil {
				return res, stated, free, err
			}
			continue
		}
		if err := w.a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil); err != nil {
			return res, stated, free, fmt.Errorf("run %d: %s launching %d on %s: %w", run, o.FrameworkID, len(tasks), o.Resources, err)
		}
		for _, t := range tasks {
			w.live[o.FrameworkID] = append(w.live[o.FrameworkID], t.ID)
			k := [2]string{o.FrameworkID, o.AgentID}
			w.launched[k] = append(w.launched[k], t.ID)
		}
		w.logf("run %d: %s launches %d on %s", run, o.FrameworkID, len(tasks), o.AgentID)
	}
	return res, stated, free, w.a.CheckInvariants()
}

// check runs the world and checks its preemptions:
//
//   - (a) no cycle: a task launched on a room made by ending role X's
//     tasks for role Y (launched by the room's framework on its agent at
//     the run after, when Y grew by no more than its rooms in the two
//     runs)
//     is never chosen to end for X while no event happened since the
//     room was made and Y consumes no more than it did once it launched
//     on the room. (Y may be offered more than its rooms from the pool,
//     what the victims freed beyond them say, and X, then below Y in
//     share, may take from it: the youngest of Y's tasks are those
//     launched on the room.) And no role takes from a role that took
//     from it in the same run, or in the run before with no event in
//     between;
//   - (b) once events stop, preemptions for guarantees stop within
//     randomSettleRuns runs, preemptions for fair shares within
//     randomSettleRuns runs and two a task then running, and none comes
//     in the randomQuietRuns after the last one;
//   - (c) every preemption is for a task its framework states, in its
//     role, that fits on the victims' agent once they end (and the rooms
//     of a run on one agent together fit there);
//   - (d) the room's framework is offered, at the run after, at least
//     its task on that agent, when no event came between: its victims
//     did not end for nothing.
func (w *randomWorld) check() error {
	// took is, per (taker, victim) role pair, the latest run that took.
	took := map[[2]string]int{}
	// roomTasks are the tasks launched on rooms: the roles whose tasks
	// ended for the room, and the run it was made in.
	type origin struct {
		from []string
		run  int
		// role is the role the room was held in, consumed what it
		// consumed once it launched on the room.
		role     string
		consumed resources.Quantities
	}
	roomTasks := map[[2]string]origin{}
	lastEvent := 0
	type room struct {
		fw, agent string
		task      resources.Quantities
		role      string
		from      []string
	}
	var rooms []room
	// lastBefore is what each role consumed before the run before.
	var lastBefore map[string]resources.Quantities
	lastPreemption, fairBound := -1, 0
	for run := 0; run < randomEventRuns || run <= max(lastPreemption, randomEventRuns)+randomQuietRuns; run++ {
		if run == randomEventRuns {
			tasks := 0
			for _, live := range w.live {
				tasks += len(live)
			}
			fairBound = randomEventRuns + randomSettleRuns + 2*tasks
		}
		evented := false
		if run == 2 {
			w.setQuotas()
			evented = true
		}
		if run < randomEventRuns && w.rng.Intn(3) == 0 {
			changed, err := w.event(run)
			if err != nil {
				return err
			}
			evented = evented || changed
		}
		if evented {
			lastEvent = run
		}
		before := map[string]resources.Quantities{}
		for _, role := range w.role {
			before[role] = w.consumed(role)
		}
		res, stated, free, err := w.step(run)
		if err != nil {
			return err
		}
		// (d) and the tasks launched on the rooms of the run before: those
		// of a role that grew by no more than its rooms since that run
		// started (what a room holds counts as soon as its victims end).
		want := map[[2]string]resources.Quantities{}
		roomsOf := map[string]resources.Quantities{}
		for _, r := range rooms {
			k := [2]string{r.fw, r.agent}
			q := want[k]
			q.Add(r.task)
			want[k] = q
			q = roomsOf[r.role]
			q.Add(r.task)
			roomsOf[r.role] = q
		}
		for _, r := range rooms {
			if !roomsOf[r.role].Contains(w.consumed(r.role).Minus(lastBefore[r.role])) {
				continue // it was given more than its rooms since the run before
			}
			for _, id := range w.launched[[2]string{r.fw, r.agent}] {
				o := roomTasks[[2]string{r.fw, id}]
				o.from, o.run, o.role, o.consumed = append(o.from, r.from...), run-1, r.role, w.consumed(r.role)
				roomTasks[[2]string{r.fw, id}] = o
			}
		}
		if !evented {
			offered := map[[2]string]resources.Quantities{}
			for _, o := range res.Offers {
				k := [2]string{o.FrameworkID, o.AgentID}
				q := offered[k]
				q.Add(o.Resources.Quantities())
				offered[k] = q
			}
			for _, k := range slices.SortedFunc(maps.Keys(want), compareKeys) {
				if q := want[k]; !offered[k].Contains(q) {
					return fmt.Errorf("(d) run %d: rooms made in run %d for %s on %s, for %s, but it is offered %s there", run, run-1, k[0], k[1], q, offered[k])
				}
			}
		}
		rooms = rooms[:0]
		lastBefore = before
		// (c)
		if err := checkGroups(run, res, free); err != nil {
			return fmt.Errorf("(c) %w", err)
		}
		for _, g := range groups(res.Preemptions) {
			p := g[0]
			if stated[p.ForFramework] <= 0 || !p.ForTask.Equal(w.shape[p.ForFramework]) || p.HeldIn != w.role[p.ForFramework] {
				return fmt.Errorf("(c) run %d: %s chosen for %s in %s, task %s: it stated %d tasks of %s in %s", run, p.TaskID, p.ForFramework, p.HeldIn, p.ForTask, stated[p.ForFramework], w.shape[p.ForFramework], w.role[p.ForFramework])
			}
			r := room{fw: p.ForFramework, agent: p.AgentID, task: p.ForTask, role: p.HeldIn}
			for _, v := range g {
				r.from = append(r.from, v.Role)
			}
			rooms = append(rooms, r)
		}
		// (a)
		for _, p := range res.Preemptions {
			if o, ok := roomTasks[[2]string{p.FrameworkID, p.TaskID}]; ok && o.run >= lastEvent && o.consumed.Contains(before[o.role]) &&
				(slices.Contains(o.from, p.For) || slices.Contains(o.from, p.HeldIn)) {
				return fmt.Errorf("(a) run %d: %s, launched on a room made in run %d by ending tasks of %v, is chosen to end for %s, with no event since run %d, while %s consumes %s, as it did then", run, p, o.run, o.from, p.HeldIn, lastEvent, o.role, before[o.role])
			}
			if last, ok := took[[2]string{p.Role, p.HeldIn}]; ok && (last == run || last == run-1 && lastEvent < run) {
				return fmt.Errorf("(a) run %d: %s takes from %s, which took from it in run %d", run, p.HeldIn, p.Role, last)
			}
			took[[2]string{p.HeldIn, p.Role}] = run
		}
		// (b)
		for _, p := range res.Preemptions {
			lastPreemption = run
			if run < randomEventRuns {
				continue
			}
			if p.Reason == allocator.PreemptForGuarantee && run >= randomEventRuns+randomSettleRuns {
				return fmt.Errorf("(b) run %d: %s, %d runs after the last event (run %d)", run, p, run-lastEvent, lastEvent)
			}
			if run >= fairBound {
				return fmt.Errorf("(b) run %d: %s, %d runs after the last event (run %d), beyond run %d", run, p, run-lastEvent, lastEvent, fairBound)
			}
		}
	}
	return nil
}

func compareKeys(x, y [2]string) int { return strings.Compare(x[0]+"\x00"+x[1], y[0]+"\x00"+y[1]) }

// randomWorlds is how many worlds each mode runs: the flag, or a default
// that keeps the package's tests short.
func randomWorlds() int {
	if *reclaimWorldsFlag > 0 {
		return *reclaimWorldsFlag
	}
	if raceEnabled {
		return 10
	}
	return 40
}

// Reclaim on random worlds (randomWorld): no cycles, preemptions that stop
// once nothing changes, and every preemption for a task that can run on
// the room it makes. Scale it with -allocator.reclaimworlds, replay a
// world with -allocator.reclaimworld.
func TestPropertyReclaimRandomWorlds(t *testing.T) {
	for _, mode := range []allocator.Reclaim{allocator.ReclaimGuarantees, allocator.ReclaimFairShare} {
		t.Run(mode.String(), func(t *testing.T) {
			try := func(seed int64) string {
				w, err := newRandomWorld(seed, mode)
				if err != nil {
					return fmt.Sprintf("world %d: %v", seed, err)
				}
				if err := w.check(); err != nil {
					return fmt.Sprintf("world %d (replay with -allocator.reclaimworld=%d): %v\n%s", seed, seed, err, strings.Join(w.log, "\n"))
				}
				return ""
			}
			if *reclaimWorldFlag != 0 {
				if msg := try(*reclaimWorldFlag); msg != "" {
					t.Fatal(msg)
				}
				return
			}
			p := parameters(t)
			p.MinSuccessfulTests = randomWorlds()
			props := gopter.NewProperties(p)
			props.Property("reclaim settles, without cycles, for tasks that run", prop.ForAll(try, gen.Int64().WithShrinker(gopter.NoShrinker)))
			props.TestingRun(t)
		})
	}
}
