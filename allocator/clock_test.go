package allocator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
)

// A nil Options.Clock is the system clock: a short refusal expires as real
// time passes, and the declined resources are offered again.
func TestNilClockIsSystemClock(t *testing.T) {
	a := newAllocator(t, allocator.Options{Seed: 1, AllocationInterval: 10 * time.Millisecond})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	offers := a.AllocateAll().Offers
	require.Len(t, offers, 1)
	start := time.Now()
	require.NoError(t, a.RecoverResources("web", "a1", offers[0].Resources, &allocator.Filter{Refuse: 50 * time.Millisecond}))
	filters := a.Filters()
	require.Len(t, filters, 1)
	require.WithinDuration(t, start.Add(50*time.Millisecond), filters[0].Expires, time.Second,
		"the filter's expiry is not read off the system clock")
	// A run that ended before the expiry ran within the refusal (however
	// late a loaded machine let it start).
	if during := a.AllocateAll(); time.Now().Before(filters[0].Expires) {
		require.Empty(t, during.Offers, "offered within the refusal")
	}
	time.Sleep(time.Until(filters[0].Expires) + 5*time.Millisecond)
	require.Len(t, a.AllocateAll().Offers, 1, "the refusal never expired")
}

func TestManualClock(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := allocator.NewManualClock(start)
	require.Equal(t, start, c.Now())
	require.Equal(t, start.Add(time.Second), c.Advance(time.Second))
	require.Equal(t, start.Add(time.Second), c.Now())
	c.Set(start)
	require.Equal(t, start, c.Now())
}
