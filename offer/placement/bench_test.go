package placement

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// benchInput is a framework with services and batch jobs over offers of
// agents of three sizes in three zones. A quarter of the tasks are service
// replicas (cpus:2;mem:4096 and a port, at most 40% of a service's
// replicas per zone, spread over zones); the rest are batch tasks of eight
// shapes, bin-packed. Services have 50 replicas and jobs 1500 tasks, so
// that classes grow with tasks, or, with fixed, there are 50 services and
// 5 jobs (90 classes) whatever the number of tasks. The tasks ask for
// about as many cpus as the offers hold (a third of the offers have 4 of
// their cpus reserved for the framework's role), so the last offers to
// fill are nearly full.
func benchInput(tasks, offers int, fixed bool) Input {
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	sizes := []string{
		"cpus:8;mem:32768;disk:100000;ports:[31000-31999]",
		"cpus:16;mem:65536;disk:200000;ports:[31000-31999]",
		"cpus:32;mem:131072;disk:400000;ports:[31000-31999];cpus(reservations: [(DYNAMIC,web,ops)]):4",
	}
	parsed := make([]resources.Resources, len(sizes))
	for i, s := range sizes {
		parsed[i] = resources.MustParse(s, "*").Allocate("web")
	}
	in := Input{
		Agents:  make(map[string]Agent, offers),
		Rankers: []Ranker{BinPack("cpus", "mem")},
	}
	for i := range offers {
		agent := fmt.Sprintf("agent-%05d", i)
		in.Offers = append(in.Offers, offer.Offer{
			ID: fmt.Sprintf("o%d", i), FrameworkID: "fw", AgentID: agent, Role: "web",
			Resources: parsed[(i/3)%3],
		})
		in.Agents[agent] = Agent{Attributes: Attributes{"zone": zones[i%3], "rack": fmt.Sprintf("r%d", i/20)}}
	}
	service := resources.MustParseQuantities("cpus:2;mem:4096")
	var shapes []resources.Quantities
	for _, c := range []string{"0.5", "1", "2", "4"} {
		for _, m := range []string{"512", "2048"} {
			shapes = append(shapes, resources.MustParseQuantities("cpus:"+c+";mem:"+m))
		}
	}
	serviceSize, jobSize := 200, 2000 // in tasks of all kinds
	if fixed {
		serviceSize, jobSize = max(tasks/50, 1), max(tasks/5, 1)
	}
	perZone := MaxPerValue("zone", serviceSize/4*2/5)
	for i := range tasks {
		id := fmt.Sprintf("t%06d", i)
		if i%4 == 0 {
			g := i / serviceSize
			in.Tasks = append(in.Tasks, Task{
				ID: id, Group: fmt.Sprintf("svc-%d", g), Resources: service, Ports: Ports{Count: 1},
				Constraints: []Filter{perZone},
				Preferences: []Ranker{Spread("zone").Weighted(2)},
			})
			continue
		}
		g := i / jobSize
		in.Tasks = append(in.Tasks, Task{
			ID: id, Group: fmt.Sprintf("job-%d", g), Resources: shapes[(i/7)%len(shapes)],
		})
	}
	return in
}

var benchResult Result

func BenchmarkPlace(b *testing.B) {
	for _, size := range []struct {
		tasks, offers int
		fixed         bool
	}{{1000, 100, false}, {10000, 1000, false}, {100000, 10000, false}, {100000, 10000, true}} {
		in := benchInput(size.tasks, size.offers, size.fixed)
		p, err := newPlacer(&in)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("tasks=%d/offers=%d/classes=%d", size.tasks, size.offers, len(p.classes))
		b.Run(name, func(b *testing.B) {
			res, err := Place(in)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			start := cpuNow()
			for b.Loop() {
				benchResult, _ = Place(in)
			}
			b.ReportMetric(float64((cpuNow()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(len(res.Assignments)), "placed")
		})
	}
}

// cpuNow is the CPU time of the process (every thread, so garbage
// collection counts), which a loaded machine disturbs far less than wall
// time. Benchmarks report it as cpu-ns/op next to ns/op.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
