package allocator

import (
	"slices"
	"testing"
	"time"
)

// declineLoop is BenchmarkDeclineOffers's loop on an allocator made with
// opts: 2 × frameworks rounds, every offer declined for a year between
// them, each round's AllocateAll timed; it reports the same figures.
func declineLoop(b *testing.B, agents, frameworks int, opts Options) {
	rounds := 2 * frameworks
	if *declineRounds > 0 {
		rounds = min(rounds, *declineRounds)
	}
	var times []time.Duration
	var cpu cpuClock
	var declining time.Duration
	declines := 0
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		a, clock := declineSetupWith(b, agents, frameworks, opts)
		b.StartTimer()
		for range rounds {
			var res Result
			start := time.Now()
			cpu.measure(func() { res = a.AllocateAll() })
			times = append(times, time.Since(start))
			b.StopTimer()
			start = time.Now()
			declineAll(b, a, res)
			declining += time.Since(start)
			declines += len(res.Offers)
			clock.now = clock.now.Add(time.Second)
			b.StartTimer()
		}
	}
	slices.Sort(times)
	at := func(q float64) float64 { return float64(times[int(q*float64(len(times)-1))]) / 1e6 }
	b.ReportMetric(at(0.5), "median-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(float64(times[len(times)-1])/1e6, "max-ms")
	b.ReportMetric(float64(declining.Nanoseconds())/float64(max(declines, 1)), "ns/decline")
	cpu.report(b)
}

// BenchmarkObserver is DeclineOffers at 2000 agents and 200 frameworks
// without an Observer and with one that takes the reports (what the
// allocator pays: the holdings kept as they change, the report of each run
// and each decline); metrics.BenchmarkFromReport times naming a report's
// figures, which a host exporting them adds. The differences of the run times are the
// observer's cost per run; ns/decline is the time of one decline
// (RecoverResources with a filter), which reports to the observer.
func BenchmarkObserver(b *testing.B) {
	start := time.Now()
	watch := func() time.Duration { return time.Since(start) }
	var reports int
	for _, c := range []struct {
		name string
		obs  Observer
	}{
		{"observer=none", nil},
		{"observer=reports", ObserverFunc(func(r Report) { reports += len(r.Roles) + len(r.Frameworks) })},
	} {
		b.Run(c.name+"/agents=2000/frameworks=200", func(b *testing.B) {
			opts := Options{Observer: c.obs}
			if c.obs != nil {
				opts.Stopwatch = watch
			}
			declineLoop(b, 2000, 200, opts)
		})
	}
	_ = reports
}

// BenchmarkExplain times Explain and ExplainRole after 50 rounds of
// DeclineOffers at 2000 agents and 200 frameworks, when most frameworks
// have refused most agents.
func BenchmarkExplain(b *testing.B) {
	a, clock := declineSetupWith(b, 2000, 200, Options{})
	for range 50 {
		declineAll(b, a, a.AllocateAll())
		clock.now = clock.now.Add(time.Second)
	}
	a.AllocateAll()
	b.Run("framework/agents=2000/frameworks=200", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := a.Explain("f0100"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("role/agents=2000/frameworks=200", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := a.ExplainRole("r"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
