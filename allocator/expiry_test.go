package allocator

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// An expiry gives back the instant it was made from, the zero time
// included; an instant outside the range of int64 nanoseconds has none.
func TestExpiry(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2026, 11, 27, 9, 0, 0, 123, time.UTC),
		time.Unix(0, 0).UTC(),
		time.Unix(0, -1).UTC(),
		time.Unix(0, math.MaxInt64).UTC(),
		time.Unix(0, math.MinInt64+1).UTC(),
	} {
		e, ok := expiryOf(at)
		require.True(t, ok, "%v", at)
		require.NotEqual(t, noExpiry, e, "%v", at)
		require.True(t, e.time().Equal(at), "%v came back as %v", at, e.time())
	}
	e, ok := expiryOf(time.Time{})
	require.True(t, ok)
	require.Equal(t, noExpiry, e)
	require.True(t, noExpiry.time().IsZero())
	for _, out := range []time.Time{
		time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		_, ok := expiryOf(out)
		require.False(t, ok, "%v", out)
	}
}

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
		_, cached := a.agents.Get("a1").nobody.Get("r")
		require.Equal(t, start.Year() == 2026, cached, "a result guarded by a filter ending in %d cached", start.Year())
		clock.Advance(2 * time.Hour)
		require.Len(t, a.AllocateAll().Offers, 1, "the filter is over")
	}
}
