package allocator_test

// Liveness: resources that a framework could take are offered to it. Each
// test below is an ordinary sequence of events after which a cached answer
// of an earlier run (roles parked as capped, "nobody could take anything
// here", a filter's coverage of the agent, a role's allowance) must not
// outlive the event that changed it.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

var livenessStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func hourFilter() *allocator.Filter { return &allocator.Filter{Refuse: time.Hour} }

// launchAll accepts an offer launching one task on all of it.
func launchAll(t *testing.T, a *allocator.Allocator, o offer.Offer, task string) {
	t.Helper()
	require.NoError(t, a.Accept(o.FrameworkID, o.AgentID, o.Resources,
		[]offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: task, Resources: o.Resources}}}}, nil))
}

// offersTo returns the offers of res made to fw.
func offersTo(res allocator.Result, fw string) []offer.Offer {
	var out []offer.Offer
	for _, o := range res.Offers {
		if o.FrameworkID == fw {
			out = append(out, o)
		}
	}
	return out
}

// Case 1: a role parked as capped while quota held the cluster must take
// part in the first run after the quota is removed and resources are given
// back.
func TestLivenessQuotaRemovedAfterCappedRun(t *testing.T) {
	a := newAllocator(t, allocator.Options{Seed: 1})
	q := resources.MustParseQuantities("cpus:2;mem:1024")
	require.NoError(t, a.UpdateQuota("quota-role", allocator.Quota{Guarantees: q, Limits: resources.LimitsOf(q)}))
	require.NoError(t, a.AddFramework("framework1", allocator.FrameworkInfo{Roles: []string{"quota-role"}}, nil, allocator.Active))
	require.NoError(t, a.AddAgent("agent1", allocator.AgentInfo{}, res("cpus:1;mem:512"), nil))
	require.NoError(t, a.AddAgent("agent2", allocator.AgentInfo{}, res("cpus:1;mem:512"), nil))
	first := a.Allocate()
	require.Len(t, first.Offers, 2)
	for i, o := range first.Offers {
		launchAll(t, a, o, "t"+string(rune('1'+i)))
	}
	require.NoError(t, a.AddFramework("framework2", allocator.FrameworkInfo{Roles: []string{"no-quota-role"}}, nil, allocator.Active))
	require.Empty(t, a.Allocate().Offers) // the run that parks no-quota-role

	require.NoError(t, a.UpdateQuota("quota-role", allocator.Quota{}))
	require.NoError(t, a.RecoverAllocated("framework1", "agent1", res("cpus:1;mem:512").Allocate("quota-role"), nil))
	got := offersTo(a.AllocateAll(), "framework2")
	require.Len(t, got, 1, "agent1's resources are free and framework2 holds nothing")
	require.Equal(t, "agent1", got[0].AgentID)
	require.True(t, got[0].Resources.Unallocate().Equal(res("cpus:1;mem:512")))
}

// Case 2: a filter installed on an offer cut down by a limit covers only
// that offer; once the limit is raised the larger offer is made.
func TestLivenessLimitRaised(t *testing.T) {
	clock := allocator.NewManualClock(livenessStart)
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.UpdateQuota("r", allocator.Quota{Limits: resources.MustParseLimits("cpus:1")}))
	require.NoError(t, a.AddAgent("agent1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("f1", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	first := a.AllocateAll()
	require.Len(t, first.Offers, 1)
	require.True(t, first.Offers[0].Resources.Unallocate().Equal(res("cpus:1;mem:4096")), "%s", first.Offers[0].Resources)
	require.NoError(t, a.RecoverResources("f1", "agent1", first.Offers[0].Resources, hourFilter()))
	clock.Advance(time.Second)
	require.Empty(t, a.AllocateAll().Offers) // the filter covers the cut offer

	require.NoError(t, a.UpdateQuota("r", allocator.Quota{Limits: resources.MustParseLimits("cpus:4")}))
	clock.Advance(time.Second)
	got := a.AllocateAll()
	require.Len(t, got.Offers, 1, "the filter covers cpus:1;mem:4096 only")
	require.True(t, got.Offers[0].Resources.Unallocate().Equal(res("cpus:4;mem:4096")), "%s", got.Offers[0].Resources)
}

// Case 3: a role whose frameworks all left and which came back with a new
// framework starts afresh: what the old framework refused says nothing of
// the new one.
func TestLivenessRoleLeavesAndComesBack(t *testing.T) {
	clock := allocator.NewManualClock(livenessStart)
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddAgent("agent1", allocator.AgentInfo{}, res("cpus:1;mem:512"), nil))
	require.NoError(t, a.AddFramework("f1", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	first := a.AllocateAll()
	require.Len(t, first.Offers, 1)
	require.NoError(t, a.RecoverResources("f1", "agent1", first.Offers[0].Resources, hourFilter()))
	clock.Advance(time.Second)
	require.Empty(t, a.AllocateAll().Offers)

	require.NoError(t, a.RemoveFramework("f1"))
	require.NoError(t, a.AddFramework("f2", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	clock.Advance(time.Second)
	got := offersTo(a.AllocateAll(), "f2")
	require.Len(t, got, 1, "f2 refused nothing")
	require.True(t, got[0].Resources.Unallocate().Equal(res("cpus:1;mem:512")))
}

// Case 4: resources held for a framework are offered to it unless one of
// its filters covers them; a filter on the rest of the agent does not.
func TestLivenessHeldNotCoveredByFilter(t *testing.T) {
	clock := allocator.NewManualClock(livenessStart)
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddAgent("agent1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("f1", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	o := a.AllocateAll().Offers[0]
	task := res("cpus:1;mem:4096").Allocate("r")
	require.NoError(t, a.Accept("f1", "agent1", o.Resources,
		[]offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "t1", Resources: task}}}}, hourFilter()))
	require.NoError(t, a.PreemptTask("f1", "t1", time.Hour))
	clock.Advance(time.Second)
	got := offersTo(a.Allocate(), "f1")
	require.Len(t, got, 1, "the held resources are offered to f1; its filter refuses cpus:3 only")
	require.True(t, got[0].Resources.Equal(task), "%s", got[0].Resources)
}

// Case 5: a restored allocator allocates as the saved one does, also after
// an event that changes a role's allowance.
func TestLivenessRestoreKeepsAllowances(t *testing.T) {
	clock := allocator.NewManualClock(livenessStart)
	opts := allocator.Options{Seed: 1, Clock: clock.Now, ChargeBeyondAllowance: true}
	a := newAllocator(t, opts)
	require.NoError(t, a.AddAgent("agent1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.UpdateQuota("r", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:2")}))
	require.NoError(t, a.AddFramework("fr", allocator.FrameworkInfo{Roles: []string{"r"}}, map[string]resources.Resources{
		"agent1": res("cpus:2;mem:1024").Allocate("r")}, allocator.Active))
	require.NoError(t, a.AddFramework("fs", allocator.FrameworkInfo{Roles: []string{"s"}}, map[string]resources.Resources{
		"agent1": res("cpus:1;mem:1536").Allocate("s")}, allocator.Active))
	for _, o := range a.Allocate().Offers {
		require.NoError(t, a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil))
	}
	data, err := a.Snapshot()
	require.NoError(t, err)
	b, err := allocator.Restore(data, allocator.RestoreOptions{Clock: clock.Now})
	require.NoError(t, err)
	for _, x := range []*allocator.Allocator{a, b} {
		require.NoError(t, x.UpdateQuota("r", allocator.Quota{}))
	}
	clock.Advance(time.Second)
	saved, restored := a.AllocateAll(), b.AllocateAll()
	require.Equal(t, saved.Offers, restored.Offers)
	// Without the guarantee r's share is 2/4 (cpus), s's 1536/4096 (mem):
	// s comes first. (With the allowance of cpus:2 left over, r's share
	// would be its memory, 1/4, and r would come first.)
	require.Len(t, saved.Offers, 1)
	require.Equal(t, "fs", saved.Offers[0].FrameworkID)
}

// Case 6, Mesos's OfferFilter: a filter of twice the allocation interval
// keeps the agent from the framework in the batch after one interval and
// not in the batch after two.
func TestLivenessOfferFilterAtTwoIntervals(t *testing.T) {
	clock := allocator.NewManualClock(livenessStart)
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, AllocationInterval: time.Second})
	require.NoError(t, a.AddFramework("framework", allocator.FrameworkInfo{Roles: []string{"role"}}, nil, allocator.Active))
	require.NoError(t, a.AddAgent("agent", allocator.AgentInfo{}, res("cpus:1;mem:512"), nil))
	first := a.Allocate()
	require.Len(t, first.Offers, 1)
	require.NoError(t, a.RecoverResources("framework", "agent", first.Offers[0].Resources, &allocator.Filter{Refuse: 2 * time.Second}))
	clock.Advance(time.Second)
	require.Empty(t, a.AllocateAll().Offers, "the batch one interval on: filtered")
	clock.Advance(time.Second)
	got := a.AllocateAll()
	require.Len(t, got.Offers, 1, "the batch at the filter's expiry: offered, as Mesos does")
	require.Equal(t, "framework", got.Offers[0].FrameworkID)
}

// Case 6, Mesos's SmallOfferFilterTimeout (MESOS-4302): a filter shorter
// than the allocation interval lasts one interval, and the batch at its
// expiry, the first since it was installed, still applies it; the batch
// after that no longer sees it.
func TestLivenessSmallOfferFilterTimeout(t *testing.T) {
	clock := allocator.NewManualClock(livenessStart)
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, AllocationInterval: time.Minute})
	require.NoError(t, a.AddFramework("framework1", allocator.FrameworkInfo{Roles: []string{"role"}}, nil, allocator.Active))
	require.NoError(t, a.AddFramework("framework2", allocator.FrameworkInfo{Roles: []string{"role"}}, nil, allocator.Active))
	require.NoError(t, a.AddAgent("agent1", allocator.AgentInfo{}, res("cpus:1;mem:512"), map[string]resources.Resources{
		"framework1": res("cpus:1;mem:512").Allocate("role")}))
	require.Empty(t, a.Allocate().Offers)
	require.NoError(t, a.AddAgent("agent2", allocator.AgentInfo{}, res("cpus:1;mem:512"), nil))
	first := a.Allocate()
	require.Len(t, first.Offers, 1)
	require.Equal(t, "framework2", first.Offers[0].FrameworkID, "framework2's share is lower")
	require.NoError(t, a.RecoverResources("framework2", "agent2", first.Offers[0].Resources, &allocator.Filter{Refuse: time.Second}))

	clock.Advance(time.Second)                // the refusal's own time passes
	clock.Set(livenessStart.Add(time.Minute)) // the next batch: the filter's expiry, the first batch since
	second := a.AllocateAll()
	require.Len(t, second.Offers, 1)
	require.Equal(t, "framework1", second.Offers[0].FrameworkID, "the filter still applies in the first batch")
	require.NoError(t, a.RecoverResources("framework1", "agent2", second.Offers[0].Resources, nil))

	clock.Advance(time.Minute)
	third := a.AllocateAll()
	require.Len(t, third.Offers, 1)
	require.Equal(t, "framework2", third.Offers[0].FrameworkID, "the filter is gone after that batch")
}

// Case 7, Mesos's AddAgentWithUnknownFrameworkAndMaintenance: what an
// agent reports in use by a framework not added yet is not offered, and
// no inverse offer goes to a framework that holds nothing there.
func TestLivenessAgentWithUnknownFrameworkAndMaintenance(t *testing.T) {
	clock := allocator.NewManualClock(livenessStart)
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	total := res("cpus:2;mem:1024")
	require.NoError(t, a.AddAgent("agent1", allocator.AgentInfo{Unavailability: &offer.Unavailability{Start: livenessStart.Add(365 * 24 * time.Hour)}},
		total, map[string]resources.Resources{"unknown": total.Allocate("role")}))
	require.NoError(t, a.AddFramework("framework", allocator.FrameworkInfo{Roles: []string{"role"}}, nil, allocator.Active))
	require.NoError(t, a.AddAgent("agent2", allocator.AgentInfo{}, total, nil))
	first := a.Allocate()
	require.Len(t, first.Offers, 1, "agent1 is in use by the unknown framework: %v", first.Offers)
	require.Equal(t, "agent2", first.Offers[0].AgentID)
	require.Empty(t, first.InverseOffers)
	v, _ := a.Agent("agent1")
	require.True(t, v.Available.IsEmpty(), "agent1's resources are in use: available %s", v.Available)

	require.NoError(t, a.UpdateUnavailability("agent2", &offer.Unavailability{Start: clock.Now().Add(time.Minute)}))
	second := a.Allocate()
	require.Len(t, second.InverseOffers, 1)
	require.Equal(t, "framework", second.InverseOffers[0].FrameworkID)
	require.Equal(t, "agent2", second.InverseOffers[0].AgentID)
}
