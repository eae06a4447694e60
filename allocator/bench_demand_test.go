package allocator

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/allot-go/allot/resources"
)

// BenchmarkDemandFirstRound is DeclineOffersFirstRound's first round
// (10000 agents, 1000 frameworks of one role, each agent with cpus:8;
// mem:2082;disk:3072 and ports free) where every framework states demand:
// none (Mesos's blind offers, the baseline), one task an agent
// (cpus:8;mem:2048: one sized offer an agent, as many offers as without
// demand), or four tasks an agent (cpus:2;mem:512: the agent handed out
// task by task, a walk of the role's frameworks after each). Each
// framework states enough tasks for every agent to be filled.
// ns/offer is per offer made (four tasks to one framework on one agent
// are one offer); ns/task per task offered.
func BenchmarkDemandFirstRound(b *testing.B) {
	const agents, frameworks = 10000, 1000
	for _, c := range []struct {
		name  string
		shape string
		tasks int // an agent holds
	}{{"none", "", 1}, {"one-task-an-agent", "cpus:8;mem:2048", 1}, {"four-tasks-an-agent", "cpus:2;mem:512", 4}} {
		b.Run(fmt.Sprintf("agents=%d/frameworks=%d/demand=%s", agents, frameworks, c.name), func(b *testing.B) {
			var pending []Pending
			if c.shape != "" {
				pending = []Pending{{Resources: resources.MustParseQuantities(c.shape), Count: 2 * c.tasks * agents / frameworks}}
			}
			offers := 0
			var cpu cpuClock
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				a, _ := declineSetup(b, agents, frameworks, "r", "")
				if pending != nil {
					for f := range frameworks {
						if err := a.UpdateDemand(fmt.Sprintf("f%04d", f), "r", pending); err != nil {
							b.Fatal(err)
						}
					}
				}
				runtime.GC()
				b.StartTimer()
				cpu.measure(func() { offers += len(a.AllocateAll().Offers) })
			}
			b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
			b.ReportMetric(float64(b.Elapsed())/float64(offers), "ns/offer")
			b.ReportMetric(float64(b.Elapsed())/float64(offers*c.tasks), "ns/task")
			cpu.report(b)
		})
	}
}
