package allocator

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// TestRoleTreePrunes: a node goes when neither it nor its subtree holds
// anything (reservations, offered or allocated resources, frameworks,
// quota, a weight, children), and its ancestors go with it on the same
// terms; a node whose subtree still holds something stays. The subtree
// figures alone decide, so a node keeps no own part apart, and fits a
// smaller size class.
func TestRoleTreePrunes(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(roleNode{}), uintptr(192), "the role node grew past its size class")
	q := resources.MustParseQuantities("cpus:2;mem:64")
	tree := newRoleTree()
	has := func(paths ...string) {
		t.Helper()
		for _, p := range paths {
			require.NotNil(t, tree.get(p), "%s was dropped", p)
		}
	}
	gone := func(paths ...string) {
		t.Helper()
		for _, p := range paths {
			require.Nil(t, tree.get(p), "%s stayed", p)
		}
	}

	// Reservations of a parent and of its child.
	tree.trackReserved("eng", q, true)
	tree.trackReserved("eng/db", q, true)
	require.Equal(t, "cpus:4; mem:128", tree.get("eng").reserved.String())
	tree.trackReserved("eng", q, false)
	has("eng", "eng/db") // the child's reservation is still in eng's subtree
	require.Equal(t, "cpus:2; mem:64", tree.get("eng").reserved.String())
	tree.trackReserved("eng/db", q, false)
	gone("eng/db", "eng")

	// A leaf that gives back part of its reservations stays.
	tree.trackReserved("r", q, true)
	tree.trackReserved("r", q, true)
	tree.trackReserved("r", q, false)
	has("r")
	tree.trackReserved("r", q, false)
	gone("r")

	// Allocated resources of a grandchild keep the chain; the last to go
	// takes it along.
	tree.trackAllocatedUnreserved("a/b/c", q, true)
	tree.trackReserved("a", q, true)
	tree.trackReserved("a", q, false)
	has("a", "a/b", "a/b/c")
	tree.trackAllocatedUnreserved("a/b/c", q, false)
	tree.prune("a/b/c")
	gone("a/b/c", "a/b", "a")

	// A sibling's holdings keep the parent, not the emptied sibling.
	tree.trackAllocatedUnreserved("x/y", q, true)
	tree.trackReserved("x/z", q, true)
	tree.trackReserved("x/z", q, false)
	gone("x/z")
	has("x", "x/y")
	require.Len(t, tree.get("x").children, 1)
}

// A role without quota reads the one zero quota, which nothing may
// change: CheckInvariants says so when something did, and a role given a
// quota and then none holds none.
func TestRolesShareTheZeroQuota(t *testing.T) {
	a := invariantCluster(t)
	require.Nil(t, a.roles.get("web").quota, "a role without quota holds one")
	require.NoError(t, a.UpdateQuota("web", Quota{Guarantees: resources.MustParseQuantities("cpus:1")}))
	require.NotNil(t, a.roles.get("web").quota)
	require.NoError(t, a.UpdateQuota("web", Quota{}))
	require.Nil(t, a.roles.get("web").quota, "a quota set to zero is kept")
	require.NoError(t, a.CheckInvariants())
	noQuota.Guarantees = resources.MustParseQuantities("cpus:1")
	defer func() { noQuota = Quota{} }()
	err := a.CheckInvariants()
	require.ErrorContains(t, err, "the quota of roles without one was changed")
}
