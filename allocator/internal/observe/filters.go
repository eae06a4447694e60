package observe

import (
	"math"
	"time"
)

// FilterCount counts refusal filters by expiry, so that those that can no
// longer apply stop counting before a run drops them.
type FilterCount struct {
	n        int
	counts   map[filterKey]int
	earliest int64
}

// filterKey is a filter's expiry (UnixNano) and how many periodic runs had
// been made when it was made.
type filterKey struct {
	expires int64
	batch   uint64
}

// Add counts delta filters expiring at t, made after batch periodic runs.
// A filter already let go (Active) is not counted again as it leaves.
// Adding none (delta 0) changes nothing: no expiry without a filter counts.
func (c *FilterCount) Add(t time.Time, batch uint64, delta int) {
	k := filterKey{t.UnixNano(), batch}
	if delta <= 0 {
		if c.counts[k] == 0 {
			return
		}
		c.counts[k] += delta
		c.n += delta
		if c.counts[k] <= 0 {
			delete(c.counts, k)
		}
		return
	}
	if c.counts == nil {
		c.counts = map[filterKey]int{}
	}
	if c.n == 0 {
		c.earliest = k.expires
	} else {
		c.earliest = min(c.earliest, k.expires)
	}
	c.counts[k] += delta
	c.n += delta
}

// ExpiresBy reports whether some filter counted expires by now.
func (c *FilterCount) ExpiresBy(now time.Time) bool {
	return c.n > 0 && now.UnixNano() >= c.earliest
}

// Active lets go of the filters that can no longer apply at now, with
// batches periodic runs made, and returns how many are left. A filter
// expiring exactly at now is let go once a periodic run was made since it
// was (its batch is not batches).
func (c *FilterCount) Active(now time.Time, batches uint64) int {
	if !c.ExpiresBy(now) {
		return c.n
	}
	t := now.UnixNano()
	// The earliest expiry of those left; none left, ExpiresBy is false
	// whatever it is, and Add sets it anew.
	c.earliest = math.MaxInt64
	for k, n := range c.counts {
		if k.expires < t || (k.expires == t && k.batch != batches) {
			c.n -= n
			delete(c.counts, k)
		} else {
			c.earliest = min(c.earliest, k.expires)
		}
	}
	return c.n
}

// Len is how many filters are counted, without letting any go.
func (c *FilterCount) Len() int { return c.n }
