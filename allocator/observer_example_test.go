package allocator_test

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// An Observer gets a report of every run, and of every event that changes
// the figures, with only what changed: here the run, then the decline that
// gives the offer back under a filter. Package allocator/metrics names the
// figures as Mesos's allocator metrics.
func ExampleObserver() {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var reports []allocator.Report
	a, _ := allocator.New(allocator.Options{
		Clock:    func() time.Time { return now },
		Observer: allocator.ObserverFunc(func(r allocator.Report) { reports = append(reports, r) }),
	})
	_ = a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil)
	_ = a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)
	res := a.Allocate()
	show := func(r allocator.Report) {
		if r.Run != nil {
			fmt.Printf("  run %d: %d offers\n", r.Run.Stats.Run, r.Run.Stats.Offers)
		}
		fmt.Printf("  cluster: offered %s, allocated %s\n", r.Cluster.Offered, r.Cluster.Allocated)
		for _, m := range r.Roles {
			fmt.Printf("  role %s: share %.2f, offered %s, filters %d\n", m.Role, m.Share, m.Offered, m.Filters)
		}
	}
	fmt.Println("the run:")
	show(reports[len(reports)-1])

	reports = nil
	o := res.Offers[0]
	_ = a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: time.Minute})
	fmt.Println("the decline:")
	show(reports[0])
	// Output:
	// the run:
	//   run 1: 1 offers
	//   cluster: offered cpus:4; mem:4096, allocated {}
	//   role web: share 1.00, offered cpus:4; mem:4096, filters 0
	// the decline:
	//   cluster: offered {}, allocated {}
	//   role web: share 0.00, offered {}, filters 1
}
