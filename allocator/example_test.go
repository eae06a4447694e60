package allocator_test

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The host loop: add agents and frameworks, allocate, accept part of an
// offer with a task launch, decline the rest with a filter, and recover the
// task's resources when it finishes.
func Example() {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, _ := allocator.New(allocator.Options{Clock: func() time.Time { return now }, Seed: 1})

	_ = a.AddAgent("agent-1", allocator.AgentInfo{Hostname: "host-1"}, resources.MustParse("cpus:8;mem:16384", "*"), nil)
	_ = a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"analytics"}}, nil, allocator.Active)

	for _, o := range a.Allocate().Offers {
		fmt.Printf("offer to %s (%s) on %s: %s\n", o.FrameworkID, o.Role, o.AgentID, o.Resources)

		// Run one task of 2 cpus and 4 GiB; refuse the rest for 5 seconds.
		need := resources.MustParseQuantities("cpus:2;mem:4096")
		task, ok := offer.Pick(o.Resources, need, o.Role)
		if !ok {
			continue
		}
		launch := offer.Launch{Tasks: []offer.Task{{ID: "task-1", Resources: task}}}
		err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, &allocator.Filter{Refuse: 5 * time.Second})
		fmt.Println("accept:", err)
	}
	agent, _ := a.Agent("agent-1")
	fmt.Println("allocated:", agent.Allocated["spark"])
	fmt.Println("available:", agent.Available)

	// The rest is refused for 5 seconds: runs before the expiry offer
	// nothing, the run at it offers the rest again.
	fmt.Println("offers now:", len(a.AllocateAll().Offers))
	now = now.Add(5*time.Second - time.Millisecond)
	fmt.Println("offers before 5s:", len(a.AllocateAll().Offers))
	now = now.Add(time.Millisecond)
	fmt.Println("offers at 5s:", len(a.AllocateAll().Offers))

	// The task finishes.
	_ = a.RecoverAllocated("spark", "agent-1", agent.Allocated["spark"], nil)
	agent, _ = a.Agent("agent-1")
	fmt.Println("offered after the task:", agent.Offered["spark"])
	// Output:
	// offer to spark (analytics) on agent-1: cpus(allocated: analytics):8; mem(allocated: analytics):16384
	// accept: <nil>
	// allocated: cpus(allocated: analytics):2; mem(allocated: analytics):4096
	// available: cpus:6; mem:12288
	// offers now: 0
	// offers before 5s: 0
	// offers at 5s: 1
	// offered after the task: cpus(allocated: analytics):6; mem(allocated: analytics):12288
}

// Quota guarantees are met before fair sharing, and limits are never passed.
func ExampleAllocator_UpdateQuota() {
	a, _ := allocator.New(allocator.Options{Seed: 1})
	for _, id := range []string{"a1", "a2", "a3", "a4"} {
		_ = a.AddAgent(id, allocator.AgentInfo{}, resources.MustParse("cpus:2;mem:2048", "*"), nil)
	}
	_ = a.UpdateQuota("prod", allocator.Quota{
		Guarantees: resources.MustParseQuantities("cpus:4;mem:4096"),
		Limits:     resources.MustParseLimits("cpus:4;mem:4096"),
	})
	_ = a.AddFramework("batch", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active)
	_ = a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"prod"}}, nil, allocator.Active)

	for _, o := range a.Allocate().Offers {
		fmt.Println(o.FrameworkID, o.Resources.Unallocate())
	}
	for _, r := range a.Roles() {
		fmt.Println(r.Role, "consumes", r.Consumed)
	}
	// Output:
	// batch cpus:2; mem:2048
	// batch cpus:2; mem:2048
	// web cpus:2; mem:2048
	// web cpus:2; mem:2048
	// batch consumes cpus:4; mem:4096
	// prod consumes cpus:4; mem:4096
}

// A decline filter applies until its expiry, and lasts at least one
// allocation interval: a refusal of 1 s with a 60 s interval still keeps
// the agent from the framework in the first periodic run after it, 60 s
// later, and ends with that run.
func ExampleAllocator_RecoverResources() {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, _ := allocator.New(allocator.Options{Clock: func() time.Time { return now }, AllocationInterval: time.Minute})
	_ = a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil)
	_ = a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active)
	o := a.Allocate().Offers[0]
	_ = a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: time.Second})
	for _, f := range a.Filters() {
		fmt.Println(f.Framework, f.Role, f.Agent, f.Expires.Sub(now), f.Refused)
	}
	now = now.Add(time.Minute)
	fmt.Println("offers in the batch at 60s:", len(a.AllocateAll().Offers))
	fmt.Println("filters after it:", len(a.Filters()))
	now = now.Add(time.Minute)
	fmt.Println("offers in the batch at 120s:", len(a.AllocateAll().Offers))
	// Output:
	// f r a1 1m0s cpus:4; mem:4096
	// offers in the batch at 60s: 0
	// filters after it: 0
	// offers in the batch at 120s: 1
}
