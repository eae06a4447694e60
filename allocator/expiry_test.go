package allocator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// A negative result whose refusal filters end outside what an expiry
// holds is not cached: with a clock in the year 1500 and a filter of an
// hour, the agent is looked at again once the hour is over, as the cache
// would not know when that is. In 2026 the same result is cached.
func TestNobodyNotCachedBeyondExpiry(t *testing.T) {
	for _, start := range []time.Time{
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		clock := NewManualClock(start)
		a, err := New(Options{Seed: 1, Clock: clock.Now})
		require.NoError(t, err)
		require.NoError(t, a.AddFramework("f", FrameworkInfo{Roles: []string{"r"}}, nil, Active))
		require.NoError(t, a.AddAgent("a1", AgentInfo{}, resources.MustParse("cpus:1;mem:64", "*"), nil))
		offers := a.Allocate().Offers
		require.Len(t, offers, 1)
		require.NoError(t, a.RecoverResources("f", "a1", offers[0].Resources, &Filter{Refuse: time.Hour}))
		require.Empty(t, a.AllocateAll().Offers)
		_, cached := a.cs.Agents.Get("a1").Nobody.Get("r")
		require.Equal(t, start.Year() == 2026, cached, "a result guarded by a filter ending in %d cached", start.Year())
		clock.Advance(2 * time.Hour)
		require.Len(t, a.AllocateAll().Offers, 1, "the filter is over")
	}
}
