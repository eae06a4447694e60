package sorter

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/resources"
)

// The fairness tests check the properties of the DRF paper (Ghodsi et al.,
// NSDI 2011) and of its follow-ups on indivisible tasks (Parkes et al.,
// EC 2012) and hierarchies (Bhattacharya et al., SoCC 2013). The sorter
// hands out indivisible tasks through offers, the discrete DRF in which a
// client whose task does not fit is skipped ("DRF-Skip"), so each property
// is asserted in the form that holds for that model. With σ a weighted
// dominant share, δ a per-task dominant share and w a weight:
//
//	sharing incentive   bound B1: σ_i > (1 − Σ_j δ_j) / Σ_j w_j for every
//	                    user below its cap (TestPropertyFillingBounds);
//	                    whole-task SI fails (TestCounterexamples)
//	envy-freeness,      B3: every task goes to a user of least weighted
//	max-min             share among those whose next task fits; EF1 fails
//	                    with weights (TestCounterexamples)
//	Pareto efficiency   maximality: when the filling stops, no user below
//	                    its cap has a task that fits
//	single-resource,    B3 and B1 with one resource; the dominant resource
//	bottleneck fairness of every user is the bottleneck
//	strategy-proofness  fails for indivisible tasks (TestCounterexamples)
//	population and      fail (TestCounterexamples)
//	resource monotonicity
//	weights             relative: scaling every weight changes nothing;
//	                    shares in proportion to weights (TestGoldenWeighted)
//	hierarchy           per level: the subtree of least share among those
//	                    with a task that fits is served
//	                    (TestPropertySubtreeShares); starvation under churn
//	                    (TestHierarchy)
//
// B1 holds because when the least-share user's task first fails to fit,
// some resource has less than that task free, and no user is more than one
// of its tasks ahead of that user at that point; afterwards shares only
// grow. B3 is the rule the sorter implements. ε = 1e-9 absorbs the float
// rounding of the sorter's shares, in the direction that weakens each
// assertion.
const epsilon = 1e-9

// genSpec says what kind of instances to generate.
type genSpec struct {
	maxUsers, maxResources int
	bottleneck             bool // one resource is every user's largest share
	weights, caps          bool
}

var resourceNames = []string{"cpus", "mem", "disk", "gpus"}

// generate builds a random one-pool instance: capacities 5..200 (or 100..2000 for small tasks), demands 0..10 with
// about 30% zeros but never all zero, weights from {1, 2, 3, 1/2, 3/2},
// caps from 1..20 or none.
func generate(rng *rand.Rand, spec genSpec) experiment {
	n := 1 + rng.IntN(spec.maxUsers)
	m := 1 + rng.IntN(spec.maxResources)
	names := resourceNames[:m]
	lo, hi := 5, 200
	if rng.IntN(5) == 0 {
		lo, hi = 100, 2000
	}
	var e experiment
	for _, name := range names {
		e.capacity.SetScalar(name, resources.Units(int64(lo+rng.IntN(hi-lo+1))))
	}
	star := names[rng.IntN(m)]
	for i := range n {
		u := user{name: fmt.Sprintf("u%d", i)}
		for u.demand.IsEmpty() {
			u.demand = resources.Quantities{}
			for _, name := range names {
				if rng.IntN(10) < 3 {
					continue
				}
				u.demand.SetScalar(name, resources.Units(int64(1+rng.IntN(10))))
			}
			if spec.bottleneck && !bottleneckOf(e.capacity, u.demand, star) {
				u.demand = resources.Quantities{}
			}
		}
		if spec.weights && rng.IntN(2) == 0 {
			u.weight = []float64{1, 2, 3, 0.5, 1.5}[rng.IntN(5)]
		}
		if spec.caps && rng.IntN(3) == 0 {
			u.cap = 1 + rng.IntN(20)
		}
		e.users = append(e.users, u)
	}
	return e
}

// bottleneckOf reports whether star is strictly d's largest share.
func bottleneckOf(capacity, d resources.Quantities, star string) bool {
	s := d.Float64(star) / capacity.Float64(star)
	if s == 0 {
		return false
	}
	for name, v := range d.All() {
		if name != star && v.Float64()/capacity.Float64(name) >= s {
			return false
		}
	}
	return true
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// checkFilling asserts B3 at every step, maximality at the end and B1 for
// every user below its cap.
func checkFilling(e experiment, f filling) error {
	for i, st := range f.trace {
		picked := ratFloat(st.sigma[st.picked])
		for _, name := range st.eligible {
			if picked > ratFloat(st.sigma[name])+epsilon {
				return fmt.Errorf("B3, step %d: %s served at share %v while %s fitted at %v",
					i, st.picked, picked, name, ratFloat(st.sigma[name]))
			}
		}
	}
	sumDelta, sumW := new(big.Rat), new(big.Rat)
	for _, u := range e.users {
		sumDelta.Add(sumDelta, e.delta(u))
		sumW.Add(sumW, new(big.Rat).SetFloat64(u.w()))
	}
	bound := new(big.Rat).Sub(big.NewRat(1, 1), sumDelta)
	bound.Quo(bound, sumW)
	for _, u := range e.users {
		if u.cap != 0 && f.tasks[u.name] >= u.cap {
			continue
		}
		if f.free.Contains(u.demand) {
			return fmt.Errorf("maximality: %s's task %s still fits in %s", u.name, u.demand, f.free)
		}
		if s := e.share(u, f.tasks[u.name]); s.Cmp(bound) <= 0 {
			return fmt.Errorf("B1: %s ends at share %s, not above (1 - Σδ)/W = %s", u.name, s.RatString(), bound.RatString())
		}
	}
	return nil
}

func picks(f filling) []string {
	out := make([]string, len(f.trace))
	for i, st := range f.trace {
		out[i] = st.picked
	}
	return out
}

func fillingProperty(t *testing.T, spec genSpec, extra func(e experiment, f filling, d *DRF) error) {
	properties := gopter.NewProperties(parameters(t, 100))
	properties.Property("filling", prop.ForAll(
		func(seed int64) (bool, error) {
			e := generate(newRand(seed), spec)
			d := NewDRF(Config{})
			f := e.run(t, d)
			if err := checkFilling(e, f); err != nil {
				return false, fmt.Errorf("%s\ntasks %v: %w", e, e.tasksOf(f), err)
			}
			if extra != nil {
				if err := extra(e, f, d); err != nil {
					return false, fmt.Errorf("%s\ntasks %v: %w", e, e.tasksOf(f), err)
				}
			}
			return true, nil
		},
		gen.Int64(),
	))
	properties.TestingRun(t)
}

// TestPropertyFillingBounds: sharing incentive (B1), Pareto efficiency
// (maximality) and the per-step max-min rule (B3), with weights, caps and
// zero demands. Scaling every weight by 2 must not change a single pick.
func TestPropertyFillingBounds(t *testing.T) {
	fillingProperty(t, genSpec{maxUsers: 6, maxResources: 4, weights: true, caps: true},
		func(e experiment, f filling, _ *DRF) error {
			scaled := experiment{capacity: e.capacity, users: slices.Clone(e.users)}
			for i := range scaled.users {
				scaled.users[i].weight = 2 * scaled.users[i].w()
			}
			g := scaled.run(t, NewDRF(Config{}))
			if !slices.Equal(picks(f), picks(g)) {
				return fmt.Errorf("weights doubled: picks %v, before %v", picks(g), picks(f))
			}
			return nil
		})
}

// TestPropertySingleResourceFairness: with one resource DRF is weighted
// max-min fairness on it, up to the task sizes (B3, B1).
func TestPropertySingleResourceFairness(t *testing.T) {
	fillingProperty(t, genSpec{maxUsers: 6, maxResources: 1, weights: true, caps: true}, nil)
}

// TestPropertyBottleneckFairness: when one resource is every user's largest
// share, the sorter measures every user by it.
func TestPropertyBottleneckFairness(t *testing.T) {
	fillingProperty(t, genSpec{maxUsers: 6, maxResources: 4, bottleneck: true, weights: true},
		func(e experiment, f filling, d *DRF) error {
			var star string
			for name, v := range e.users[0].demand.All() {
				if star == "" || v.Float64()/e.capacity.Float64(name) > e.users[0].demand.Float64(star)/e.capacity.Float64(star) {
					star = name
				}
			}
			for _, s := range d.Shares() {
				if s.Count > 0 && s.Dominant != star {
					return fmt.Errorf("%s's dominant resource is %q, want the bottleneck %q", s.Client, s.Dominant, star)
				}
			}
			return nil
		})
}

// TestPropertySubtreeShares: in a tree, each level shares out by the
// subtree's share: the task goes below the sibling of least weighted share
// among those with a leaf whose next task fits, at every level on its way.
func TestPropertySubtreeShares(t *testing.T) {
	properties := gopter.NewProperties(parameters(t, 100))
	properties.Property("per-level", prop.ForAll(
		func(seed int64) (bool, error) {
			rng := newRand(seed)
			e := generate(rng, genSpec{maxUsers: 8, maxResources: 3})
			weights := map[string]float64{}
			for i := range e.users {
				if k := rng.IntN(4); k < 3 {
					e.users[i].name = fmt.Sprintf("r%d/%s", k, e.users[i].name)
				}
			}
			d := NewDRF(Config{})
			for k := range 3 {
				if rng.IntN(2) == 0 {
					w := float64(1 + rng.IntN(3))
					role := fmt.Sprintf("r%d", k)
					weights[role] = w
					if err := d.UpdateWeight(role, w); err != nil {
						return false, err
					}
				}
			}
			f := e.run(t, d)
			for i, st := range f.trace {
				if err := checkLevels(e, st, weights); err != nil {
					return false, fmt.Errorf("%s\nstep %d: %w", e, i, err)
				}
			}
			return true, nil
		},
		gen.Int64(),
	))
	properties.TestingRun(t)
}

// checkLevels checks that at every level on the way to the picked leaf, the
// node taken has the least share among the siblings with an eligible leaf.
func checkLevels(e experiment, st step, weights map[string]float64) error {
	// share of the subtree at path, from the tasks before the step.
	share := func(path string) float64 {
		var q resources.Quantities
		for _, u := range e.users {
			if u.name == path || strings.HasPrefix(u.name, path+"/") {
				for range st.tasks[u.name] {
					q.Add(u.demand)
				}
			}
		}
		s, _ := q.DominantShare(e.capacity, resources.NameSet{})
		w, ok := weights[path]
		if !ok {
			w = 1
		}
		return s / w
	}
	parent := func(p string) string {
		up, _, _ := cutLast(p)
		return up
	}
	// The nodes on the way: each ancestor path of the picked leaf, and the
	// leaf itself.
	for node := st.picked; node != ""; node = parent(node) {
		mine := share(node)
		siblings := map[string]bool{}
		for _, name := range st.eligible {
			for n := name; n != ""; n = parent(n) {
				if parent(n) == parent(node) {
					siblings[n] = true
				}
			}
		}
		for sib := range siblings {
			if mine > share(sib)+epsilon {
				return fmt.Errorf("%s served through %s (share %v) while %s (share %v) had a task that fits",
					st.picked, node, mine, sib, share(sib))
			}
		}
	}
	return nil
}

// TestGoldenPaper is the DRF paper's example (its section 4): 9 CPUs and
// 18 GB; A runs tasks of <1 CPU, 4 GB>, B of <3 CPUs, 1 GB>. Ties go to A
// by path, so the order is A, B, A, B, A, and both end at share 2/3.
func TestGoldenPaper(t *testing.T) {
	e := experiment{resources.MustParseQuantities("cpus:9;mem:18"), users("cpus:1;mem:4", "cpus:3;mem:1")}
	d := NewDRF(Config{})
	f := e.run(t, d)
	want := []struct {
		picked string
		a, b   float64 // shares after the step
	}{
		{"A", 2.0 / 9, 0},
		{"B", 2.0 / 9, 1.0 / 3},
		{"A", 4.0 / 9, 1.0 / 3},
		{"B", 4.0 / 9, 2.0 / 3},
		{"A", 2.0 / 3, 2.0 / 3},
	}
	if len(f.trace) != len(want) {
		t.Fatalf("%d tasks handed out (%v), want %d", len(f.trace), picks(f), len(want))
	}
	// Replay on a fresh sorter to read the shares after every step.
	r := NewDRF(Config{})
	r.AddAgent("pool", e.capacity)
	for _, u := range e.users {
		_ = r.Add(u.name)
		_ = r.Activate(u.name)
	}
	for i, w := range want {
		if f.trace[i].picked != w.picked {
			t.Fatalf("step %d: %s served, want %s (order %v)", i+1, f.trace[i].picked, w.picked, picks(f))
		}
		u := e.users[0]
		if w.picked == "B" {
			u = e.users[1]
		}
		if err := r.Allocated(u.name, "pool", taskOf(u.demand)); err != nil {
			t.Fatal(err)
		}
		if a, b := r.ShareOf("A"), r.ShareOf("B"); a != w.a || b != w.b {
			t.Fatalf("step %d: shares A=%v B=%v, want %v %v", i+1, a, b, w.a, w.b)
		}
	}
	if got := e.tasksOf(f); !slices.Equal(got, []int{3, 2}) {
		t.Fatalf("tasks %v, want [3 2]", got)
	}
	for _, s := range d.Shares() {
		if want := map[string]string{"A": "mem", "B": "cpus"}[s.Client]; s.Dominant != want {
			t.Errorf("%s's dominant resource is %s, want %s", s.Client, s.Dominant, want)
		}
	}
	if !f.free.Equal(resources.MustParseQuantities("mem:4")) {
		t.Errorf("left free %s, want mem:4 (CPU saturated)", f.free)
	}
}

// TestGoldenOfferTrace is the offer trace of the post "Resource Allocation
// in Mesos: Dominant Resource Fairness" (datastrophic.io, 2016), with its
// arithmetic corrected (A's task is 30% of the CPUs, not 33%, and A holds
// 60% after its second task): 10 CPUs and 20 GB on one agent; A runs
// <3 CPUs, 2 GB>, B <1 CPU, 5 GB>.
// Each offer holds everything free and goes to the first client in Sort
// order; the client launches one task if it fits, or declines and the
// offer goes to the next one.
func TestGoldenOfferTrace(t *testing.T) {
	q := resources.MustParseQuantities
	demand := map[string]resources.Quantities{"A": q("cpus:3;mem:2"), "B": q("cpus:1;mem:5")}
	d := NewDRF(Config{})
	d.AddAgent("s1", q("cpus:10;mem:20"))
	for _, c := range []string{"A", "B"} {
		_ = d.Add(c)
		_ = d.Activate(c)
	}
	type row struct {
		offered string
		to      string
		accepts bool
		a, b    float64 // shares after the offer
	}
	want := []row{
		{"cpus:10;mem:20", "A", true, 0.3, 0},
		{"cpus:7;mem:18", "B", true, 0.3, 0.25},
		{"cpus:6;mem:13", "B", true, 0.3, 0.5},
		{"cpus:5;mem:8", "A", true, 0.6, 0.5},
		{"cpus:2;mem:6", "B", true, 0.6, 0.75},
		{"cpus:1;mem:1", "A", false, 0.6, 0.75},
		{"cpus:1;mem:1", "B", false, 0.6, 0.75},
	}
	free := q("cpus:10;mem:20")
	var got []row
	for {
		accepted := false
		for _, c := range d.Sort() {
			r := row{offered: free.String(), to: c}
			if free.Contains(demand[c]) {
				if err := d.Allocated(c, "s1", taskOf(demand[c])); err != nil {
					t.Fatal(err)
				}
				free.Subtract(demand[c])
				r.accepts, accepted = true, true
			}
			r.a, r.b = d.ShareOf("A"), d.ShareOf("B")
			got = append(got, r)
			if accepted {
				break
			}
		}
		if !accepted {
			break
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d offers, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		w.offered = q(w.offered).String()
		if got[i] != w {
			t.Errorf("offer %d: %+v, want %+v", i+1, got[i], w)
		}
	}
	if !free.Equal(q("cpus:1;mem:1")) {
		t.Errorf("left free %s, want cpus:1;mem:1 (90%% CPU and 95%% memory used)", free)
	}
}

// TestGoldenWeighted is weighted DRF: 10 CPUs and 10 GB; A <1 CPU, 2 GB>
// with weight 2, B <2 CPUs, 1 GB> with weight 1. A runs 4 tasks and B 2;
// both end at weighted share 0.4, and their plain dominant shares 0.8 and
// 0.4 stand in the ratio of their weights.
func TestGoldenWeighted(t *testing.T) {
	e := experiment{resources.MustParseQuantities("cpus:10;mem:10"), users("cpus:1;mem:2", "cpus:2;mem:1")}
	e.users[0].weight = 2
	d := NewDRF(Config{})
	f := e.run(t, d)
	if got := e.tasksOf(f); !slices.Equal(got, []int{4, 2}) {
		t.Fatalf("tasks %v, want [4 2]", got)
	}
	if a, b := d.ShareOf("A"), d.ShareOf("B"); a != 0.4 || b != 0.4 {
		t.Fatalf("weighted shares %v, %v; want 0.4 each", a, b)
	}
	shares := d.Shares()
	if plain := shares[0].Share * shares[0].Weight / (shares[1].Share * shares[1].Weight); plain != 2 {
		t.Fatalf("dominant shares in ratio %v, want the weights' 2", plain)
	}
	if err := checkFilling(e, f); err != nil {
		t.Fatal(err)
	}
	// Unweighted, for contrast: (3, 3).
	e.users[0].weight = 0
	if got := e.tasksOf(e.run(t, NewDRF(Config{}))); !slices.Equal(got, []int{3, 3}) {
		t.Fatalf("unweighted tasks %v, want [3 3]", got)
	}
}

// utility is the number of tasks of demand d that a bundle runs (Leontief).
func utility(d, bundle resources.Quantities) int {
	best := -1
	for name, v := range d.All() {
		n := int(bundle.Scalar(name) / v)
		if best < 0 || n < best {
			best = n
		}
	}
	return best
}

func times(d resources.Quantities, k float64) resources.Quantities {
	var out resources.Quantities
	for name, v := range d.All() {
		out.Set(name, v.Float64()*k)
	}
	return out
}

// TestCounterexamples shows, through the sorter, each property that fails
// for indivisible tasks. Each case asserts that the property fails; where
// the outcome follows from hand computation under this sorter's tie rule,
// it is checked too.
func TestCounterexamples(t *testing.T) {
	for _, c := range []struct {
		name string
		test func(t *testing.T)
	}{
		{"SharingIncentiveWholeTasks", counterexampleSharingIncentiveWholeTasks},
		{"SharingIncentiveWeighted", counterexampleSharingIncentiveWeighted},
		{"StrategyProofness", counterexampleStrategyProofness},
		{"WeightedEnvyFreenessUpToOneTask", counterexampleWeightedEnvyFreenessUpToOneTask},
		{"PopulationMonotonicity", counterexamplePopulationMonotonicity},
		{"PopulationMonotonicityZeroDemands", counterexamplePopulationMonotonicityZeroDemands},
		{"ResourceMonotonicity", counterexampleResourceMonotonicity},
		{"ResourceMonotonicityPaper", counterexampleResourceMonotonicityPaper},
	} {
		t.Run(c.name, c.test)
	}
}

// wholeTasks runs e on a DRF sorter and returns each user's tasks.
func wholeTasks(t *testing.T, e experiment) []int { return e.tasksOf(e.run(t, NewDRF(Config{}))) }

func counterexampleSharingIncentiveWholeTasks(t *testing.T) {
	q := resources.MustParseQuantities
	// 115 units, A <1>, B <6>. Half the pool runs 57 of A's
	// tasks, but DRF gives A only 55. B1 still holds.
	e := experiment{q("cpus:115"), users("cpus:1", "cpus:6")}
	f := e.run(t, NewDRF(Config{}))
	if got := e.tasksOf(f); !slices.Equal(got, []int{55, 10}) {
		t.Fatalf("tasks %v, want [55 10]", got)
	}
	if partition := utility(e.users[0].demand, times(e.capacity, 0.5)); f.tasks["A"] >= partition {
		t.Fatalf("A runs %d tasks, its half of the pool %d: no counterexample", f.tasks["A"], partition)
	}
	if err := checkFilling(e, f); err != nil {
		t.Fatal(err)
	}
}

func counterexampleSharingIncentiveWeighted(t *testing.T) {
	q := resources.MustParseQuantities
	// 15 units, tasks 6, 1, 3, 5 with weights 3, 3, 1, 3. The
	// user with tasks of 1 is entitled to 4.5 units, 4 tasks, and runs 1.
	e := experiment{q("cpus:15"), users("cpus:6", "cpus:1", "cpus:3", "cpus:5")}
	for i, w := range []float64{3, 3, 1, 3} {
		e.users[i].weight = w
	}
	got := wholeTasks(t, e)
	if !slices.Equal(got, []int{1, 1, 1, 1}) {
		t.Fatalf("tasks %v, want [1 1 1 1]", got)
	}
	if entitled := utility(e.users[1].demand, times(e.capacity, 3.0/10)); got[1] >= entitled {
		t.Fatalf("B runs %d of its %d: no counterexample", got[1], entitled)
	}
}

func counterexampleStrategyProofness(t *testing.T) {
	q := resources.MustParseQuantities
	// 4 units, A and B run tasks of 1. Truthful, each runs 2. If
	// A claims tasks of 3, its one "task" holds 3 units: 3 real tasks.
	truthful := wholeTasks(t, experiment{q("cpus:4"), users("cpus:1", "cpus:1")})
	if !slices.Equal(truthful, []int{2, 2}) {
		t.Fatalf("truthful tasks %v, want [2 2]", truthful)
	}
	lie := experiment{q("cpus:4"), users("cpus:3", "cpus:1")}
	got := wholeTasks(t, lie)
	real := utility(q("cpus:1"), times(lie.users[0].demand, float64(got[0])))
	if real <= truthful[0] {
		t.Fatalf("lying gives A %d real tasks, truth %d: no counterexample", real, truthful[0])
	}
}

func counterexampleWeightedEnvyFreenessUpToOneTask(t *testing.T) {
	q := resources.MustParseQuantities
	// 8 units; A <1>, B <3>, C <2> with weight 2 (found by search with
	// this sorter's tie rule; the published instance, 68 units and
	// tasks 5, 1, 3 with weights 1, 2, 3, relies on another). C values A's bundle, less one task, scaled by C's
	// weight over A's, above its own.
	e := experiment{q("cpus:8"), users("cpus:1", "cpus:3", "cpus:2")}
	e.users[2].weight = 2
	f := e.run(t, NewDRF(Config{}))
	a, c := e.users[0], e.users[2]
	envied := times(a.demand, float64(f.tasks["A"]-1)*c.w()/a.w())
	if utility(c.demand, envied) <= f.tasks["C"] {
		t.Fatalf("tasks %v: C does not envy A up to one task", e.tasksOf(f))
	}
	if err := checkFilling(e, f); err != nil {
		t.Fatal(err)
	}
}

func counterexamplePopulationMonotonicity(t *testing.T) {
	q := resources.MustParseQuantities
	// 13 units; A <4>, B <5>, C <6> give (2, 1, 0); without B,
	// (1, 1): A loses a task when B leaves.
	with := wholeTasks(t, experiment{q("cpus:13"), users("cpus:4", "cpus:5", "cpus:6")})
	without := wholeTasks(t, experiment{q("cpus:13"), users("cpus:4", "cpus:6")})
	if !slices.Equal(with, []int{2, 1, 0}) || !slices.Equal(without, []int{1, 1}) {
		t.Fatalf("tasks %v and without B %v, want [2 1 0] and [1 1]", with, without)
	}
}

func counterexamplePopulationMonotonicityZeroDemands(t *testing.T) {
	q := resources.MustParseQuantities
	// 12 CPUs, 12 GB; u0 <0, 1>, u1 <1, 0>, u2 <1, 2>. When u0
	// leaves, u2 grows and takes CPU from u1: 9 tasks become 8. This
	// one also fails for divisible tasks.
	with := wholeTasks(t, experiment{q("cpus:12;mem:12"), users("mem:1", "cpus:1", "cpus:1;mem:2")})
	without := wholeTasks(t, experiment{q("cpus:12;mem:12"), users("cpus:1", "cpus:1;mem:2")})
	if !slices.Equal(with, []int{6, 9, 3}) || !slices.Equal(without, []int{8, 4}) {
		t.Fatalf("tasks %v and without u0 %v, want [6 9 3] and [8 4]", with, without)
	}
}

func counterexampleResourceMonotonicity(t *testing.T) {
	q := resources.MustParseQuantities
	// More memory, and B runs fewer tasks (found by search with this
	// sorter's tie rule; the paper's example with doubled memory
	// gives (3, 2) either way under it). RM fails in every model, divisible ones included.
	us := users("cpus:3;mem:5", "cpus:2;mem:1")
	before := wholeTasks(t, experiment{q("cpus:18;mem:21"), us})
	after := wholeTasks(t, experiment{q("cpus:18;mem:29"), us})
	if after[1] >= before[1] {
		t.Fatalf("tasks %v, with more memory %v: B does not lose", before, after)
	}
}

func counterexampleResourceMonotonicityPaper(t *testing.T) {
	// In the divisible model, doubling the memory of the paper's
	// example moves B from 2 tasks to 3/2 (closed form for positive
	// demands: t* = 1 / max_r Σ_j a_jr/δ_j, x_i = t*/δ_i). This
	// is arithmetic, shown for reference; the discrete outcome above
	// is what the sorter does.
	closed := func(cpu, mem int64) (*big.Rat, *big.Rat) {
		// a_i/δ_i per resource, summed; t* = 1/max; x_i = t*/δ_i.
		dA := maxRat(big.NewRat(1, cpu), big.NewRat(4, mem))
		dB := maxRat(big.NewRat(3, cpu), big.NewRat(1, mem))
		sumCPU := new(big.Rat).Add(new(big.Rat).Quo(big.NewRat(1, cpu), dA), new(big.Rat).Quo(big.NewRat(3, cpu), dB))
		sumMem := new(big.Rat).Add(new(big.Rat).Quo(big.NewRat(4, mem), dA), new(big.Rat).Quo(big.NewRat(1, mem), dB))
		tStar := new(big.Rat).Inv(maxRat(sumCPU, sumMem))
		return new(big.Rat).Quo(tStar, dA), new(big.Rat).Quo(tStar, dB)
	}
	a1, b1 := closed(9, 18)
	a2, b2 := closed(9, 36)
	if a1.Cmp(big.NewRat(3, 1)) != 0 || b1.Cmp(big.NewRat(2, 1)) != 0 ||
		a2.Cmp(big.NewRat(9, 2)) != 0 || b2.Cmp(big.NewRat(3, 2)) != 0 {
		t.Fatalf("closed form (%s, %s) -> (%s, %s), want (3, 2) -> (9/2, 3/2)", a1, b1, a2, b2)
	}
}

func maxRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// TestHierarchy checks the H-DRF paper's two motivating trees (EX1, EX2)
// and a third (EX3) against the per-level semantics of Mesos's sorter,
// which this sorter shares. Tasks are unit CPU or GPU demands.
func TestHierarchy(t *testing.T) {
	q := resources.MustParseQuantities
	mk := func(capacity string, pairs ...string) experiment {
		e := experiment{capacity: q(capacity)}
		for i := 0; i < len(pairs); i += 2 {
			e.users = append(e.users, user{name: pairs[i], demand: q(pairs[i+1])})
		}
		return e
	}
	ex1 := mk("cpus:10;gpus:10", "n1", "gpus:1", "n2/n21", "cpus:1", "n2/n22", "gpus:1")
	ex2 := mk("cpus:12;gpus:12", "n1", "cpus:1", "n2", "cpus:1", "n3/n31", "cpus:1", "n3/n32", "gpus:1", "n4", "gpus:1")
	ex3 := mk("cpus:12;gpus:12", "n1", "cpus:1;gpus:1", "n2/n21", "cpus:1", "n2/n22", "gpus:1")

	t.Run("FromEmpty", func(t *testing.T) {
		for _, c := range []struct {
			name string
			e    experiment
			want []int
		}{
			{"EX1", ex1, []int{6, 10, 4}},      // H-DRF would give 5/10/5
			{"EX2", ex2, []int{4, 4, 4, 6, 6}}, // H-DRF the same here
			{"EX3", ex3, []int{6, 6, 6}},       // n2's share 1/2 = n1's, split between its children
		} {
			if got := c.e.tasksOf(c.e.run(t, NewDRF(Config{}))); !slices.Equal(got, c.want) {
				t.Errorf("%s: tasks %v, want %v", c.name, got, c.want)
			}
		}
	})

	// Under churn (tasks end at random and what is freed is handed out
	// again), a subtree whose aggregate share is inflated by one child's
	// resource loses the other child's share to its siblings: the
	// starvation that H-DRF fixes and per-level DRF does not. This
	// shows the hierarchical share guarantee failing; it is not a
	// fairness assertion.
	t.Run("StarvationUnderChurn", func(t *testing.T) {
		seed := testSeed(t)
		for _, c := range []struct {
			name    string
			e       experiment
			starved string
			want    []int
		}{
			{"EX1", ex1, "n2/n22", []int{10, 10, 0}},
			{"EX2", ex2, "n3/n31", []int{6, 6, 0, 6, 6}},
		} {
			rng := newRand(seed)
			s := NewDRF(Config{})
			f := c.e.run(t, s)
			for range 2000 {
				c.e.churn(t, s, &f, rng)
			}
			if got := c.e.tasksOf(f); !slices.Equal(got, c.want) {
				t.Errorf("%s: after churn tasks %v, want %v (%s starved)", c.name, got, c.want, c.starved)
			}
		}
	})
}
