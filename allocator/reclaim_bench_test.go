package allocator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// reclaimBenchCluster is 10000 agents of cpus:10;mem:40960, each running
// ten tasks of cpus:1;mem:4096 (100000 in the ledger) of one of 1000
// frameworks in 100 roles, and 100 more roles, each with one framework
// that waits for three such tasks and holds nothing: with guarantees when
// needy, without otherwise.
func reclaimBenchCluster(b *testing.B, mode allocator.Reclaim, kind string) (*allocator.Allocator, *allocator.ManualClock) {
	b.Helper()
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: mode})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10000 {
		if err := a.AddAgent(fmt.Sprintf("a%05d", i), allocator.AgentInfo{}, resources.MustParse("cpus:10;mem:40960", "*"), nil); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 1000 {
		if err := a.AddFramework(fmt.Sprintf("f%04d", i), allocator.FrameworkInfo{Roles: []string{fmt.Sprintf("r%03d", i%100)}}, nil, allocator.Active); err != nil {
			b.Fatal(err)
		}
	}
	task := resources.MustParse("cpus:1;mem:4096", "*")
	for _, o := range a.AllocateAll().Offers {
		tasks := make([]offer.Task, 10)
		for j := range tasks {
			tasks[j] = offer.Task{ID: fmt.Sprintf("%s-%d", o.AgentID, j), Resources: task.Allocate(o.Role)}
		}
		if err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil); err != nil {
			b.Fatal(err)
		}
	}
	if kind == "close" {
		// Every batch framework waits for more: the roles' shares are
		// equal, and nobody is above anybody to take from.
		for i := range 1000 {
			if err := a.UpdateDemand(fmt.Sprintf("f%04d", i), fmt.Sprintf("r%03d", i%100), []allocator.Pending{{Resources: task.Quantities(), Count: 3}}); err != nil {
				b.Fatal(err)
			}
		}
		return a, clock
	}
	if kind == "unservable" {
		// One role guaranteed a task larger than any agent.
		big := resources.MustParseQuantities("cpus:11;mem:4096")
		if err := a.UpdateQuota("svc", allocator.Quota{Guarantees: big}); err != nil {
			b.Fatal(err)
		}
		if err := a.AddFramework("ssvc", allocator.FrameworkInfo{Roles: []string{"svc"}}, nil, allocator.Active); err != nil {
			b.Fatal(err)
		}
		if err := a.UpdateDemand("ssvc", "svc", []allocator.Pending{{Resources: big, Count: 1}}); err != nil {
			b.Fatal(err)
		}
		return a, clock
	}
	for i := range 100 {
		role := fmt.Sprintf("svc%03d", i)
		if kind == "needy" {
			if err := a.UpdateQuota(role, allocator.MustParseQuota("cpus:3;mem:12288")); err != nil {
				b.Fatal(err)
			}
		}
		if err := a.AddFramework("s"+role, allocator.FrameworkInfo{Roles: []string{role}}, nil, allocator.Active); err != nil {
			b.Fatal(err)
		}
		if err := a.UpdateDemand("s"+role, role, []allocator.Pending{{Resources: task.Quantities(), Count: 3}}); err != nil {
			b.Fatal(err)
		}
	}
	return a, clock
}

// BenchmarkReclaim times one periodic run on a full cluster: with nothing
// to reclaim (the new roles have no guarantee) with reclaim off, on for
// guarantees and on for fair shares (which ends a task for one waiting
// task of each of the 100 roles that got nothing); and with 100 roles
// below their guarantees (cpus:3 each: a task ended for each of their
// three waiting tasks), reclaim off and on.
func BenchmarkReclaim(b *testing.B) {
	for _, bc := range []struct {
		name string
		mode allocator.Reclaim
		kind string
	}{
		{"nothing/off", allocator.ReclaimOff, "nothing"},
		{"nothing/guarantees", allocator.ReclaimGuarantees, "nothing"},
		{"nothing/fair-share", allocator.ReclaimFairShare, "nothing"},
		{"close-shares/off", allocator.ReclaimOff, "close"},
		{"close-shares/fair-share", allocator.ReclaimFairShare, "close"},
		{"unservable/off", allocator.ReclaimOff, "unservable"},
		{"unservable/guarantees", allocator.ReclaimGuarantees, "unservable"},
		{"100-needy/off", allocator.ReclaimOff, "needy"},
		{"100-needy/guarantees", allocator.ReclaimGuarantees, "needy"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			preemptions := 0
			for range b.N {
				b.StopTimer()
				a, clock := reclaimBenchCluster(b, bc.mode, bc.kind)
				clock.Advance(time.Second)
				b.StartTimer()
				preemptions += len(a.AllocateAll().Preemptions)
			}
			b.ReportMetric(float64(preemptions)/float64(b.N), "preemptions/op")
		})
	}
}
