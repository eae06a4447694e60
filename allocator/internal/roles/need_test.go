package roles

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// refNeed is need's definition, worked out plainly: a role's unmet
// guarantees or, when larger, the sum of its children's needs.
func refNeed(n *Node) resources.Quantities {
	var children resources.Quantities
	for _, c := range n.Children {
		children.Add(refNeed(c))
	}
	if n.Quota == nil || n.Quota.Guarantees.IsEmpty() {
		return children
	}
	// The role's own unmet guarantees, worked out here rather than by
	// UnmetInto, which is under test too.
	own := n.Quota.Guarantees.Minus(n.Reserved).Minus(n.AllocatedUnreserved)
	own.Max(children)
	return own
}

// treePaths are the roles of randomTree, three levels deep.
var treePaths = []string{"a", "a/x", "a/y", "a/x/p", "a/x/q", "b", "c", "c/z", "c/z/w", "d", "e/f"}

// randomTree gives each role of treePaths a random guarantee (or none), use
// and reservations.
func randomTree(rng *rand.Rand) *Tree {
	tree := NewTree()
	for _, p := range treePaths {
		n := tree.Ensure(p)
		if rng.IntN(3) > 0 {
			n.SetQuota(Quota{Guarantees: resources.MustParseQuantities(fmt.Sprintf("cpus:%d;mem:%d", rng.IntN(8), rng.IntN(4096)))})
		}
		tree.TrackAllocatedUnreserved(p, resources.MustParseQuantities(fmt.Sprintf("cpus:%d", rng.IntN(6))), true)
		if rng.IntN(2) == 0 {
			tree.TrackReserved(p, resources.MustParseQuantities(fmt.Sprintf("mem:%d", rng.IntN(2048))), true)
		}
	}
	return tree
}

// requiredHeadroomInto, which works a subtree's need out in buffers of the
// tree's a depth, gives the figure of its definition (the sum over
// top-level roles of refNeed), into a value that held another figure
// before, for random trees of guarantees and use three levels deep.
func TestRequiredHeadroomIntoIsTheSumOfNeeds(t *testing.T) {
	seed := uint64(20261127)
	rng := rand.New(rand.NewPCG(seed, seed))
	for round := range 200 {
		tree := randomTree(rng)
		var want resources.Quantities
		for _, c := range tree.Root.Children {
			want.Add(refNeed(c))
		}
		got := resources.MustParseQuantities("cpus:99;gpus:3") // a figure left from before
		tree.RequiredHeadroomInto(&got)
		require.True(t, got.Equal(want), "seed %d round %d: got %v, want %v", seed, round, got, want)
		require.True(t, tree.RequiredHeadroom().Equal(want), "seed %d round %d", seed, round)
	}
}

// refRequired is the required headroom of its definition: the sum of the
// top-level roles' needs.
func refRequired(tree *Tree) resources.Quantities {
	var sum resources.Quantities
	for _, c := range tree.Root.Children {
		sum.Add(refNeed(c))
	}
	return sum
}

// NeedFallInto gives how much the required headroom falls when a role
// consumes more: the definition's figure before, less after (worked out
// by actually tracking the consumption, then taking it back), for random
// trees and roles; the tree is as it was afterwards. The case that
// matters: with guarantees on a and a/x, what a/y consumes under a's
// guarantee does not lower a's need below a/x's.
func TestNeedFallIntoIsTheFallOfTheRequiredHeadroom(t *testing.T) {
	seed := uint64(20261129)
	rng := rand.New(rand.NewPCG(seed, seed))
	for round := range 300 {
		tree := randomTree(rng)
		p := treePaths[rng.IntN(len(treePaths))]
		n := tree.Get(p)
		add := resources.MustParseQuantities(fmt.Sprintf("cpus:%d;mem:%d", rng.IntN(6), rng.IntN(3000)))
		before := refRequired(tree)
		tree.TrackAllocatedUnreserved(p, add, true)
		after := refRequired(tree)
		tree.TrackAllocatedUnreserved(p, add, false)
		want := before.Minus(after)

		got := resources.MustParseQuantities("gpus:7") // a figure left from before
		tree.NeedFallInto(n, add, &got)
		require.True(t, got.Equal(want), "seed %d round %d, %s consumes %v: fall %v, want %v", seed, round, p, add, got, want)
		require.True(t, refRequired(tree).Equal(before), "seed %d round %d: the tree changed", seed, round)
	}

	tree := NewTree()
	tree.Ensure("a").SetQuota(Quota{Guarantees: resources.MustParseQuantities("cpus:4")})
	tree.Ensure("a/x").SetQuota(Quota{Guarantees: resources.MustParseQuantities("cpus:4")})
	var fall resources.Quantities
	tree.NeedFallInto(tree.Ensure("a/y"), resources.MustParseQuantities("cpus:4"), &fall)
	require.True(t, fall.IsEmpty(), "a/y's use lowered a's need below a/x's: %v", fall)
	tree.NeedFallInto(tree.Get("a/x"), resources.MustParseQuantities("cpus:3"), &fall)
	require.True(t, fall.Equal(resources.MustParseQuantities("cpus:3")), "%v", fall)
	tree.NeedFallInto(tree.Root, resources.MustParseQuantities("cpus:3"), &fall)
	require.True(t, fall.IsEmpty(), "the root consumes nothing of its own")
}
