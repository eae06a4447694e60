package sim

import (
	"time"

	"github.com/allot-go/allot/resources"
)

// BurstyIntervals is how many one-second intervals BurstyAndSteady is
// meant to run: half an hour, three bursts.
const BurstyIntervals = 1800

// BurstyAndSteady is the lab's demonstration workload: a bursty tenant next
// to a steady one on 20 agents of 8 CPUs and 32 GB.
//
//   - steady: a Poisson stream of 1.2 tasks a second, each of 2 CPUs and
//     4 GB for 60 s on average (exponential): 90% of the CPUs on its own.
//   - bursty: 200 tasks of 1 CPU and 8 GB, for 60 to 120 s (uniform), at
//     5, 15 and 25 minutes: each burst asks for two and a half times the
//     cluster's memory.
//
// DRF serves a burst until bursty's dominant share (memory) meets
// steady's (CPUs). A usage-history sorter remembers that steady has held
// most of the cluster for minutes and bursty nothing, and serves the burst
// further: bursty waits less, steady more, and since every 8 GB task
// strands CPUs that steady's tasks could have used, fewer CPUs are in use
// and fewer tasks finish. The sim package's tests and the lab command
// print the figures.
func BurstyAndSteady() Workload {
	return Workload{
		Agents: []AgentGroup{{Name: "agent", Count: 20, Resources: "cpus:8;mem:32768"}},
		Roles:  []Role{{Name: "bursty"}, {Name: "steady"}},
		Generators: []Generator{
			{
				Framework: "steady", Role: "steady", Prefix: "s", Count: 3000,
				Arrival:  Poisson{Rate: 1.2},
				Size:     Size{Shapes: []resources.Quantities{resources.MustParseQuantities("cpus:2;mem:4096")}},
				Duration: Exponential{Mean: 60},
			},
			{
				Framework: "bursty", Role: "bursty", Prefix: "b", Count: 600,
				Arrival:  Bursts{Start: 5 * time.Minute, Every: 10 * time.Minute, Size: 200},
				Size:     Size{Shapes: []resources.Quantities{resources.MustParseQuantities("cpus:1;mem:8192")}},
				Duration: Uniform{Min: 60, Max: 120},
			},
		},
	}
}
