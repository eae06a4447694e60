package cluster

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// launch records one task of fw on agent a1 and returns it.
func launch(lg *Ledger, fw *Framework, id string) *Task {
	op := offer.Launch{Tasks: []offer.Task{{ID: id, Resources: resources.MustParse("cpus(allocated: r):1", "*")}}}
	lg.Record(fw, "a1", "r", []offer.Operation{op})
	return fw.Tasks[id]
}

// Tasks launched and ended without anybody asking for Live (a host that
// never reclaims) do not pile up: the ledger keeps at most twice the live
// tasks, and Live still lists the live ones in launch order (among ended
// ones not dropped yet).
func TestLedgerDropsEndedTasks(t *testing.T) {
	cs := &State{}
	fw := &Framework{ID: "f"}
	cs.Frameworks.Put(fw)
	lg := NewLedger(cs)
	keep := []*Task{launch(&lg, fw, "keep-1"), launch(&lg, fw, "keep-2")}
	for i := range 10000 {
		lg.Forget(fw, launch(&lg, fw, fmt.Sprintf("t%d", i)))
		require.LessOrEqual(t, len(lg.ledger), 2*len(fw.Tasks)+1, "after %d tasks ended", i+1)
	}
	keep = append(keep, launch(&lg, fw, "keep-3"))
	var live []*Task
	for _, task := range lg.Live() {
		if !task.Ended {
			live = append(live, task)
		}
	}
	require.Equal(t, keep, live)
	require.Equal(t, uint64(10003), lg.TaskSeq)
}

// seqs lists the seq of each task, and whether it ended.
func seqs(tasks []*Task) []string {
	out := make([]string, len(tasks))
	for i, t := range tasks {
		out[i] = fmt.Sprint(t.Seq)
		if t.Ended {
			out[i] += " ended"
		}
	}
	return out
}

// The ledger keeps ended tasks while they are at most half of it, and Live
// lists them (callers skip them) rather than building the ledger anew;
// the one that makes them more than half drops them all.
func TestLedgerCompactsPastHalf(t *testing.T) {
	cs := &State{}
	fw := &Framework{ID: "f"}
	cs.Frameworks.Put(fw)
	lg := NewLedger(cs)
	var tasks []*Task
	for i := range 4 {
		tasks = append(tasks, launch(&lg, fw, fmt.Sprintf("t%d", i)))
	}
	require.Equal(t, []string{"1", "2", "3", "4"}, seqs(lg.Live()))
	lg.Forget(fw, tasks[1])
	require.Equal(t, []string{"1", "2 ended", "3", "4"}, seqs(lg.Live()))
	lg.Forget(fw, tasks[3])
	require.Equal(t, []string{"1", "2 ended", "3", "4 ended"}, seqs(lg.Live()), "two of four ended: half, not more")
	lg.Forget(fw, tasks[0])
	require.Equal(t, []string{"3"}, seqs(lg.Live()))
	require.Equal(t, map[string]*Task{"t2": tasks[2]}, fw.Tasks)
	// Launches after the drop count from the smaller ledger.
	tasks = append(tasks, launch(&lg, fw, "t4"))
	lg.Forget(fw, tasks[2])
	require.Equal(t, []string{"3 ended", "5"}, seqs(lg.Live()))
	lg.Forget(fw, tasks[4])
	require.Empty(t, lg.Live())
}

// A ledger restored from a snapshot (not built) or missing tasks its
// frameworks hold is built anew from them at the next Live: every
// framework's tasks, in launch order, each knowing its framework, with no
// ended ones.
func TestLedgerLiveBuildsAnew(t *testing.T) {
	cs := &State{}
	f, g := &Framework{ID: "f"}, &Framework{ID: "g"}
	f.Tasks = map[string]*Task{"a": {ID: "a", Seq: 5}, "b": {ID: "b", Seq: 2}}
	g.Tasks = map[string]*Task{"c": {ID: "c", Seq: 9}, "d": {ID: "d", Seq: 1}}
	cs.Frameworks.Put(f)
	cs.Frameworks.Put(g)
	lg := Ledger{Cluster: cs, TaskSeq: 9}
	// Launches before the first use are not listed twice.
	e := launch(&lg, f, "e")
	require.Equal(t, uint64(10), e.Seq)
	live := lg.Live()
	require.Equal(t, []string{"1", "2", "5", "9", "10"}, seqs(live))
	for _, task := range live {
		require.Same(t, map[string]*Framework{"a": f, "b": f, "e": f, "c": g, "d": g}[task.ID], task.Framework, task.ID)
	}

	// A task that came another way, with one ended: built anew, the ended
	// one gone.
	lg.Forget(g, g.Tasks["c"])
	g.Tasks["x"] = &Task{ID: "x", Seq: 3}
	require.Equal(t, []string{"1", "2", "3", "5", "10"}, seqs(lg.Live()))
	require.Same(t, g, g.Tasks["x"].Framework)
	// Built, it is kept as it is.
	require.Equal(t, []string{"1", "2", "3", "5", "10"}, seqs(lg.Live()))
}

// DropOn forgets the framework's tasks on the agent and no other.
func TestLedgerDropOn(t *testing.T) {
	cs := &State{}
	f, g := &Framework{ID: "f"}, &Framework{ID: "g"}
	cs.Frameworks.Put(f)
	cs.Frameworks.Put(g)
	lg := NewLedger(cs)
	on := func(fw *Framework, agentID, id string) *Task {
		op := offer.Launch{Tasks: []offer.Task{{ID: id, Resources: resources.MustParse("cpus(allocated: r):1", "*")}}}
		lg.Record(fw, agentID, "r", []offer.Operation{op})
		return fw.Tasks[id]
	}
	f1, f2, f3, g1 := on(f, "a1", "f1"), on(f, "a2", "f2"), on(f, "a1", "f3"), on(g, "a1", "g1")
	lg.DropOn(f, "a1")
	require.Equal(t, map[string]*Task{"f2": f2}, f.Tasks)
	require.Equal(t, map[string]*Task{"g1": g1}, g.Tasks)
	require.True(t, f1.Ended)
	require.True(t, f3.Ended)
	require.False(t, f2.Ended)
	require.False(t, g1.Ended)
}

// A launching call allocates a shared volume once: the first of its tasks
// to use it owns it, the others own only the rest of what they use; a
// later call's first task owns it again. Launches count given by value or
// by pointer; other operations, and a nil launch, launch nothing.
func TestLedgerRecordOwnsSharedOnce(t *testing.T) {
	cs := &State{}
	fw := &Framework{ID: "f"}
	cs.Frameworks.Put(fw)
	lg := NewLedger(cs)
	vol := "disk(allocated: r)(reservations: [(DYNAMIC,r,ops)])[id:v1,principal:ops,path:data]<SHARED>:100"
	task := func(id, cpus string) offer.Task {
		return offer.Task{ID: id, Resources: resources.MustParse("cpus(allocated: r):"+cpus+";"+vol, "*")}
	}
	lg.Record(fw, "a1", "r", []offer.Operation{
		offer.Reserve{Resources: resources.MustParse("cpus(allocated: r)(reservations: [(DYNAMIC,r,ops)]):1", "*")},
		offer.Launch{Tasks: []offer.Task{task("t1", "1"), task("t2", "2")}},
		(*offer.Launch)(nil),
		&offer.Launch{Tasks: []offer.Task{task("t3", "3")}},
	})
	lg.Record(fw, "a1", "r", []offer.Operation{&offer.Launch{Tasks: []offer.Task{task("t4", "4")}}})
	require.Len(t, fw.Tasks, 4)
	for id, want := range map[string]string{
		"t1": "cpus(allocated: r):1;" + vol,
		"t2": "cpus(allocated: r):2",
		"t3": "cpus(allocated: r):3",
		"t4": "cpus(allocated: r):4;" + vol,
	} {
		tk := fw.Tasks[id]
		require.NotNil(t, tk, id)
		require.Equal(t, resources.MustParse(want, "*").String(), tk.Owns.String(), id)
		require.True(t, tk.Uses.Contains(resources.MustParse(vol, "*")), id)
		require.Equal(t, "a1", tk.Agent)
		require.Equal(t, "r", tk.Role)
		require.Same(t, fw, tk.Framework)
	}
	require.Equal(t, []string{"1", "2", "3", "4"}, seqs(lg.Live()))
}
