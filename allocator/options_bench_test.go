package allocator

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// BenchmarkBeyondMesos measures what the options beyond Mesos cost on
// Mesos's DeclineOffers loop (every round declined with a year-long
// filter), 2000 agents and 200 frameworks, the frameworks in 20 roles of
// 10, each role with a quota guarantee of cpus:200;mem:20000 (about the
// third of what its agents run), so that allowances matter:
//
//   - off: Mesos's behaviour;
//   - charge-beyond-allowance: Options.ChargeBeyondAllowance;
//   - reserved-first: Options.ReservedFirst (it acts on accepts only, so a
//     loop of declines should not notice it; BenchmarkReservedFirstAccept
//     times an accept);
//   - holds: every option off, and before each round every framework has
//     cpus:0.25;mem:8 of a task on one of its agents preempted and held
//     for it for a second (RecoverHeld, untimed), so that each run offers
//     200 holds besides the agents.
//
// It reports the loop's allocation time (ns/op) and its median and slowest
// round, as BenchmarkDeclineOffers does.
func BenchmarkBeyondMesos(b *testing.B) {
	const agents, frameworks, roles = 2000, 200, 20
	variants := []struct {
		name  string
		opts  Options
		holds bool
	}{
		{"off", Options{}, false},
		{"charge-beyond-allowance", Options{ChargeBeyondAllowance: true}, false},
		{"reserved-first", Options{ReservedFirst: true}, false},
		{"holds", Options{}, true},
	}
	held := resources.MustParse("cpus:0.25;mem:8", "*")
	for _, v := range variants {
		b.Run("options="+v.name, func(b *testing.B) {
			var times []time.Duration
			offers := 0
			var cpu cpuClock
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				a, clock := rolesSetup(b, v.opts, agents, frameworks, roles)
				b.StartTimer()
				for round := range 2 * frameworks {
					if v.holds {
						b.StopTimer()
						for f := range frameworks {
							// Agent i runs a task of framework i % frameworks.
							ag := fmt.Sprintf("agent-%05d", (round*frameworks+f)%agents)
							fw := fmt.Sprintf("f%04d", f)
							if err := a.RecoverHeld(fw, ag, held.Allocate(roleOf(f, roles)), time.Second); err != nil {
								b.Fatal(err)
							}
						}
						b.StartTimer()
					}
					var res Result
					start := time.Now()
					cpu.measure(func() { res = a.AllocateAll() })
					times = append(times, time.Since(start))
					b.StopTimer()
					offers += len(res.Offers)
					declineAll(b, a, res)
					clock.now = clock.now.Add(time.Second)
					b.StartTimer()
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2])/1e6, "median-ms")
			b.ReportMetric(float64(times[len(times)-1])/1e6, "max-ms")
			b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
			cpu.report(b)
		})
	}
}

func roleOf(f, roles int) string { return fmt.Sprintf("role-%02d", f%roles) }

// rolesSetup is declineSetup with the frameworks spread over roles, each
// role with a quota guarantee, and the given options.
func rolesSetup(tb testing.TB, opts Options, agents, frameworks, roles int) (*Allocator, *benchClock) {
	a, clock := clusterSetup(tb, opts, agents, frameworks, func(f int) string { return roleOf(f, roles) }, "")
	for r := range roles {
		if err := a.UpdateQuota(roleOf(r, roles), Quota{Guarantees: resources.MustParseQuantities("cpus:200;mem:20000")}); err != nil {
			tb.Fatal(err)
		}
	}
	return a, clock
}

// BenchmarkReservedFirstAccept times one accept that launches four tasks of
// cpus:1;mem:1024 on unreserved resources of an offer that also holds the
// role's reservation (cpus(r):4;mem(r):4096), with Options.ReservedFirst
// off and on (on, the tasks are moved onto the reservation), and the end
// of the four tasks; the run that makes the offer is not timed.
func BenchmarkReservedFirstAccept(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("reserved-first=%v", on), func(b *testing.B) {
			clock := &benchClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			a, err := New(Options{Seed: 1, Clock: clock.Now, ReservedFirst: on})
			if err != nil {
				b.Fatal(err)
			}
			if err := a.AddAgent("a1", AgentInfo{}, resources.MustParse("cpus:8;mem:8192;cpus(r):4;mem(r):4096", "*"), nil); err != nil {
				b.Fatal(err)
			}
			if err := a.AddFramework("fr", FrameworkInfo{Roles: []string{"r"}}, nil, Active); err != nil {
				b.Fatal(err)
			}
			task := resources.MustParse("cpus:1;mem:1024", "*").Allocate("r")
			var tasks []offer.Task
			for i := range 4 {
				tasks = append(tasks, offer.Task{ID: fmt.Sprintf("t%d", i), Resources: task})
			}
			ops := []offer.Operation{offer.Launch{Tasks: tasks}}
			onReservation := resources.MustParse("cpus(r):1;mem(r):1024", "*").Allocate("r")
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				o := a.AllocateAll().Offers[0]
				b.StartTimer()
				applied, err := a.AcceptApplied("fr", "a1", o.Resources, ops, nil)
				if err != nil {
					b.Fatal(err)
				}
				if got := applied[0].(offer.Launch).Tasks[0].Resources; got.Equal(onReservation) != on {
					b.Fatalf("task launched on %s", got)
				}
				for _, t := range tasks {
					if err := a.EndTask("fr", t.ID); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
