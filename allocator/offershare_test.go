package allocator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
)

// With OfferShare, an agent is split among the first frameworks in DRF
// order within one run: no offer holds more than that part of its
// unreserved scalars; ports and other non-scalars go whole with the first.
func TestOfferShareSplitsAgents(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, OfferShare: 0.5})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:16;mem:65536;ports:[31000-31009]"), nil))
	require.NoError(t, a.AddFramework("batch", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active))
	require.NoError(t, a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	want := map[string]string{
		"batch": "cpus:8; mem:32768; ports:[31000-31009]",
		"web":   "cpus:8; mem:32768",
	}
	offers := a.Allocate().Offers
	require.Len(t, offers, 2)
	for _, o := range offers {
		require.True(t, o.Resources.Unallocate().Equal(res(want[o.FrameworkID])), "%s offered %s, want %s", o.FrameworkID, o.Resources, want[o.FrameworkID])
	}

	// Mesos's behaviour without it: the first framework takes the agent.
	b := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, b.AddAgent("a1", allocator.AgentInfo{}, res("cpus:16;mem:65536;ports:[31000-31009]"), nil))
	require.NoError(t, b.AddFramework("batch", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active))
	require.NoError(t, b.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	require.Len(t, b.Allocate().Offers, 1)

	for _, bad := range []float64{-0.5, 1, 2} {
		_, err := allocator.New(allocator.Options{OfferShare: bad})
		require.ErrorIs(t, err, allocator.ErrInvalidOptions, "OfferShare %v", bad)
	}
}
