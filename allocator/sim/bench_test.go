package sim_test

import (
	"fmt"
	"testing"

	"github.com/allot-go/allot/allocator/sim"
	"github.com/allot-go/allot/resources"
)

// benchWorkload is a loaded cluster: agents of 32 CPUs and 128 GB, and
// frameworks in ten roles, each submitting tasks of 1, 2 or 4 CPUs (4 GB
// a CPU, 7/3 CPUs on average) as a Poisson stream, tasks/intervals tasks a
// second in all, whose durations (exponential) make the offered load 85% of
// the CPUs: 1166 s on average for 1000 agents and 10 tasks a second.
func benchWorkload(agents, frameworks, tasks, intervals int) sim.Workload {
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: agents, Resources: "cpus:32;mem:131072", Zones: []string{"z1", "z2", "z3"}}}}
	shapes := []resources.Quantities{qty("cpus:1;mem:4096"), qty("cpus:2;mem:8192"), qty("cpus:4;mem:16384")}
	rate := float64(tasks) / float64(intervals) / float64(frameworks)
	perSecond := float64(tasks) / float64(intervals)
	mean := 0.85 * 32 * float64(agents) / (7.0 / 3 * perSecond)
	for f := range frameworks {
		w.Generators = append(w.Generators, sim.Generator{
			Framework: fmt.Sprintf("fw%02d", f), Role: fmt.Sprintf("role%02d", f%10), Count: tasks / frameworks,
			Arrival: sim.Poisson{Rate: rate}, Size: sim.Size{Shapes: shapes}, Duration: sim.Exponential{Mean: mean},
		})
	}
	return w
}

// BenchmarkLab runs whole simulations with DRF: the workload drawn, every
// interval's allocation run, placements, launches, declines and ends, and
// the measures. It reports the offers of a run and the cost of an
// interval.
func BenchmarkLab(b *testing.B) {
	for _, bc := range []struct{ agents, frameworks, tasks, intervals int }{
		{100, 10, 10000, 1000},
		{1000, 50, 100000, 10000},
	} {
		b.Run(fmt.Sprintf("agents=%d/frameworks=%d", bc.agents, bc.frameworks), func(b *testing.B) {
			w := benchWorkload(bc.agents, bc.frameworks, bc.tasks, bc.intervals)
			opts := sim.RunOptions{Seed: 1, Intervals: bc.intervals}
			b.ReportAllocs()
			var res *sim.Result
			for b.Loop() {
				var err error
				if res, err = sim.Run(w, sim.Config{Name: "drf"}, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Summary.Offers), "offers/op")
			b.ReportMetric(float64(res.Summary.Launched), "launches/op")
			b.ReportMetric(res.Summary.Utilisation[0], "cpu-utilisation")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*bc.intervals), "µs/interval")
		})
	}
}
