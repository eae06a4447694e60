package allocator

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// busyCluster is a busy cluster: 10000 agents of cpus:10;mem:40960, each
// running nine tasks of cpus:1;mem:4096 of one of 1000 frameworks in 100
// roles (90% of the cluster), and frameworks that accept whatever fits
// another task, so that after the first run the cluster is full.
type busyCluster struct {
	a      *Allocator
	clock  *benchClock
	agents []string
	owner  map[string]string // agent -> the framework running its tasks
	role   map[string]string // framework -> its role
	task   resources.Resources
	tasks  int
}

func newBusyCluster(tb testing.TB) *busyCluster {
	clock := &benchClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a, err := New(Options{Clock: clock.Now, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	c := &busyCluster{a: a, clock: clock, owner: map[string]string{}, role: map[string]string{},
		task: resources.MustParse("cpus:1;mem:4096", "*")}
	a.Pause()
	for f := range 1000 {
		id, role := fmt.Sprintf("f%04d", f), fmt.Sprintf("r%03d", f%100)
		c.role[id] = role
		if err := a.AddFramework(id, FrameworkInfo{Roles: []string{role}}, nil, Active); err != nil {
			tb.Fatal(err)
		}
	}
	total := resources.MustParse("cpus:10;mem:40960", "*")
	nine := resources.MustParse("cpus:9;mem:36864", "*")
	for i := range 10000 {
		id, fw := fmt.Sprintf("agent-%05d", i), fmt.Sprintf("f%04d", i%1000)
		c.agents, c.owner[id] = append(c.agents, id), fw
		if err := a.AddAgent(id, AgentInfo{}, total, map[string]resources.Resources{fw: nine.Allocate(c.role[fw])}); err != nil {
			tb.Fatal(err)
		}
	}
	a.Resume()
	c.accept(tb, c.run())
	return c
}

// run is one periodic run, a second after the previous one.
func (c *busyCluster) run() Result {
	c.clock.now = c.clock.now.Add(time.Second)
	return c.a.AllocateAll()
}

// accept has each framework use every offer whole, as one task.
func (c *busyCluster) accept(tb testing.TB, res Result) {
	for _, o := range res.Offers {
		c.tasks++
		launch := offer.Launch{Tasks: []offer.Task{{ID: fmt.Sprintf("t%d", c.tasks), Resources: o.Resources}}}
		if err := c.a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, nil); err != nil {
			tb.Fatal(err)
		}
		c.owner[o.AgentID] = o.FrameworkID
	}
}

// end ends one task on each of n agents, from start on (tasks end on the
// agents in turn, 1% of them an interval for n = 100).
func (c *busyCluster) end(tb testing.TB, start, n int) {
	for i := range n {
		id := c.agents[(start+i)%len(c.agents)]
		fw := c.owner[id]
		ended := c.task.Allocate(c.role[fw])
		if held := c.a.cs.Agents.Get(id).Allocated.Get(fw); !held.Contains(ended) {
			fw = slices.Sorted(func(yield func(string) bool) {
				for f := range c.a.cs.Agents.Get(id).Allocated.All() {
					if !yield(f) {
						return
					}
				}
			})[0]
			ended = c.task.Allocate(c.role[fw])
		}
		if err := c.a.RecoverAllocated(fw, id, ended, nil); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkBusyCluster times a periodic run on the busy cluster after 100
// of its 10000 agents each freed a task: what a run costs when little
// changed. ns/op is the run alone; the tasks ending before it and the
// frameworks accepting after it are not timed.
func BenchmarkBusyCluster(b *testing.B) {
	c := newBusyCluster(b)
	var cpu cpuClock
	offers, next := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c.end(b, next, 100)
		next += 100
		b.StartTimer()
		var res Result
		cpu.measure(func() { res = c.run() })
		b.StopTimer()
		offers += len(res.Offers)
		c.accept(b, res)
		b.StartTimer()
	}
	b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
	b.ReportMetric(float64(cpu.total)/float64(b.N), "cpu-ns/op")
}
