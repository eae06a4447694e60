package run_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/resources"
)

// Stage one offers a role below its guarantee what it is owed of the
// quota part, never past its limit, and what else the headroom and the
// limit leave (here the agent's memory); stage two offers the rest by
// fair share.
func TestStageOneOffersTheGuaranteeWithinTheLimit(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.quota("g", "cpus:1", "cpus:1")
	w.framework("fg", "g")
	w.framework("fo", "o")
	r := w.run(true)
	require.Equal(t, []string{"fg g a1 cpus:1; mem:4096", "fo o a1 cpus:3"}, offers(r.Offers))
	require.Empty(t, skips(r.Stats))
	require.Empty(t, w.passes())
}

// A guarantee larger than one agent is met across agents in stage one,
// each agent's offer up to what is still owed; the rest of the last
// agent's quota part is held for no one and offered with it (the headroom
// allows it), and the role without quota has what is left.
func TestStageOneMeetsAGuaranteeAcrossAgents(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:2;mem:1024")
	w.agent("a2", "cpus:2;mem:1024")
	w.agent("a3", "cpus:2;mem:1024")
	w.quota("g", "cpus:3", "cpus:3")
	w.framework("fg", "g")
	w.framework("fo", "o")
	r := w.run(true)
	got := offers(r.Offers)
	require.Len(t, got, 4, "%v", got)
	held := resources.Quantities{}
	for _, o := range r.Offers {
		if o.FrameworkID == "fg" {
			held.Add(o.Resources.Quantities())
		}
	}
	require.Equal(t, "cpus:3; mem:2048", held.String(), "fg is offered its guarantee, at its limit, on two agents: %v", got)
	require.Contains(t, got, "fo o a3 cpus:2; mem:1024")
}

// Without a limit, a role below its guarantee is offered, in stage one,
// everything the headroom held for others leaves.
func TestStageOneWithoutLimit(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.agent("a2", "cpus:4;mem:4096")
	w.quota("g", "cpus:2", "")
	w.framework("fg", "g")
	w.framework("fo", "o")
	r := w.run(true)
	require.Equal(t, []string{"fg g a2 cpus:4; mem:4096", "fo o a1 cpus:4; mem:4096"}, offers(r.Offers))
}

// What is free and held for a role's unmet guarantee is offered to no
// other role: the role without quota is offered the memory alone, and,
// where its minimum is cpus, nothing, passed over for the headroom.
func TestStageTwoKeepsTheHeadroom(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:2;mem:1024")
	w.quota("g", "cpus:2", "")
	w.framework("fo", "o")
	r := w.run(true)
	require.Equal(t, []string{"fo o a1 mem:1024"}, offers(r.Offers))

	w = newWorld(t, run.Config{MinAllocatable: []resources.Quantities{qty("cpus:0.01")}})
	w.agent("a1", "cpus:2;mem:1024")
	w.quota("g", "cpus:2", "")
	w.framework("fo", "o")
	r = w.run(true)
	require.Empty(t, r.Offers)
	require.Equal(t, "headroom:1", skips(r.Stats))
	require.Equal(t, []string{"fo o a1 fair headroom"}, w.passes())
	require.Zero(t, r.Stats.Capped, "memory is free: o is not capped")
}

// A role at its limit on one agent is passed over for the limit there,
// and offered what its limit leaves elsewhere; once nothing is left to it
// anywhere it is capped: counted once, its frameworks passed over once.
func TestStageTwoRespectsLimits(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4")
	w.agent("a2", "mem:1024")
	w.quota("o", "", "cpus:1")
	w.framework("fo", "o")
	r := w.run(true)
	require.Equal(t, []string{"fo o a1 cpus:1", "fo o a2 mem:1024"}, offers(r.Offers))
	w.giveBack(r.Offers[1:])
	r = w.run(true)
	require.Equal(t, []string{"fo o a2 mem:1024"}, offers(r.Offers))
	require.Equal(t, "quota-limit:1", skips(r.Stats))
	require.Equal(t, []string{"fo o a1 fair quota-limit"}, w.passes())
	require.Zero(t, r.Stats.Capped)

	r = w.run(true)
	require.Empty(t, r.Offers)
	require.Equal(t, 1, r.Stats.Capped)
	require.Equal(t, "quota-limit:1", skips(r.Stats))
	require.Equal(t, []string{"o"}, w.parking.Parked, "a capped role is parked")
	require.Empty(t, w.passes(), "a capped role's frameworks are not walked")
}

// A guarantee is offered only as far as the limits of the role's
// ancestors leave room: p's limit, with p/d holding part of it, keeps
// p/c's stage-one offer below what p/c is owed.
func TestStageOneWithinAnAncestorsLimit(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:1")
	w.framework("fd", "p/d")
	require.Equal(t, []string{"fd p/d a1 cpus:1"}, w.allocateAll())
	w.agent("a2", "cpus:4;mem:1024")
	w.quota("p", "", "cpus:2")
	w.quota("p/c", "cpus:2", "")
	w.framework("fc", "p/c")
	r := w.run(true)
	require.Equal(t, []string{"fc p/c a2 cpus:1; mem:1024"}, offers(r.Offers))
}

// Stage one offers a role its own reservations with its guarantee; its
// ancestors' reservations wait for stage two, where another role of the
// subtree may come first. An offer of stage two to the same framework,
// role and agent joins stage one's.
func TestStageOneOffersOwnReservationsOnly(t *testing.T) {
	for _, withParent := range []bool{false, true} {
		w := newWorld(t, run.Config{})
		w.agent("a1", "cpus:2;mem:1024;cpus(p):1;cpus(p/g):1")
		w.quota("p/g", "cpus:2", "")
		w.framework("fg", "p/g")
		want := []string{"fg p/g a1 cpus(p/g):1; cpus:2; mem:1024; cpus(p):1"}
		if withParent {
			w.framework("fp", "p")
			want = []string{"fg p/g a1 cpus(p/g):1; cpus:2; mem:1024", "fp p a1 cpus(p):1"}
		}
		r := w.run(true)
		require.Equal(t, want, offers(r.Offers), "with p's framework: %v", withParent)
	}
}

// An offer sized to a pending task in stage one lowers the headroom held
// for the role by what it holds, not by the guarantee it was cut from:
// the role without quota is offered what the rest of the guarantee does
// not hold back.
func TestStageOneSizedOfferHoldsTheRestOfTheHeadroom(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.agent("a2", "cpus:4;mem:4096")
	w.quota("g", "cpus:3", "")
	w.framework("fg", "g")
	w.demand("fg", "g", pend("cpus:1", 1))
	w.framework("fo", "o")
	r := w.run(true)
	got := offers(r.Offers)
	require.Len(t, got, 3, "%v", got)
	require.Equal(t, "fg g a2 cpus:1", got[0])
	held := resources.Quantities{}
	for _, o := range r.Offers {
		if o.FrameworkID == "fo" {
			held.Add(o.Resources.Quantities())
		}
	}
	require.Equal(t, "cpus:5; mem:8192", held.String(), "cpus:2 stay held for g: %v", got)
}

// A role capped because nothing free is enough to offer (here what is
// left is reserved for another role) is counted capped, and its
// frameworks are not counted as passed over: nothing holds them back.
func TestARoleCappedByNothingFree(t *testing.T) {
	w := newWorld(t, run.Config{MinAllocatable: []resources.Quantities{qty("cpus:0.01")}})
	w.agent("a1", "cpus:4;cpus(x):1")
	w.quota("o", "", "cpus:10")
	w.framework("fo", "o")
	require.Equal(t, []string{"fo o a1 cpus:4"}, w.allocateAll())
	r := w.run(true)
	require.Empty(t, r.Offers)
	require.Equal(t, 1, r.Stats.Capped)
	require.Empty(t, skips(r.Stats))
	require.Equal(t, quota.ByMinAllocatable, w.tree.Get("o").CappedBy)
}

// A framework filtered on an agent where a limit that does not bind cut
// nothing is a verdict that stands: the role is not walked there again
// while nothing changes.
func TestAFilterUnderALimitIsRemembered(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.quota("r", "", "cpus:100")
	w.framework("f1", "r")
	w.decline(w.run(true).Offers, time.Minute)
	r := w.run(true)
	require.Equal(t, []string{"f1 r a1 fair filtered"}, w.passes())
	require.Zero(t, r.Stats.Unchanged)
	r = w.run(true)
	require.Equal(t, 1, r.Stats.Unchanged)
}

// Stage one offers a role no more than it is owed, whichever of its
// frameworks takes it: once the first framework's offer meets the
// guarantee, the second is offered nothing in stage one, and stage two
// keeps the headroom held for another role's guarantee. A framework
// passed over in stage one does not end the role's walk.
func TestStageOneOffersTheGuaranteeOnce(t *testing.T) {
	w := newWorld(t, run.Config{MinAllocatable: []resources.Quantities{qty("cpus:0.01")}})
	w.agentInfo("a1", "cpus:6", cluster.AgentInfo{Attributes: map[string]string{"rack": "1"}})
	w.quota("g", "cpus:2", "")
	w.quota("h", "cpus:2", "")
	w.frameworkInfo("f0", cluster.FrameworkInfo{Roles: []string{"g"},
		Constraints: map[string]cluster.Constraints{"g": {{{Attribute: "rack", Op: cluster.OpExists + 1}}}}})
	w.framework("f1", "g")
	w.framework("f2", "g")
	r := w.run(true)
	require.Equal(t, []string{"f1 g a1 cpus:4"}, offers(r.Offers))
	require.Equal(t, []string{"f0 g a1 guarantees constraints"}, w.passes())
}

// Where a sub-role's guarantee decides what its parent's subtree needs, a
// stage-one offer to the parent's own guarantee does not lower that need:
// the parent's framework is offered its guarantee and no more of the
// headroom the sub-role's guarantee holds.
func TestStageOneKeepsTheHeadroomASubRoleNeeds(t *testing.T) {
	w := newWorld(t, run.Config{MinAllocatable: []resources.Quantities{qty("cpus:0.01")}})
	w.agent("a1", "cpus:8")
	w.quota("p", "cpus:2", "")
	w.quota("p/c", "cpus:3", "")
	w.framework("fp", "p")
	r := w.run(true)
	require.Equal(t, []string{"fp p a1 cpus:5"}, offers(r.Offers))
}

// Where a limit and the headroom both cut an offer below the minimum, the
// reason is the cut that binds: the headroom where what the limit alone
// leaves (cpus:2) is enough, the limit where it is not (cpus:0.5).
func TestTheCutThatBindsIsTheReason(t *testing.T) {
	for _, c := range []struct {
		limit, reason string
	}{{"cpus:2", "headroom"}, {"cpus:0.5", "quota-limit"}} {
		w := newWorld(t, run.Config{MinAllocatable: []resources.Quantities{qty("cpus:1")}})
		w.agent("a1", "cpus:4;mem:1024")
		w.quota("g", "cpus:4", "")
		w.quota("o", "", c.limit)
		w.framework("fo", "o")
		r := w.run(true)
		require.Empty(t, r.Offers, c.limit)
		require.Equal(t, []string{"fo o a1 fair " + c.reason}, w.passes(), c.limit)
		require.Equal(t, c.reason+":1", skips(r.Stats), c.limit)
	}
}
