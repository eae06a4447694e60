package allocator_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// TestZeroAllocator: a declared Allocator works as New(Options{}) does,
// whichever method is called first.
func TestZeroAllocator(t *testing.T) {
	var a allocator.Allocator
	require.Empty(t, a.Agents())
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:1024", "*"), nil))
	require.NoError(t, a.AddFramework("f1", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	res := a.Allocate()
	require.Len(t, res.Offers, 1)
	require.Equal(t, "f1", res.Offers[0].FrameworkID)

	var b allocator.Allocator
	require.ErrorIs(t, b.RemoveFramework("f1"), allocator.ErrUnknownFramework)
	require.NoError(t, b.CheckInvariants())
}
