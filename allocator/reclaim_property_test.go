package allocator_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// reclaimWorld is a cluster full of a batch role's tasks, and service
// roles with guarantees the cluster can meet all at once, each with one
// framework that launches what it is offered. The host ends every task a
// run chooses, before the next run (after delay runs, for some).
type reclaimWorld struct {
	a       *allocator.Allocator
	clock   *allocator.ManualClock
	roles   []string
	guarant map[string]resources.Quantities
	delay   int
	mode    allocator.Reclaim
	tasks   int
}

func newReclaimWorld(seed int64, mode allocator.Reclaim) (*reclaimWorld, error) {
	rng := rand.New(rand.NewSource(seed))
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: seed, Clock: clock.Now, Reclaim: mode})
	if err != nil {
		return nil, err
	}
	w := &reclaimWorld{a: a, clock: clock, guarant: map[string]resources.Quantities{}, delay: rng.Intn(3), mode: mode}
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
	// Service roles whose guarantees, with batch's, fit in the cluster.
	room := float64(agents*8) - w.guarant["batch"].Float64("cpus")
	for i := range 1 + rng.Intn(3) {
		cpus := float64(1 + rng.Intn(max(1, int(room/3))))
		if cpus > room {
			break
		}
		room -= cpus
		role := fmt.Sprintf("svc%d", i)
		g := resources.MustParseQuantities(fmt.Sprintf("cpus:%g;mem:%g", cpus, cpus*1024))
		if err := a.UpdateQuota(role, allocator.Quota{Guarantees: g}); err != nil {
			return nil, err
		}
		if err := a.AddFramework("fw-"+role, allocator.FrameworkInfo{Roles: []string{role}}, nil, allocator.Active); err != nil {
			return nil, err
		}
		w.roles = append(w.roles, role)
		w.guarant[role] = g
	}
	return w, nil
}

// step runs once and plays the host: ends chosen tasks (after the delay),
// launches what services are offered, and declines batch's offers.
func (w *reclaimWorld) step(run int, ending *[]allocator.Preemption) (allocator.Result, error) {
	w.clock.Advance(time.Second)
	res := w.a.AllocateAll()
	*ending = append(*ending, res.Preemptions...)
	if run >= w.delay {
		for _, p := range *ending {
			if err := w.a.EndTask(p.FrameworkID, p.TaskID); err != nil {
				return res, fmt.Errorf("ending %s/%s: %w", p.FrameworkID, p.TaskID, err)
			}
		}
		*ending = (*ending)[:0]
	}
	for _, o := range res.Offers {
		if o.FrameworkID == "spark" {
			if err := w.a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil); err != nil {
				return res, err
			}
			continue
		}
		w.tasks++
		task := offer.Task{ID: fmt.Sprintf("s%03d", w.tasks), Resources: o.Resources}
		if err := w.a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}, nil); err != nil {
			return res, err
		}
	}
	return res, w.a.CheckInvariants()
}

func (w *reclaimWorld) consumed(role string) resources.Quantities {
	v, _ := w.a.Role(role)
	return v.Consumed
}

// check runs the world for a number of runs and checks the properties of
// reclaim: every preemption is for a role below its guarantee (or, for
// fair shares, keeps the taker at or below the victim), no role is taken
// below its guarantee, no role takes back in the next run from a role
// that took from it, and after a few runs every guarantee is met.
func (w *reclaimWorld) check() error {
	var ending []allocator.Preemption
	// took holds, per (taker, victim), the latest run that took.
	took := map[[2]string]int{}
	for run := range 8 {
		before := map[string]resources.Quantities{}
		for role := range w.guarant {
			before[role] = w.consumed(role)
		}
		res, err := w.step(run, &ending)
		if err != nil {
			return fmt.Errorf("run %d: %w", run, err)
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
			if last, ok := took[[2]string{p.Role, p.For}]; ok && last >= run-1 {
				return fmt.Errorf("run %d: %s took from %s, which had taken from it in run %d", run, p.For, p.Role, last)
			}
			took[[2]string{p.For, p.Role}] = run
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

// The world's setup is what the property says: full, and feasible.
func TestReclaimWorldIsFull(t *testing.T) {
	for seed := range int64(20) {
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
	}
}
