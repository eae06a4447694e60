package declines

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRefuseDefaults(t *testing.T) {
	require.Equal(t, time.Duration(5_000_000_000), DefaultRefuse)
	require.Equal(t, time.Duration(8760)*time.Hour, MaxRefuse)
}

func TestRefuseDuration(t *testing.T) {
	b := &Book{AllocationInterval: time.Second}
	for _, c := range []struct {
		asked, want time.Duration
	}{
		{0, 0},                                // no filter
		{-1, 5 * time.Second},                 // negative: the default
		{-time.Hour, 5 * time.Second},         // any negative
		{time.Nanosecond, time.Second},        // at least an interval
		{999 * time.Millisecond, time.Second}, //
		{time.Second, time.Second},            //
		{1500 * time.Millisecond, 1500 * time.Millisecond},
		{MaxRefuse - 1, MaxRefuse - 1},
		{MaxRefuse, MaxRefuse},
		{MaxRefuse + 1, MaxRefuse}, // a year at most
		{1 << 62, MaxRefuse},
	} {
		require.Equal(t, c.want, b.RefuseDuration(c.asked), "RefuseDuration(%v)", c.asked)
	}

	// The interval wins over the default and the cap alike: the filter
	// outlives the next batch.
	b.AllocationInterval = time.Minute
	require.Equal(t, time.Minute, b.RefuseDuration(-1))
	require.Equal(t, time.Minute, b.RefuseDuration(time.Second))
	require.Equal(t, 2*time.Minute, b.RefuseDuration(2*time.Minute))
	require.Equal(t, time.Duration(0), b.RefuseDuration(0))
	b.AllocationInterval = MaxRefuse + time.Hour
	require.Equal(t, MaxRefuse+time.Hour, b.RefuseDuration(2*MaxRefuse))

	// Without an interval the request stands.
	b.AllocationInterval = 0
	require.Equal(t, time.Nanosecond, b.RefuseDuration(time.Nanosecond))
	require.Equal(t, DefaultRefuse, b.RefuseDuration(-5))
}

// TestFilterInForce pins when a filter applies: before its expiry to every
// run; at it only to the first periodic run since it was made; never
// after.
func TestFilterInForce(t *testing.T) {
	b := &Book{Batches: 3}
	at := t0.Add(time.Minute)
	for _, c := range []struct {
		now      time.Time
		batch    uint64
		periodic bool
		want     bool
	}{
		{at.Add(-time.Nanosecond), 3, false, true},
		{at.Add(-time.Nanosecond), 3, true, true},
		{at.Add(-time.Nanosecond), 0, false, true},
		{at.Add(-time.Hour), 1, true, true},
		{at, 3, true, true},   // the first periodic run since: applies
		{at, 3, false, false}, // not periodic
		{at, 2, true, false},  // a periodic run was made since
		{at, 4, true, false},  // (never made ahead; not the same batch)
		{at.Add(time.Nanosecond), 3, true, false},
		{at.Add(time.Nanosecond), 3, false, false},
	} {
		require.Equal(t, c.want, b.FilterInForce(at, c.batch, c.now, c.periodic), "now %v batch %d periodic %v", c.now.Sub(at), c.batch, c.periodic)
	}
}

// TestFilterAlive pins when a filter may still apply: before its expiry,
// or at it while no periodic run was made since.
func TestFilterAlive(t *testing.T) {
	b := &Book{Batches: 7}
	at := t0.Add(time.Minute)
	require.True(t, b.FilterAlive(at, 7, at.Add(-time.Nanosecond)))
	require.True(t, b.FilterAlive(at, 6, at.Add(-time.Nanosecond)))
	require.True(t, b.FilterAlive(at, 7, at))
	require.False(t, b.FilterAlive(at, 6, at))
	require.False(t, b.FilterAlive(at, 8, at))
	require.False(t, b.FilterAlive(at, 7, at.Add(time.Nanosecond)))
	require.False(t, b.FilterAlive(at, 6, at.Add(time.Hour)))
}

// TestFilterTieAtExpiry drives the tie through the book, compact filter
// and ordinary one alike: Mesos's OfferFilter (a 2 s filter with a 1 s
// interval applies to the batch at D+1 s, not to the batch at D+2 s) and
// SmallOfferFilterTimeout (a 1 s filter with a 60 s interval applies to
// the next batch, at D+60 s).
func TestFilterTieAtExpiry(t *testing.T) {
	for _, cacheFree := range []bool{false, true} {
		w := newWorld(t, cacheFree)
		ag := w.agent("a1", "cpus:4;mem:1024")
		fw := w.framework("f1", "r1")
		w.offerAndDecline(fw, ag, "r1", 2*time.Second, t0)
		_, isCompact := compact(fw, "r1", ag)
		require.Equal(t, !cacheFree, isCompact)
		all := ag.Available

		// A batch at D+1 s applies it.
		filtered, until := w.b.IsFiltered(fw, "r1", ag, all, true, t0.Add(time.Second), true)
		require.True(t, filtered)
		require.Equal(t, t0.Add(2*time.Second), until)
		w.b.Batches++
		// Nothing applies it at D+2 s, a batch having run since: the
		// batch then does not, and drops it.
		filtered, until = w.b.IsFiltered(fw, "r1", ag, all, true, t0.Add(2*time.Second), true)
		require.False(t, filtered)
		require.Equal(t, time.Time{}, until)
		require.Empty(t, w.filtersOn(fw, "r1", ag))
		require.False(t, ag.Filtered.Filtered(fw.Num))
		require.Equal(t, 1, w.made)
		require.Equal(t, 1, w.dropped)
		w.check(t0.Add(2 * time.Second))

		// SmallOfferFilterTimeout.
		w.b.AllocationInterval = time.Minute
		made := t0.Add(time.Hour)
		w.offerAndDecline(fw, ag, "r1", time.Second, made)
		expires := made.Add(time.Minute)
		require.Equal(t, []heldFilter{{all.String(), expires, w.b.Batches}}, w.filtersOn(fw, "r1", ag))
		// An event-driven run at that instant does not apply it, and
		// keeps it for the batch due then.
		filtered, _ = w.b.IsFiltered(fw, "r1", ag, all, true, expires, false)
		require.False(t, filtered)
		require.Len(t, w.filtersOn(fw, "r1", ag), 1)
		filtered, until = w.b.IsFiltered(fw, "r1", ag, all, true, expires, true)
		require.True(t, filtered)
		require.Equal(t, expires, until)
		w.b.Batches++
		// Once that batch is made, nothing applies it, and the next
		// look drops it.
		filtered, _ = w.b.IsFiltered(fw, "r1", ag, all, true, expires, false)
		require.False(t, filtered)
		require.Empty(t, w.filtersOn(fw, "r1", ag))
		require.Equal(t, 2, w.dropped)
		w.check(expires)
	}
}
