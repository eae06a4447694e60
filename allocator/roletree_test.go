package allocator

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// TestRoleTreePrunes: a node goes when neither it nor its subtree holds
// anything (reservations, offered or allocated resources, frameworks,
// quota, a weight, children), and its ancestors go with it on the same
// terms; a node whose subtree still holds something stays. The subtree
// figures alone decide, so a node keeps no own part apart, and fits a
// smaller size class.
func TestRoleTreePrunes(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(roles.Node{}), uintptr(192), "the role node grew past its size class")
	q := resources.MustParseQuantities("cpus:2;mem:64")
	tree := roles.NewTree()
	has := func(paths ...string) {
		t.Helper()
		for _, p := range paths {
			require.NotNil(t, tree.Get(p), "%s was dropped", p)
		}
	}
	gone := func(paths ...string) {
		t.Helper()
		for _, p := range paths {
			require.Nil(t, tree.Get(p), "%s stayed", p)
		}
	}

	// Reservations of a parent and of its child.
	tree.TrackReserved("eng", q, true)
	tree.TrackReserved("eng/db", q, true)
	require.Equal(t, "cpus:4; mem:128", tree.Get("eng").Reserved.String())
	tree.TrackReserved("eng", q, false)
	has("eng", "eng/db") // the child's reservation is still in eng's subtree
	require.Equal(t, "cpus:2; mem:64", tree.Get("eng").Reserved.String())
	tree.TrackReserved("eng/db", q, false)
	gone("eng/db", "eng")

	// A leaf that gives back part of its reservations stays.
	tree.TrackReserved("r", q, true)
	tree.TrackReserved("r", q, true)
	tree.TrackReserved("r", q, false)
	has("r")
	tree.TrackReserved("r", q, false)
	gone("r")

	// Allocated resources of a grandchild keep the chain; the last to go
	// takes it along.
	tree.TrackAllocatedUnreserved("a/b/c", q, true)
	tree.TrackReserved("a", q, true)
	tree.TrackReserved("a", q, false)
	has("a", "a/b", "a/b/c")
	tree.TrackAllocatedUnreserved("a/b/c", q, false)
	tree.Prune("a/b/c")
	gone("a/b/c", "a/b", "a")

	// A sibling's holdings keep the parent, not the emptied sibling.
	tree.TrackAllocatedUnreserved("x/y", q, true)
	tree.TrackReserved("x/z", q, true)
	tree.TrackReserved("x/z", q, false)
	gone("x/z")
	has("x", "x/y")
	require.Len(t, tree.Get("x").Children, 1)
}

// A role without quota reads the one zero quota, which nothing may
// change: CheckInvariants says so when something did, and a role given a
// quota and then none holds none.
func TestRolesShareTheZeroQuota(t *testing.T) {
	a := invariantCluster(t)
	require.Nil(t, a.roles.Get("web").Quota, "a role without quota holds one")
	require.NoError(t, a.UpdateQuota("web", Quota{Guarantees: resources.MustParseQuantities("cpus:1")}))
	require.NotNil(t, a.roles.Get("web").Quota)
	require.NoError(t, a.UpdateQuota("web", Quota{}))
	require.Nil(t, a.roles.Get("web").Quota, "a quota set to zero is kept")
	require.NoError(t, a.CheckInvariants())
	roles.NoQuota.Guarantees = resources.MustParseQuantities("cpus:1")
	defer func() { roles.NoQuota = roles.Quota{} }()
	err := a.CheckInvariants()
	require.ErrorContains(t, err, "the quota of roles without one was changed")
}
