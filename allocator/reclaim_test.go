package allocator_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// reclaimCluster is a cluster full of a batch role's tasks: agents of
// cpus:4;mem:4096, each running four tasks of cpus:1;mem:1024 of the
// framework spark, launched agent by agent (a1's first: the youngest run
// on the last agent). A web framework subscribes to web, with no quota
// and no demand yet.
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

// demand states that framework fw waits for n tasks of q in role.
func (c *reclaimCluster) demand(fw, role, q string, n int) {
	c.t.Helper()
	require.NoError(c.t, c.a.UpdateDemand(fw, role, []allocator.Pending{{Resources: resources.MustParseQuantities(q), Count: n}}))
}

func taskIDs(ps []allocator.Preemption) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.FrameworkID+"/"+p.TaskID)
	}
	return out
}

// A role with a guarantee arrives on a full cluster, its framework
// waiting for five tasks of cpus:1;mem:1024: the run makes room for as
// many as the guarantee lacks, three, each with one victim, the youngest
// task not chosen yet (all free exactly what is missing). Once they end,
// what they free is offered to the role's framework at the next run.
func TestReclaimMeetsAGuarantee(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	c.demand("nginx", "web", "cpus:1;mem:1024", 5)
	res := c.run()
	require.Empty(t, res.Offers)
	require.Empty(t, res.Withdrawn)
	require.Equal(t, []string{"spark/t12", "spark/t11", "spark/t10"}, taskIDs(res.Preemptions))
	for _, p := range res.Preemptions {
		require.Equal(t, "web", p.For)
		require.Equal(t, "nginx", p.ForFramework)
		require.Equal(t, "web", p.HeldIn)
		require.Equal(t, "batch", p.Role)
		require.Equal(t, "a3", p.AgentID)
		require.Equal(t, allocator.PreemptForGuarantee, p.Reason)
		require.Equal(t, "cpus:1; mem:1024", p.Frees.String())
		require.Equal(t, "cpus:1; mem:1024", p.ForTask.String())
	}
	// Each room moves one task of the twelve CPUs: the run's earlier
	// choices count as done.
	for i, p := range res.Preemptions {
		require.InDelta(t, float64(i)/12, p.ForShare[0], 1e-9)
		require.InDelta(t, float64(i+1)/12, p.ForShare[1], 1e-9)
		require.InDelta(t, float64(12-i)/12, p.RoleShare[0], 1e-9)
		require.InDelta(t, float64(11-i)/12, p.RoleShare[1], 1e-9)
	}
	require.Equal(t, []string{"spark/t10", "spark/t11", "spark/t12"}, taskIDs(c.a.Preempting()))

	// Chosen and not ended: the next run chooses nothing more, and the
	// statement is untouched (nothing was offered).
	res = c.run()
	require.Empty(t, res.Preemptions)
	require.Empty(t, res.Withdrawn)
	d, err := c.a.Demand("nginx")
	require.NoError(t, err)
	require.Equal(t, 5, d["web"][0].Count)

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
	// The guarantee is met: the two tasks still pending wait.
	require.Empty(t, c.run().Preemptions)
}

// Without Options.Reclaim, a role below its guarantee on a full cluster
// waits, as in Mesos, whatever it states it waits for.
func TestReclaimOffByDefault(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimOff, 3)
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	c.demand("nginx", "web", "cpus:1;mem:1024", 3)
	for range 3 {
		res := c.run()
		require.Empty(t, res.Preemptions)
		require.Empty(t, res.Offers)
	}
}

// No reclaim without stated demand: a role below its guarantee on a full
// cluster whose framework states nothing, or a statement of nothing, or
// tasks that fit what is free, gets nothing ended for it, in either mode.
func TestReclaimNeedsDemand(t *testing.T) {
	for _, mode := range []allocator.Reclaim{allocator.ReclaimGuarantees, allocator.ReclaimFairShare} {
		t.Run(mode.String(), func(t *testing.T) {
			c := newReclaimCluster(t, mode, 3)
			require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
			for range 3 {
				res := c.run()
				require.Empty(t, res.Preemptions, "no demand stated")
				require.Empty(t, res.Offers)
			}
			require.NoError(t, c.a.UpdateDemand("nginx", "web", nil))
			for range 3 {
				require.Empty(t, c.run().Preemptions, "a statement of nothing")
			}
			// Another role's framework states demand: still nothing for web.
			require.NoError(t, c.a.UpdateDemand("spark", "batch", []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:1"), Count: 2}}))
			require.Empty(t, c.run().Preemptions, "demand of the role with everything")
			// A task that fits what is free waits for an offer: a4 has
			// room for it, and it is offered there.
			require.NoError(t, c.a.AddAgent("a4", allocator.AgentInfo{}, resources.MustParse("cpus:1;mem:1024", "*"), nil))
			require.NoError(t, c.a.UpdateDemand("spark", "batch", nil))
			c.demand("nginx", "web", "cpus:1;mem:1024", 1)
			res := c.run()
			require.Empty(t, res.Preemptions, "a task that fits a4")
			require.Len(t, res.Offers, 1)
			require.Equal(t, "a4", res.Offers[0].AgentID)
			require.Equal(t, "nginx", res.Offers[0].FrameworkID)
			// The offer used the statement up: nothing pends, nothing is
			// ended.
			require.Empty(t, c.run().Preemptions, "a statement used up")
		})
	}
}

// No task is chosen if its end would take its role below its own
// guarantee: batch keeps cpus:10 of its 12, so two of web's three rooms
// are made; a task that needs three victims gets none.
func TestReclaimKeepsTheVictimsGuarantee(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	require.NoError(t, c.a.UpdateQuota("batch", allocator.MustParseQuota("cpus:10")))
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	c.demand("nginx", "web", "cpus:1;mem:1024", 3)
	res := c.run()
	require.Equal(t, []string{"spark/t12", "spark/t11"}, taskIDs(res.Preemptions))
	// The choices pending count: the next run takes nothing more.
	require.Empty(t, c.run().Preemptions)

	c = newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	require.NoError(t, c.a.UpdateQuota("batch", allocator.MustParseQuota("cpus:10")))
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	c.demand("nginx", "web", "cpus:3;mem:3072", 1)
	require.Empty(t, c.run().Preemptions, "three victims would leave batch cpus:9")
}

// Free resources come first: a4's cpus:2;mem:2048 is offered to web for
// two of its three tasks, and one task is chosen for the third, which
// fits nowhere free.
func TestReclaimOnlyWhatThePoolCannotGive(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	require.NoError(t, c.a.AddAgent("a4", allocator.AgentInfo{}, resources.MustParse("cpus:2;mem:2048", "*"), nil))
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:3;mem:3072")))
	c.demand("nginx", "web", "cpus:1;mem:1024", 3)
	res := c.run()
	require.Len(t, res.Offers, 1, "a4 goes to web")
	require.Equal(t, "a4", res.Offers[0].AgentID)
	require.Equal(t, "cpus:2; mem:2048", res.Offers[0].Resources.Quantities().String())
	require.Equal(t, []string{"spark/t12"}, taskIDs(res.Preemptions), "one task for the third")
}

// A role at its guarantee gets nothing ended for it, and a chosen task
// that does not end in time lapses: a later run may choose again.
func TestReclaimLapses(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 2)
	require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:1;mem:1024")))
	c.demand("nginx", "web", "cpus:1;mem:1024", 1)
	res := c.run()
	require.Equal(t, []string{"spark/t08"}, taskIDs(res.Preemptions))
	for range 9 {
		res := c.run()
		require.Empty(t, res.Preemptions)
		require.Empty(t, res.Withdrawn)
	}
	c.clock.Advance(10 * time.Second)
	res = c.run()
	require.Empty(t, res.Withdrawn, "a lapsed choice is not withdrawn")
	require.Equal(t, []string{"spark/t08"}, taskIDs(res.Preemptions), "the choice lapsed and is made again")
}

// Fair-share reclaim between two equal roles: web waits for ten tasks of
// cpus:1;mem:1024 (its host states the ones not running before every
// run) and has nothing; it gets room for one every other run (the run
// after an end offers it what the end freed, and a role offered
// something, or chosen for in the run before, has nothing chosen for it),
// and none once the shares are equal: web's 4/8 would go to 5/8, above
// batch's 4/8.
func TestReclaimFairShare(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimFairShare, 2)
	var ended []string
	var endedIn []int
	running := 0
	for run := range 10 {
		c.demand("nginx", "web", "cpus:1;mem:1024", 10-running)
		res := c.run()
		for _, p := range res.Preemptions {
			require.Equal(t, allocator.PreemptForFairShare, p.Reason)
			require.LessOrEqual(t, p.ForShare[1], p.RoleShare[1]+1e-9)
			require.InDelta(t, p.ForShare[0]+1.0/8, p.ForShare[1], 1e-9)
			require.InDelta(t, p.RoleShare[0]-1.0/8, p.RoleShare[1], 1e-9)
			require.NoError(t, c.a.EndTask(p.FrameworkID, p.TaskID), "run %d", run)
			ended = append(ended, p.TaskID)
			endedIn = append(endedIn, run)
		}
		for _, o := range res.Offers {
			require.Equal(t, "nginx", o.FrameworkID)
			require.Equal(t, "cpus:1; mem:1024", o.Resources.Quantities().String())
			task := offer.Task{ID: fmt.Sprintf("w%d-%s", run, o.AgentID), Resources: o.Resources}
			require.NoError(t, c.a.Accept("nginx", o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}, nil))
			running++
		}
	}
	require.Equal(t, []string{"t08", "t07", "t06", "t05"}, ended)
	require.Equal(t, []int{0, 2, 4, 6}, endedIn)
	require.Equal(t, 4, running)
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
	c.demand("nginx", "web", "cpus:2;mem:2048", 1)
	res := c.run()
	// The big task makes room alone; the small one does not. The shares
	// move by the pending task (web: 0 to cpus 2/4) and by what the big
	// task frees (batch: 1 to cpus 1/4).
	require.Equal(t, []string{"spark/big"}, taskIDs(res.Preemptions))

	x, err := a.Explain("nginx")
	require.NoError(t, err)
	require.Len(t, x.Preemptions, 1)
	require.Contains(t, x.String(), "end task big of spark (batch) on a1 for web (guarantee): frees cpus:3; mem:3072; shares 0→0.5 and 1→0.25")
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
	require.Equal(t, "cpus:2; mem:2048", pending[0].ForTask.String())

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

	// Its end holds the room (cpus:2;mem:2048, within web's limit of
	// cpus:2) for nginx; the rest goes back to the pool.
	require.NoError(t, a.EndTask("spark", "big"))
	require.Empty(t, a.Preempting())
	v, _ := a.Agent("a1")
	require.Equal(t, "cpus:2; mem:2048", v.Held["nginx"].Quantities().String())
	require.Equal(t, "cpus:1; mem:1024", v.Available.Quantities().String())
	// The next run offers nginx its hold, and spark (without demand, as
	// in Mesos) what went back to the pool.
	res = c.run()
	require.Len(t, res.Offers, 2)
	offers := map[string]string{}
	for _, o := range res.Offers {
		offers[o.FrameworkID] = o.AgentID + " " + o.Resources.String()
	}
	require.Equal(t, map[string]string{
		"nginx": "a1 cpus(allocated: web):2; mem(allocated: web):2048",
		"spark": "a1 cpus(allocated: batch):1; mem(allocated: batch):1024",
	}, offers)
}

// A restored allocator chooses the same tasks as the one it was saved
// from, its statements of demand included.
func TestReclaimAfterRestore(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	// A guarantee without a limit: both tasks can be held.
	require.NoError(t, c.a.UpdateQuota("web", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:3;mem:3072")}))
	c.demand("nginx", "web", "cpus:2;mem:2048", 2)
	data, err := c.a.Snapshot()
	require.NoError(t, err)
	restored, err := allocator.Restore(data, allocator.RestoreOptions{Clock: c.clock.Now})
	require.NoError(t, err)
	want := c.run()
	got := restored.AllocateAll()
	// Two rooms of two victims each, both on a3 (the youngest pairs): the
	// guarantee still lacks cpus:1;mem:1024 after the first.
	require.Equal(t, []string{"spark/t12", "spark/t11", "spark/t10", "spark/t09"}, taskIDs(want.Preemptions))
	require.Equal(t, taskIDs(want.Preemptions), taskIDs(got.Preemptions))

	// And after a restore with choices pending, the same withdrawals.
	data, err = c.a.Snapshot()
	require.NoError(t, err)
	restored, err = allocator.Restore(data, allocator.RestoreOptions{Clock: c.clock.Now})
	require.NoError(t, err)
	for _, a := range []*allocator.Allocator{c.a, restored} {
		require.NoError(t, a.UpdateDemand("nginx", "web", []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:2;mem:2048"), Count: 1}}))
	}
	want = c.run()
	got = restored.AllocateAll()
	// The statement now holds one task: the second room is withdrawn.
	require.Equal(t, []string{"spark/t09", "spark/t10"}, taskIDs(want.Withdrawn))
	require.Empty(t, want.Preemptions)
	require.Equal(t, taskIDs(want.Withdrawn), taskIDs(got.Withdrawn))
	require.Equal(t, taskIDs(c.a.Preempting()), taskIDs(restored.Preempting()))
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
	require.NoError(t, a.UpdateDemand("nginx", "web", []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:1"), Count: 1}}))
	clock.Advance(time.Second)
	require.Empty(t, a.AllocateAll().Preemptions)
}

// A guarantee on a role whose frameworks are in its sub-roles: room is
// made for the pending task of a framework below it, in that framework's
// own role, where what the victims free is held, and counts towards the
// guarantee there. One task of cpus:2;mem:2048 takes two victims on a2;
// its room is split between them, youngest first.
func TestReclaimForAParentRole(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 2)
	require.NoError(t, c.a.AddFramework("team-api", allocator.FrameworkInfo{Roles: []string{"tenant/api"}}, nil, allocator.Active))
	require.NoError(t, c.a.UpdateQuota("tenant", allocator.MustParseQuota("cpus:2;mem:2048")))
	c.demand("team-api", "tenant/api", "cpus:2;mem:2048", 1)
	res := c.run()
	require.Equal(t, []string{"spark/t08", "spark/t07"}, taskIDs(res.Preemptions))
	for _, p := range res.Preemptions {
		require.Equal(t, "tenant", p.For)
		require.Equal(t, "tenant/api", p.HeldIn)
		require.Equal(t, "team-api", p.ForFramework)
		require.Equal(t, "cpus:2; mem:2048", p.ForTask.String())
		require.Equal(t, "a2", p.AgentID)
		require.NoError(t, c.a.EndTask(p.FrameworkID, p.TaskID))
	}
	res = c.run()
	require.Len(t, res.Offers, 1)
	require.Equal(t, "team-api", res.Offers[0].FrameworkID)
	require.Equal(t, "tenant/api", res.Offers[0].Role)
	require.Equal(t, "cpus:2; mem:2048", res.Offers[0].Resources.Quantities().String())
	tenant, _ := c.a.Role("tenant")
	require.True(t, tenant.Consumed.Contains(resources.MustParseQuantities("cpus:2;mem:2048")), "tenant consumes %s", tenant.Consumed)
}

// stormHost is a host of frameworks that each want more tasks of one
// size than the cluster can run: before every run it states again what
// each waits for, and after it ends the tasks chosen and launches, on
// every offer, as many pending tasks as fit, giving back the rest.
type stormHost struct {
	t     *testing.T
	a     *allocator.Allocator
	clock *allocator.ManualClock
	// want is the task each framework's host waits to run, in role roles.
	want  map[string]resources.Quantities
	roles map[string]string
	ids   int
	// ended counts the tasks ended for others, by run.
	ended []int
}

const stormWants = 8

func (h *stormHost) run() allocator.Result {
	h.t.Helper()
	for _, fw := range slices.Sorted(maps.Keys(h.want)) {
		require.NoError(h.t, h.a.UpdateDemand(fw, h.roles[fw], []allocator.Pending{{Resources: h.want[fw], Count: stormWants}}))
	}
	h.clock.Advance(time.Second)
	res := h.a.AllocateAll()
	require.NoError(h.t, h.a.CheckInvariants())
	for _, p := range res.Preemptions {
		require.NoError(h.t, h.a.EndTask(p.FrameworkID, p.TaskID))
	}
	h.ended = append(h.ended, len(res.Preemptions))
	for _, o := range res.Offers {
		var tasks []offer.Task
		left := o.Resources.Quantities()
		for q := h.want[o.FrameworkID]; !q.IsEmpty() && left.Contains(q); left.Subtract(q) {
			h.ids++
			tasks = append(tasks, offer.Task{ID: fmt.Sprintf("%s-%d", o.FrameworkID, h.ids), Resources: resources.MustParse(q.String(), "*").Allocate(o.Role)})
		}
		if len(tasks) == 0 {
			require.NoError(h.t, h.a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil))
			continue
		}
		require.NoError(h.t, h.a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil))
	}
	require.NoError(h.t, h.a.CheckInvariants())
	return res
}

// The storm of the design before this one: one agent of cpus:4;mem:8192,
// role a running two tasks of cpus:2;mem:2048 and waiting for nothing, b
// waiting for tasks of cpus:1;mem:1024 and c for tasks of
// cpus:0.5;mem:2048, fair-share reclaim, 200 runs and no other event.
// Freeing aggregates ended tasks whose resources went to a role that
// could not use them, were declined, and were taken back, run after run.
//
// By the rules, run by run:
//
//   - run 1: what is free (mem:4096) fits no task. Fair share, in path
//     order: b (share 0, 1/4 with its task) lacks cpus:1 on the agent;
//     one task of a frees it, and a (at 1) stays at 1/2, above b's 1/4:
//     a-2, the younger. c (0, 1/4 with its task) lacks cpus:0.5: a's
//     other task would take a from 1/2 (counting this run's choice) to 0,
//     below 1/4: nothing. The host ends a-2: its room, cpus:1, is held
//     for b; cpus:1;mem:2048 goes back to the pool (cpus:1;mem:6144 free).
//   - run 2: b is offered its hold, and with the pool's mem, room for one
//     task; c (share 0 first) two tasks of the pool's. b is at 1/4, c and
//     a at 1/2.
//   - from run 3 on: b's next task (to 1/2) could only take from a or c,
//     each of which would go below 1/2; c (1/2) is not below anyone. No
//     task is ended again, and what is free (mem:1024) fits no task.
//
// One task ended in 200 runs, in run 1.
func TestReclaimNoStorm(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimFairShare})
	require.NoError(t, err)
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:8192", "*"), nil))
	require.NoError(t, a.AddFramework("fa", allocator.FrameworkInfo{Roles: []string{"a"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateDemand("fa", "a", []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:2;mem:2048"), Count: 2}}))
	clock.Advance(time.Second)
	res := a.AllocateAll()
	require.Len(t, res.Offers, 1)
	o := res.Offers[0]
	require.Equal(t, "cpus:4; mem:4096", o.Resources.Quantities().String(), "sized to fa's two tasks")
	task := resources.MustParse("cpus:2;mem:2048", "*").Allocate("a")
	require.NoError(t, a.Accept("fa", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "a-1", Resources: task}, {ID: "a-2", Resources: task}}}}, nil))
	require.NoError(t, a.UpdateDemand("fa", "a", nil))
	for _, fw := range []string{"fb", "fc"} {
		require.NoError(t, a.AddFramework(fw, allocator.FrameworkInfo{Roles: []string{fw[1:]}}, nil, allocator.Active))
	}
	h := &stormHost{t: t, a: a, clock: clock,
		want:  map[string]resources.Quantities{"fb": resources.MustParseQuantities("cpus:1;mem:1024"), "fc": resources.MustParseQuantities("cpus:0.5;mem:2048")},
		roles: map[string]string{"fb": "b", "fc": "c"}}
	var chosen []string
	for run := 1; run <= 200; run++ {
		res := h.run()
		chosen = append(chosen, taskIDs(res.Preemptions)...)
		if run == 2 {
			// The hold joined by what the pool has for b's task.
			assert.Len(t, a.Tasks("fb"), 1, "run 2: b runs a task on its hold; offers %v", res.Offers)
			assert.Len(t, a.Tasks("fc"), 2, "run 2: c runs two tasks")
		}
	}
	total, last := 0, 0
	for i, n := range h.ended {
		total += n
		if n > 0 {
			last = i + 1
		}
	}
	t.Logf("%d tasks ended, the last in run %d", total, last)
	require.Equal(t, "fa/a-2", chosen[0])
	require.Equal(t, 1, total, "tasks ended, the first ones %v", chosen[:min(len(chosen), 6)])
	require.Equal(t, 1, last, "the run of the last end")
}

// fillAgent adds agent id with total res and launches on it, for framework
// fw in role (added if new), tasks of the given quantities, in order (the
// last is the youngest).
func fillAgent(t *testing.T, a *allocator.Allocator, clock *allocator.ManualClock, id, total, fw, role string, prefix string, tasks ...string) {
	t.Helper()
	require.NoError(t, a.AddAgent(id, allocator.AgentInfo{}, resources.MustParse(total, "*"), nil))
	if _, err := a.Demand(fw); err != nil {
		require.NoError(t, a.AddFramework(fw, allocator.FrameworkInfo{Roles: []string{role}}, nil, allocator.Active))
	}
	require.NoError(t, a.ReviveOffers(fw))
	clock.Advance(time.Second)
	var o *offer.Offer
	for _, x := range a.AllocateAll().Offers {
		if x.FrameworkID == fw && x.AgentID == id {
			o = &x
			continue
		}
		require.NoError(t, a.RecoverResources(x.FrameworkID, x.AgentID, x.Resources, nil))
	}
	require.NotNil(t, o, "no offer of %s to %s", id, fw)
	var launch []offer.Task
	for i, q := range tasks {
		launch = append(launch, offer.Task{ID: fmt.Sprintf("%s%d", prefix, i+1), Resources: resources.MustParse(q, "*").Allocate(role)})
	}
	require.NoError(t, a.Accept(fw, id, o.Resources, []offer.Operation{offer.Launch{Tasks: launch}}, nil))
	require.NoError(t, a.SuppressOffers(fw))
}

// A victim's role is not taken below its guarantee by this run's choices
// nor by the ones pending from earlier runs. a1 runs batch's four tasks
// of cpus:1;mem:1024 (b1 to b4), a2 keep's four (k1 to k4, the youngest);
// keep is guaranteed cpus:2. web and api are guaranteed cpus:2;mem:2048
// each and wait for tasks of cpus:1;mem:1024.
//
//   - run 1: only web states demand: two rooms, the youngest tasks, k4
//     and k3 (keep goes to cpus:2 counting them).
//   - run 2: api states demand too; keep's k2 would take it to cpus:1
//     counting the pending k4 and k3: api's rooms are b4 and b3.
//   - the host ends the chosen tasks after run 3; run 4 offers web and
//     api what they freed, and nothing more is chosen.
//
// At every run keep's consumption less what its chosen tasks free stays
// at cpus:2 or more.
func TestReclaimKeepsAGuaranteeAcrossRuns(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimGuarantees})
	require.NoError(t, err)
	task := "cpus:1;mem:1024"
	fillAgent(t, a, clock, "a1", "cpus:4;mem:4096", "spark", "batch", "b", task, task, task, task)
	fillAgent(t, a, clock, "a2", "cpus:4;mem:4096", "keeper", "keep", "k", task, task, task, task)
	require.NoError(t, a.UpdateQuota("keep", allocator.MustParseQuota("cpus:2")))
	for _, role := range []string{"web", "api"} {
		require.NoError(t, a.AddFramework("fw-"+role, allocator.FrameworkInfo{Roles: []string{role}}, nil, allocator.Active))
		require.NoError(t, a.UpdateQuota(role, allocator.MustParseQuota("cpus:2;mem:2048")))
	}
	c := &reclaimCluster{t: t, a: a, clock: clock}
	keepLeft := func() float64 {
		v, _ := a.Role("keep")
		left := v.Consumed.Float64("cpus")
		for _, p := range a.Preempting() {
			if p.Role == "keep" {
				left -= p.Frees.Float64("cpus")
			}
		}
		return left
	}
	var chosen [][]string
	for run := 1; run <= 6; run++ {
		switch run {
		case 1:
			c.demand("fw-web", "web", task, 2)
		case 2:
			c.demand("fw-api", "api", task, 2)
		case 4:
			for _, p := range a.Preempting() {
				require.NoError(t, a.EndTask(p.FrameworkID, p.TaskID))
			}
		}
		res := c.run()
		chosen = append(chosen, taskIDs(res.Preemptions))
		require.GreaterOrEqual(t, keepLeft(), 2.0, "run %d", run)
		for _, o := range res.Offers {
			var launch []offer.Task
			for i := range int(o.Resources.Quantities().Float64("cpus")) {
				launch = append(launch, offer.Task{ID: fmt.Sprintf("%s-%d-%d", o.FrameworkID, run, i), Resources: resources.MustParse(task, "*").Allocate(o.Role)})
			}
			require.NoError(t, a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: launch}}, nil))
		}
	}
	require.Equal(t, [][]string{{"keeper/k4", "keeper/k3"}, {"spark/b4", "spark/b3"}, nil, nil, nil, nil}, chosen)
	for _, role := range []string{"keep", "web", "api"} {
		v, _ := a.Role(role)
		require.Equal(t, "cpus:2; mem:2048", v.Consumed.String(), role)
	}
}

// Nested guarantees are met together: team and team/x are each
// guaranteed cpus:4, the cluster is full of batch's tasks, and team/x's
// framework waits for six tasks of cpus:1;mem:1024. team/x's guarantee
// makes four rooms (t08 to t05, the youngest); they count for team too,
// whose guarantee then lacks nothing: four tasks chosen, not six (had
// team's guarantee not counted them, it would make room for the other
// two).
func TestReclaimNestedGuarantees(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 2)
	require.NoError(t, c.a.AddFramework("tx", allocator.FrameworkInfo{Roles: []string{"team/x"}}, nil, allocator.Active))
	require.NoError(t, c.a.UpdateQuota("team", allocator.MustParseQuota("cpus:4")))
	require.NoError(t, c.a.UpdateQuota("team/x", allocator.MustParseQuota("cpus:4")))
	c.demand("tx", "team/x", "cpus:1;mem:1024", 6)
	res := c.run()
	require.Equal(t, []string{"spark/t08", "spark/t07", "spark/t06", "spark/t05"}, taskIDs(res.Preemptions))
	for _, p := range res.Preemptions {
		require.Equal(t, "team/x", p.For)
		require.Equal(t, "team/x", p.HeldIn)
		require.Equal(t, "tx", p.ForFramework)
	}
	require.Empty(t, c.run().Preemptions)
}

// A guarantee on a parent does not shield its sub-roles from each other:
// team is guaranteed the whole cluster, all of it run by team/old; team/x,
// guaranteed cpus:2, waits for two tasks of cpus:1;mem:1024 and gets the
// youngest of team/old's (team loses nothing: the rooms give back what the
// victims take away).
func TestReclaimWithinAGuaranteedParent(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimGuarantees})
	require.NoError(t, err)
	task := "cpus:1;mem:1024"
	fillAgent(t, a, clock, "a1", "cpus:4;mem:4096", "old", "team/old", "o", task, task, task, task)
	fillAgent(t, a, clock, "a2", "cpus:4;mem:4096", "old", "team/old", "p", task, task, task, task)
	require.NoError(t, a.UpdateQuota("team", allocator.MustParseQuota("cpus:8;mem:8192")))
	require.NoError(t, a.AddFramework("tx", allocator.FrameworkInfo{Roles: []string{"team/x"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateQuota("team/x", allocator.MustParseQuota("cpus:2")))
	c := &reclaimCluster{t: t, a: a, clock: clock}
	c.demand("tx", "team/x", task, 2)
	res := c.run()
	require.Equal(t, []string{"old/p4", "old/p3"}, taskIDs(res.Preemptions))
	for _, p := range res.Preemptions {
		require.Equal(t, "team/old", p.Role)
		require.Equal(t, "team/x", p.For)
		require.NoError(t, a.EndTask(p.FrameworkID, p.TaskID))
	}
	res = c.run()
	require.Len(t, res.Offers, 1)
	require.Equal(t, "tx", res.Offers[0].FrameworkID)
	require.Equal(t, "cpus:2; mem:2048", res.Offers[0].Resources.Quantities().String())
	team, _ := a.Role("team")
	require.Equal(t, "cpus:8; mem:8192", team.Consumed.String())
}

// A choice whose need went is withdrawn: returned in Result.Withdrawn
// and gone from Preempting(); a host that ends the task anyway gives what
// it frees back to the pool, not to a hold. web is guaranteed
// cpus:1;mem:1024 and waits for one task of cpus:1;mem:1024, for which
// t12 is chosen.
func TestReclaimWithdraws(t *testing.T) {
	setup := func(t *testing.T) *reclaimCluster {
		c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
		require.NoError(t, c.a.UpdateQuota("web", allocator.MustParseQuota("cpus:1;mem:1024")))
		c.demand("nginx", "web", "cpus:1;mem:1024", 1)
		res := c.run()
		require.Equal(t, []string{"spark/t12"}, taskIDs(res.Preemptions))
		require.Equal(t, []string{"spark/t12"}, taskIDs(c.a.Preempting()))
		return c
	}
	withdrawn := func(t *testing.T, c *reclaimCluster, res allocator.Result) {
		t.Helper()
		require.Len(t, res.Withdrawn, 1)
		w := res.Withdrawn[0]
		require.Equal(t, "spark/t12", w.FrameworkID+"/"+w.TaskID)
		require.Equal(t, "a3", w.AgentID)
		require.Equal(t, "web", w.For)
		require.Equal(t, "nginx", w.ForFramework)
		require.Equal(t, "cpus:1; mem:1024", w.ForTask.String())
		require.Empty(t, res.Preemptions)
		require.Empty(t, c.a.Preempting())
		// Ended anyway, it holds nothing.
		require.NoError(t, c.a.EndTask("spark", "t12"))
		v, _ := c.a.Agent("a3")
		require.Empty(t, v.Held)
		require.Equal(t, "cpus:1; mem:1024", v.Available.Quantities().String())
		require.Empty(t, c.run().Withdrawn, "withdrawn once")
	}
	t.Run("an agent where the task fits", func(t *testing.T) {
		c := setup(t)
		require.NoError(t, c.a.AddAgent("a4", allocator.AgentInfo{}, resources.MustParse("cpus:1;mem:1024", "*"), nil))
		res := c.run()
		require.Len(t, res.Offers, 1)
		require.Equal(t, "a4", res.Offers[0].AgentID)
		require.Equal(t, "nginx", res.Offers[0].FrameworkID)
		withdrawn(t, c, res)
	})
	t.Run("an agent where the task fits, out of the framework's reach", func(t *testing.T) {
		// The framework's constraints keep it off a4: the choice stands.
		c := setup(t)
		require.NoError(t, c.a.UpdateFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"},
			Constraints: map[string]allocator.Constraints{"web": {{{Attribute: "rack", Op: allocator.OpNotEquals, Value: "r4"}}}}}))
		require.NoError(t, c.a.AddAgent("a4", allocator.AgentInfo{Attributes: map[string]string{"rack": "r4"}}, resources.MustParse("cpus:1;mem:1024", "*"), nil))
		res := c.run()
		require.Empty(t, res.Withdrawn)
		require.Empty(t, res.OffersTo("nginx"))
		require.Equal(t, []string{"spark/t12"}, taskIDs(c.a.Preempting()))
	})
	t.Run("demand stated again without the task", func(t *testing.T) {
		// A task of disk only: web's guarantee does not lack it.
		c := setup(t)
		c.demand("nginx", "web", "disk:100", 1)
		withdrawn(t, c, c.run())
	})
	t.Run("demand stated again for another task", func(t *testing.T) {
		// The room for the old task is withdrawn first; then the new
		// one, cpus:2;mem:512, takes two victims, t12 among them again
		// (web's limit is lifted: at cpus:1, it would keep the task from
		// running whatever ends, and no room would be made).
		c := setup(t)
		require.NoError(t, c.a.UpdateQuota("web", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:1;mem:1024")}))
		c.demand("nginx", "web", "cpus:2;mem:512", 1)
		res := c.run()
		require.Equal(t, []string{"spark/t12"}, taskIDs(res.Withdrawn))
		require.Equal(t, []string{"spark/t12", "spark/t11"}, taskIDs(res.Preemptions))
		for _, p := range res.Preemptions {
			require.Equal(t, "cpus:2; mem:512", p.ForTask.String())
		}
		require.Equal(t, []string{"spark/t11", "spark/t12"}, taskIDs(c.a.Preempting()))
	})
	t.Run("demand of nothing", func(t *testing.T) {
		c := setup(t)
		require.NoError(t, c.a.UpdateDemand("nginx", "web", nil))
		withdrawn(t, c, c.run())
	})
	t.Run("the guarantee removed", func(t *testing.T) {
		c := setup(t)
		require.NoError(t, c.a.UpdateQuota("web", allocator.Quota{}))
		withdrawn(t, c, c.run())
	})
	t.Run("the framework removed", func(t *testing.T) {
		c := setup(t)
		require.NoError(t, c.a.RemoveFramework("nginx"))
		res := c.run()
		require.Equal(t, []string{"spark/t12"}, taskIDs(res.Withdrawn))
		require.Empty(t, c.a.Preempting())
	})
}

// What a chosen task's end holds stays within the role's quota limit:
// web is guaranteed cpus:1.5, limited to cpus:2, and waits for two tasks
// of cpus:1;mem:1024, so two rooms are made (after the first the
// guarantee still lacks cpus:0.5, and the limit leaves room for both),
// t12 and t11. t12's end holds its room, cpus:1;mem:1024. Then web's
// limit is lowered to cpus:1.5: t11's end holds only cpus:0.5 of its
// cpus:1 (the rest goes back to the pool) and all of its mem, which web
// is not limited in.
func TestReclaimHoldsWithinLimits(t *testing.T) {
	c := newReclaimCluster(t, allocator.ReclaimGuarantees, 3)
	g := resources.MustParseQuantities("cpus:1.5")
	require.NoError(t, c.a.UpdateQuota("web", allocator.Quota{Guarantees: g, Limits: resources.MustParseLimits("cpus:2")}))
	c.demand("nginx", "web", "cpus:1;mem:1024", 2)
	res := c.run()
	require.Equal(t, []string{"spark/t12", "spark/t11"}, taskIDs(res.Preemptions))
	held := func() string {
		v, _ := c.a.Agent("a3")
		return v.Held["nginx"].Quantities().String()
	}
	require.NoError(t, c.a.EndTask("spark", "t12"))
	require.Equal(t, "cpus:1; mem:1024", held())
	require.NoError(t, c.a.CheckInvariants())
	require.NoError(t, c.a.UpdateQuota("web", allocator.Quota{Guarantees: g, Limits: resources.LimitsOf(g)}))
	require.NoError(t, c.a.EndTask("spark", "t11"))
	require.Equal(t, "cpus:1.5; mem:2048", held())
	require.NoError(t, c.a.CheckInvariants())
	v, _ := c.a.Agent("a3")
	require.Equal(t, "cpus:0.5", v.Available.Quantities().String())
	web, _ := c.a.Role("web")
	require.Equal(t, "cpus:1.5; mem:2048", web.Consumed.String())
	// nginx is offered its holds; spark (without demand, as in Mesos)
	// what went back to the pool.
	res = c.run()
	require.Len(t, res.Offers, 2)
	require.Len(t, res.OffersTo("nginx"), 1)
	require.Equal(t, "cpus:1.5; mem:2048", res.OffersTo("nginx")[0].Resources.Quantities().String())
	require.Equal(t, "cpus:0.5", res.OffersTo("spark")[0].Resources.Quantities().String())
	web, _ = c.a.Role("web")
	require.LessOrEqual(t, web.Consumed.Float64("cpus"), 1.5)
}

// No task is ended for a role its limit keeps from running the task it
// waits for: web runs one task of cpus:1;mem:1024 (in the place of
// batch's t01) and is limited to mem:1024 (for a guarantee, guaranteed
// cpus:3 and limited to cpus:3;mem:1024). It waits for three more tasks
// of cpus:1;mem:1024: whatever ended, it could be given no mem. The host
// ends what is chosen and launches what it is offered, for ten runs: no
// preemption, in either mode. With room in its limit, web gets tasks
// ended for it.
func TestReclaimNothingForARoleAtItsLimit(t *testing.T) {
	for _, mode := range []allocator.Reclaim{allocator.ReclaimGuarantees, allocator.ReclaimFairShare} {
		for _, tc := range []struct {
			limits string
			none   bool
		}{{"cpus:3;mem:1024", true}, {"cpus:3;mem:3072", false}} {
			t.Run(mode.String()+" "+tc.limits, func(t *testing.T) {
				c := newReclaimCluster(t, mode, 3)
				require.NoError(t, c.a.UpdateDemand("spark", "batch", nil))
				q := allocator.Quota{Limits: resources.MustParseLimits(tc.limits)}
				if mode == allocator.ReclaimGuarantees {
					q.Guarantees = resources.MustParseQuantities("cpus:3")
				}
				require.NoError(t, c.a.UpdateQuota("web", q))
				c.demand("nginx", "web", "cpus:1;mem:1024", 1)
				require.NoError(t, c.a.EndTask("spark", "t01"))
				res := c.run()
				require.Empty(t, res.Preemptions)
				require.Len(t, res.Offers, 1)
				o := res.Offers[0]
				require.Equal(t, "nginx", o.FrameworkID)
				require.Equal(t, "a1", o.AgentID)
				require.NoError(t, c.a.Accept("nginx", o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{
					{ID: "n1", Resources: resources.MustParse("cpus:1;mem:1024", "*").Allocate("web")}}}}, nil))
				running, preempted := 1, 0
				for run := range 10 {
					c.demand("nginx", "web", "cpus:1;mem:1024", 4-running)
					res := c.run()
					preempted += len(res.Preemptions)
					for _, p := range res.Preemptions {
						require.NoError(t, c.a.EndTask(p.FrameworkID, p.TaskID))
					}
					for _, o := range res.Offers {
						if o.FrameworkID != "nginx" || !o.Resources.Quantities().Contains(resources.MustParseQuantities("cpus:1;mem:1024")) {
							require.NoError(t, c.a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil))
							continue
						}
						running++
						require.NoError(t, c.a.Accept("nginx", o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{
							{ID: fmt.Sprintf("n%d", running), Resources: resources.MustParse("cpus:1;mem:1024", "*").Allocate("web")}}}}, nil))
					}
					if tc.none {
						require.Zero(t, preempted, "run %d: %v", run, res.Preemptions)
					}
				}
				if !tc.none {
					require.NotZero(t, preempted)
					require.Greater(t, running, 1)
				}
				web, _ := c.a.Role("web")
				require.True(t, resources.MustParseLimits(tc.limits).Contains(web.Consumed), "web consumes %s", web.Consumed)
			})
		}
	}
}

// victimsCluster is one agent run by batch's tasks of the given sizes
// (prefix1, prefix2, ..., launched in order: the last is the youngest) and a web framework
// guaranteed the cluster, waiting for one task of want.
func victimsCluster(t *testing.T, want, prefix string, tasks ...string) *reclaimCluster {
	t.Helper()
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimGuarantees})
	require.NoError(t, err)
	var total resources.Quantities
	for _, q := range tasks {
		total.Add(resources.MustParseQuantities(q))
	}
	fillAgent(t, a, clock, "a1", total.String(), "spark", "batch", prefix, tasks...)
	require.NoError(t, a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateQuota("web", allocator.Quota{Guarantees: total}))
	c := &reclaimCluster{t: t, a: a, clock: clock}
	c.demand("nginx", "web", want, 1)
	return c
}

// The fewest victims, then the least freed beyond what is missing.
//
// A task of cpus:2;mem:2048 on an agent running v1 cpus:2;mem:512, v2
// cpus:0.5;mem:2048, v3 cpus:1.5;mem:1536 and v4 cpus:0.5;mem:512 (cluster
// cpus:4.5;mem:4608): no task alone frees it; the pairs that do are v1+v2
// (excess 0.5/4.5 + 512/4608 = 0.22), v1+v3 (1.5/4.5 = 0.33), v2+v3
// (1536/4608 = 0.33) and v3+v4 (none): v4 and v3.
//
// A task of cpus:2;mem:2048 on an agent running w1 cpus:2;mem:256, w2
// cpus:0.25;mem:2048 and w3 cpus:1.5;mem:1536: w3 covers the most of it
// (75% of each), and a cover that takes it first needs all three; w1+w2
// is the only pair that frees it.
func TestReclaimFewestVictims(t *testing.T) {
	c := victimsCluster(t, "cpus:2;mem:2048", "v", "cpus:2;mem:512", "cpus:0.5;mem:2048", "cpus:1.5;mem:1536", "cpus:0.5;mem:512")
	res := c.run()
	require.Equal(t, []string{"spark/v4", "spark/v3"}, taskIDs(res.Preemptions))
	// The room is split youngest first: v4 frees all it can of what is
	// missing, v3 the rest.
	for _, p := range res.Preemptions {
		require.Equal(t, "cpus:2; mem:2048", p.ForTask.String())
	}
	held := func() string {
		v, _ := c.a.Agent("a1")
		return v.Held["nginx"].Quantities().String()
	}
	require.NoError(t, c.a.EndTask("spark", "v4"))
	require.Equal(t, "cpus:0.5; mem:512", held())
	require.NoError(t, c.a.EndTask("spark", "v3"))
	require.Equal(t, "cpus:2; mem:2048", held())

	c = victimsCluster(t, "cpus:2;mem:2048", "w", "cpus:2;mem:256", "cpus:0.25;mem:2048", "cpus:1.5;mem:1536")
	res = c.run()
	require.Equal(t, []string{"spark/w2", "spark/w1"}, taskIDs(res.Preemptions))
	// w2's room is all it frees; w1's the cpus:1.75 still missing, and
	// its other cpus:0.25;mem:256 go back to the pool.
	for _, id := range []string{"w1", "w2"} {
		require.NoError(t, c.a.EndTask("spark", id))
	}
	require.Equal(t, "cpus:2; mem:2048", held())
	v, _ := c.a.Agent("a1")
	require.Equal(t, "cpus:0.25; mem:256", v.Available.Quantities().String())
}

// Two rooms on one agent do not count the same free resources: a1 runs
// batch's v1 to v3 (cpus:1;mem:1024 each) and has cpus:1;mem:1024 free;
// web, guaranteed the agent, waits for two tasks of cpus:2;mem:2048.
// The first room takes the free part and v3; the second finds nothing
// free left and takes v2 and v1. Once they end, both tasks fit: nginx is
// offered the whole agent.
func TestReclaimRoomsShareNoFreeResources(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimGuarantees})
	require.NoError(t, err)
	task := "cpus:1;mem:1024"
	fillAgent(t, a, clock, "a1", "cpus:4;mem:4096", "spark", "batch", "v", task, task, task, task)
	require.NoError(t, a.EndTask("spark", "v4"))
	require.NoError(t, a.UpdateDemand("spark", "batch", nil))
	require.NoError(t, a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateQuota("web", allocator.MustParseQuota("cpus:4;mem:4096")))
	c := &reclaimCluster{t: t, a: a, clock: clock}
	c.demand("nginx", "web", "cpus:2;mem:2048", 2)
	res := c.run()
	require.Empty(t, res.Offers)
	require.Equal(t, []string{"spark/v3", "spark/v2", "spark/v1"}, taskIDs(res.Preemptions))
	for _, p := range res.Preemptions {
		require.NoError(t, a.EndTask(p.FrameworkID, p.TaskID))
	}
	res = c.run()
	require.Len(t, res.Offers, 1)
	require.Equal(t, "cpus:4; mem:4096", res.Offers[0].Resources.Quantities().String())
}

// A room counts on what is free on its agent only as far as the free
// part can be held at once: a1 runs three of batch's tasks of
// cpus:1;mem:1024 and has cpus:1;mem:1024 free, a2 four (the youngest);
// idle is guaranteed cpus:1;mem:1024 and waits for nothing, so what is
// free is kept for it. web, by fair share, waits for a task of
// cpus:2;mem:2048. One victim on a1 would leave web with half its task
// (the free half is not web's to take): its room is made on a2, with
// two victims, and web is offered the whole task once they end.
func TestReclaimFreePartKeptForAGuarantee(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimFairShare})
	require.NoError(t, err)
	task := "cpus:1;mem:1024"
	fillAgent(t, a, clock, "a1", "cpus:4;mem:4096", "spark", "batch", "b", task, task, task)
	fillAgent(t, a, clock, "a2", "cpus:4;mem:4096", "spark", "batch", "c", task, task, task, task)
	require.NoError(t, a.AddFramework("idle", allocator.FrameworkInfo{Roles: []string{"idle"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateDemand("idle", "idle", nil))
	require.NoError(t, a.UpdateQuota("idle", allocator.MustParseQuota(task)))
	require.NoError(t, a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	c := &reclaimCluster{t: t, a: a, clock: clock}
	c.demand("nginx", "web", "cpus:2;mem:2048", 1)
	res := c.run()
	require.Empty(t, res.Offers)
	require.Equal(t, []string{"spark/c4", "spark/c3"}, taskIDs(res.Preemptions))
	for _, p := range res.Preemptions {
		require.Equal(t, "a2", p.AgentID)
		require.NoError(t, a.EndTask(p.FrameworkID, p.TaskID))
	}
	res = c.run()
	require.Len(t, res.OffersTo("nginx"), 1)
	require.Equal(t, "a2", res.OffersTo("nginx")[0].AgentID)
	require.Equal(t, "cpus:2; mem:2048", res.OffersTo("nginx")[0].Resources.Quantities().String())
}

// The room is whole whichever of its victims ends first: team, limited
// to cpus:2, runs team/x's x1 on a2 and team/old's o1 (cpus:1;mem:128)
// on a1, where batch's b1 (cpus:1;mem:1024) is younger. team/x,
// guaranteed cpus:2, waits for a task of cpus:1;mem:1024: b1 frees what
// a1 lacks, and o1 what team's limit asks. The room, split youngest
// first, is all b1's; b1 ends first, while team is still at its limit,
// and what it cannot hold of it (cpus:1) is held when o1 ends.
func TestReclaimRoomWholeWhicheverEndsFirst(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: allocator.ReclaimGuarantees})
	require.NoError(t, err)
	fillAgent(t, a, clock, "a2", "cpus:1;mem:1024", "tx", "team/x", "x", "cpus:1;mem:1024")
	fillAgent(t, a, clock, "a1", "cpus:2;mem:1152", "old", "team/old", "o", "cpus:1;mem:128")
	require.NoError(t, a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active))
	c := &reclaimCluster{t: t, a: a, clock: clock}
	res := c.run()
	require.Len(t, res.Offers, 1)
	o := res.Offers[0]
	require.Equal(t, "spark", o.FrameworkID)
	require.NoError(t, a.Accept("spark", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{
		{ID: "b1", Resources: resources.MustParse("cpus:1;mem:1024", "*").Allocate("batch")}}}}, nil))
	require.NoError(t, a.UpdateDemand("spark", "batch", nil))
	require.NoError(t, a.UpdateQuota("team", allocator.Quota{Limits: resources.MustParseLimits("cpus:2")}))
	require.NoError(t, a.UpdateQuota("team/x", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:2")}))
	require.NoError(t, a.ReviveOffers("tx"))
	c.demand("tx", "team/x", "cpus:1;mem:1024", 1)
	res = c.run()
	require.Empty(t, res.Offers)
	require.Equal(t, []string{"spark/b1", "old/o1"}, taskIDs(res.Preemptions))
	for _, p := range res.Preemptions {
		require.NoError(t, a.EndTask(p.FrameworkID, p.TaskID))
		require.NoError(t, a.CheckInvariants())
	}
	v, _ := a.Agent("a1")
	require.Equal(t, "cpus:1; mem:1024", v.Held["tx"].Quantities().String())
	res = c.run()
	require.Len(t, res.OffersTo("tx"), 1)
	require.Equal(t, "a1", res.OffersTo("tx")[0].AgentID)
	require.True(t, res.OffersTo("tx")[0].Resources.Quantities().Contains(resources.MustParseQuantities("cpus:1;mem:1024")))
	team, _ := a.Role("team")
	require.LessOrEqual(t, team.Consumed.Float64("cpus"), 2.0)
}
