package allocator_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// reclaimWorld is a cluster full of a batch role's tasks, and service
// roles with guarantees the cluster can meet all at once, each with one
// framework whose host waits for tasks of one size, enough of them to
// meet the guarantee and a few more: before every run it states the ones
// not running yet (UpdateDemand), and it launches on its offers as many
// of them as fit. The host ends every task a run chooses, before the next
// run (after delay runs, for some); batch waits for nothing once it has
// filled the cluster. Now and then a role with a guarantee
// has a framework that waits for nothing: it states nothing, or never
// states demand and declines its offers for an hour.
type reclaimWorld struct {
	a       *allocator.Allocator
	clock   *allocator.ManualClock
	roles   []string
	guarant map[string]resources.Quantities
	// task is what one task of a service's framework needs, wanted how
	// many it runs in all, running how many run.
	task    map[string]resources.Quantities
	wanted  map[string]int
	running map[string]int
	// idle is the framework that waits for nothing, if any.
	idle  string
	delay int
	mode  allocator.Reclaim
	tasks int
}

func newReclaimWorld(seed int64, mode allocator.Reclaim) (*reclaimWorld, error) {
	rng := rand.New(rand.NewSource(seed))
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: seed, Clock: clock.Now, Reclaim: mode})
	if err != nil {
		return nil, err
	}
	w := &reclaimWorld{a: a, clock: clock, guarant: map[string]resources.Quantities{}, delay: rng.Intn(3), mode: mode,
		task: map[string]resources.Quantities{}, wanted: map[string]int{}, running: map[string]int{}}
	agents := 2 + rng.Intn(5)
	for i := range agents {
		if err := a.AddAgent(fmt.Sprintf("a%d", i), allocator.AgentInfo{}, resources.MustParse("cpus:8;mem:8192", "*"), nil); err != nil {
			return nil, err
		}
	}
	if rng.Intn(2) == 0 {
		// batch keeps a guarantee of its own, which reclaim must not cut.
		g := resources.MustParseQuantities(fmt.Sprintf("cpus:%d", 1+rng.Intn(agents*2)))
		if err := a.UpdateQuota("batch", allocator.Quota{Guarantees: g}); err != nil {
			return nil, err
		}
		w.guarant["batch"] = g
	}
	if err := a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active); err != nil {
		return nil, err
	}
	// Fill every agent with tasks of 1 to 3 CPUs (1 GB a CPU).
	for _, o := range a.AllocateAll().Offers {
		left := o.Resources.Unallocate().Quantities()
		var tasks []offer.Task
		for left.Float64("cpus") >= 1 {
			n := min(float64(1+rng.Intn(3)), left.Float64("cpus"))
			q := resources.MustParseQuantities(fmt.Sprintf("cpus:%g;mem:%g", n, n*1024))
			w.tasks++
			tasks = append(tasks, offer.Task{ID: fmt.Sprintf("b%03d", w.tasks), Resources: resources.MustParse(q.String(), "*").Allocate("batch")})
			left.Subtract(q)
		}
		if err := a.Accept("spark", o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil); err != nil {
			return nil, err
		}
	}
	// batch waits for nothing more: it is offered nothing, and its
	// consumption is what its tasks use.
	if err := a.UpdateDemand("spark", "batch", nil); err != nil {
		return nil, err
	}
	// Service roles whose guarantees, with batch's, fit in the cluster.
	room := float64(agents*8) - w.guarant["batch"].Float64("cpus")
	for i := range 1 + rng.Intn(3) {
		cpus := float64(1 + rng.Intn(max(1, int(room/3))))
		if cpus > room {
			break
		}
		room -= cpus
		role := fmt.Sprintf("svc%d", i)
		fw := "fw-" + role
		if err := w.addService(role, fw, cpus); err != nil {
			return nil, err
		}
		size := []float64{0.5, 1, 2}[rng.Intn(3)]
		w.task[fw] = resources.MustParseQuantities(fmt.Sprintf("cpus:%g;mem:%g", size, size*1024))
		w.wanted[fw] = int(math.Ceil(cpus/size)) + rng.Intn(3)
		w.roles = append(w.roles, role)
	}
	// And now and then a role guaranteed cpus:1;mem:1024 whose framework
	// waits for nothing: it states nothing, or never states demand and
	// declines its offers for an hour.
	if room >= 1 && rng.Intn(2) == 0 {
		w.idle = "fw-idle"
		if err := w.addService("idle", w.idle, 1); err != nil {
			return nil, err
		}
		if rng.Intn(2) == 0 {
			if err := a.UpdateDemand(w.idle, "idle", nil); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// addService adds role, guaranteed cpus CPUs and 1 GB a CPU, and its
// framework fw.
func (w *reclaimWorld) addService(role, fw string, cpus float64) error {
	g := resources.MustParseQuantities(fmt.Sprintf("cpus:%g;mem:%g", cpus, cpus*1024))
	if err := w.a.UpdateQuota(role, allocator.Quota{Guarantees: g}); err != nil {
		return err
	}
	w.guarant[role] = g
	return w.a.AddFramework(fw, allocator.FrameworkInfo{Roles: []string{role}}, nil, allocator.Active)
}

// serviceRole returns the role of a service's framework.
func serviceRole(fw string) string { return fw[len("fw-"):] }

// step states the services' demand, runs once and plays the host: ends
// chosen tasks (after the delay), launches what services are offered,
// and declines the rest. It returns the run's result and each agent's
// free resources right after the run.
func (w *reclaimWorld) step(run int, ending *[]allocator.Preemption) (allocator.Result, map[string]resources.Quantities, error) {
	for _, fw := range slices.Sorted(maps.Keys(w.task)) {
		var list []allocator.Pending
		if n := w.wanted[fw] - w.running[fw]; n > 0 {
			list = []allocator.Pending{{Resources: w.task[fw], Count: n}}
		}
		if err := w.a.UpdateDemand(fw, serviceRole(fw), list); err != nil {
			return allocator.Result{}, nil, err
		}
	}
	w.clock.Advance(time.Second)
	res := w.a.AllocateAll()
	free := map[string]resources.Quantities{}
	for _, v := range w.a.Agents() {
		// What is held on the agent was free when the rooms were chosen:
		// a room's free part is held for its task at once.
		q := v.Available.Quantities()
		for _, held := range v.Held {
			q.Add(held.Quantities())
		}
		free[v.ID] = q
	}
	*ending = append(*ending, res.Preemptions...)
	if run >= w.delay {
		for _, p := range *ending {
			if err := w.a.EndTask(p.FrameworkID, p.TaskID); err != nil {
				return res, free, fmt.Errorf("ending %s/%s: %w", p.FrameworkID, p.TaskID, err)
			}
		}
		*ending = (*ending)[:0]
	}
	for _, o := range res.Offers {
		var tasks []offer.Task
		left := o.Resources.Quantities()
		q := w.task[o.FrameworkID]
		for !q.IsEmpty() && w.running[o.FrameworkID] < w.wanted[o.FrameworkID] && left.Contains(q) {
			w.tasks++
			w.running[o.FrameworkID]++
			left.Subtract(q)
			tasks = append(tasks, offer.Task{ID: fmt.Sprintf("s%03d", w.tasks), Resources: resources.MustParse(q.String(), "*").Allocate(o.Role)})
		}
		if len(tasks) == 0 {
			var filter *allocator.Filter
			if o.FrameworkID == w.idle {
				filter = &allocator.Filter{Refuse: time.Hour}
			}
			if err := w.a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, filter); err != nil {
				return res, free, err
			}
			continue
		}
		if err := w.a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil); err != nil {
			return res, free, err
		}
	}
	return res, free, w.a.CheckInvariants()
}

func (w *reclaimWorld) consumed(role string) resources.Quantities {
	v, _ := w.a.Role(role)
	return v.Consumed
}

// groups splits a run's preemptions into the groups chosen together for
// one pending task: consecutive choices for the same pending task of the
// same framework, with the same shares of the taker (the next group for
// the same task moves the taker's share).
func groups(ps []allocator.Preemption) [][]allocator.Preemption {
	var out [][]allocator.Preemption
	for i, p := range ps {
		if i > 0 {
			q := ps[i-1]
			if p.For == q.For && p.ForFramework == q.ForFramework && p.HeldIn == q.HeldIn && p.ForTask.Equal(q.ForTask) && p.ForShare == q.ForShare {
				out[len(out)-1] = append(out[len(out)-1], p)
				continue
			}
		}
		out = append(out, []allocator.Preemption{p})
	}
	return out
}

// checkGroups checks a run's groups of victims (free is each agent's
// free and held resources after the run): each on one agent, where the victims'
// frees and what is free cover the pending task, and, all the run's
// groups on an agent together, their pending tasks.
func checkGroups(run int, res allocator.Result, free map[string]resources.Quantities) error {
	need := map[string]resources.Quantities{}
	freed := map[string]resources.Quantities{}
	for _, g := range groups(res.Preemptions) {
		var frees resources.Quantities
		for _, p := range g {
			if p.AgentID != g[0].AgentID {
				return fmt.Errorf("run %d: the victims of one room on %s and %s: %s, %s", run, g[0].AgentID, p.AgentID, g[0], p)
			}
			frees.Add(p.Frees)
		}
		if have := frees.Plus(free[g[0].AgentID]); !have.Contains(g[0].ForTask) {
			return fmt.Errorf("run %d: %d victims on %s free %s, with %s free there, short of the task %s", run, len(g), g[0].AgentID, frees, free[g[0].AgentID], g[0].ForTask)
		}
		ag := g[0].AgentID
		n := need[ag]
		n.Add(g[0].ForTask)
		need[ag] = n
		f := freed[ag]
		f.Add(frees)
		freed[ag] = f
	}
	for ag, n := range need {
		if have := freed[ag].Plus(free[ag]); !have.Contains(n) {
			return fmt.Errorf("run %d: the rooms on %s are for %s, their victims free %s and %s is free (rooms that count the same free resources; see TestReclaimRoomsShareNoFreeResources)", run, ag, n, freed[ag], free[ag])
		}
	}
	return nil
}

// checkPending checks that the tasks chosen and not ended yet leave every
// role with a guarantee at or above it, in each resource they free: the
// ones whose roles are in the role's subtree, but for the rooms held in
// it (those give back what they take).
func (w *reclaimWorld) checkPending(run int) error {
	pending := w.a.Preempting()
	for _, v := range w.a.Roles() {
		if v.Quota.Guarantees.IsEmpty() {
			continue
		}
		var taken resources.Quantities
		for _, p := range pending {
			if reservation.IsSubroleOrSelf(p.Role, v.Role) && !reservation.IsSubroleOrSelf(p.HeldIn, v.Role) {
				taken.Add(p.Frees)
			}
		}
		left := v.Consumed.Minus(taken)
		for name, g := range v.Quota.Guarantees.All() {
			if taken.Scalar(name) > 0 && left.Scalar(name) < g {
				return fmt.Errorf("run %d: %s consumes %s, and its tasks chosen free %s: below its guarantee %s", run, v.Role, v.Consumed, taken, v.Quota.Guarantees)
			}
		}
	}
	return nil
}

// check runs the world for a number of runs and checks the properties of
// reclaim: every preemption is for a role below its guarantee (or, for
// fair shares, keeps the taker at or below the victim), for a pending
// task of a framework that states it; the victims of a room are on one
// agent and make room there for its task; no role is taken below its
// guarantee, counting the tasks chosen and not ended; no role takes back
// in the next run from a role that took from it; and after a few runs
// every guarantee of a framework that waits for tasks is met.
func (w *reclaimWorld) check() error {
	var ending []allocator.Preemption
	// took holds, per (taker, victim), the latest run that took.
	took := map[[2]string]int{}
	for run := range 8 {
		before := map[string]resources.Quantities{}
		for role := range w.guarant {
			before[role] = w.consumed(role)
		}
		stated := map[string]int{}
		for fw, n := range w.wanted {
			stated[fw] = n - w.running[fw]
		}
		res, free, err := w.step(run, &ending)
		if err != nil {
			return fmt.Errorf("run %d: %w", run, err)
		}
		if err := checkGroups(run, res, free); err != nil {
			return err
		}
		for _, p := range res.Preemptions {
			switch p.Reason {
			case allocator.PreemptForGuarantee:
				if g := w.guarant[p.For]; before[p.For].Contains(g) {
					return fmt.Errorf("run %d: %s preempted for %s, which consumed %s, at its guarantee %s", run, p.TaskID, p.For, before[p.For], g)
				}
			case allocator.PreemptForFairShare:
				if p.ForShare[1] > p.RoleShare[1]+1e-9 {
					return fmt.Errorf("run %d: %s: the taker ends above the victim", run, p)
				}
			}
			if stated[p.ForFramework] <= 0 || !p.ForTask.Equal(w.task[p.ForFramework]) || p.HeldIn != serviceRole(p.ForFramework) {
				return fmt.Errorf("run %d: %s chosen for %s in %s, task %s: it stated %d tasks of %s", run, p.TaskID, p.ForFramework, p.HeldIn, p.ForTask, stated[p.ForFramework], w.task[p.ForFramework])
			}
			if last, ok := took[[2]string{p.Role, p.For}]; ok && last >= run-1 {
				return fmt.Errorf("run %d: %s took from %s, which had taken from it in run %d", run, p.For, p.Role, last)
			}
			took[[2]string{p.For, p.Role}] = run
		}
		if err := w.checkPending(run); err != nil {
			return err
		}
		for role, g := range w.guarant {
			if c := w.consumed(role); before[role].Contains(g) && !c.Contains(g) {
				return fmt.Errorf("run %d: %s fell below its guarantee %s: %s", run, role, g, c)
			}
		}
	}
	for _, role := range w.roles {
		if c, g := w.consumed(role), w.guarant[role]; !c.Contains(g) {
			return fmt.Errorf("after 8 runs %s consumes %s, below its guarantee %s (delay %d)", role, c, g, w.delay)
		}
	}
	return nil
}

func TestPropertyReclaim(t *testing.T) {
	for _, mode := range []allocator.Reclaim{allocator.ReclaimGuarantees, allocator.ReclaimFairShare} {
		t.Run(mode.String(), func(t *testing.T) {
			props := gopter.NewProperties(parameters(t))
			props.Property("guarantees are met without storms", prop.ForAll(func(seed int64) string {
				w, err := newReclaimWorld(seed, mode)
				if err != nil {
					return err.Error()
				}
				if err := w.check(); err != nil {
					return fmt.Sprintf("seed %d: %v", seed, err)
				}
				return ""
			}, gen.Int64()))
			props.TestingRun(t)
		})
	}
}

// The world's setup is what the property says: full, and feasible, with a
// service that waits for tasks, and now and then one that waits for
// nothing.
func TestReclaimWorldIsFull(t *testing.T) {
	idle := 0
	for seed := range int64(40) {
		w, err := newReclaimWorld(seed, allocator.ReclaimGuarantees)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range w.a.Agents() {
			if !v.Available.IsEmpty() {
				t.Fatalf("seed %d: %s has %s free", seed, v.ID, v.Available)
			}
		}
		if len(w.roles) == 0 || slices.Contains(w.roles, "batch") {
			t.Fatalf("seed %d: service roles %v", seed, w.roles)
		}
		for _, role := range w.roles {
			fw := "fw-" + role
			if n, q := w.wanted[fw], w.task[fw]; float64(n)*q.Float64("cpus") < w.guarant[role].Float64("cpus") {
				t.Fatalf("seed %d: %s wants %d tasks of %s, short of its guarantee %s", seed, fw, n, q, w.guarant[role])
			}
		}
		if w.idle != "" {
			idle++
		}
	}
	if idle == 0 {
		t.Fatal("no world with a framework that waits for nothing")
	}
}
