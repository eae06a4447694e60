package run_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/resources"
)

// A framework held back for the agent's round of declines that the agent's
// second walk does not reach (another took what was left first) was not
// held back in the end: its pass is dropped; one the second walk offers
// something keeps its pass.
func TestRotationDropsThePassOfAFrameworkNotReached(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", "r")
	w.decline(w.run(true).Offers, 0) // f1 joins a1's round
	w.framework("f3", "p")
	w.decline(w.run(true).Offers, 0) // f3 too
	require.Equal(t, []string{"f1", "f3"}, w.dec.RoundMembers(w.cs.Agents.Get("a1")))
	w.framework("f2", "q")
	w.demand("f2", "q", pend("cpus:1;mem:1024", 1))
	r := w.run(true)
	require.Equal(t, []string{"f2 q a1 cpus:1; mem:1024", "f3 p a1 cpus:3; mem:3072"}, offers(r.Offers))
	require.Equal(t, []string{"f3 p a1 fair declined", "f1 r a1 fair none"}, w.passes())
	require.Equal(t, "declined:2", skips(r.Stats), "the run's counts are not corrected")
	require.Empty(t, w.dec.RoundMembers(w.cs.Agents.Get("a1")), "the round ended")
}

// A framework the walk meets once its role is at its limit is passed over
// for the limit, held back by a round or not.
func TestRotationGivesTheCapAsTheReason(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4")
	w.framework("f1", "r")
	w.decline(w.run(true).Offers, 0)
	w.framework("f5", "r")
	w.quota("r", "", "cpus:2")
	r := w.run(true)
	require.Equal(t, []string{"f5 r a1 cpus:2"}, offers(r.Offers))
	require.Equal(t, []string{"f1 r a1 fair quota-limit"}, w.passes())
}

// A framework held back that the second walk passes over for another
// reason keeps both passes. (A cache-free engine walks the role again; a
// caching one knows nobody there can take what is left, and its record of
// the second walk is the cached one: the pass held back is dropped.)
func TestRotationKeepsALaterPass(t *testing.T) {
	w := newWorld(t, run.Config{CacheFree: true})
	w.agent("a1", "cpus:4;mem:4096")
	// f2's role has had two offers, f1's none: f1's role comes first.
	w.framework("f2", "b")
	w.giveBack(w.run(true).Offers)
	w.giveBack(w.run(true).Offers)
	w.frameworkInfo("f1", cluster.FrameworkInfo{Roles: []string{"a"}, MinAllocatable: map[string][]resources.Quantities{"a": {qty("cpus:2")}}})
	out := w.run(true).Offers
	require.Equal(t, []string{"f1 a a1 cpus:4; mem:4096"}, offers(out))
	w.decline(out, 0)
	w.demand("f2", "b", pend("cpus:3", 1))
	r := w.run(true)
	require.Equal(t, []string{"f2 b a1 cpus:3"}, offers(r.Offers))
	require.Equal(t, []string{"f1 a a1 fair declined", "f1 a a1 fair min-allocatable", "f1 a a1 fair min-allocatable"}, w.passes())
}

// A framework held back for the agent's round whose role another of its
// frameworks then took to its limit is not reached by the second walk
// (the role is capped): its pass gives the cap as the reason, not the
// round.
func TestRotationGivesTheCapOfTheRunAsTheReason(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a2", "cpus:1;mem:1024")
	w.framework("f5", "r")
	require.Equal(t, []string{"f5 r a2 cpus:1; mem:1024"}, w.allocateAll())
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", "r")
	w.decline(w.run(true).Offers, 0)
	require.Equal(t, []string{"f1"}, w.dec.RoundMembers(w.cs.Agents.Get("a1")))
	// f1, with nothing, comes before f5 in r's walk of a1: held back, then
	// f5 takes r to its limit.
	w.quota("r", "", "cpus:3")
	r := w.run(true)
	require.Equal(t, []string{"f5 r a1 cpus:2; mem:4096"}, offers(r.Offers))
	require.Equal(t, "quota-limit:2 declined:1", skips(r.Stats), "the run's counts are not corrected")
	require.Equal(t, []string{"f1 r a1 fair quota-limit"}, w.passes())
}
