package refusals

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An expiry is the instant's nanoseconds since the epoch, and gives the
// instant back in UTC, whatever zone it was made in; the range it holds
// ends exactly at the int64 nanoseconds, the least of which stands for
// none.
func TestExpiryRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	zone := time.FixedZone("east", 5*3600+1800)
	for n := range 2000 {
		ns := int64(rng.Uint64())
		if ns == math.MinInt64 {
			continue
		}
		at := time.Unix(0, ns)
		if n%2 == 0 {
			at = at.In(zone)
		}
		e, ok := ExpiryOf(at)
		require.True(t, ok, "%d", ns)
		require.Equal(t, Expiry(ns), e, "%d", ns)
		back := e.Time()
		require.True(t, back.Equal(at), "%d came back as %v", ns, back)
		require.Equal(t, time.UTC, back.Location())
		require.Equal(t, ns, back.UnixNano())
	}

	for _, tc := range []struct {
		at time.Time
		ok bool
	}{
		{time.Unix(0, math.MaxInt64), true},
		{time.Unix(0, math.MaxInt64).Add(time.Nanosecond), false},
		{time.Unix(0, math.MinInt64+1), true},
		{time.Unix(0, math.MinInt64), false}, // that one is none
		{time.Unix(0, math.MinInt64).Add(-time.Nanosecond), false},
		{time.Unix(-1<<40, 0), false},
		{time.Unix(1<<40, 0), false},
	} {
		e, ok := ExpiryOf(tc.at)
		require.Equal(t, tc.ok, ok, "%v", tc.at)
		if ok {
			require.Equal(t, Expiry(tc.at.UnixNano()), e)
		} else {
			require.Equal(t, NoExpiry, e, "%v", tc.at)
		}
	}
	require.Equal(t, Expiry(math.MinInt64), NoExpiry)
	require.Equal(t, time.Time{}, NoExpiry.Time())
	require.Equal(t, time.Unix(0, 0).UTC(), Expiry(0).Time())
	require.Equal(t, time.Unix(0, math.MinInt64+1).UTC(), Expiry(math.MinInt64+1).Time())
}
