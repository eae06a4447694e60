package sim_test

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
	"github.com/allot-go/allot/sorter"
)

// leastServed is a researcher's sorter: the role offered least often goes
// first. sorter.Accounting keeps the books; the policy is Sort.
type leastServed struct {
	sorter.Accounting
	order []string
}

func (s *leastServed) Sort() []string {
	s.order = s.AppendActive(s.order[:0]) // path order breaks ties
	slices.SortStableFunc(s.order, func(a, b string) int { return cmp.Compare(s.AllocationCount(a), s.AllocationCount(b)) })
	return s.order
}

// A sorter of one's own against DRF on a trace: three users on four
// agents (testdata/tasks.csv).
func Example_compareSorters() {
	f, err := os.Open("testdata/tasks.csv")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	tasks, err := sim.ReadCSV(f)
	if err != nil {
		panic(err)
	}
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "agent", Count: 4, Resources: "cpus:8;mem:32768"}}, Tasks: tasks}
	mine := func(cfg sorter.Config) sorter.Sorter { return &leastServed{Accounting: sorter.NewAccounting(cfg)} }
	c, err := sim.Compare(w, []sim.Config{
		{Name: "drf"},
		{Name: "least served", Options: allocator.Options{RoleSorter: mine}},
	}, sim.RunOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	c.WriteTable(os.Stdout)
	// Output:
	// 4 agents (cpus:32; mem:131072); roles analytics, ml, web; 3 frameworks; 70 tasks; 0 events; until done of 1s; seed 1
	//
	//                                drf  least served
	// intervals               248 (done)    237 (done)
	// utilisation cpus             0.796         0.833
	// utilisation mem              0.370         0.387
	// jain index (contended)       0.597         0.589
	// contended intervals             72            82
	// tasks submitted                 70            70
	// tasks launched                  70            70
	// tasks finished                  70            70
	// tasks lost                       0             0
	// tasks unfinished                 0             0
	// offers                         302           287
	// offers declined                248           234
	// role analytics
	//   share                      0.355         0.372
	//   weighted share             0.355         0.372
	//   tasks launched                24            24
	//   wait mean (s)               19.3          17.7
	//   wait p50 (s)                 0.0           0.0
	//   wait p90 (s)                62.0          61.0
	//   wait p99 (s)                77.0          76.0
	//   wait max (s)                77.0          76.0
	// role ml
	//   share                      0.328         0.343
	//   weighted share             0.328         0.343
	//   tasks launched                10            10
	//   wait mean (s)               68.2          63.9
	//   wait p50 (s)                75.8          60.0
	//   wait p90 (s)               100.0          98.0
	//   wait p99 (s)               114.8         103.8
	//   wait max (s)               114.8         103.8
	// role web
	//   share                      0.113         0.119
	//   weighted share             0.113         0.119
	//   tasks launched                36            36
	//   wait mean (s)                4.3           7.2
	//   wait p50 (s)                 0.5           1.5
	//   wait p90 (s)                14.5          19.5
	//   wait p99 (s)                29.5          29.5
	//   wait max (s)                29.5          29.5
}

// One configuration, figures read from the result: a backlog of 100 tasks
// of 1 CPU for 10 s on 2 agents of 8 CPUs.
func ExampleRun() {
	w := sim.Workload{
		Agents: []sim.AgentGroup{{Name: "a", Count: 2, Resources: "cpus:8;mem:16384"}},
		Generators: []sim.Generator{{
			Framework: "batch", Role: "batch", Count: 100,
			Arrival: sim.AllAtOnce{}, Size: sim.FixedSize("cpus:1;mem:1024"), Duration: sim.Fixed(10),
		}},
	}
	res, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	waits := res.Summary.Waits[0]
	fmt.Printf("%s after %d intervals: %d tasks finished\n", res.Stopped, res.Summary.Intervals, res.Summary.Finished)
	fmt.Printf("waits: p50 %s, p90 %s, max %s\n", waits.P50, waits.P90, waits.Max)
	fmt.Printf("cpus in use: %.3f on average\n", res.Summary.Utilisation[0])
	// Output:
	// done after 71 intervals: 100 tasks finished
	// waits: p50 30s, p90 50s, max 1m0s
	// cpus in use: 0.880 on average
}

// The Google cluster trace's task events, each run of a task a Task.
func ExampleReadGoogle() {
	f, err := os.Open("testdata/google_task_events.csv")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	tasks, stats, err := sim.ReadGoogle(f, sim.GoogleOptions{CPUs: 32, Memory: 131072})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d lines: %d tasks; left out: %d unfinished, %d never ran, %d without request, %d ends without submit\n",
		stats.Lines, stats.Tasks, stats.Unfinished, stats.NeverRan, stats.NoRequest, stats.Orphans)
	for _, t := range tasks[:3] {
		fmt.Printf("%s %s... %s at %s for %s\n", t.ID, t.Framework[:6], t.Resources, t.Submit, t.Duration)
	}
	// Output:
	// 30 lines: 6 tasks; left out: 2 unfinished, 1 never ran, 1 without request, 1 ends without submit
	// 6251639646-0 fJYecl... cpus:2; mem:4168.09 at 0s for 5m0s
	// 6251639646-1 fJYecl... cpus:2; mem:8192 at 0s for 1m0s
	// 6251639646-1.2 fJYecl... cpus:2; mem:8192 at 11m0s for 5m0s
}

// The demonstration: a bursty tenant next to a steady one, DRF against the
// usage-history sorter; a few rows of the table.
func ExampleCompare() {
	c, err := sim.Compare(sim.BurstyAndSteady(), []sim.Config{
		{Name: "drf"},
		{Name: "usage 5m", RoleSorterWithClock: sim.Usage(5 * time.Minute)},
	}, sim.RunOptions{Seed: 1, Intervals: sim.BurstyIntervals})
	if err != nil {
		panic(err)
	}
	var table strings.Builder
	c.WriteTable(&table)
	lines := strings.Split(table.String(), "\n")
	fmt.Println(lines[2]) // the configurations
	for _, line := range lines[3:] {
		for _, row := range []string{"utilisation cpus", "tasks finished", "role ", "  wait p90"} {
			if strings.HasPrefix(line, row) {
				fmt.Println(line)
			}
		}
	}
	// Output:
	// drf          usage 5m
	// utilisation cpus                   0.914             0.887
	// tasks finished                      2297              2237
	// role bursty
	//   wait p90 (s)                     282.0             244.0
	// role steady
	//   wait p90 (s)                     203.1             250.4
}
