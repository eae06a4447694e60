package reclaim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// Without stated demand nothing is chosen, however far below its
// guarantee a role is.
func TestNoDemandNoReclaim(t *testing.T) {
	w := fullCluster(t, 3)
	w.quota("web", "cpus:3;mem:3072", "")
	chosen, _ := w.reclaim(FairShare)
	require.Empty(t, chosen)
}

// A pending task of cpus:3;mem:3072 needs three of the cpus:1 tasks on one
// agent: the youngest three, all on the last agent.
func TestRoomOnOneAgent(t *testing.T) {
	w := fullCluster(t, 3)
	w.quota("web", "cpus:3;mem:3072", "")
	w.demand("nginx", "web", pend("cpus:3;mem:3072", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/t12@a3", "spark/t11@a3", "spark/t10@a3"}, victims(chosen))
	for _, c := range chosen {
		require.Equal(t, ForGuarantee, c.Reason)
		require.Equal(t, "web", c.ForRole)
		require.Equal(t, "web", c.HeldIn)
		require.Equal(t, "nginx", c.ForFramework)
		require.Equal(t, "cpus:3; mem:3072", c.Task.String())
		require.Equal(t, "cpus:1; mem:1024", c.Room.String(), "each victim makes a third of the room")
		require.Equal(t, chosen[0].Group, c.Group)
	}
	require.InDelta(t, 0.0, chosen[0].ForShare[0], 1e-9)
	require.InDelta(t, 0.25, chosen[0].ForShare[1], 1e-9)
	require.InDelta(t, 1.0, chosen[0].RoleShare[0], 1e-9)
	require.InDelta(t, 0.75, chosen[0].RoleShare[1], 1e-9)

	// Pending: the next run chooses nothing more for the same task.
	chosen, withdrawn := w.reclaim(Guarantees)
	require.Empty(t, chosen)
	require.Empty(t, withdrawn)
	require.Len(t, w.st.Choices, 3)
}

// Three pending tasks of cpus:1 each get a room of their own: one victim
// each, the youngest tasks wherever they run.
func TestOneRoomPerPendingTask(t *testing.T) {
	w := fullCluster(t, 3)
	w.quota("web", "cpus:3;mem:3072", "")
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 3))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/t12@a3", "spark/t11@a3", "spark/t10@a3"}, victims(chosen))
	require.NotEqual(t, chosen[0].Group, chosen[1].Group)
	require.InDelta(t, 1.0/12, chosen[1].ForShare[0], 1e-9, "the first choice counts as made")
}

// The guarantee bounds the rooms: with a guarantee of cpus:2, two of the
// three pending tasks get a room.
func TestRoomsWithinTheGuarantee(t *testing.T) {
	w := fullCluster(t, 3)
	w.quota("web", "cpus:2;mem:2048", "")
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 3))
	chosen, _ := w.reclaim(Guarantees)
	require.Len(t, chosen, 2)
}

// A task that fits what is free waits for an offer: no room is made.
func TestFitsFreeNoRoom(t *testing.T) {
	w := fullCluster(t, 2)
	w.agent("a3", "cpus:1;mem:1024")
	w.quota("web", "cpus:3;mem:3072", "")
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Empty(t, chosen)
	// Not usable by nginx: then the room is made.
	w.unusable[[2]string{"nginx", "a3"}] = true
	chosen, _ = w.reclaim(Guarantees)
	require.Len(t, chosen, 1)
}

// What is free on the agent counts: a task of cpus:2 on an agent with
// cpus:1 free needs one victim there, where two agents without anything
// free would need two.
func TestFreePartCounts(t *testing.T) {
	w := fullCluster(t, 2)
	w.end("spark", "t01") // a1 has cpus:1;mem:1024 free
	w.quota("web", "cpus:2;mem:2048", "")
	w.demand("nginx", "web", pend("cpus:2;mem:2048", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/t04@a1"}, victims(chosen))
	require.Equal(t, "cpus:1; mem:1024", chosen[0].Room.String())
}

// The fewest victims: a greedy cover (most of what is missing first)
// would take "middle" first and then need both others; "cpu" and "mem"
// alone suffice.
func TestFewestVictims(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:3.21;mem:3278")
	w.launch("spark", "cpu", "batch", "a1", "cpus:2;mem:1")
	w.launch("spark", "mem", "batch", "a1", "cpus:0.01;mem:2048")
	w.launch("spark", "middle", "batch", "a1", "cpus:1.2;mem:1229")
	w.quota("web", "cpus:2;mem:2048", "")
	w.demand("nginx", "web", pend("cpus:2;mem:2048", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/mem@a1", "spark/cpu@a1"}, victims(chosen))
	cover, _ := coverage(qty("cpus:1.2;mem:1229"), qty("cpus:2;mem:2048"), w.cs.Totals)
	coverCPU, _ := coverage(qty("cpus:2;mem:1"), qty("cpus:2;mem:2048"), w.cs.Totals)
	require.Greater(t, cover, coverCPU, "a greedy cover would start with middle")
}

// Among sets of the same size, the one that frees least beyond what is
// missing; among those, the youngest.
func TestLeastExcessThenYoungest(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:8;mem:8192")
	w.launch("spark", "large", "batch", "a1", "cpus:4;mem:4096")
	w.launch("spark", "old", "batch", "a1", "cpus:2;mem:2048")
	w.launch("spark", "young", "batch", "a1", "cpus:2;mem:2048")
	w.quota("web", "cpus:2;mem:2048", "")
	w.demand("nginx", "web", pend("cpus:2;mem:2048", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/young@a1"}, victims(chosen))
}

// A room that needs more than ExactVictims tasks is covered greedily and
// pruned: no victim can be dropped.
func TestGreedyCoverPruned(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:6;mem:6144")
	w.launch("spark", "mem-only", "batch", "a1", "cpus:0.1;mem:2048") // covers most of mem first
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5"} {
		w.launch("spark", id, "batch", "a1", "cpus:1;mem:512")
	}
	w.quota("web", "cpus:5;mem:2560", "")
	w.demand("nginx", "web", pend("cpus:5;mem:2560", 1))
	chosen, _ := w.reclaim(Guarantees)
	// Missing cpus:5;mem:2560 (a1 has cpus:0.9;mem:0 free... less than
	// the task): cpus need 5 of the c tasks (4.1 missing beyond the
	// 0.9 free: five tasks of 1, or four and mem-only's 0.1), mem 2560.
	var freed float64
	for _, c := range chosen {
		freed += c.Frees.Scalar("cpus").Float64()
	}
	require.Greater(t, len(chosen), ExactVictims)
	for i := range chosen {
		// Dropping any one leaves the room uncovered.
		var cpus, mem float64
		for j, c := range chosen {
			if j != i {
				cpus += c.Frees.Scalar("cpus").Float64()
				mem += c.Frees.Scalar("mem").Float64()
			}
		}
		free := w.cs.Agents.Get("a1").Headroom
		require.False(t, cpus+free.Scalar("cpus").Float64() >= 5 && mem+free.Scalar("mem").Float64() >= 2560,
			"victim %s could be dropped from %v", chosen[i].Ref.Task, victims(chosen))
	}
}

// A victim's role keeps its guarantee, counting what pending choices
// free already: keep (guarantee cpus:2) runs four tasks; web and api are
// each owed cpus:2; together they may take only two of keep's tasks, and
// the rest comes from batch (no guarantee).
func TestVictimKeepsItsGuaranteeAcrossRuns(t *testing.T) {
	w := newWorld(t)
	w.framework("keeper", "keep")
	w.framework("nginx", "web")
	w.framework("gw", "api")
	w.agent("a1", "cpus:4;mem:4096")
	for _, id := range []string{"k1", "k2", "k3", "k4"} {
		w.launch("keeper", id, "keep", "a1", "cpus:1;mem:1024")
	}
	w.quota("keep", "cpus:2", "")
	w.quota("web", "cpus:2", "")
	w.quota("api", "cpus:2", "")
	w.demand("nginx", "web", pend("cpus:1", 2))
	chosen, _ := w.reclaim(Guarantees)
	require.Len(t, chosen, 2, "web takes two of keep's four")
	w.demand("gw", "api", pend("cpus:1", 2))
	chosen, _ = w.reclaim(Guarantees)
	require.Empty(t, chosen, "keep is at its guarantee once web's victims end")
}

// Nested guarantees are met together: team and team/x each guaranteed
// cpus:4, team/x's framework waits for four tasks: four victims, not
// four for team/x and then more for team.
func TestNestedGuaranteesMetTogether(t *testing.T) {
	w := fullCluster(t, 2)
	w.framework("xfw", "team/x")
	w.quota("team", "cpus:4", "")
	w.quota("team/x", "cpus:4", "")
	w.demand("xfw", "team/x", pend("cpus:1;mem:1024", 6))
	chosen, _ := w.reclaim(Guarantees)
	require.Len(t, chosen, 4)
	for _, c := range chosen {
		require.Equal(t, "team/x", c.ForRole)
	}
}

// A sibling under a guaranteed parent gives way: team is guaranteed the
// whole cluster and all of it runs in team/old; team/x, guaranteed
// cpus:2, takes from team/old (team loses nothing: the room is held in
// it again).
func TestSiblingUnderGuaranteedParent(t *testing.T) {
	w := newWorld(t)
	w.framework("old", "team/old")
	w.framework("xfw", "team/x")
	w.agent("a1", "cpus:4;mem:4096")
	for _, id := range []string{"o1", "o2", "o3", "o4"} {
		w.launch("old", id, "team/old", "a1", "cpus:1;mem:1024")
	}
	w.quota("team", "cpus:4;mem:4096", "")
	w.quota("team/x", "cpus:2", "")
	w.demand("xfw", "team/x", pend("cpus:1", 2))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"old/o4@a1", "old/o3@a1"}, victims(chosen))
}

// Withdrawals: a group whose task is no longer stated, or fits a new
// agent, or whose guarantee went, is withdrawn and no longer counted.
func TestWithdrawals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(w *world)
	}{
		{"demand restated without it", func(w *world) { w.demand("nginx", "web") }},
		{"agent added where it fits", func(w *world) { w.agent("a9", "cpus:8;mem:8192") }},
		{"guarantee removed", func(w *world) { w.quota("web", "", "") }},
		{"framework left", func(w *world) { w.cs.Frameworks.Delete("nginx") }},
		// The guarantee still lacks cpus, but the limit leaves no mem for
		// the task.
		{"limit lowered below the task", func(w *world) { w.quota("web", "cpus:2", "cpus:2;mem:1024") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := fullCluster(t, 2)
			w.quota("web", "cpus:2;mem:2048", "")
			w.demand("nginx", "web", pend("cpus:2;mem:2048", 1))
			chosen, _ := w.reclaim(Guarantees)
			require.Len(t, chosen, 2)
			tc.change(w)
			chosen, withdrawn := w.reclaim(Guarantees)
			require.Empty(t, chosen)
			require.ElementsMatch(t, []string{"spark/t08@a2", "spark/t07@a2"}, victims(withdrawn))
			require.Empty(t, w.st.Choices)
		})
	}
}

// Fewer tasks stated than groups pending: the newest groups go.
func TestWithdrawExtraGroups(t *testing.T) {
	w := fullCluster(t, 2)
	w.quota("web", "cpus:3;mem:3072", "")
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 3))
	chosen, _ := w.reclaim(Guarantees)
	require.Len(t, chosen, 3)
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 1)) // two were offered
	_, withdrawn := w.reclaim(Guarantees)
	require.Equal(t, victims(chosen[1:]), victims(withdrawn))
	require.Len(t, w.st.Choices, 1)
}

// Choices lapse: a task that ended, or a choice past its time, is
// dropped without a withdrawal; then the need may be served anew.
func TestLapse(t *testing.T) {
	w := fullCluster(t, 1)
	w.quota("web", "cpus:1;mem:1024", "")
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/t04@a1"}, victims(chosen))
	w.now = w.now.Add(time.Minute)
	chosen, withdrawn := w.reclaim(Guarantees)
	require.Empty(t, withdrawn)
	require.Equal(t, []string{"spark/t04@a1"}, victims(chosen), "chosen anew once the first choice lapsed")
}

// Fair share: a role offered nothing, with a pending task, takes from a
// role above it only while it stays at or below that role after the
// move; never twice in two runs; never for a role offered in the run.
func TestFairShare(t *testing.T) {
	w := fullCluster(t, 2) // batch holds everything: share 1
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 5))
	chosen, _ := w.reclaim(FairShare, "web")
	require.Empty(t, chosen, "offered in the run")
	chosen, _ = w.reclaim(FairShare)
	require.Equal(t, []string{"spark/t08@a2"}, victims(chosen))
	require.Equal(t, ForFairShare, chosen[0].Reason)
	require.InDelta(t, 0.125, chosen[0].ForShare[1], 1e-9)
	require.InDelta(t, 0.875, chosen[0].RoleShare[1], 1e-9)
	chosen, _ = w.reclaim(FairShare)
	require.Empty(t, chosen, "room pending for web")
}

// Fair share stops where the move would put the taker above the victim,
// and allows a move that leaves them equal.
func TestFairShareStopsAtEquality(t *testing.T) {
	for _, tc := range []struct {
		task string
		want int
	}{
		// b at 1/8 takes one of a's tasks (cpus:3) for a task of cpus:3:
		// b would hold 4/8, a 3/8: refused.
		{"cpus:3;mem:1024", 0},
		// For a task of cpus:2 (cpus:1 is free): b 3/8, a 3/8: allowed.
		{"cpus:2;mem:1024", 1},
	} {
		w := newWorld(t)
		w.framework("a-fw", "a")
		w.framework("b-fw", "b")
		w.agent("a1", "cpus:8;mem:8192")
		w.launch("a-fw", "x1", "a", "a1", "cpus:3;mem:1024")
		w.launch("a-fw", "x2", "a", "a1", "cpus:3;mem:1024")
		w.launch("b-fw", "y1", "b", "a1", "cpus:1;mem:1024")
		w.demand("b-fw", "b", pend(tc.task, 1))
		chosen, _ := w.reclaim(FairShare)
		require.Len(t, chosen, tc.want, tc.task)
	}
}

// The storm: freed room that the taker's tasks cannot use is never
// chosen, so a cluster left alone settles.
func TestNoStorm(t *testing.T) {
	w := newWorld(t)
	w.framework("a-fw", "a")
	w.framework("b-fw", "b")
	w.framework("c-fw", "c")
	w.agent("a1", "cpus:4;mem:8192")
	w.launch("a-fw", "x1", "a", "a1", "cpus:2;mem:2048")
	w.launch("a-fw", "x2", "a", "a1", "cpus:2;mem:2048")
	w.demand("b-fw", "b", pend("cpus:1;mem:1024", 4))
	w.demand("c-fw", "c", pend("cpus:0.5;mem:2048", 4))
	ended := 0
	for range 200 {
		chosen, _ := w.reclaim(FairShare)
		for _, c := range chosen {
			w.end(c.Ref.Framework, c.Ref.Task)
			delete(w.st.Choices, c.Ref)
			ended++
		}
	}
	// b (share 0) takes one of a's tasks: after the move b holds 0.25 of
	// cpus and a 0.5: allowed. Then c (0) would take a's other task: c
	// would hold 0.25 (mem 2048/8192), a 0: refused. The freed room is
	// not launched on in this model, so b's pending task still fits free
	// room (cpus:2 free): nothing more is chosen.
	require.Equal(t, 1, ended)
}

// A task no agent is large enough for is never made room for, and costs
// no look at the tasks.
func TestTaskLargerThanEveryAgent(t *testing.T) {
	w := fullCluster(t, 2)
	w.quota("web", "cpus:8;mem:8192", "")
	w.demand("nginx", "web", pend("cpus:5;mem:1024", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Empty(t, chosen)
	// A larger agent, full too: room is made there.
	w.agent("big", "cpus:8;mem:8192")
	for i := range 8 {
		w.launch("spark", fmt.Sprintf("b%d", i), "batch", "big", "cpus:1;mem:1024")
	}
	chosen, _ = w.reclaim(Guarantees)
	require.Len(t, chosen, 5)
	for _, c := range chosen {
		require.Equal(t, "big", c.Agent)
	}
}

// coverage: the part of each needed resource covered, summed, and what
// is freed beyond the need as parts of the cluster's totals.
func TestCoverage(t *testing.T) {
	totals := qty("cpus:10;mem:1000")
	cover, excess := coverage(qty("cpus:1;mem:500"), qty("cpus:2;mem:250"), totals)
	require.InDelta(t, 0.5+1, cover, 1e-12)
	require.InDelta(t, 250.0/1000, excess, 1e-12)
	cover, excess = coverage(qty("cpus:4;disk:7"), qty("cpus:2;mem:250"), totals)
	require.InDelta(t, 1.0, cover, 1e-12)
	require.InDelta(t, 2.0/10, excess, 1e-12, "disk has no total: not counted")
	cover, excess = coverage(qty("cpus:2;mem:250"), qty("cpus:2;mem:250"), totals)
	require.InDelta(t, 2.0, cover, 1e-12)
	require.Zero(t, excess)
}

// A role given a room by fair share is not a taker again in the next
// run, even once its victim ended; the run after it may choose again.
func TestFairShareWaitsARun(t *testing.T) {
	w := fullCluster(t, 2)
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 5))
	chosen, _ := w.reclaim(FairShare)
	require.Len(t, chosen, 1)
	w.end(chosen[0].Ref.Framework, chosen[0].Ref.Task)
	w.launch("nginx", "n1", "web", chosen[0].Agent, "cpus:1;mem:1024")
	delete(w.st.Choices, chosen[0].Ref)
	chosen, _ = w.reclaim(FairShare)
	require.Empty(t, chosen, "chosen for in the run before")
	chosen, _ = w.reclaim(FairShare)
	require.Len(t, chosen, 1)
	require.Len(t, w.st.TookAt, 1)
	w.reclaim(FairShare) // the room pending: nothing chosen
	require.Len(t, w.st.TookAt, 1)
	w.reclaim(FairShare)
	require.Empty(t, w.st.TookAt, "a role chosen for two runs ago is forgotten")
}

var modeName = map[Mode]string{Guarantees: "guarantees", FairShare: "fair share"}

// A taker at its own limit gets no victims: what they would free could
// not be held for its task. web runs one task of cpus:1;mem:1024 on a1
// (in the place of batch's t01) and is limited to mem:1024: its next
// task of cpus:1;mem:1024 could get no mem, whatever ends. Below its
// guarantee (cpus:2) or below batch's share, it gets nothing; with a
// limit of mem:2048 it gets its victim.
func TestTakerAtItsLimit(t *testing.T) {
	for _, mode := range []Mode{Guarantees, FairShare} {
		for _, tc := range []struct {
			limits string
			want   int
		}{{"cpus:2;mem:1024", 0}, {"cpus:2;mem:2048", 1}} {
			t.Run(fmt.Sprintf("%s %s", modeName[mode], tc.limits), func(t *testing.T) {
				w := fullCluster(t, 2)
				w.end("spark", "t01")
				w.launch("nginx", "n1", "web", "a1", "cpus:1;mem:1024")
				guarantee := "cpus:2"
				if mode == FairShare {
					guarantee = ""
				}
				w.quota("web", guarantee, tc.limits)
				w.demand("nginx", "web", pend("cpus:1;mem:1024", 3))
				for range 3 {
					chosen, _ := w.reclaim(mode)
					require.Len(t, chosen, tc.want)
					if tc.want > 0 {
						return
					}
				}
			})
		}
	}
}

// A taker whose ancestor is at its limit gets victims only inside that
// ancestor's subtree, whose end lowers the ancestor's consumption by what
// the room raises it: team is limited to cpus:2, run by team/x's x1 and
// team/old's o1 on a1 (cpus:6;mem:6144); batch runs b1 to b4 there, the
// youngest. team/x waits for one task of cpus:1;mem:1024.
//
//   - by fair share, team/x (1/6) may take only from batch (4/6), above
//     it: nothing, for room taken from outside team would leave team over
//     its limit.
//   - for a guarantee of cpus:2 on team/x, o1 (not b4, the youngest).
func TestTakerUnderALimitedAncestor(t *testing.T) {
	setup := func(t *testing.T) *world {
		w := newWorld(t)
		w.framework("xfw", "team/x")
		w.framework("old", "team/old")
		w.framework("spark", "batch")
		w.agent("a1", "cpus:6;mem:6144")
		w.launch("xfw", "x1", "team/x", "a1", "cpus:1;mem:1024")
		w.launch("old", "o1", "team/old", "a1", "cpus:1;mem:1024")
		for i := 1; i <= 4; i++ {
			w.launch("spark", fmt.Sprintf("b%d", i), "batch", "a1", "cpus:1;mem:1024")
		}
		w.quota("team", "", "cpus:2")
		w.demand("xfw", "team/x", pend("cpus:1;mem:1024", 1))
		return w
	}
	t.Run("fair share", func(t *testing.T) {
		w := setup(t)
		for range 4 {
			chosen, _ := w.reclaim(FairShare)
			require.Empty(t, victims(chosen))
		}
	})
	t.Run("guarantee", func(t *testing.T) {
		w := setup(t)
		w.quota("team/x", "cpus:2", "")
		chosen, _ := w.reclaim(Guarantees)
		require.Equal(t, []string{"old/o1@a1"}, victims(chosen))
		// team/old's o1 is the only task inside team: a second task has
		// nothing left to take.
		w.demand("xfw", "team/x", pend("cpus:1;mem:1024", 2))
		w.quota("team/x", "cpus:3", "")
		chosen, _ = w.reclaim(Guarantees)
		require.Empty(t, victims(chosen))
	})
}

// Groups pending count against the limit: web, limited to cpus:1.5 and
// guaranteed it, waits for two tasks of cpus:1: one room only (the
// second task could get cpus:0.5 of its cpus:1).
func TestPendingRoomsCountAgainstTheLimit(t *testing.T) {
	w := fullCluster(t, 2)
	w.quota("web", "cpus:1.5", "cpus:1.5")
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 2))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/t08@a2"}, victims(chosen))
	chosen, _ = w.reclaim(Guarantees)
	require.Empty(t, chosen)
	// Once its victim ended and its room is web's, still nothing.
	w.end("spark", "t08")
	w.launch("nginx", "n1", "web", "a2", "cpus:1;mem:1024")
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 1))
	chosen, _ = w.reclaim(Guarantees)
	require.Empty(t, chosen)
}

// A room covered greedily frees what a limit asks too: team, limited to
// cpus:4, runs team/old's o1 to o4 on a1, and batch runs b1 to b4 there,
// younger, all of cpus:1;mem:256. team/x, guaranteed cpus:4, waits for a
// task of cpus:4;mem:1024: four victims, more than ExactVictims, and all
// of them inside team (four of batch's would leave team at cpus:8).
func TestGreedyCoverWithinALimit(t *testing.T) {
	w := newWorld(t)
	w.framework("xfw", "team/x")
	w.framework("old", "team/old")
	w.framework("spark", "batch")
	w.agent("a1", "cpus:8;mem:2048")
	for i := 1; i <= 4; i++ {
		w.launch("old", fmt.Sprintf("o%d", i), "team/old", "a1", "cpus:1;mem:256")
	}
	for i := 1; i <= 4; i++ {
		w.launch("spark", fmt.Sprintf("b%d", i), "batch", "a1", "cpus:1;mem:256")
	}
	w.quota("team", "", "cpus:4")
	w.quota("team/x", "cpus:4", "")
	w.demand("xfw", "team/x", pend("cpus:4;mem:1024", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.ElementsMatch(t, []string{"old/o1@a1", "old/o2@a1", "old/o3@a1", "old/o4@a1"}, victims(chosen))
}

// A role a room was held in for a guarantee is no fair-share victim in
// the next run, as the role the room was chosen for is not: team is
// guaranteed cpus:2 and team/x, running x1, waits for one more task; a1
// (cpus:8) is full of batch's tasks. Run 1 makes team/x's room (b7);
// team/x then runs x2 there and x3 on a2. In run 2 web (share 0) waits
// for a task: team/x's x3, the youngest, would do, but team/x was given
// room in the run before: batch's b6 goes. Run 3 may take from team/x.
func TestHeldInRoleNoVictimInTheNextRun(t *testing.T) {
	w := newWorld(t)
	w.framework("xfw", "team/x")
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:8;mem:8192")
	w.launch("xfw", "x1", "team/x", "a1", "cpus:1;mem:1024")
	for i := 1; i <= 7; i++ {
		w.launch("spark", fmt.Sprintf("b%d", i), "batch", "a1", "cpus:1;mem:1024")
	}
	w.quota("team", "cpus:2", "")
	w.demand("xfw", "team/x", pend("cpus:1;mem:1024", 1))
	chosen, _ := w.reclaim(FairShare)
	require.Equal(t, []string{"spark/b7@a1"}, victims(chosen))
	require.Equal(t, "team", chosen[0].ForRole)
	require.Equal(t, "team/x", chosen[0].HeldIn)
	w.end("spark", "b7")
	delete(w.st.Choices, chosen[0].Ref)
	w.launch("xfw", "x2", "team/x", "a1", "cpus:1;mem:1024")
	w.agent("a2", "cpus:1;mem:1024")
	w.launch("xfw", "x3", "team/x", "a2", "cpus:1;mem:1024")
	w.demand("xfw", "team/x")
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 2))
	chosen, _ = w.reclaim(FairShare)
	require.Equal(t, []string{"spark/b6@a1"}, victims(chosen))
	w.end("spark", "b6")
	delete(w.st.Choices, chosen[0].Ref)
	w.launch("nginx", "n1", "web", "a1", "cpus:1;mem:1024")
	w.reclaim(FairShare) // web waits a run
	chosen, _ = w.reclaim(FairShare)
	require.Equal(t, []string{"xfw/x3@a2"}, victims(chosen))
}

// What is free on an agent counts only as far as it can be held at once
// (Run.Holdable): a1 has cpus:1;mem:1024 free, and web waits for a task
// of cpus:2;mem:2048. With all of it holdable, one victim on a1; with
// none, two on a2, the youngest; with cpus:1 only, still two (the free
// part lacks mem).
func TestFreePartWithinHoldable(t *testing.T) {
	for _, tc := range []struct {
		holdable string
		want     []string
		free     string
	}{
		{"cpus:9;mem:9216", []string{"spark/t04@a1"}, "cpus:1; mem:1024"},
		{"", []string{"spark/t08@a2", "spark/t07@a2"}, "{}"},
		{"cpus:1", []string{"spark/t08@a2", "spark/t07@a2"}, "{}"},
	} {
		w := fullCluster(t, 2)
		w.end("spark", "t01")
		w.quota("web", "cpus:2;mem:2048", "")
		w.demand("nginx", "web", pend("cpus:2;mem:2048", 1))
		w.holdable = func(n *roles.Node, reason Reason) resources.Quantities {
			require.Equal(t, "web", n.Path)
			require.Equal(t, ForGuarantee, reason)
			return qty(tc.holdable)
		}
		chosen, _ := w.reclaim(Guarantees)
		require.Equal(t, tc.want, victims(chosen), tc.holdable)
		require.Equal(t, tc.free, chosen[0].Free.String(), tc.holdable)
	}
}

// What a room's victims free beyond it counts, for the pending tasks
// after it, as free: a1 runs batch's two tasks of cpus:2;mem:2048, and
// web, guaranteed cpus:2;mem:2048, waits for two tasks of
// cpus:0.5;mem:512. b2's end frees room for both: one victim, and the
// second task waits for it to end (then it fits what is free).
func TestVictimsExcessServesTheNextTask(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:4;mem:4096")
	w.launch("spark", "b1", "batch", "a1", "cpus:2;mem:2048")
	w.launch("spark", "b2", "batch", "a1", "cpus:2;mem:2048")
	w.quota("web", "cpus:2;mem:2048", "")
	w.demand("nginx", "web", pend("cpus:0.5;mem:512", 2))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/b2@a1"}, victims(chosen))
	chosen, _ = w.reclaim(Guarantees)
	require.Empty(t, chosen, "b2 has not ended: the second task waits for it")
	w.end("spark", "b2")
	delete(w.st.Choices, TaskRef{"spark", "b2"})
	chosen, _ = w.reclaim(Guarantees)
	require.Empty(t, chosen, "both tasks fit what is free")
}

// Fair share takes no role that waits for tasks below another that was
// at or below it: a1 (cpus:9) runs m's four tasks, then a's five, all of
// cpus:1;mem:1024, and a waits for one more. t, with nothing, waits for
// a task of cpus:2;mem:2048. Two of a's tasks (the youngest) would leave
// a at 3/9, below m at 4/9: a would then take from m. The youngest of
// each leave a at 4/9 and m at 3/9: those go. Were a to wait for
// nothing, it would take from nobody: two of a's go.
func TestFairShareCrossesNoRole(t *testing.T) {
	w := threeRoles(t)
	w.demand("afw", "a", pend("cpus:1;mem:1024", 1))
	chosen, _ := w.reclaim(FairShare)
	require.Equal(t, []string{"afw/x5@a1", "mfw/m4@a1"}, victims(chosen))

	w.st = NewState()
	w.demand("afw", "a")
	chosen, _ = w.reclaim(FairShare)
	require.Equal(t, []string{"afw/x5@a1", "afw/x4@a1"}, victims(chosen))
}

// A task fits what is free only as far as the allocator would let its
// role have it: a1 has cpus:1;mem:1024 free, but all of it is kept for
// other roles' guarantees (Run.Holdable gives web nothing). web's task
// would wait there for an offer that never comes: a room is made for it
// (t08, the youngest).
func TestFitsFreeOnlyWhatTheRoleMayHave(t *testing.T) {
	w := fullCluster(t, 2)
	w.end("spark", "t01")
	w.quota("web", "cpus:1;mem:1024", "")
	w.demand("nginx", "web", pend("cpus:1;mem:1024", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Empty(t, chosen, "it fits a1")
	w.holdable = func(*roles.Node, Reason) resources.Quantities { return resources.Quantities{} }
	chosen, _ = w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/t08@a2"}, victims(chosen))
}

// A room counts on no other room's victims to stay within a limit: they
// may end after its own. team, limited to cpus:3, runs team/x's x1 on
// a1 and team/old's o1 (cpus:2;mem:2048) on a1; batch's b1 runs on a2.
// team/x, guaranteed cpus:3, waits for a task of each of its frameworks
// x1fw and x2fw (cpus:1;mem:1024), and x2fw cannot use a1. x1fw's room
// is o1, inside team; x2fw's could only be b1, outside it, and team
// would pass its limit were b1 to end before o1: none in this run. Once
// o1 ended and x1fw runs its task, team consumes cpus:2: b1 goes.
func TestRoomCountsOnItsOwnVictimsForALimit(t *testing.T) {
	w := newWorld(t)
	w.framework("x1fw", "team/x")
	w.framework("x2fw", "team/x")
	w.framework("old", "team/old")
	w.framework("spark", "batch")
	w.agent("a1", "cpus:3;mem:3072")
	w.agent("a2", "cpus:1;mem:1024")
	w.launch("x1fw", "x1", "team/x", "a1", "cpus:1;mem:1024")
	w.launch("old", "o1", "team/old", "a1", "cpus:2;mem:2048")
	w.launch("spark", "b1", "batch", "a2", "cpus:1;mem:1024")
	w.unusable[[2]string{"x2fw", "a1"}] = true
	w.quota("team", "", "cpus:3")
	w.quota("team/x", "cpus:3", "")
	w.demand("x1fw", "team/x", pend("cpus:1;mem:1024", 1))
	w.demand("x2fw", "team/x", pend("cpus:1;mem:1024", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"old/o1@a1"}, victims(chosen))
	require.Equal(t, "x1fw", chosen[0].ForFramework)
	w.end("old", "o1")
	delete(w.st.Choices, TaskRef{"old", "o1"})
	w.launch("x1fw", "x2", "team/x", "a1", "cpus:1;mem:1024")
	w.demand("x1fw", "team/x")
	chosen, _ = w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/b1@a2"}, victims(chosen))
	require.Equal(t, "x2fw", chosen[0].ForFramework)
}

// A fair-share move counts what its victims free beyond the room as the
// taker's too, as far as the taker states more tasks: a's x2 frees
// cpus:3, b's task takes cpus:2 with the cpus:1 free (see
// TestFairShareStopsAtEquality). Stating one task, b ends at 3/8, as a:
// allowed. Stating three, b would be offered the other cpus:2 as well
// and end at 5/8, above a: refused.
func TestFairShareCountsTheVictimsExcess(t *testing.T) {
	for _, tc := range []struct {
		count, want int
	}{{1, 1}, {3, 0}} {
		w := newWorld(t)
		w.framework("a-fw", "a")
		w.framework("b-fw", "b")
		w.agent("a1", "cpus:8;mem:8192")
		w.launch("a-fw", "x1", "a", "a1", "cpus:3;mem:1024")
		w.launch("a-fw", "x2", "a", "a1", "cpus:3;mem:1024")
		w.launch("b-fw", "y1", "b", "a1", "cpus:1;mem:1024")
		w.demand("b-fw", "b", pend("cpus:2;mem:1024", tc.count))
		chosen, _ := w.reclaim(FairShare)
		require.Len(t, chosen, tc.want, "%d stated", tc.count)
	}
}

// A new room leaves the pending ones theirs within a limit, whatever the
// order their victims end in: team is limited to mem:3072 and consumes
// mem:2048 (team/x's x1 on a3, team/old's o1 on a2). team/x, guaranteed
// cpus:4, waits for two tasks of cpus:1;mem:1024. The first room is
// batch's b1 on a1 (exact), which team can hold. The second could only
// be o1 on a2, with a2's free mem:1024 held at once: team would then be
// at its limit before b1 ends, and the first room could get no mem.
// Once b1 ended and x2 runs on its room, o1 goes.
func TestRoomLeavesPendingRoomsTheirLimit(t *testing.T) {
	w := newWorld(t)
	w.framework("xfw", "team/x")
	w.framework("old", "team/old")
	w.framework("spark", "batch")
	w.agent("a1", "cpus:1;mem:1024")
	w.agent("a2", "cpus:2;mem:2048")
	w.agent("a3", "cpus:1;mem:1024")
	w.launch("xfw", "x1", "team/x", "a3", "cpus:1;mem:1024")
	w.launch("old", "o1", "team/old", "a2", "cpus:2;mem:1024")
	w.launch("spark", "b1", "batch", "a1", "cpus:1;mem:1024")
	w.quota("team", "", "mem:3072")
	w.quota("team/x", "cpus:4", "")
	w.demand("xfw", "team/x", pend("cpus:1;mem:1024", 2))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/b1@a1"}, victims(chosen))
	w.end("spark", "b1")
	delete(w.st.Choices, TaskRef{"spark", "b1"})
	w.launch("xfw", "x2", "team/x", "a1", "cpus:1;mem:1024")
	w.demand("xfw", "team/x", pend("cpus:1;mem:1024", 1))
	chosen, _ = w.reclaim(Guarantees)
	require.Equal(t, []string{"old/o1@a2"}, victims(chosen))
	require.Equal(t, "mem:1024", chosen[0].Free.String())
}

// Among sets alike in size and excess, the one with more victims on
// revocable resources (meant to be taken back first) comes before the
// younger one and the first agent by id: "old" runs on a revocable cpu
// and frees the same mem as "young" on a1.
func TestRevocableVictimsFirst(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:1;mem:1024")
	w.agent("a2", "cpus:1;mem:1024")
	w.launchUses("spark", "old", "batch", "a2", "cpus{REV}:1;mem:1024", "mem:1024")
	w.launch("spark", "young", "batch", "a1", "mem:1024")
	w.quota("web", "mem:1024", "")
	w.demand("nginx", "web", pend("mem:1024", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/old@a2"}, victims(chosen))
}
