package declines

import (
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
)

// TestSinceAnchor: the first instant asked for is the anchor; every other
// is nanoseconds from it, while that gives it back exactly and is neither
// extreme of int64 (math.MinInt64 marks an absent compact filter).
func TestSinceAnchor(t *testing.T) {
	b := &Book{}
	d, ok := b.SinceAnchor(t0)
	require.True(t, ok)
	require.Equal(t, int64(0), d)
	for _, c := range []struct {
		at   time.Time
		want int64
		ok   bool
	}{
		{t0, 0, true},
		{t0.Add(3 * time.Second), 3e9, true},
		{t0.Add(-2 * time.Nanosecond), -2, true},
		{t0.Add(math.MaxInt64 - 1), math.MaxInt64 - 1, true},
		{t0.Add(math.MinInt64 + 1), math.MinInt64 + 1, true},
		{t0.Add(math.MaxInt64), 0, false},
		{t0.Add(math.MinInt64), 0, false},
		{t0.AddDate(300, 0, 0), 0, false},
		{t0.AddDate(-300, 0, 0), 0, false},
	} {
		d, ok := b.SinceAnchor(c.at)
		require.Equal(t, c.ok, ok, "at %v", c.at)
		require.Equal(t, c.want, d, "at %v", c.at)
	}
	// The anchor stays the first instant, whatever came after.
	d, ok = b.SinceAnchor(t0.Add(time.Hour))
	require.True(t, ok)
	require.Equal(t, int64(time.Hour), d)
	ag := &cluster.Agent{Ref: res("cpus:1")}
	f := b.RefusalOf(refusals.WholeRefusal{Expires: 5e9, Batch: 3, Covered: 9}, ag)
	require.Equal(t, t0.Add(5*time.Second), f.Expires)
	require.Equal(t, uint64(3), f.Batch)
	require.Equal(t, uint64(9), f.Covered)
	requireRes(t, res("cpus:1"), f.Refused)

	// Another book anchors at its own first instant.
	b2 := &Book{}
	d, ok = b2.SinceAnchor(t0.AddDate(300, 0, 0))
	require.True(t, ok)
	require.Equal(t, int64(0), d)
}

// TestRefusalBeyondTheAnchorsReachIsOrdinary: a refusal of the whole
// reference whose expiry the anchor cannot hold exactly is kept as an
// ordinary filter, and applies the same.
func TestRefusalBeyondTheAnchorsReachIsOrdinary(t *testing.T) {
	w := newWorld(t, false)
	a1 := w.agent("a1", "cpus:4")
	a2 := w.agent("a2", "cpus:4")
	fw := w.framework("f1", "r1")
	w.offerAndDecline(fw, a1, "r1", time.Hour, t0)
	_, ok := compact(fw, "r1", a1)
	require.True(t, ok)
	later := t0.AddDate(300, 0, 0)
	w.offerAndDecline(fw, a2, "r1", time.Hour, later)
	_, ok = compact(fw, "r1", a2)
	require.False(t, ok)
	require.Equal(t, int32(0), a2.WholeRefused)
	require.Equal(t, []heldFilter{{res("cpus:4").String(), later.Add(time.Hour), 0}}, w.filtersOn(fw, "r1", a2))
	require.Equal(t, uint64(2), fw.Filters.On("r1", a2.ID)[0].Covered)
	require.True(t, w.inIndex(fw, a2, "r1"))
	filtered, until := w.b.IsFiltered(fw, "r1", a2, res("cpus:4"), true, later, false)
	require.True(t, filtered)
	require.Equal(t, later.Add(time.Hour), until)
	w.check(later)
}

// TestCacheFreeKeepsLists: a cache-free book keeps every filter in lists,
// a whole refusal included, with the same content.
func TestCacheFreeKeepsLists(t *testing.T) {
	w := newWorld(t, true)
	ag := w.agent("a1", "cpus:4")
	fw := w.framework("f1", "r1")
	w.offerAndDecline(fw, ag, "r1", time.Hour, t0)
	require.Empty(t, fw.Whole)
	require.Equal(t, int32(0), ag.WholeRefused)
	require.Equal(t, []heldFilter{{res("cpus:4").String(), t0.Add(time.Hour), 0}}, w.filtersOn(fw, "r1", ag))
	require.True(t, sameMap(fw.Filters, w.b.RefusalsOf(fw)))
	w.check(t0)
}

// TestRefusalsOfAndOn give compact filters as the ordinary ones they stand
// for, beside the ordinary ones, without changing the storage.
func TestRefusalsOfAndOn(t *testing.T) {
	w := newWorld(t, false)
	a1 := w.agent("a1", "cpus:4")
	a2 := w.agent("a2", "cpus:8;mem:64")
	fw := w.framework("f1", "r1", "r2")
	require.Nil(t, w.b.RefusalsOf(fw))
	w.b.Batches = 5
	w.offerAndDecline(fw, a1, "r1", time.Hour, t0)
	w.offerAndDecline(fw, a2, "r1", 2*time.Hour, t0.Add(time.Second))
	w.decline(fw, a2, w.take(a2, "mem:8", "r2"), 3*time.Hour, t0)
	w.offerAndDecline(fw, a1, "r2", 4*time.Hour, t0)

	got := w.b.RefusalsOf(fw)
	require.False(t, sameMap(fw.Filters, got))
	want := map[string]map[string][]heldFilter{
		"r1": {
			"a1": {{res("cpus:4").String(), t0.Add(time.Hour), 5}},
			"a2": {{res("cpus:8;mem:64").String(), t0.Add(2*time.Hour + time.Second), 5}},
		},
		"r2": {
			"a1": {{res("cpus:4").String(), t0.Add(4 * time.Hour), 5}},
			"a2": {{res("mem:8").String(), t0.Add(3 * time.Hour), 5}},
		},
	}
	plain := map[string]map[string][]heldFilter{}
	for role, byAgent := range got {
		plain[role] = map[string][]heldFilter{}
		for agentID, list := range byAgent {
			for _, f := range list {
				plain[role][agentID] = append(plain[role][agentID], heldFilter{f.Refused.String(), f.Expires.UTC(), f.Batch})
				covered := uint64(2)
				if role == "r2" && agentID == "a2" {
					covered = 0
				}
				require.Equal(t, covered, f.Covered, "%s on %s", role, agentID)
			}
		}
	}
	require.Equal(t, want, plain)
	// The storage is as it was.
	require.Equal(t, 2, fw.Whole["r1"].Len())
	require.Equal(t, 1, fw.Whole["r2"].Len())
	require.Equal(t, []string{"r2"}, slices.Collect(maps.Keys(fw.Filters)))
	require.Len(t, fw.Filters.On("r2", a2.ID), 1)

	// RefusalsOn: the compact one, or the list.
	require.Equal(t, []heldFilter{{res("cpus:4").String(), t0.Add(time.Hour), 5}}, w.filtersOn(fw, "r1", a1))
	require.Equal(t, []heldFilter{{res("mem:8").String(), t0.Add(3 * time.Hour), 5}}, w.filtersOn(fw, "r2", a2))
	require.Empty(t, w.b.RefusalsOn(fw, "r3", a1))
	g := w.framework("g", "r1")
	require.Empty(t, w.b.RefusalsOn(g, "r1", a1))
	w.check(t0)
}
