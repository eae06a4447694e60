package allocator_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// reclaimCluster is a cluster full of a batch role's tasks: agents of
// cpus:4;mem:4096, each running four tasks of cpus:1;mem:1024 of the
// framework spark, launched agent by agent (a1's first: the youngest run
// on the last agent). A web framework subscribes to web, with no quota
// yet.
type reclaimCluster struct {
	t     *testing.T
	a     *allocator.Allocator
	clock *allocator.ManualClock
}

func newReclaimCluster(t *testing.T, mode allocator.Reclaim, agents int) *reclaimCluster {
	t.Helper()
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: mode})
	require.NoError(t, err)
	c := &reclaimCluster{t: t, a: a, clock: clock}
	for i := range agents {
		require.NoError(t, a.AddAgent(fmt.Sprintf("a%d", i+1), allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil))
	}
	require.NoError(t, a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active))
	res := a.AllocateAll()
	require.Len(t, res.Offers, agents)
	slices.SortFunc(res.Offers, func(x, y offer.Offer) int { return compareAgents(x.AgentID, y.AgentID) })
	n := 0
	for _, o := range res.Offers {
		var tasks []offer.Task
		for range 4 {
			n++
			tasks = append(tasks, offer.Task{ID: fmt.Sprintf("t%02d", n), Resources: resources.MustParse("cpus:1;mem:1024", "*").Allocate("batch")})
		}
		require.NoError(t, a.Accept("spark", o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil))
	}
	require.NoError(t, a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	return c
}

// compareAgents orders a1, a2, ..., a10 by number.
func compareAgents(x, y string) int {
	var i, j int
	fmt.Sscanf(x, "a%d", &i)
	fmt.Sscanf(y, "a%d", &j)
	return i - j
}

func (c *reclaimCluster) run() allocator.Result {
	c.t.Helper()
	c.clock.Advance(time.Second)
	res := c.a.AllocateAll()
	require.NoError(c.t, c.a.CheckInvariants())
	return res
}

func taskIDs(ps []allocator.Preemption) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.FrameworkID+"/"+p.TaskID)
	}
	return out
}

// A role with a guarantee arrives on a full cluster: the run chooses the
// fewest, youngest tasks whose end meets it; once they end, what they free
// is offered to the role's framework at the next run.
func TestReclaimMeetsAGuarantee(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	res := c.run()
	require.Empty(t, res.Offers)
	require.Equal(t, []string{"spark/t12", "spark/t11", "spark/t10"}, taskIDs(res.Preemptions))
	for _, p := range res.Preemptions {
		require.Equal(t, "web", p.For)
		require.Equal(t, "nginx", p.ForFramework)
		require.Equal(t, "batch", p.Role)
		require.Equal(t, "a3", p.AgentID)
		require.Equal(t, allocator.PreemptForGuarantee, p.Reason)
		require.Equal(t, "cpus:1; mem:1024", p.Frees.String())
	}
	first := res.Preemptions[0]
	require.InDelta(t, 0.0, first.ForShare[0], 1e-9)
	require.InDelta(t, 1.0/12, first.ForShare[1], 1e-9)
	require.InDelta(t, 1.0, first.RoleShare[0], 1e-9)
	require.InDelta(t, 11.0/12, first.RoleShare[1], 1e-9)

	// Chosen and not ended: the next run chooses nothing more.
	res = c.run()
	require.Empty(t, res.Preemptions)

	for _, id := range []string{"t10", "t11", "t12"} {
		require.NoError(t, c.a.EndTask("spark", id))
	}
	res = c.run()
	require.Empty(t, res.Preemptions)
	require.Len(t, res.Offers, 1)
	o := res.Offers[0]
	require.Equal(t, "nginx", o.FrameworkID)
	require.Equal(t, "a3", o.AgentID)
	require.Equal(t, "cpus(allocated: web):3; mem(allocated: web):3072", o.Resources.String())
	web, _ := c.a.Role("web")
	require.True(t, web.Consumed.Contains(resources.MustParseQuantities("cpus:3;mem:3072")), "web consumes %s", web.Consumed)
}

// Without Options.Reclaim, a role below its guarantee on a full cluster
// waits, as in Mesos.
func TestReclaimOffByDefault(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimOff, 3)
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	for range 3 {
		res := c.run()
		require.Empty(t, res.Preemptions)
		require.Empty(t, res.Offers)
	}
}

// No task is chosen if its end would take its role below its own
// guarantee: batch keeps cpus:10 of its 12.
func TestReclaimKeepsTheVictimsGuarantee(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	require.NoError(t, c.a.UpdateQuota("batch", allocator.MustParseQuota("cpus:10")))
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	res := c.run()
	require.Equal(t, []string{"spark/t12", "spark/t11"}, taskIDs(res.Preemptions))
}

// Free resources come first: no task is chosen for what the pool can give.
func TestReclaimOnlyWhatThePoolCannotGive(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	require.NoError(t, c.a.AddAgent("a4", allocator.AgentInfo{}, resources.MustParse("cpus:2;mem:2048", "*"), nil))
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	res := c.run()
	require.Len(t, res.Offers, 1, "a4 goes to web")
	require.Equal(t, []string{"spark/t12"}, taskIDs(res.Preemptions), "one task for the rest of the guarantee")
}

// A role at its guarantee gets nothing ended for it, and a chosen task
// that does not end in time lapses: a later run may choose again.
func TestReclaimLapses(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 2)
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:1;mem:1024")))
	res := c.run()
	require.Equal(t, []string{"spark/t08"}, taskIDs(res.Preemptions))
	for range 9 {
		require.Empty(t, c.run().Preemptions)
	}
	c.clock.Advance(10 * time.Second)
	res = c.run()
	require.Equal(t, []string{"spark/t08"}, taskIDs(res.Preemptions), "the choice lapsed and is made again")
}

// Fair-share reclaim between two equal roles: the one with nothing gets
// a task every other run (the run after an end offers it what the end
// freed), and none once the shares are equal.
func TestReclaimFairShare(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimFairShare, 2)
	var ended []string
	for run := range 10 {
		res := c.run()
		for _, p := range res.Preemptions {
			require.Equal(t, allocator.PreemptForFairShare, p.Reason)
			require.LessOrEqual(t, p.ForShare[1], p.RoleShare[1]+1e-9)
			require.NoError(t, c.a.EndTask(p.FrameworkID, p.TaskID), "run %d", run)
			ended = append(ended, p.TaskID)
		}
		for _, o := range res.Offers {
			if o.FrameworkID != "nginx" {
				require.NoError(t, c.a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil))
				continue
			}
			task := offer.Task{ID: fmt.Sprintf("w%d-%s", run, o.AgentID), Resources: o.Resources}
			require.NoError(t, c.a.Accept("nginx", o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}, nil))
		}
	}
	require.Len(t, ended, 4, "ended %v", ended)
	web, _ := c.a.Role("web")
	batch, _ := c.a.Role("batch")
	require.InDelta(t, 0.5, web.Share, 1e-9)
	require.InDelta(t, 0.5, batch.Share, 1e-9)
}

// Bad options are refused.
func TestReclaimOptions(t *testing.T) {
	_, err := allocator.New(allocator.Options{Reclaim: allocator.ReclaimFairShare + 1})
	require.ErrorIs(t, err, allocator.ErrInvalidOptions)
	_, err = allocator.New(allocator.Options{Reclaim: allocator.ReclaimGuarantees, ReclaimTimeout: -time.Second})
	require.ErrorIs(t, err, allocator.ErrInvalidOptions)
}

// Explain, the views and the observer report the preemptions.
func TestReclaimReported(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var reports []allocator.Report
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimGuarantees,
		Observer: allocator.ObserverFunc(func(r allocator.Report) { reports = append(reports, r) })})
	require.NoError(t, err)
	c := &reclaimCluster{t: t, a: a, clock: clock}
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil))
	require.NoError(t, a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active))
	o := a.AllocateAll().Offers[0]
	require.NoError(t, a.Accept("spark", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{
		{ID: "big", Resources: resources.MustParse("cpus:3;mem:3072", "*").Allocate("batch")},
		{ID: "small", Resources: resources.MustParse("cpus:1;mem:1024", "*").Allocate("batch")},
	}}}, nil))
	require.NoError(t, a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateQuota("web", allocator.MustParseQuota("cpus:2")))
	res := c.run()
	// The big task covers the need alone; the small one does not.
	require.Equal(t, []string{"spark/big"}, taskIDs(res.Preemptions))

	x, err := a.Explain("nginx")
	require.NoError(t, err)
	require.Len(t, x.Preemptions, 1)
	require.Contains(t, x.String(), "end task big of spark (batch) on a1 for web (guarantee): frees cpus:3; mem:3072; shares 0→0.75 and 1→0.25")
	x, err = a.ExplainRole("batch")
	require.NoError(t, err)
	require.Len(t, x.Preemptions, 1)
	x, err = a.Explain("spark")
	require.NoError(t, err)
	require.Len(t, x.Preemptions, 1)

	pending := a.Preempting()
	require.Len(t, pending, 1)
	require.Equal(t, "big", pending[0].TaskID)
	require.Equal(t, "nginx", pending[0].ForFramework)

	last := reports[len(reports)-1]
	require.NotNil(t, last.Run)
	require.Equal(t, 1, last.Run.Preemptions)
	var from, forWeb uint64
	for _, m := range last.Roles {
		switch m.Role {
		case "batch":
			from = m.PreemptedFrom
		case "web":
			forWeb = m.PreemptedFor
		}
	}
	require.Equal(t, uint64(1), from)
	require.Equal(t, uint64(1), forWeb)

	require.NoError(t, a.EndTask("spark", "big"))
	require.Empty(t, a.Preempting())
	res = c.run()
	require.Len(t, res.Offers, 1)
	require.Equal(t, "nginx", res.Offers[0].FrameworkID)
}

// A restored allocator chooses the same tasks as the one it was saved
// from.
func TestReclaimAfterRestore(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	data, err := c.a.Snapshot()
	require.NoError(t, err)
	restored, err := allocator.Restore(data, allocator.RestoreOptions{Clock: c.clock.Now})
	require.NoError(t, err)
	want := c.run()
	got := restored.AllocateAll()
	require.Equal(t, taskIDs(want.Preemptions), taskIDs(got.Preemptions))
	require.NotEmpty(t, got.Preemptions)
}

// Tasks on their role's reservations free nothing a guarantee counts, and
// are never chosen.
func TestReclaimLeavesReservedTasks(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimGuarantees})
	require.NoError(t, err)
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "batch"), nil))
	require.NoError(t, a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active))
	o := a.AllocateAll().Offers[0]
	require.NoError(t, a.Accept("spark", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "t1", Resources: o.Resources}}}}, nil))
	require.NoError(t, a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateQuota("web", allocator.MustParseQuota("cpus:1")))
	clock.Advance(time.Second)
	require.Empty(t, a.AllocateAll().Preemptions)
}

// A guarantee on a role whose frameworks are in its sub-roles: what the
// chosen tasks free is held for the first framework found below it, in
// its own role, and counts towards the guarantee there.
func TestReclaimForAParentRole(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 2)
	require.NoError(t, c.a.AddFramework("team-api", allocator.FrameworkInfo{Roles: []string{"tenant/api"}}, nil, allocator.Active))
	require.NoError(t, c.a.UpdateQuota("tenant", allocator.MustParseQuota("cpus:2;mem:2048")))
	res := c.run()
	require.Equal(t, []string{"spark/t08", "spark/t07"}, taskIDs(res.Preemptions))
	for _, p := range res.Preemptions {
		require.Equal(t, "tenant", p.For)
		require.Equal(t, "tenant/api", p.HeldIn)
		require.Equal(t, "team-api", p.ForFramework)
		require.NoError(t, c.a.EndTask(p.FrameworkID, p.TaskID))
	}
	res = c.run()
	require.Len(t, res.Offers, 1)
	require.Equal(t, "team-api", res.Offers[0].FrameworkID)
	require.Equal(t, "tenant/api", res.Offers[0].Role)
	tenant, _ := c.a.Role("tenant")
	require.True(t, tenant.Consumed.Contains(resources.MustParseQuantities("cpus:2;mem:2048")), "tenant consumes %s", tenant.Consumed)
}
