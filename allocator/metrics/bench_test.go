package metrics_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/metrics"
	"github.com/allot-go/allot/resources"
)

// BenchmarkFromReport names the figures of a first run's report at 2000
// agents and 200 frameworks, each in a role of its own: what a host that
// exports metrics adds to every run (allocator's BenchmarkObserver times
// making the reports).
func BenchmarkFromReport(b *testing.B) {
	var last allocator.Report
	start := time.Now()
	a, err := allocator.New(allocator.Options{
		Observer:  allocator.ObserverFunc(func(r allocator.Report) { last = r }),
		Stopwatch: func() time.Duration { return time.Since(start) },
	})
	if err != nil {
		b.Fatal(err)
	}
	total := resources.MustParse("cpus:8;mem:16384;disk:100000", "*")
	for i := range 2000 {
		if err := a.AddAgent(fmt.Sprintf("agent-%d", i), allocator.AgentInfo{}, total, nil); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 200 {
		role := fmt.Sprintf("role-%d", i)
		if err := a.AddFramework(fmt.Sprintf("fw-%d", i), allocator.FrameworkInfo{Roles: []string{role}}, nil, allocator.Active); err != nil {
			b.Fatal(err)
		}
	}
	a.AllocateAll()
	if last.Run == nil || len(last.Frameworks) != 200 {
		b.Fatalf("the run's report names %d frameworks, want 200", len(last.Frameworks))
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = len(metrics.FromReport(last))
	}
	b.ReportMetric(float64(n), "metrics/report")
}
