package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// sharedVolume is a shared persistent volume reserved for db.
const sharedVolume = "disk(reservations: [(DYNAMIC,db,ops)])[id:shared,principal:ops,path:s]<SHARED>:500"

// volumeWorld: agent a1 with a shared volume, framework db running t1
// (cpus:1 and the volume), t2 (cpus:1 and the volume) and t3 (the volume
// alone), launched in one call: t1 owns the volume's copy.
func volumeWorld(t *testing.T) (*world, resources.Resources) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096;"+sharedVolume)
	w.framework("db", offer.SharedResources, "db")
	o := w.offerTo("db")
	vol := alloc(sharedVolume, "db")
	cpu := alloc("cpus:1", "db")
	w.ok(w.m.Accept("db", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{
		{ID: "t1", Resources: cpu.Plus(vol)}, {ID: "t2", Resources: cpu.Plus(vol)}, {ID: "t3", Resources: vol}}}}, nil))
	tasks := w.cs.Frameworks.Get("db").Tasks
	require.True(t, tasks["t1"].Owns.Contains(vol))
	require.False(t, tasks["t2"].Owns.Contains(vol))
	w.clearPending()
	return w, vol
}

// EndTask refuses an unknown framework or task, and a task whose
// resources were given back already.
func TestEndTaskRefusesBadInput(t *testing.T) {
	w := heldWorld(t)
	w.refuses(cluster.ErrUnknownFramework, func() error { return w.m.EndTask("f9", "t1") })
	w.refuses(cluster.ErrUnknownTask, func() error { return w.m.EndTask("f1", "t9") })
	w.ok(w.m.Recover("f1", "a1", alloc("mem:1024", "r"), nil, true))
	w.refuses(cluster.ErrNotHeld, func() error { return w.m.EndTask("f1", "t1") })
}

// EndTask forgets the task and gives back what it owns; a shared volume
// it owns passes to another task of the framework on the agent that uses
// it, and goes back only with the last of them.
func TestEndTaskHandsSharedVolumesOn(t *testing.T) {
	w, vol := volumeWorld(t)
	ag := w.cs.Agents.Get("a1")
	fw := w.cs.Frameworks.Get("db")
	cpu := alloc("cpus:1", "db")
	w.ok(w.m.EndTask("db", "t1"))
	require.NotContains(t, fw.Tasks, "t1")
	requireRes(t, cpu.Plus(vol), ag.Allocated.Get("db"))
	requireRes(t, cpu.Plus(vol), fw.Tasks["t2"].Owns, "t2, first by id, is the heir")
	w.ok(w.m.EndTask("db", "t2"))
	requireRes(t, vol, ag.Allocated.Get("db"))
	requireRes(t, vol, fw.Tasks["t3"].Owns)
	w.ok(w.m.EndTask("db", "t3"))
	require.True(t, ag.Allocated.Get("db").IsEmpty(), "left: %s", ag.Allocated.Get("db"))
	require.Empty(t, fw.Tasks)
	requireRes(t, res("cpus:4;mem:4096;"+sharedVolume), ag.Available)
}

// The end of a task chosen to make room holds what it frees for the
// framework it was chosen for, and ends the choice.
func TestEndTaskHoldsWhatAChosenTaskFrees(t *testing.T) {
	w := heldWorld(t)
	w.framework("f2", 0, "q")
	w.clearPending()
	ref := reclaim.TaskRef{Framework: "f1", Task: "t1"}
	w.reclaims.Choices[ref] = &reclaim.Choice{ForRole: "q", ForFramework: "f2", HeldIn: "q",
		Frees: qty("cpus:1;mem:1024"), Task: qty("cpus:1;mem:1024"), Room: qty("cpus:1;mem:1024"), Group: 1, Until: w.now.Add(time.Minute)}
	w.ok(w.m.EndTask("f1", "t1"))
	require.NotContains(t, w.reclaims.Choices, ref)
	ag := w.cs.Agents.Get("a1")
	requireRes(t, alloc("cpus:1;mem:1024", "q"), ag.Holds().Of("f2"))
	require.Equal(t, "a1", w.pending())
}

// RecoverHeld refuses an unknown framework or agent, an invalid hold
// (duration, nothing, shared volumes, no allocation role) and resources
// the framework does not use there.
func TestRecoverHeldRefusesBadInput(t *testing.T) {
	w := heldWorld(t)
	for name, tc := range inOrder(map[string]struct {
		fw, agent string
		res       resources.Resources
		d         time.Duration
		want      error
	}{
		"unknown framework":      {"f9", "a1", alloc("cpus:1", "r"), time.Second, cluster.ErrUnknownFramework},
		"unknown agent":          {"f1", "a9", alloc("cpus:1", "r"), time.Second, cluster.ErrUnknownAgent},
		"no time":                {"f1", "a1", alloc("cpus:1", "r"), 0, cluster.ErrInvalidHold},
		"negative time":          {"f1", "a1", alloc("cpus:1", "r"), -time.Second, cluster.ErrInvalidHold},
		"past the longest":       {"f1", "a1", alloc("cpus:1", "r"), declines.MaxRefuse + 1, cluster.ErrInvalidHold},
		"nothing":                {"f1", "a1", resources.Resources{}, time.Second, cluster.ErrInvalidHold},
		"a shared volume":        {"f1", "a1", alloc(sharedVolume, "r"), time.Second, cluster.ErrInvalidHold},
		"no allocation role":     {"f1", "a1", res("cpus:1"), time.Second, cluster.ErrInvalidResources},
		"a part without a role":  {"f1", "a1", alloc("cpus:1", "r").Plus(res("mem:1")), time.Second, cluster.ErrInvalidResources},
		"offered, not in use":    {"f1", "a1", alloc("cpus:2", "r"), time.Second, cluster.ErrNotHeld},
		"more than in use":       {"f1", "a1", alloc("mem:2048", "r"), time.Second, cluster.ErrNotHeld},
		"in use in another role": {"f1", "a1", alloc("cpus:1", "q"), time.Second, cluster.ErrNotHeld},
	}) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.RecoverHeld(tc.fw, tc.agent, tc.res, tc.d) })
		})
	}
}

// RecoverHeld moves what the framework uses to a hold for it, until now
// plus the duration (a year at most), and makes the agent wait for a run.
func TestRecoverHeld(t *testing.T) {
	for _, d := range []time.Duration{time.Nanosecond, declines.MaxRefuse} {
		w := heldWorld(t)
		w.now = w.now.Add(time.Hour)
		ag := w.cs.Agents.Get("a1")
		w.ok(w.m.RecoverHeld("f1", "a1", alloc("mem:512", "r"), d))
		requireRes(t, alloc("cpus:1;mem:512", "r"), ag.Allocated.Get("f1"))
		require.Equal(t, cluster.HoldList{{Framework: "f1", Res: alloc("mem:512", "r"), Until: w.now.Add(d)}}, holdsOf(ag))
		requireRes(t, res("cpus:1;mem:3072"), ag.Available, "held resources are not available")
		require.Equal(t, "a1", w.pending())
	}
}

// holdsOf returns ag's holds with their resources in a form require.Equal
// compares by content.
func holdsOf(ag *cluster.Agent) cluster.HoldList {
	var out cluster.HoldList
	for _, h := range ag.Holds() {
		out = append(out, cluster.Hold{Framework: h.Framework, Res: resources.MustParse(h.Res.String(), "*"), Until: h.Until})
	}
	return out
}

// PreemptTask refuses an unknown framework or task, an invalid hold, a
// task with nothing to hold but shared volumes, and a task whose
// resources were given back; the volumes a task hands on are checked with
// the rest.
func TestPreemptTaskRefusesBadInput(t *testing.T) {
	w, vol := volumeWorld(t)
	w.refuses(cluster.ErrUnknownFramework, func() error { return w.m.PreemptTask("f9", "t1", time.Second) })
	w.refuses(cluster.ErrUnknownTask, func() error { return w.m.PreemptTask("db", "t9", time.Second) })
	for _, d := range []time.Duration{0, -1, declines.MaxRefuse + 1} {
		w.refuses(cluster.ErrInvalidHold, func() error { return w.m.PreemptTask("db", "t2", d) })
	}
	w.refuses(cluster.ErrInvalidHold, func() error { return w.m.PreemptTask("db", "t3", time.Second) })
	// t1's volume given back, its end cannot hand it on: refused whole.
	w.ok(w.m.EndTask("db", "t2"))
	w.ok(w.m.EndTask("db", "t3"))
	w.ok(w.m.Recover("db", "a1", vol, nil, true))
	w.refuses(cluster.ErrNotHeld, func() error { return w.m.PreemptTask("db", "t1", time.Second) })
	w.ok(w.m.Recover("db", "a1", alloc("cpus:1", "db"), nil, true))
	w.refuses(cluster.ErrNotHeld, func() error { return w.m.PreemptTask("db", "t1", time.Second) })
}

// PreemptTask ends the task and holds its resources for its framework; a
// shared volume it owns passes on as EndTask passes it.
func TestPreemptTask(t *testing.T) {
	w, vol := volumeWorld(t)
	ag := w.cs.Agents.Get("a1")
	fw := w.cs.Frameworks.Get("db")
	w.ok(w.m.PreemptTask("db", "t1", declines.MaxRefuse))
	require.NotContains(t, fw.Tasks, "t1")
	requireRes(t, alloc("cpus:1", "db").Plus(vol), fw.Tasks["t2"].Owns)
	require.Equal(t, cluster.HoldList{{Framework: "db", Res: alloc("cpus:1", "db"), Until: w.now.Add(declines.MaxRefuse)}}, holdsOf(ag))
	requireRes(t, alloc("cpus:1", "db").Plus(vol), ag.Allocated.Get("db"))
	require.Equal(t, "a1", w.pending())

	w2 := heldWorld(t)
	w2.ok(w2.m.PreemptTask("f1", "t1", time.Second))
	ag2 := w2.cs.Agents.Get("a1")
	require.Empty(t, w2.cs.Frameworks.Get("f1").Tasks)
	require.False(t, ag2.Allocated.Has("f1"))
	require.Equal(t, cluster.HoldList{{Framework: "f1", Res: alloc("cpus:1;mem:1024", "r"), Until: w2.now.Add(time.Second)}}, holdsOf(ag2))
}
