package allocator

import (
	"math"
	"time"
)

// expiry is an instant kept as nanoseconds since the Unix epoch: 8 bytes
// where a time.Time takes 24, for what an agent keeps per role. noExpiry
// stands for the zero time (none). Instants outside the range of int64
// nanoseconds (before 1678, after 2262) have no expiry: what would be
// guarded by one is not kept (see expiryOf).
type expiry int64

const noExpiry = expiry(math.MinInt64)

var (
	lastExpiry  = time.Unix(0, math.MaxInt64)
	firstExpiry = time.Unix(0, math.MinInt64+1)
)

// expiryOf returns t as an expiry (noExpiry for the zero time), and false
// when t is outside the range an expiry holds.
func expiryOf(t time.Time) (expiry, bool) {
	switch {
	case t.IsZero():
		return noExpiry, true
	case t.After(lastExpiry), t.Before(firstExpiry):
		return noExpiry, false
	}
	return expiry(t.UnixNano()), true
}

// time returns the instant, the zero time for noExpiry.
func (e expiry) time() time.Time {
	if e == noExpiry {
		return time.Time{}
	}
	return time.Unix(0, int64(e)).UTC()
}
