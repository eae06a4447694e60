package metrics_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/metrics"
	"github.com/allot-go/allot/resources"
)

// An Observer gets the figures of every run, and of every event that
// changes them; FromReport names them as Mesos's allocator metrics. The
// stopwatch is the host's (here a fake one that moves 2.5 ms per reading).
func ExampleFromReport() {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var elapsed time.Duration
	var reports []allocator.Report
	a, _ := allocator.New(allocator.Options{
		Clock:     func() time.Time { return now },
		Stopwatch: func() time.Duration { elapsed += 2500 * time.Microsecond; return elapsed },
		Observer:  allocator.ObserverFunc(func(r allocator.Report) { reports = append(reports, r) }),
	})
	_ = a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil)
	_ = a.UpdateQuota("web", allocator.MustParseQuota("cpus:2;mem:2048"))
	_ = a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)
	res := a.Allocate()

	show := []string{
		"allocator/mesos/allocation_runs",
		"allocator/mesos/allocation_run_ms",
		"allocator/mesos/allocation_run/offers",
		"allocator/mesos/resources/<resource>/offered_or_allocated",
		"allocator/mesos/roles/<role>/shares/dominant",
		"allocator/mesos/quota/roles/<role>/resources/<resource>/consumed",
		"allocator/mesos/offer_filters/roles/<role>/active",
		"allocator/mesos/frameworks/<framework>/offers/sent",
	}
	print := func(r allocator.Report) {
		for _, m := range metrics.FromReport(r) {
			if slices.Contains(show, m.Name) {
				fmt.Println(" ", m)
			}
		}
	}
	fmt.Println("the run:")
	print(reports[len(reports)-1])

	// The framework declines with a filter: the event's report.
	reports = nil
	o := res.Offers[0]
	_ = a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: time.Minute})
	fmt.Println("the decline:")
	print(reports[0])
	// Output:
	// the run:
	//   allocator/mesos/allocation_runs 1
	//   allocator/mesos/allocation_run_ms 2.5
	//   allocator/mesos/allocation_run/offers 1
	//   allocator/mesos/resources/cpus/offered_or_allocated 2
	//   allocator/mesos/resources/mem/offered_or_allocated 2048
	//   allocator/mesos/roles/web/shares/dominant 0.5
	//   allocator/mesos/quota/roles/web/resources/cpus/consumed 2
	//   allocator/mesos/quota/roles/web/resources/mem/consumed 2048
	//   allocator/mesos/offer_filters/roles/web/active 0
	//   allocator/mesos/frameworks/nginx/offers/sent 1
	// the decline:
	//   allocator/mesos/resources/cpus/offered_or_allocated 0
	//   allocator/mesos/resources/mem/offered_or_allocated 0
	//   allocator/mesos/roles/web/shares/dominant 0
	//   allocator/mesos/offer_filters/roles/web/active 1
	//   allocator/mesos/frameworks/nginx/offers/sent 1
}
