package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// heldWorld: agent a1 of cpus:4;mem:4096, f1 (role r) offered cpus:2 and
// using cpus:1;mem:1024 (task t1) there; a2 is empty.
func heldWorld(t *testing.T) *world {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", 0, "r")
	w.launch(w.offerTo("f1"), "cpus:1;mem:1024", "t1")
	o := w.offerTo("f1")
	w.ok(w.m.Recover("f1", "a1", o.Resources.Minus(alloc("cpus:2", "r")), nil, false))
	w.agent("a2", "cpus:1;mem:1024")
	w.clearPending()
	ag := w.cs.Agents.Get("a1")
	requireRes(t, alloc("cpus:2", "r"), ag.Offered.Get("f1"))
	requireRes(t, alloc("cpus:1;mem:1024", "r"), ag.Allocated.Get("f1"))
	return w
}

// Recover (and Decline) refuse an unknown framework or agent, resources
// without an allocation role, and resources the framework does not hold
// on the agent.
func TestRecoverRefusesBadInput(t *testing.T) {
	w := heldWorld(t)
	refuse := time5s
	for name, tc := range inOrder(map[string]struct {
		fw, agent string
		res       resources.Resources
		want      error
	}{
		"unknown framework":                {"f9", "a1", alloc("cpus:1", "r"), cluster.ErrUnknownFramework},
		"unknown agent":                    {"f1", "a9", alloc("cpus:1", "r"), cluster.ErrUnknownAgent},
		"no allocation role":               {"f1", "a1", res("cpus:1"), cluster.ErrInvalidResources},
		"one part without allocation role": {"f1", "a1", alloc("cpus:1", "r").Plus(res("mem:1")), cluster.ErrInvalidResources},
		"not held":                         {"f1", "a1", alloc("cpus:4", "r"), cluster.ErrNotHeld},
		"held in another role":             {"f1", "a1", alloc("cpus:1", "q"), cluster.ErrNotHeld},
		"held on another agent":            {"f1", "a2", alloc("cpus:1", "r"), cluster.ErrNotHeld},
	}) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.Recover(tc.fw, tc.agent, tc.res, &refuse, true) })
			w.refuses(tc.want, func() error { return w.m.Decline(tc.fw, tc.agent, tc.res, &refuse) })
			require.False(t, w.dec.Declining)
		})
	}
}

// Recover gives back what it names: from what is offered first, or from
// what is in use first (allocatedFirst), or from both; with a duration it
// leaves a refusal filter. Nothing is given back for nothing.
func TestRecover(t *testing.T) {
	for name, tc := range inOrder(map[string]struct {
		res                       string
		allocatedFirst            bool
		refuse                    bool
		offered, allocated, avail string
	}{
		"nothing":               {"", false, true, "cpus:2", "cpus:1;mem:1024", "cpus:1;mem:3072"},
		"offered":               {"cpus:1", false, false, "cpus:1", "cpus:1;mem:1024", "cpus:2;mem:3072"},
		"allocated first":       {"cpus:1", true, false, "cpus:2", "mem:1024", "cpus:2;mem:3072"},
		"from both":             {"cpus:3", false, false, "", "mem:1024", "cpus:4;mem:3072"},
		"offered, with filter":  {"cpus:2", false, true, "", "cpus:1;mem:1024", "cpus:3;mem:3072"},
		"in use, with a filter": {"mem:1024", true, true, "cpus:2", "cpus:1", "cpus:1;mem:4096"},
	}) {
		t.Run(name, func(t *testing.T) {
			w := heldWorld(t)
			var refuse *time.Duration
			if tc.refuse {
				d := time5s
				refuse = &d
			}
			w.ok(w.m.Recover("f1", "a1", alloc(tc.res, "r"), refuse, tc.allocatedFirst))
			ag := w.cs.Agents.Get("a1")
			requireRes(t, alloc(tc.offered, "r"), ag.Offered.Get("f1"), "offered")
			requireRes(t, alloc(tc.allocated, "r"), ag.Allocated.Get("f1"), "allocated")
			requireRes(t, res(tc.avail), ag.Available, "available")
			require.Equal(t, tc.refuse && tc.res != "", w.filters() != 0, "a filter")
			require.Empty(t, w.dec.RoundMembers(ag), "Recover makes no round")
		})
	}
}

// Decline gives back as Recover does and puts the framework in the
// agent's round of declines, unless it gave back nothing.
func TestDecline(t *testing.T) {
	w := heldWorld(t)
	ag := w.cs.Agents.Get("a1")
	w.ok(w.m.Decline("f1", "a1", resources.Resources{}, nil))
	require.Empty(t, w.dec.RoundMembers(ag))
	w.ok(w.m.Decline("f1", "a1", alloc("cpus:2", "r"), nil))
	require.Equal(t, []string{"f1"}, w.dec.RoundMembers(ag))
	require.False(t, w.dec.Declining)
	require.Zero(t, w.filters())
	requireRes(t, res("cpus:3;mem:3072"), ag.Available)
}

// Accept and UpdateAllocation refuse what package operations refuses
// (unknown framework or agent, resources not held, operations that do not
// apply) before anything changes.
func TestAcceptRefusesBadInput(t *testing.T) {
	w := heldWorld(t)
	launch := func(id, r string) []offer.Operation {
		return []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: id, Resources: alloc(r, "r")}}}}
	}
	refuse := time5s
	for name, tc := range inOrder(map[string]struct {
		fw, agent string
		offered   resources.Resources
		ops       []offer.Operation
		want      error
	}{
		"unknown framework": {"f9", "a1", alloc("cpus:1", "r"), nil, cluster.ErrUnknownFramework},
		"unknown agent":     {"f1", "a9", alloc("cpus:1", "r"), nil, cluster.ErrUnknownAgent},
		"not held":          {"f1", "a1", alloc("cpus:4", "r"), nil, cluster.ErrNotHeld},
		"no role":           {"f1", "a1", res("cpus:1"), nil, cluster.ErrInvalidResources},
		"a task id running": {"f1", "a1", alloc("cpus:1", "r"), launch("t1", "cpus:1"), cluster.ErrDuplicateTask},
		"more than offered": {"f1", "a1", alloc("cpus:1", "r"), launch("t2", "cpus:2"), cluster.ErrOperation},
	}) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.Accept(tc.fw, tc.agent, tc.offered, tc.ops, &refuse) })
			w.refuses(tc.want, func() error { return w.m.UpdateAllocation(tc.fw, tc.agent, tc.offered, tc.ops) })
		})
	}
}

// Accept launches and gives back the rest, with the refusal filter asked
// for; UpdateAllocation launches and leaves the rest offered.
func TestAcceptAndUpdateAllocation(t *testing.T) {
	w := heldWorld(t)
	ag := w.cs.Agents.Get("a1")
	refuse := time5s
	w.ok(w.m.UpdateAllocation("f1", "a1", alloc("cpus:1", "r"), []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "t2", Resources: alloc("cpus:0.5", "r")}}}}))
	requireRes(t, alloc("cpus:1.5", "r"), ag.Offered.Get("f1"))
	requireRes(t, alloc("cpus:1.5;mem:1024", "r"), ag.Allocated.Get("f1"))
	require.Contains(t, w.cs.Frameworks.Get("f1").Tasks, "t2")

	// A launch of everything offered gives nothing back: no filter.
	w.ok(w.m.Accept("f1", "a1", alloc("cpus:0.5", "r"), []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "t3", Resources: alloc("cpus:0.5", "r")}}}}, &refuse))
	require.Zero(t, w.filters())
	requireRes(t, alloc("cpus:1", "r"), ag.Offered.Get("f1"))

	w.ok(w.m.Accept("f1", "a1", alloc("cpus:1", "r"), []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "t4", Resources: alloc("cpus:0.5", "r")}}}}, &refuse))
	require.False(t, ag.Offered.Has("f1"))
	requireRes(t, alloc("cpus:2.5;mem:1024", "r"), ag.Allocated.Get("f1"))
	requireRes(t, res("cpus:1.5;mem:3072"), ag.Available)
	require.NotZero(t, w.filters(), "the half cpu given back is filtered")
}

// AcceptEach refuses an unknown framework or agent and offered resources
// it does not hold, before anything changes; otherwise it applies each
// operation that applies, reports each that does not, and gives back the
// rest with the filter asked for.
func TestAcceptEach(t *testing.T) {
	w := heldWorld(t)
	refuse := time5s
	for name, tc := range inOrder(map[string]struct {
		fw, agent string
		offered   resources.Resources
		want      error
	}{
		"unknown framework": {"f9", "a1", alloc("cpus:1", "r"), cluster.ErrUnknownFramework},
		"unknown agent":     {"f1", "a9", alloc("cpus:1", "r"), cluster.ErrUnknownAgent},
		"not held":          {"f1", "a1", alloc("cpus:4", "r"), cluster.ErrNotHeld},
		"no role":           {"f1", "a1", res("cpus:1"), cluster.ErrInvalidResources},
	}) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error {
				each, err := w.m.AcceptEach(tc.fw, tc.agent, tc.offered, nil, &refuse)
				require.Nil(t, each)
				return err
			})
		})
	}
	w.t = t
	ag := w.cs.Agents.Get("a1")
	task := func(id, r string) offer.Operation {
		return offer.Launch{Tasks: []offer.Task{{ID: id, Resources: alloc(r, "r")}}}
	}
	each, err := w.m.AcceptEach("f1", "a1", alloc("cpus:2", "r"), []offer.Operation{
		task("t2", "cpus:0.5"), task("t1", "cpus:0.5"), task("t3", "cpus:2"), task("t4", "cpus:1")}, &refuse)
	w.ok(err)
	require.Len(t, each, 4)
	require.NoError(t, each[0])
	require.ErrorIs(t, each[1], cluster.ErrDuplicateTask)
	require.ErrorIs(t, each[2], cluster.ErrOperation)
	require.NoError(t, each[3])
	requireRes(t, alloc("cpus:2.5;mem:1024", "r"), ag.Allocated.Get("f1"))
	require.False(t, ag.Offered.Has("f1"))
	requireRes(t, res("cpus:1.5;mem:3072"), ag.Available)
	require.NotZero(t, w.filters())

	// Nothing left to give back: no filter either.
	w2 := heldWorld(t)
	_, err = w2.m.AcceptEach("f1", "a1", alloc("cpus:2", "r"), []offer.Operation{task("t2", "cpus:2")}, &refuse)
	w2.ok(err)
	require.Zero(t, w2.filters())
}

// RescindOffer refuses an id that is not outstanding; it gives back the
// offer of that id, and no other.
func TestRescindOffer(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.agent("a2", "cpus:4;mem:4096")
	w.framework("f1", 0, "r")
	offers := w.allocate()
	require.Len(t, offers, 2)
	w.refuses(cluster.ErrUnknownOffer, func() error { return w.m.RescindOffer("offer-9") })
	w.ok(w.m.RescindOffer(offers[1].ID))
	require.False(t, w.cs.Agents.Get("a2").Offered.Has("f1"))
	require.Empty(t, w.cs.Agents.Get("a2").Outstanding)
	requireRes(t, offers[0].Resources, w.cs.Agents.Get("a1").Offered.Get("f1"))
	require.Len(t, w.cs.Agents.Get("a1").Outstanding, 1)
	w.refuses(cluster.ErrUnknownOffer, func() error { return w.m.RescindOffer(offers[1].ID) })
	w.ok(w.m.RescindOffer(offers[0].ID))
	require.False(t, w.cs.Agents.Get("a1").Offered.Has("f1"))
}
