package allocator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// starvingCluster is Mesos's offer starvation behind declines: one agent
// cpus:4;mem:256; framework user (role u) runs a task of cpus:1;mem:256
// and wants more cpus; decliners frameworks, each in a role of its own,
// decline every offer with filter (nil: no filter). It returns the
// allocator and the run that launched user's task.
func starvingCluster(t *testing.T, opts allocator.Options, decliners int) (*allocator.Allocator, *allocator.ManualClock) {
	t.Helper()
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	opts.Clock = clock.Now
	a, err := allocator.New(opts)
	require.NoError(t, err)
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:256", "*"), nil))
	require.NoError(t, a.AddFramework("user", allocator.FrameworkInfo{Roles: []string{"u"}}, nil, allocator.Active))
	res := a.AllocateAll()
	require.Len(t, res.Offers, 1)
	o := res.Offers[0]
	task := offer.Task{ID: "t1", Resources: resources.MustParse("cpus:1;mem:256", "*").Allocate("u")}
	require.NoError(t, a.Accept("user", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}, nil))
	for i := range decliners {
		id := fmt.Sprintf("d%d", i)
		require.NoError(t, a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{"r" + id}}, nil, allocator.Active))
	}
	return a, clock
}

// runStarving makes runs of the starving cluster every second, the
// decliners declining with filter, and returns the runs (1-based) in
// which user was offered the leftover, up to runs.
func runStarving(t *testing.T, a *allocator.Allocator, clock *allocator.ManualClock, filter *allocator.Filter, runs int) []int {
	t.Helper()
	var offered []int
	for run := 1; run <= runs; run++ {
		clock.Advance(time.Second)
		for _, o := range a.AllocateAll().Offers {
			if o.FrameworkID == "user" {
				offered = append(offered, run)
				// user gives the offer back unused here, so that the
				// leftover stays the same from run to run.
				require.NoError(t, a.RecoverResources("user", "a1", o.Resources, nil))
				continue
			}
			require.NoError(t, a.RecoverResources(o.FrameworkID, "a1", o.Resources, filter))
		}
	}
	return offered
}

// With five decliners and 5 s filters, one of them is always unfiltered:
// in Mesos's order user is never offered the leftover; with the rotation
// it is offered it at least once every six runs (six frameworks may be
// offered the agent).
func TestRotationEndsOfferStarvation(t *testing.T) {
	filter := &allocator.Filter{Refuse: 5 * time.Second}
	a, clock := starvingCluster(t, allocator.Options{Seed: 1, MesosOfferOrder: true}, 5)
	require.Empty(t, runStarving(t, a, clock, filter, 2000), "Mesos's order starves user")

	a, clock = starvingCluster(t, allocator.Options{Seed: 1}, 5)
	offered := runStarving(t, a, clock, filter, 60)
	require.NotEmpty(t, offered)
	require.LessOrEqual(t, offered[0], 6)
	for i := 1; i < len(offered); i++ {
		require.LessOrEqual(t, offered[i]-offered[i-1], 6, "runs %v", offered)
	}
}

// Declines without any filter starve user behind a single decliner in
// Mesos's order; the rotation offers it the leftover every other run.
func TestRotationWithoutFilters(t *testing.T) {
	a, clock := starvingCluster(t, allocator.Options{Seed: 1, MesosOfferOrder: true}, 1)
	require.Empty(t, runStarving(t, a, clock, nil, 200))

	a, clock = starvingCluster(t, allocator.Options{Seed: 1}, 1)
	offered := runStarving(t, a, clock, nil, 20)
	require.Len(t, offered, 10, "runs %v", offered)
}

// Explain names the rotation that holds a decliner back.
func TestExplainNamesTheRotation(t *testing.T) {
	a, clock := starvingCluster(t, allocator.Options{Seed: 1}, 1)
	runStarving(t, a, clock, nil, 1) // d0 declines
	clock.Advance(time.Second)
	res := a.AllocateAll()
	require.Len(t, res.Offers, 1)
	require.Equal(t, "user", res.Offers[0].FrameworkID)
	require.Equal(t, 1, res.Stats.Skips[allocator.ReasonDeclined])
	ex, err := a.Explain("d0")
	require.NoError(t, err)
	require.Len(t, ex.Roles, 1)
	require.Equal(t, allocator.ReasonDeclined, ex.Roles[0].Reason)
}

// The round after declines ends once a run has walked the agent and
// something is left, whichever of the agent's walks held the decliner back:
// here the walks after offers sized to another framework's tasks skip the
// decliner's role, whose tasks no longer fit, and the decliner is then
// passed over for what it waits for, not for its decline. (The round once
// ended only when the agent's last walk held somebody back, and Explain
// kept "declined".)
func TestRoundEndsWhateverWalkHeldTheDeclinerBack(t *testing.T) {
	a, err := allocator.New(allocator.Options{Seed: 3})
	require.NoError(t, err)
	require.NoError(t, a.AddAgent("a3", allocator.AgentInfo{}, resources.MustParse("cpus:16;mem:4096", "*"), nil))
	require.NoError(t, a.AddFramework("f5", allocator.FrameworkInfo{Roles: []string{"a"}}, nil, allocator.Active))
	offers := a.AllocateAll().Offers
	require.Len(t, offers, 1)
	require.NoError(t, a.RecoverResources("f5", "a3", offers[0].Resources, &allocator.Filter{}))
	require.NoError(t, a.AddFramework("f3", allocator.FrameworkInfo{Roles: []string{"b"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateDemand("f3", "b", []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:2;mem:1024"), Count: 5}}))
	require.NoError(t, a.UpdateDemand("f5", "a", []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:0.5;mem:512"), Count: 1}}))

	offers = a.AllocateAll().Offers
	require.Len(t, offers, 1)
	require.Equal(t, "f3", offers[0].FrameworkID)
	require.True(t, offers[0].Resources.Quantities().Equal(resources.MustParseQuantities("cpus:8;mem:4096")), "%v", offers[0].Resources)
	x, err := a.Explain("f5")
	require.NoError(t, err)
	require.Len(t, x.Roles, 1)
	require.Equal(t, allocator.ReasonNoFit, x.Roles[0].Reason, "%s", x.Describe())
	require.NoError(t, a.CheckInvariants())
}
