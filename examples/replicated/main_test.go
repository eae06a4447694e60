package main

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// TestFailover runs the example: the leader fails mid-stream with offers
// unanswered, a follower is elected and serves those very offers, a replica
// cut off is sent a raft snapshot of the allocator after the logs were
// compacted, and every replica ends with the state of an allocator that
// applied the same events and never failed.
func TestFailover(t *testing.T) {
	var out bytes.Buffer
	o, err := run(&out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log("\n" + out.String())
	if !o.same {
		t.Error("a replica's state differs from the reference")
	}
	if o.newLeader == 0 || o.newLeader == o.oldLeader {
		t.Errorf("leaders: %d, then %d", o.oldLeader, o.newLeader)
	}
	if len(o.heldOver) == 0 || !slices.Equal(o.answered, o.heldOver) {
		t.Errorf("offers outstanding at the failure %v, answered through the new leader %v", o.heldOver, o.answered)
	}
	if o.restores[3] == 0 {
		t.Error("replica 3 was not sent a snapshot")
	}
	for _, id := range []uint64{1, 2, 3} {
		if o.compactions[id] == 0 {
			t.Errorf("replica %d never compacted its log", id)
		}
	}
	if o.applied == 0 {
		t.Error("nothing applied")
	}
	var again bytes.Buffer
	if _, err := run(&again); err != nil || again.String() != out.String() {
		t.Errorf("a second run went otherwise (%v):\n%s", err, again.String())
	}
}

// TestViewsDiffer checks that the comparison sees a difference: one event
// more on one side.
func TestViewsDiffer(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, _ := allocator.New(allocator.Options{Clock: clock.Now})
	b, _ := allocator.New(allocator.Options{Clock: clock.Now})
	for _, x := range []*allocator.Allocator{a, b} {
		_ = x.AddAgent("agent-1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:1024", "*"), nil)
		_ = x.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)
	}
	if views(a) != views(b) {
		t.Fatal("the same events give other views")
	}
	b.AllocateAll()
	if views(a) == views(b) {
		t.Fatal("a run more does not show")
	}
}
