package allocator

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// refNeed is need's definition, worked out plainly: a role's unmet
// guarantees or, when larger, the sum of its children's needs.
func refNeed(n *roleNode) resources.Quantities {
	var children resources.Quantities
	for _, c := range n.children {
		children.Add(refNeed(c))
	}
	if n.q().Guarantees.IsEmpty() {
		return children
	}
	var own resources.Quantities
	n.unmetInto(&own)
	own.Max(children)
	return own
}

// requiredHeadroomInto, which works a subtree's need out in buffers of the
// tree's a depth, gives the figure of its definition (the sum over
// top-level roles of refNeed), into a value that held another figure
// before, for random trees of guarantees and use three levels deep.
func TestRequiredHeadroomIntoIsTheSumOfNeeds(t *testing.T) {
	seed := uint64(20261127)
	rng := rand.New(rand.NewPCG(seed, seed))
	paths := []string{"a", "a/x", "a/y", "a/x/p", "a/x/q", "b", "c", "c/z", "c/z/w", "d", "e/f"}
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
			want.Add(refNeed(c))
		}
		got := resources.MustParseQuantities("cpus:99;gpus:3") // a figure left from before
		tree.requiredHeadroomInto(&got)
		require.True(t, got.Equal(want), "seed %d round %d: got %v, want %v", seed, round, got, want)
		require.True(t, tree.requiredHeadroom().Equal(want), "seed %d round %d", seed, round)
	}
}

// A run over many roles with quota, flat and nested, allocates a few
// times, not once or twice per role: the required headroom is worked out
// at the start and the end of every run with quota.
func TestRunWithManyQuotaRolesAllocatesLittle(t *testing.T) {
	a, err := New(Options{Seed: 1})
	require.NoError(t, err)
	q := Quota{Guarantees: resources.MustParseQuantities("cpus:1;mem:1024")}
	const roles = 300
	for i := range roles {
		role := fmt.Sprintf("r%03d", i)
		if i%2 == 1 { // half of them under 30 parents with quota of their own
			parent := fmt.Sprintf("t%02d", i%30)
			require.NoError(t, a.UpdateQuota(parent, Quota{Guarantees: resources.MustParseQuantities("cpus:2;mem:2048")}))
			role = parent + "/" + role
		}
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
