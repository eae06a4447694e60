package run_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/resources"
)

// With an offer share, one offer holds at most that part of each of the
// agent's unreserved scalars; the rest goes to the next in DRF order.
func TestOfferShare(t *testing.T) {
	w := newWorld(t, run.Config{OfferShare: 0.25})
	w.agent("a1", "cpus:4;mem:4096;ports:[1-10]")
	w.framework("f1", "a")
	w.framework("f2", "b")
	r := w.run(true)
	require.Equal(t, []string{"f1 a a1 ports:[1-10]; cpus:1; mem:1024", "f2 b a1 cpus:1; mem:1024"}, offers(r.Offers))
}

// After an offer sized to a pending task the agent is walked again: a
// framework offered something there already is not offered more unless
// its offers are sized to its tasks, which then join its offer.
func TestAWalkAfterASizedOfferOffersNobodyTwice(t *testing.T) {
	w := newWorld(t, run.Config{OfferShare: 0.5})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f2", "a")
	w.framework("f1", "b")
	w.demand("f1", "b", pend("cpus:1;mem:512", 3))
	r := w.run(true)
	require.Equal(t, []string{"f1 b a1 cpus:2; mem:1024", "f2 a a1 cpus:2; mem:2048"}, offers(r.Offers))
	require.Equal(t, []int{1}, counts(w, "f1", "b"))
	require.Equal(t, 1, r.Stats.Unchanged, "what is left fits none of f1's tasks")
}

// A framework passed over for its minimum where the offer share did not
// cut what the agent has is a verdict that stands: the next run does not
// walk the role there again. One whose offer the share cut below its
// minimum is walked again (the cut is drawn anew each run).
func TestOfferShareAndRememberedPasses(t *testing.T) {
	for _, tc := range []struct {
		name      string
		used      string
		unchanged int
	}{
		{"not cut", "cpus:3;mem:3072", 2},
		{"cut", "cpus:1;mem:1024", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, run.Config{OfferShare: 0.5})
			w.agent("a1", "cpus:4;mem:4096")
			w.framework("f1", "a")
			out := w.run(true).Offers
			require.Len(t, out, 1)
			w.ok(w.m.Recover("f1", "a1", out[0].Resources.Minus(alloc(tc.used, "a")), nil, false))
			w.ok(w.m.SuppressOffers("f1"))
			w.frameworkInfo("f2", cluster.FrameworkInfo{Roles: []string{"b"}, MinAllocatable: map[string][]resources.Quantities{"b": {qty("cpus:2.5")}}})
			r := w.run(true)
			require.Empty(t, r.Offers)
			require.Equal(t, []string{"f2 b a1 fair min-allocatable"}, w.passes())
			// (Role a, where f1 suppresses offers, is unchanged either way.)
			r = w.run(true)
			require.Equal(t, tc.unchanged, r.Stats.Unchanged)
		})
	}
}

// A framework filtered on what the agent has, where the offer share cut
// nothing, is a verdict that stands: the role is not walked there again.
func TestOfferShareUncutFilterIsRemembered(t *testing.T) {
	w := newWorld(t, run.Config{OfferShare: 0.5})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f0", "a")
	out := w.run(true).Offers
	require.Equal(t, []string{"f0 a a1 cpus:2; mem:2048"}, offers(out))
	w.ok(w.m.SuppressOffers("f0"))
	w.framework("f1", "b")
	out = w.run(true).Offers
	require.Equal(t, []string{"f1 b a1 cpus:2; mem:2048"}, offers(out))
	w.decline(out, time.Minute)
	r := w.run(true)
	require.Equal(t, []string{"f1 b a1 fair filtered"}, w.passes())
	r = w.run(true)
	require.Equal(t, 2, r.Stats.Unchanged, "a, where f0 suppresses offers, and b")
}
