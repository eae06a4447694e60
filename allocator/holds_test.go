package allocator_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/offer"
)

// holdCluster: one agent of cpus:2, framework "fa" (role a) runs task t1
// on all of it, framework "fb" (role b) holds nothing and waits.
func holdCluster(t *testing.T) (*allocator.Allocator, *allocator.ManualClock) {
	t.Helper()
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:2;mem:2048"), nil))
	require.NoError(t, a.AddFramework("fa", allocator.FrameworkInfo{Roles: []string{"a"}}, nil, allocator.Active))
	o := a.Allocate().Offers[0]
	require.NoError(t, a.Accept("fa", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "t1", Resources: o.Resources}}}}, nil))
	require.NoError(t, a.AddFramework("fb", allocator.FrameworkInfo{Roles: []string{"b"}}, nil, allocator.Active))
	require.Empty(t, a.Allocate().Offers)
	return a, clock
}

// A preempted task's resources are held for its framework: the next run
// offers them to it alone, although the other framework's share is lower,
// and while held they count in the framework's share as before.
func TestPreemptTaskHoldsForTheFramework(t *testing.T) {
	a, clock := holdCluster(t)
	shareBefore, _ := a.Role("a")
	require.NoError(t, a.PreemptTask("fa", "t1", 10*time.Second))
	require.Empty(t, a.Tasks("fa"))
	v, _ := a.Agent("a1")
	require.True(t, v.Held["fa"].Equal(res("cpus:2;mem:2048").Allocate("a")), "held: %v", v.Held)
	require.True(t, v.Available.IsEmpty(), "held resources are not available: %s", v.Available)
	shareHeld, _ := a.Role("a")
	require.Equal(t, shareBefore.Share, shareHeld.Share, "held resources count in the share")
	require.NoError(t, allocatortest.Check(a))

	res1 := a.Allocate() // RecoverHeld triggers a run of the agent
	require.Len(t, res1.Offers, 1)
	require.Equal(t, "fa", res1.Offers[0].FrameworkID)
	require.NoError(t, allocatortest.Check(a))

	// Declined, the resources go back to the pool: fb, with the lower
	// share, is offered them.
	require.NoError(t, a.RecoverResources("fa", "a1", res1.Offers[0].Resources, nil))
	clock.Advance(time.Second)
	res2 := a.AllocateAll()
	require.Len(t, res2.Offers, 1)
	require.Equal(t, "fb", res2.Offers[0].FrameworkID)
	require.NoError(t, a.CheckInvariants())
}

// A hold outlives an inactive framework until its time runs out; a run at
// the expiry instant still holds, the first run after gives it back.
func TestHoldExpires(t *testing.T) {
	a, clock := holdCluster(t)
	require.NoError(t, a.PreemptTask("fa", "t1", 10*time.Second))
	require.NoError(t, a.DeactivateFramework("fa"))
	require.Empty(t, a.Allocate().Offers, "nobody else is offered what is held")
	clock.Advance(10 * time.Second)
	require.Empty(t, a.AllocateAll().Offers)
	v, _ := a.Agent("a1")
	require.NotEmpty(t, v.Held)
	clock.Advance(time.Millisecond)
	offers := a.AllocateAll().Offers
	require.Len(t, offers, 1)
	require.Equal(t, "fb", offers[0].FrameworkID)
	v, _ = a.Agent("a1")
	require.Empty(t, v.Held)
	require.NoError(t, a.CheckInvariants())
}

// Removing the framework or the agent ends its holds; bad holds change
// nothing.
func TestHoldsEndWithFrameworkAndAgent(t *testing.T) {
	a, _ := holdCluster(t)
	require.NoError(t, a.RecoverHeld("fa", "a1", res("cpus:1;mem:1024").Allocate("a"), time.Minute))
	require.NoError(t, a.RemoveFramework("fa"))
	v, _ := a.Agent("a1")
	require.Empty(t, v.Held)
	require.True(t, v.Available.Equal(res("cpus:2;mem:2048")), "available %s", v.Available)
	require.NoError(t, a.CheckInvariants())

	a, _ = holdCluster(t)
	require.NoError(t, a.RecoverHeld("fa", "a1", res("cpus:1").Allocate("a"), time.Minute))
	require.NoError(t, a.RemoveAgent("a1"))
	r, _ := a.Role("a")
	require.True(t, r.OfferedOrAllocated.IsEmpty(), "role a still charged %s", r.OfferedOrAllocated)
	require.NoError(t, a.CheckInvariants())

	a, _ = holdCluster(t)
	before := a.Describe()
	require.ErrorIs(t, a.RecoverHeld("fa", "a1", res("cpus:3").Allocate("a"), time.Minute), allocator.ErrNotHeld)
	require.ErrorIs(t, a.RecoverHeld("fa", "a1", res("cpus:1").Allocate("a"), 0), allocator.ErrInvalidHold)
	require.ErrorIs(t, a.RecoverHeld("fa", "a1", res("cpus:1").Allocate("a"), allocator.MaxRefuse+time.Second), allocator.ErrInvalidHold)
	require.ErrorIs(t, a.RecoverHeld("fa", "a1", res("cpus:1"), time.Minute), allocator.ErrInvalidResources)
	require.ErrorIs(t, a.PreemptTask("fa", "nope", time.Minute), allocator.ErrUnknownTask)
	require.Equal(t, before, a.Describe())
}

// Holds and the options beyond Mesos survive a snapshot, and the journal
// replays the events that make holds: the restored and the replayed
// allocators go on as the original.
func TestHoldsSnapshotAndJournal(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var journal []allocator.Entry
	opts := allocator.Options{Seed: 1, Clock: clock.Now, ChargeBeyondAllowance: true, ReservedFirst: true,
		Journal: func(e allocator.Entry) { journal = append(journal, e) }}
	a := newAllocator(t, opts)
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:2;mem:2048;cpus(a):1"), nil))
	require.NoError(t, a.AddFramework("fa", allocator.FrameworkInfo{Roles: []string{"a"}}, nil, allocator.Active))
	require.NoError(t, a.AddFramework("fb", allocator.FrameworkInfo{Roles: []string{"b"}}, nil, allocator.Active))
	for _, o := range a.Allocate().Offers {
		if o.FrameworkID == "fa" {
			require.NoError(t, a.Accept("fa", "a1", o.Resources, launchOps("t1", res("cpus:1;mem:1024").Allocate("a")), nil))
		}
	}
	require.NoError(t, a.PreemptTask("fa", "t1", time.Minute))
	v, _ := a.Agent("a1")
	require.NotEmpty(t, v.Held, "the preempted task's resources are held")

	data, err := a.Snapshot()
	require.NoError(t, err)
	b, err := allocator.Restore(data, allocator.RestoreOptions{Clock: clock.Now})
	require.NoError(t, err)
	require.Equal(t, a.Describe(), b.Describe())

	var text []byte
	for _, e := range journal {
		line, err := e.MarshalJSON()
		require.NoError(t, err)
		text = append(append(text, line...), '\n')
	}
	c := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, ChargeBeyondAllowance: true, ReservedFirst: true})
	require.NoError(t, allocator.Replay(c, bytes.NewReader(text)))
	require.Equal(t, a.Describe(), c.Describe())

	clock.Advance(time.Second)
	want := fmt.Sprint(a.AllocateAll().Offers)
	require.Equal(t, want, fmt.Sprint(b.AllocateAll().Offers))
	require.Equal(t, want, fmt.Sprint(c.AllocateAll().Offers))
	require.Contains(t, want, "fa", "the held resources are offered to fa")
}

// A hold that expires is given back whole: the framework no longer lists
// the agent when it holds nothing else there.
func TestExpiredHoldLeavesNothingBehind(t *testing.T) {
	a, clock := holdCluster(t)
	require.NoError(t, a.PreemptTask("fa", "t1", time.Second))
	require.NoError(t, a.DeactivateFramework("fa"))
	clock.Advance(2 * time.Second)
	a.AllocateAll()
	require.NoError(t, a.CheckInvariants(), "the framework still lists the agent, or holds something there")
	require.NoError(t, a.RemoveAgent("a1"))
	_ = a.Frameworks() // no agent left behind in the framework's list
	require.NoError(t, a.CheckInvariants())
}

// A hold on an agent a run leaves out (deactivated here) still ends when
// its time runs out: the resources stop counting for the framework and
// its role at the first periodic run after the expiry, and are available
// to whoever is offered them once the agent is back. They once stayed held
// for as long as the agent was away, keeping the role at its consumption.
func TestHoldOnAnAgentLeftOutExpires(t *testing.T) {
	a, clock := holdCluster(t)
	require.NoError(t, a.PreemptTask("fa", "t1", 10*time.Second))
	require.NoError(t, a.DeactivateAgent("a1"))
	clock.Advance(10*time.Second + time.Millisecond)
	require.Empty(t, a.AllocateAll().Offers, "the agent is inactive")
	v, _ := a.Agent("a1")
	require.Empty(t, v.Held, "the hold outlived its time on an inactive agent")
	require.True(t, v.Allocated["fa"].IsEmpty(), "what was held still counts for fa: %v", v.Allocated)
	require.NoError(t, a.CheckInvariants())
	require.NoError(t, a.ActivateAgent("a1"))
	offers := a.AllocateAll().Offers
	require.Len(t, offers, 1)
	require.Equal(t, "fb", offers[0].FrameworkID, "fa, which holds nothing more, has the higher share")
}
