package allocator

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// requiredHeadroomInto, which adds a childless top-level role's unmet
// guarantees through a buffer of the tree's, gives the figure of its
// definition (the sum over top-level roles of unmet), into a value that
// held another figure before, for random trees of guarantees and use.
func TestRequiredHeadroomIntoIsTheSumOfUnmet(t *testing.T) {
	seed := uint64(20261127)
	rng := rand.New(rand.NewPCG(seed, seed))
	paths := []string{"a", "a/x", "a/y", "b", "c", "c/z", "d", "e/f"}
	for round := range 200 {
		tree := newRoleTree()
		for _, p := range paths {
			n := tree.ensure(p)
			if rng.IntN(3) > 0 {
				n.setQuota(Quota{Guarantees: resources.MustParseQuantities(fmt.Sprintf("cpus:%d;mem:%d", rng.IntN(8), rng.IntN(4096)))})
			}
			tree.trackAllocatedUnreserved(p, resources.MustParseQuantities(fmt.Sprintf("cpus:%d", rng.IntN(6))), true)
			if rng.IntN(2) == 0 {
				tree.trackReserved(p, resources.MustParseQuantities(fmt.Sprintf("mem:%d", rng.IntN(2048))), true)
			}
		}
		var want resources.Quantities
		for _, c := range tree.root.children {
			want.Add(tree.unmet(c))
		}
		got := resources.MustParseQuantities("cpus:99;gpus:3") // a figure left from before
		tree.requiredHeadroomInto(&got)
		require.True(t, got.Equal(want), "seed %d round %d: got %v, want %v", seed, round, got, want)
		require.True(t, tree.requiredHeadroom().Equal(want), "seed %d round %d", seed, round)
	}
}

// A run over many roles with quota allocates a few times, not once or
// twice per role: the required headroom is worked out at the start and
// the end of every run with quota.
func TestRunWithManyQuotaRolesAllocatesLittle(t *testing.T) {
	a, err := New(Options{Seed: 1})
	require.NoError(t, err)
	q := Quota{Guarantees: resources.MustParseQuantities("cpus:1;mem:1024")}
	const roles = 300
	for i := range roles {
		role := fmt.Sprintf("r%03d", i)
		require.NoError(t, a.UpdateQuota(role, q))
		require.NoError(t, a.AddFramework("f-"+role, FrameworkInfo{Roles: []string{role}}, nil, Active))
	}
	// Fewer agents than guarantees: the guarantees stay unmet, so both
	// figures of a run are worked out, and every agent is offered.
	for i := range 10 {
		require.NoError(t, a.AddAgent(fmt.Sprintf("agent-%d", i), AgentInfo{}, resources.MustParse("cpus:1;mem:1024", "*"), nil))
	}
	require.Len(t, a.AllocateAll().Offers, 10)
	n := testing.AllocsPerRun(20, func() {
		if got := len(a.AllocateAll().Offers); got != 0 {
			t.Fatalf("an empty run made %d offers", got)
		}
	})
	require.Less(t, n, float64(roles/10), "allocations of an empty run over %d roles with quota", roles)
}
