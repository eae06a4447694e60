package allocator

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Benchmarks reproduce the shapes of Mesos's allocator benchmarks
// (src/tests/hierarchical_allocator_benchmarks.cpp and
// hierarchical_allocator_tests.cpp) so that figures compare phase by phase.
// BENCHMARKS.md reports them.

var (
	benchAgents     = []int{1000, 5000, 10000, 20000}
	benchFrameworks = []int{1, 50, 100, 200, 500, 1000}
)

// benchClock is a clock benchmarks move by hand.
type benchClock struct{ now time.Time }

func (c *benchClock) Now() time.Time { return c.now }

// portRanges returns n ranges of 10 ports from base, one port apart.
func portRanges(base, n int) string {
	parts := make([]string, n)
	for i := range parts {
		b := base + i*12
		parts[i] = fmt.Sprintf("%d-%d", b, b+9)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// declineSetup builds Mesos's DeclineOffers cluster: frameworks in role
// "*"-like role "r", agents cpus:24;mem:4096;disk:4096;ports:[31000-32000],
// each running cpus:16;mem:2014;disk:1024 and 16 port ranges for a
// round-robin framework.
func declineSetup(tb testing.TB, agents, frameworks int, role string, extraUsed string) (*Allocator, *benchClock) {
	return clusterSetup(tb, Options{MesosOfferOrder: *declineMesosOrder}, agents, frameworks, func(int) string { return role }, extraUsed)
}

// declineMesosOrder runs the DeclineOffers benchmarks in Mesos's order,
// without the rotation after declines: the two side by side give what the
// rotation costs.
var declineMesosOrder = flag.Bool("decline.mesos", false, "the DeclineOffers benchmarks run with Options.MesosOfferOrder")

// declineSetupWith is declineSetup (role "r") on an allocator made with
// opts.
func declineSetupWith(tb testing.TB, agents, frameworks int, opts Options) (*Allocator, *benchClock) {
	return clusterSetup(tb, opts, agents, frameworks, func(int) string { return "r" }, "")
}

// clusterSetup builds DeclineOffers's cluster on an allocator made with
// opts (Clock and Seed are set here): framework f in role roleOf(f), and
// agent i running cpus:16;mem:2014;disk:1024, 16 port ranges and extraUsed
// for framework i % frameworks.
func clusterSetup(tb testing.TB, opts Options, agents, frameworks int, roleOf func(int) string, extraUsed string) (*Allocator, *benchClock) {
	clock := &benchClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	opts.Clock, opts.Seed = clock.Now, 1
	a, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	a.Pause()
	for f := range frameworks {
		if err := a.AddFramework(fmt.Sprintf("f%04d", f), FrameworkInfo{Roles: []string{roleOf(f)}}, nil, Active); err != nil {
			tb.Fatal(err)
		}
	}
	total := resources.MustParse("cpus:24;mem:4096;disk:4096;ports:[31000-32000]", "*")
	used := resources.MustParse("cpus:16;mem:2014;disk:1024;ports:"+portRanges(31000, 16)+extraUsed, "*")
	for i := range agents {
		f := i % frameworks
		if err := a.AddAgent(fmt.Sprintf("agent-%05d", i), AgentInfo{}, total, map[string]resources.Resources{fmt.Sprintf("f%04d", f): used.Allocate(roleOf(f))}); err != nil {
			tb.Fatal(err)
		}
	}
	a.Resume()
	return a, clock
}

// cpuClock measures the CPU time of the process (every thread, so garbage
// collection counts), which a loaded machine disturbs far less than wall
// time. Benchmarks report it as cpu-ns/op next to ns/op, and the page
// faults of the measured code as faults/op: a first touch of memory the
// process has not used yet, or gave back, costs about 1.3 us here, which a
// run writing its offers into fresh memory pays (BENCHMARKS.md).
type cpuClock struct {
	total  time.Duration
	faults int64
}

func cpuNow() (time.Duration, int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Minflt) + int64(ru.Majflt)
}

// measure runs f and adds its CPU time and page faults.
func (c *cpuClock) measure(f func()) {
	start, faults := cpuNow()
	f()
	end, faultsAfter := cpuNow()
	c.total += end - start
	c.faults += faultsAfter - faults
}

func (c *cpuClock) report(b *testing.B) {
	b.ReportMetric(float64(c.total.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(c.faults)/float64(b.N), "faults/op")
}

// floor touches every agent's available resources once: the least work any
// allocation run over all agents must do.
func floor(a *Allocator) int {
	n := 0
	for _, ag := range a.cs.AgentList {
		n += ag.Available.Len()
	}
	return n
}

func timeFloor(a *Allocator) time.Duration {
	const reps = 5
	start := time.Now()
	for range reps {
		_ = floor(a)
	}
	return time.Since(start) / reps
}

// declineAll declines every offer of res with a year-long filter.
func declineAll(tb testing.TB, a *Allocator, res Result) {
	for _, o := range res.Offers {
		if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &Filter{Refuse: MaxRefuse}); err != nil {
			tb.Fatal(err)
		}
	}
}

// declineRounds caps the rounds of the whole-loop DeclineOffers (0: Mesos's
// 2 × frameworks), for a quick look at the early rounds of a large shape.
var declineRounds = flag.Int("decline.rounds", 0, "rounds of BenchmarkDeclineOffers; 0 means 2 × frameworks, as Mesos's")

// declineBeyond adds 50000 agents × 5000 frameworks to the whole-loop
// DeclineOffers: some twenty-five minutes and 12.4 GB at most here, so only
// on request.
var declineBeyond = flag.Bool("decline.beyond", false, "BenchmarkDeclineOffers also runs 50000 agents x 5000 frameworks")

// declineTrace makes BenchmarkDeclineOffers print every round to stderr as
// it ends, so that GODEBUG=gctrace=1's lines, printed as each collection
// ends, fall between the rounds that overlapped it.
var declineTrace = flag.Bool("decline.trace", false, "BenchmarkDeclineOffers prints each round's time and offers to stderr as it ends")

// BenchmarkDeclineOffers is Mesos's benchmark of that name, whole: before
// each of 2 × frameworks rounds, every outstanding offer is declined with a
// filter that never expires (a year) and the clock moves one interval; each
// round's AllocateAll is timed. Round k offers every agent to a framework
// that has not refused it yet, so late rounds are those where most
// frameworks have refused most agents, and from round frameworks+1 on
// nothing can be offered at all. It reports the median, 99th percentile and
// slowest round, the first round on its own and the median of the rounds
// that offer nothing (refused-median-ms); ns/op is the whole loop's
// allocation time.
//
// It also reports how even the offering rounds are: their 99th percentile
// and slowest as multiples of the first (p99-x-first, max-x-first). With -benchtime Nx the loop runs N times, and these take
// each round's least time over the N loops: the loop is the same every
// time (the benchmark fails if a round offers differently), so a round's
// least time is its work, without the stalls a shared machine puts into
// single rounds of single loops.
//
// With -decline.beyond it goes beyond Mesos's grid, to 50000 agents and
// 5000 frameworks, whose loop holds 250 million filters by its end.
func BenchmarkDeclineOffers(b *testing.B) {
	shapes := [][2]int{{1000, 100}, {2000, 200}, {5000, 500}, {10000, 1000}}
	if *declineBeyond {
		shapes = append(shapes, [2]int{50000, 5000})
	}
	for _, shape := range shapes {
		agents, frameworks := shape[0], shape[1]
		b.Run(fmt.Sprintf("agents=%d/frameworks=%d", agents, frameworks), func(b *testing.B) {
			rounds := 2 * frameworks
			if *declineRounds > 0 {
				rounds = min(rounds, *declineRounds)
			}
			var times, refused []time.Duration
			least, roundOffers := make([]time.Duration, rounds), make([]int, rounds)
			offers := 0
			var cpu cpuClock
			b.ReportAllocs()
			for loop := range b.N {
				b.StopTimer()
				a, clock := declineSetup(b, agents, frameworks, "r", "")
				runtime.GC() // the setup's garbage is not the loop's
				loopStart := time.Now()
				b.StartTimer()
				for r := range rounds {
					var res Result
					start := time.Now()
					cpu.measure(func() { res = a.AllocateAll() })
					took := time.Since(start)
					times = append(times, took)
					if loop == 0 {
						least[r], roundOffers[r] = took, len(res.Offers)
					} else if least[r] = min(least[r], took); roundOffers[r] != len(res.Offers) {
						b.Fatalf("round %d offered %d, in the first loop %d: the loop is not the same every time", r+1, len(res.Offers), roundOffers[r])
					}
					if *declineTrace {
						fmt.Fprintf(os.Stderr, "round %d: %.3f ms, %d offers, ended %.3f s into the loop\n",
							len(times), float64(times[len(times)-1])/1e6, len(res.Offers), time.Since(loopStart).Seconds())
					}
					if len(res.Offers) == 0 {
						// Every framework has refused every agent.
						refused = append(refused, times[len(times)-1])
					}
					b.StopTimer()
					offers += len(res.Offers)
					declineAll(b, a, res)
					clock.now = clock.now.Add(time.Second)
					b.StartTimer()
				}
			}
			first := times[0]
			for i := rounds; i < len(times); i += rounds {
				first = min(first, times[i])
			}
			slices.Sort(times)
			at := func(q float64) float64 { return float64(times[int(q*float64(len(times)-1))]) / 1e6 }
			b.ReportMetric(float64(first)/1e6, "first-ms")
			b.ReportMetric(at(0.5), "median-ms")
			b.ReportMetric(at(0.99), "p99-ms")
			b.ReportMetric(float64(times[len(times)-1])/1e6, "max-ms")
			if len(refused) > 0 {
				slices.Sort(refused)
				b.ReportMetric(float64(refused[len(refused)/2])/1e6, "refused-median-ms")
			}
			b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
			p99, slowest := offeringRatios(least, roundOffers)
			b.ReportMetric(p99, "p99-x-first")
			b.ReportMetric(slowest, "max-x-first")
			cpu.report(b)
		})
	}
}

// offeringRatios returns the 99th percentile and the slowest of the times
// of the rounds that offered something, as multiples of the first round's.
func offeringRatios(times []time.Duration, offers []int) (p99, slowest float64) {
	var offering []time.Duration
	for r, t := range times {
		if offers[r] > 0 {
			offering = append(offering, t)
		}
	}
	if len(offering) == 0 {
		return 0, 0
	}
	first := float64(offering[0])
	slices.Sort(offering)
	return float64(offering[int(0.99*float64(len(offering)-1))]) / first, float64(offering[len(offering)-1]) / first
}

// BenchmarkDeclineOffersFirstRound times the first round of DeclineOffers
// alone, on a fresh allocator each time: every agent offered, no filter in
// place. ns-per-offer is the cost of one offer. The setup's garbage is
// collected before the round: otherwise the round's time depends on where
// the collector's cycle started by the setup falls (a setup allocating a
// few hundred KB less moved a round by 20-40%).
func BenchmarkDeclineOffersFirstRound(b *testing.B) {
	for _, agents := range benchAgents {
		for _, frameworks := range benchFrameworks {
			b.Run(fmt.Sprintf("agents=%d/frameworks=%d", agents, frameworks), func(b *testing.B) {
				var fl time.Duration
				offers := 0
				var cpu cpuClock
				b.ReportAllocs()
				for range b.N {
					b.StopTimer()
					a, _ := declineSetup(b, agents, frameworks, "r", "")
					fl = timeFloor(a)
					runtime.GC() // the setup's garbage is not the round's
					b.StartTimer()
					cpu.measure(func() { offers += len(a.AllocateAll().Offers) })
				}
				b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
				b.ReportMetric(float64(b.Elapsed())/float64(offers), "ns/offer")
				b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(fl), "x-floor")
				cpu.report(b)
			})
		}
	}
}

// BenchmarkLargeAndSmallQuota: one framework per role, small roles with
// quota cpus:1;mem:1024;disk:1024 (an agent is chopped), large roles with
// cpus:4;mem:4096;disk:4096, agents cpus:2;mem:2048;disk:2048 numbering
// small/5 + large*5. Times the batch that allocates everything, then an
// empty batch, which must make no offers.
func BenchmarkLargeAndSmallQuota(b *testing.B) {
	for _, shape := range [][2]int{{25, 5}, {250, 50}, {2500, 500}} {
		small, large := shape[0], shape[1]
		setup := func() *Allocator {
			a, err := New(Options{Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			a.Pause()
			smallQ := Quota{Guarantees: resources.MustParseQuantities("cpus:1;mem:1024;disk:1024"), Limits: resources.MustParseLimits("cpus:1;mem:1024;disk:1024")}
			largeQ := Quota{Guarantees: resources.MustParseQuantities("cpus:4;mem:4096;disk:4096"), Limits: resources.MustParseLimits("cpus:4;mem:4096;disk:4096")}
			for i := range small + large {
				role := fmt.Sprintf("small-%04d", i)
				q := smallQ
				if i >= small {
					role, q = fmt.Sprintf("large-%04d", i-small), largeQ
				}
				if err := a.UpdateQuota(role, q); err != nil {
					b.Fatal(err)
				}
				if err := a.AddFramework("fw-"+role, FrameworkInfo{Roles: []string{role}}, nil, Active); err != nil {
					b.Fatal(err)
				}
			}
			total := resources.MustParse("cpus:2;mem:2048;disk:2048", "*")
			for i := range small/5 + large*5 {
				if err := a.AddAgent(fmt.Sprintf("agent-%05d", i), AgentInfo{}, total, nil); err != nil {
					b.Fatal(err)
				}
			}
			a.Resume()
			return a
		}
		name := fmt.Sprintf("small=%d/large=%d", small, large)
		b.Run(name+"/batch=full", func(b *testing.B) {
			offers := 0
			var cpu cpuClock
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				a := setup()
				b.StartTimer()
				cpu.measure(func() { offers += len(a.AllocateAll().Offers) })
			}
			b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
			cpu.report(b)
		})
		b.Run(name+"/batch=empty", func(b *testing.B) {
			a := setup()
			a.AllocateAll()
			var cpu cpuClock
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				n := 0
				cpu.measure(func() { n = len(a.AllocateAll().Offers) })
				if n != 0 {
					b.Fatalf("empty batch made %d offers", n)
				}
			}
			cpu.report(b)
		})
	}
}

// Workload W1: N agents of 16 cpus and 64 GiB, 10 roles with one framework
// each; even roles want 1.2N tasks of <1 cpu, 2 GiB>, odd roles 1.2N tasks
// of <0.25 cpu, 4 GiB>. The benchmark plays the host: each framework packs
// as many pending tasks as fit into each offer (first fit) and declines the
// rest without a filter. It times the runs until every task runs.
func BenchmarkWorkloadW1(b *testing.B) {
	for _, n := range []int{1000, 2000, 5000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			runWorkload(b, Options{}, n, 12*n/10, nil)
		})
	}
}

// Workload W2: as W1 with 4N tasks per role, more than the cluster holds
// (at most about 22.8N tasks fit: memory and cpus both run out). The host
// declines what a framework cannot use with Mesos's default refusal of 5
// s, as real frameworks do, and the clock moves one second a run, so
// leftovers one framework cannot use reach the others within a few runs.
// It runs until no framework could use what was left for twenty runs in a
// row, and reports the tasks placed, the cluster's utilisation and the
// spread of dominant shares.
func BenchmarkWorkloadW2(b *testing.B) {
	for _, share := range []float64{0, 0.5} {
		for _, n := range []int{1000, 2000, 5000} {
			b.Run(fmt.Sprintf("offer-share=%g/agents=%d", share, n), func(b *testing.B) {
				runWorkload(b, Options{OfferShare: share}, n, 4*n, &Filter{Refuse: DefaultRefuse})
			})
		}
	}
}

// runWorkload plays W1 (decline nil: every task must run, at equal shares)
// or W2 (declines with a filter, more demand than supply).
func runWorkload(b *testing.B, opts Options, agents, tasksPerRole int, decline *Filter) {
	const roles = 10
	var placed, rounds int
	var spread, cpuUse, memUse float64
	var cpu cpuClock
	var recoverTime time.Duration
	var fl time.Duration
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		clock := &benchClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		opts.Seed, opts.Clock = 1, clock.Now
		a, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		a.Pause()
		pending := make([]int, roles)
		need := make([]resources.Quantities, roles)
		for r := range roles {
			role := fmt.Sprintf("role-%02d", r)
			if err := a.AddFramework("fw-"+role, FrameworkInfo{Roles: []string{role}}, nil, Active); err != nil {
				b.Fatal(err)
			}
			pending[r] = tasksPerRole
			need[r] = resources.MustParseQuantities("cpus:1;mem:2048")
			if r%2 == 1 {
				need[r] = resources.MustParseQuantities("cpus:0.25;mem:4096")
			}
		}
		total := resources.MustParse("cpus:16;mem:65536", "*")
		for i := range agents {
			if err := a.AddAgent(fmt.Sprintf("agent-%05d", i), AgentInfo{}, total, nil); err != nil {
				b.Fatal(err)
			}
		}
		a.Resume()
		fl = timeFloor(a)
		b.StartTimer()
		placed, rounds = 0, 0
		idle := 0 // runs in a row that placed nothing
		for {
			var res Result
			cpu.measure(func() { res = a.AllocateAll() })
			rounds++
			b.StopTimer()
			round := 0
			for _, o := range res.Offers {
				r := int(o.FrameworkID[len(o.FrameworkID)-1] - '0')
				q := o.Resources.Quantities()
				for pending[r] > 0 && q.Contains(need[r]) {
					q.Subtract(need[r])
					pending[r]--
					round++
				}
				used := o.Resources.Quantities().Minus(q)
				task := o.Resources.Shrink(used, nil)
				filter := decline
				if decline != nil && task.IsEmpty() && pending[r] == 0 {
					filter = &Filter{Refuse: MaxRefuse} // wants nothing more
				}
				// The tasks run: keep them allocated; give back the rest.
				rest := o.Resources.Minus(task)
				start := time.Now()
				err := a.RecoverResources(o.FrameworkID, o.AgentID, rest, filter)
				recoverTime += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
			}
			placed += round
			clock.now = clock.now.Add(time.Second)
			b.StartTimer()
			if round == 0 {
				idle++
			} else {
				idle = 0
			}
			// W1 ends when a run places nothing; W2 when every framework
			// has had the leftovers (a refusal outlives five runs, and
			// ten frameworks take turns) and none could use them.
			if (decline == nil && idle > 0) || idle > 2*roles || len(res.Offers) == 0 {
				break
			}
		}
		b.StopTimer()
		lo, hi := 2.0, -1.0
		var used resources.Quantities
		for _, r := range a.Roles() {
			lo, hi = min(lo, r.Share), max(hi, r.Share)
			used.Add(r.OfferedOrAllocated)
		}
		spread = hi - lo
		cpuUse = used.Float64("cpus") / (16 * float64(agents))
		memUse = used.Float64("mem") / (65536 * float64(agents))
		if decline == nil {
			for _, p := range pending {
				if p != 0 {
					b.Fatalf("%d tasks left", p)
				}
			}
			for _, r := range a.Roles() {
				if d := r.Share - 0.075; d > 1e-9 || d < -1e-9 {
					b.Fatalf("role %s ends at share %v, want 0.075", r.Role, r.Share)
				}
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(placed), "tasks")
	b.ReportMetric(float64(placed)/float64(agents), "tasks/agent")
	b.ReportMetric(cpuUse, "cpu-used")
	b.ReportMetric(memUse, "mem-used")
	b.ReportMetric(float64(rounds), "rounds")
	b.ReportMetric(spread, "share-spread")
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(rounds)/float64(fl), "x-floor")
	// What the host's RecoverResources calls cost, next to the runs' ns/op.
	b.ReportMetric(float64(recoverTime.Nanoseconds())/float64(b.N), "recover-ns/op")
	cpu.report(b)
}

// BenchmarkMemory reports the heap held per agent after a DeclineOffers
// setup (agents with used resources) and after a round of declines and a
// run that passes every agent over (B/agent-refused: the agents' filters
// and caches), and per framework for frameworks subscribed to roles of
// their own with no agents.
func BenchmarkMemory(b *testing.B) {
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, shape := range [][2]int{{10000, 1}, {10000, 1000}} {
		b.Run(fmt.Sprintf("agents=%d/frameworks=%d", shape[0], shape[1]), func(b *testing.B) {
			var perAgent, perAgentRefused float64
			for range b.N {
				before := heap()
				a, clock := declineSetup(b, shape[0], shape[1], "r", "")
				perAgent = float64(heap()-before) / float64(shape[0])
				// The steady state of a busy cluster: every agent offered,
				// declined with a filter, and passed over by a run.
				declineAll(b, a, a.AllocateAll())
				clock.now = clock.now.Add(time.Second)
				a.AllocateAll()
				perAgentRefused = float64(heap()-before) / float64(shape[0])
				runtime.KeepAlive(a)
			}
			b.ReportMetric(perAgent, "B/agent")
			b.ReportMetric(perAgentRefused, "B/agent-refused")
		})
	}
	// What a refusal filter costs: 100 rounds of the DeclineOffers loop's
	// refusals (refuseRounds), a million filters, and all 1000 of them, ten
	// million, with the agents' indexes of them.
	for _, rounds := range []int{100, 1000} {
		b.Run(fmt.Sprintf("agents=10000/frameworks=1000/refused=%d", rounds), func(b *testing.B) {
			var perFilter float64
			for range b.N {
				a, _ := declineSetup(b, 10000, 1000, "r", "")
				before := heap()
				refuseRounds(b, a, rounds)
				perFilter = float64(heap()-before) / float64(10000*rounds)
				runtime.KeepAlive(a)
			}
			b.ReportMetric(perFilter, "B/filter")
		})
	}
	for _, roles := range []int{1, 1000} {
		b.Run(fmt.Sprintf("frameworks=1000/roles=%d", roles), func(b *testing.B) {
			var perFramework float64
			for range b.N {
				before := heap()
				a, err := New(Options{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				for f := range 1000 {
					role := fmt.Sprintf("role-%04d", f%roles)
					if err := a.AddFramework(fmt.Sprintf("fw-%04d", f), FrameworkInfo{Roles: []string{role}}, nil, Active); err != nil {
						b.Fatal(err)
					}
				}
				perFramework = float64(heap()-before) / 1000
				runtime.KeepAlive(a)
			}
			b.ReportMetric(perFramework, "B/framework")
		})
	}
}

// BenchmarkSuppressOffers: as DeclineOffers, but a fifth more of the
// frameworks suppress offers every round, and offers are recovered without
// a filter. ExtremeSuppressOffers suppresses 99% of frameworks up front.
func BenchmarkSuppressOffers(b *testing.B) {
	for _, agents := range benchAgents {
		for _, frameworks := range benchFrameworks {
			b.Run(fmt.Sprintf("agents=%d/frameworks=%d", agents, frameworks), func(b *testing.B) {
				a, _ := declineSetup(b, agents, frameworks, "r", "")
				suppressed := 0
				offers := 0
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					for range max(frameworks/5, 1) {
						if suppressed < frameworks {
							if err := a.SuppressOffers(fmt.Sprintf("f%04d", suppressed)); err != nil {
								b.Fatal(err)
							}
							suppressed++
						}
					}
					b.StartTimer()
					res := a.AllocateAll()
					b.StopTimer()
					offers += len(res.Offers)
					for _, o := range res.Offers {
						if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
				}
				b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
			})
		}
	}
}

func BenchmarkExtremeSuppressOffers(b *testing.B) {
	for _, agents := range benchAgents {
		for _, frameworks := range benchFrameworks {
			b.Run(fmt.Sprintf("agents=%d/frameworks=%d", agents, frameworks), func(b *testing.B) {
				a, _ := declineSetup(b, agents, frameworks, "r", "")
				for f := range frameworks * 99 / 100 {
					if err := a.SuppressOffers(fmt.Sprintf("f%04d", f)); err != nil {
						b.Fatal(err)
					}
				}
				offers := 0
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					res := a.AllocateAll()
					b.StopTimer()
					offers += len(res.Offers)
					for _, o := range res.Offers {
						if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
				}
				b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
			})
		}
	}
}

// labelled returns an 8-cpu dynamic reservation for role with 12 labels, the
// last one unique to the agent (the worst case for label comparison).
func labelled(role string, agent, which int) string {
	labels := make([]string, 12)
	for i := range 11 {
		labels[i] = fmt.Sprintf("key%d: value%d", i, i)
	}
	labels[11] = fmt.Sprintf("agent: a%d-%d", agent, which)
	return fmt.Sprintf("cpus(reservations: [(DYNAMIC,%s,ops,{%s})]):8", role, strings.Join(labels, ", "))
}

// BenchmarkResourceLabels: DeclineOffers where each agent's used resources
// include two labelled 8-cpu dynamic reservations of role1.
func BenchmarkResourceLabels(b *testing.B) {
	for _, agents := range benchAgents {
		for _, frameworks := range benchFrameworks {
			b.Run(fmt.Sprintf("agents=%d/frameworks=%d", agents, frameworks), func(b *testing.B) {
				clock := &benchClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
				a, err := New(Options{Clock: clock.Now, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				a.Pause()
				for f := range frameworks {
					if err := a.AddFramework(fmt.Sprintf("f%04d", f), FrameworkInfo{Roles: []string{"role1"}}, nil, Active); err != nil {
						b.Fatal(err)
					}
				}
				for i := range agents {
					res := "mem:2014;disk:1024;ports:" + portRanges(31000, 16) + ";" + labelled("role1", i, 1) + ";" + labelled("role1", i, 2)
					used := resources.MustParse(res, "*")
					total := resources.MustParse("cpus:8;mem:4096;disk:4096;ports:[31000-32000]", "*").Plus(used.Filter(func(r resources.Resource) bool { return r.IsReserved() }))
					fw := fmt.Sprintf("f%04d", i%frameworks)
					if err := a.AddAgent(fmt.Sprintf("agent-%05d", i), AgentInfo{}, total, map[string]resources.Resources{fw: used.Allocate("role1")}); err != nil {
						b.Fatal(err)
					}
				}
				a.Resume()
				offers := 0
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					res := a.AllocateAll()
					b.StopTimer()
					offers += len(res.Offers)
					declineAll(b, a, res)
					clock.now = clock.now.Add(time.Second)
					b.StartTimer()
				}
				b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
			})
		}
	}
}

// BenchmarkPersistentVolumes: frameworks in role "test"; agents
// cpus(test):24;mem(test):4096;disk(test):3072;ports(test):[31000-32000]
// plus a 1024 MB persistent volume (regular, shared, or shared on every
// other agent); each agent runs cpus(test):16;mem(test):1024;disk(test):1024
// and 16 port ranges. Each op recovers every offer and runs a batch.
func BenchmarkPersistentVolumes(b *testing.B) {
	for _, agents := range []int{1000, 5000, 10000} {
		for _, frameworks := range []int{1, 100, 1000} {
			for _, kind := range []string{"regular", "shared", "mixed"} {
				b.Run(fmt.Sprintf("agents=%d/frameworks=%d/volumes=%s", agents, frameworks, kind), func(b *testing.B) {
					a, err := New(Options{Seed: 1})
					if err != nil {
						b.Fatal(err)
					}
					a.Pause()
					caps := FrameworkInfo{Roles: []string{"test"}, Capabilities: offer.SharedResources}
					for f := range frameworks {
						if err := a.AddFramework(fmt.Sprintf("f%04d", f), caps, nil, Active); err != nil {
							b.Fatal(err)
						}
					}
					base := resources.MustParse("cpus(test):24;mem(test):4096;disk(test):3072;ports(test):[31000-32000]", "*")
					used := resources.MustParse("cpus(test):16;mem(test):1024;disk(test):1024;ports(test):"+portRanges(31000, 16), "*").Allocate("test")
					for i := range agents {
						shared := kind == "shared" || (kind == "mixed" && i%2 == 0)
						vol := fmt.Sprintf("disk(test)[id:vol-%d,path:data]:1024", i)
						if shared {
							vol = fmt.Sprintf("disk(test)[id:vol-%d,path:data]<SHARED>:1024", i)
						}
						total := base.Plus(resources.MustParse(vol, "*"))
						fw := fmt.Sprintf("f%04d", i%frameworks)
						if err := a.AddAgent(fmt.Sprintf("agent-%05d", i), AgentInfo{}, total, map[string]resources.Resources{fw: used}); err != nil {
							b.Fatal(err)
						}
					}
					a.Resume()
					offers := 0
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						res := a.AllocateAll()
						b.StopTimer()
						offers += len(res.Offers)
						for _, o := range res.Offers {
							if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil); err != nil {
								b.Fatal(err)
							}
						}
						b.StartTimer()
					}
					b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
				})
			}
		}
	}
}

// BenchmarkUpdateAllocation: one agent holds, for each of {50, 100, 200}
// roles ("role-" and 36 letters), one framework's labelled dynamic
// reservations of cpus, mem and disk plus ports; one framework times 20
// UNRESERVE and 20 RESERVE operations through UpdateAllocation.
func BenchmarkUpdateAllocation(b *testing.B) {
	for _, roles := range []int{50, 100, 200} {
		b.Run(fmt.Sprintf("roles=%d", roles), func(b *testing.B) {
			a, err := New(Options{Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			a.Pause()
			var total resources.Resources
			roleNames := make([]string, roles)
			for i := range roles {
				role := fmt.Sprintf("role-%036d", i)
				roleNames[i] = role
				res := fmt.Sprintf("cpus(reservations: [(DYNAMIC,%[1]s,ops,{key: %[2]d})]):100;mem(reservations: [(DYNAMIC,%[1]s,ops,{key: %[2]d})]):100;disk(reservations: [(DYNAMIC,%[1]s,ops,{key: %[2]d})]):100;ports(reservations: [(DYNAMIC,%[1]s,ops,{key: %[2]d})]):[%[3]d-%[3]d]", role, i, 31000+i)
				total.Add(resources.MustParse(res, "*"))
				if err := a.AddFramework(fmt.Sprintf("fw-%03d", i), FrameworkInfo{Roles: []string{role}, Principal: "ops"}, nil, Active); err != nil {
					b.Fatal(err)
				}
			}
			total.Add(resources.MustParse("cpus:100;mem:100;disk:100", "*"))
			if err := a.AddAgent("agent", AgentInfo{}, total, nil); err != nil {
				b.Fatal(err)
			}
			a.Resume()
			a.AllocateAll()
			// fw-000 holds the unreserved part and its own reservation.
			held := a.cs.Agents.Get("agent").Offered.Get("fw-000")
			reserved := held.Filter(func(r resources.Resource) bool { return r.IsReserved() && r.Type == resources.ScalarType })
			unreserve := offer.Unreserve{Resources: reserved.Shrink(resources.MustParseQuantities("cpus:1"), nil).Get("cpus")}
			reserve := offer.Reserve{Resources: unreserve.Resources}
			b.ReportAllocs()
			b.ResetTimer()
			ag := a.cs.Agents.Get("agent")
			for range b.N {
				for range 20 {
					if err := a.UpdateAllocation("fw-000", "agent", ag.Offered.Get("fw-000"), []offer.Operation{unreserve}); err != nil {
						b.Fatal(err)
					}
					if err := a.UpdateAllocation("fw-000", "agent", ag.Offered.Get("fw-000"), []offer.Operation{reserve}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkDeclineOffersFiltered times the runs after every framework has
// declined every agent with a year-long filter: the steady state of
// DeclineOffers, where no framework can take anything. (With one framework
// one round of declines gets there; with many it takes a round per
// framework, too long to set up here.)
func BenchmarkDeclineOffersFiltered(b *testing.B) {
	for _, agents := range benchAgents {
		b.Run(fmt.Sprintf("agents=%d/frameworks=1", agents), func(b *testing.B) {
			a, clock := declineSetup(b, agents, 1, "r", "")
			declineAll(b, a, a.AllocateAll())
			clock.now = clock.now.Add(time.Second)
			fl := timeFloor(a)
			var cpu cpuClock
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				var res Result
				cpu.measure(func() { res = a.AllocateAll() })
				if len(res.Offers) != 0 {
					b.Fatalf("%d offers to a framework that refused everything", len(res.Offers))
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(fl), "x-floor")
			cpu.report(b)
		})
	}
}
