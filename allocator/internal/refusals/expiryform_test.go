package refusals

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
		e, ok := ExpiryOf(at)
		require.True(t, ok, "%v", at)
		require.NotEqual(t, NoExpiry, e, "%v", at)
		require.True(t, e.Time().Equal(at), "%v came back as %v", at, e.Time())
	}
	e, ok := ExpiryOf(time.Time{})
	require.True(t, ok)
	require.Equal(t, NoExpiry, e)
	require.True(t, NoExpiry.Time().IsZero())
	for _, out := range []time.Time{
		time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		_, ok := ExpiryOf(out)
		require.False(t, ok, "%v", out)
	}
}
