package allocator_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// Save an allocator and restore it: the restored allocator goes on exactly
// as the saved one, offers, ids and filters included.
func ExampleRestore() {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, _ := allocator.New(allocator.Options{Clock: clock.Now, Seed: 1})
	_ = a.AddAgent("agent-1", allocator.AgentInfo{}, resources.MustParse("cpus:8;mem:16384", "*"), nil)
	_ = a.AddAgent("agent-2", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:8192", "*"), nil)
	_ = a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)
	for _, o := range a.Allocate().Offers {
		// agent-1 is declined for 10 s; agent-2's offer stays outstanding.
		if o.AgentID == "agent-1" {
			_ = a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: 10 * time.Second})
		}
	}

	data, err := a.Snapshot()
	fmt.Println("snapshot:", err)
	b, err := allocator.Restore(data, allocator.RestoreOptions{Clock: clock.Now})
	fmt.Println("restore:", err)
	fmt.Println("same state:", a.Describe() == b.Describe())

	clock.Advance(11 * time.Second) // the filter expires
	for _, x := range []*allocator.Allocator{a, b} {
		for _, o := range x.AllocateAll().Offers {
			fmt.Println(o.ID, o.AgentID, o.Resources)
		}
	}
	// Output:
	// snapshot: <nil>
	// restore: <nil>
	// same state: true
	// offer-3 agent-1 cpus(allocated: web):8; mem(allocated: web):16384
	// offer-3 agent-1 cpus(allocated: web):8; mem(allocated: web):16384
}

// Record the journal of an allocator as JSON lines, and replay it into a
// fresh allocator made with the same options: the same state, and the
// same offers from there on.
func ExampleReplay() {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var log bytes.Buffer
	opts := allocator.Options{Clock: clock.Now, Seed: 1}
	opts.Journal = func(e allocator.Entry) {
		line, _ := json.Marshal(e)
		log.Write(append(line, '\n'))
	}
	a, _ := allocator.New(opts)
	_ = a.AddAgent("agent-1", allocator.AgentInfo{Hostname: "h1"}, resources.MustParse("cpus:8;mem:16384", "*"), nil)
	_ = a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)
	for _, o := range a.Allocate().Offers {
		_ = a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: 10 * time.Second})
	}
	fmt.Print(log.String())

	opts.Journal = nil
	b, _ := allocator.New(opts)
	fmt.Println("replay:", allocator.Replay(b, &log))
	fmt.Println("same state:", a.Describe() == b.Describe())
	// Output:
	// {"event":"add-agent","agent":"agent-1","agent_info":{"hostname":"h1"},"resources":"cpus:8; mem:16384"}
	// {"event":"add-framework","framework":"web","framework_info":{"roles":["web"]},"active":true}
	// {"event":"allocate","at":"2026-01-01T00:00:00Z","run":1}
	// {"event":"recover-resources","at":"2026-01-01T00:00:00Z","framework":"web","agent":"agent-1","resources":"cpus(allocated: web):8; mem(allocated: web):16384","filter":{"refuse_ns":10000000000}}
	// replay: <nil>
	// same state: true
}
