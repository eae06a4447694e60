package declines

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/sorter"
)

// TestAgentReference pins what AvailableGrew keeps: available within the
// reference, a new generation only when it grows past it.
func TestAgentReference(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4;mem:1024")
	// Added: the empty reference grew to the total.
	require.Equal(t, uint64(2), ag.RefGen)
	requireRes(t, res("cpus:4;mem:1024"), ag.Ref)

	// Taking and giving back within the reference keeps it.
	r := w.take(ag, "cpus:3", "r1")
	w.giveBack(ag, r)
	require.Equal(t, uint64(2), ag.RefGen)
	requireRes(t, res("cpus:4;mem:1024"), ag.Ref)

	// Available beyond the reference: it becomes the reference, one
	// generation on.
	ag.Available = res("cpus:5;mem:1024")
	w.b.AvailableGrew(ag)
	require.Equal(t, uint64(3), ag.RefGen)
	requireRes(t, res("cpus:5;mem:1024"), ag.Ref)
	w.b.AvailableGrew(ag)
	require.Equal(t, uint64(3), ag.RefGen)
	w.check(t0)
}

// TestAddRefusalWholeIsCompact: a decline of everything the agent had is
// kept compactly, covers the reference, and enters the role's index.
func TestAddRefusalWholeIsCompact(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4;mem:1024")
	a2 := w.agent("a2", "cpus:1")
	fw := w.framework("f1", "r1", "r2")
	g := w.framework("g", "r1")
	w.b.Batches = 4
	w.offerAndDecline(fw, ag, "r1", time.Hour, t0)

	require.Equal(t, 1, fw.Num)
	require.Same(t, fw, w.b.RefusersByNum.At(1))
	require.True(t, ag.Filtered.Filtered(1))
	require.False(t, a2.Filtered.Filtered(1))
	require.Empty(t, fw.Filters)
	wr, ok := compact(fw, "r1", ag)
	require.True(t, ok)
	// The first compact filter anchors the expiries at its own.
	require.Equal(t, refusals.WholeRefusal{Expires: 0, Batch: 4, Covered: 2}, wr)
	require.Equal(t, int32(1), ag.WholeRefused)
	require.Equal(t, int32(0), a2.WholeRefused)
	total := res("cpus:4;mem:1024").String()
	require.Equal(t, []heldFilter{{total, t0.Add(time.Hour), 4}}, w.filtersOn(fw, "r1", ag))
	require.Equal(t, map[filterKey]int{{"f1", "r1", stamp(t0.Add(time.Hour)), 4}: 1}, w.live)

	idx := index(ag, "r1")
	require.NotNil(t, idx)
	require.Equal(t, uint64(2), idx.Gen)
	require.Equal(t, t0.Add(time.Hour), idx.Until)
	require.Equal(t, []int{w.sorterNum(fw, "r1")}, collect(idx.Skip))
	require.Nil(t, index(ag, "r2"))
	require.Nil(t, index(a2, "r1"))

	// It filters every candidate within the reference, in its role, on
	// its agent, for its framework.
	for _, c := range []struct {
		fw        *cluster.Framework
		role      string
		ag        *cluster.Agent
		candidate string
		withinRef bool
		want      bool
	}{
		{fw, "r1", ag, "cpus:4;mem:1024", true, true},
		{fw, "r1", ag, "cpus:1", true, true},
		{fw, "r1", ag, "cpus:1", false, true},
		{fw, "r1", ag, "cpus:5", false, false},
		{fw, "r2", ag, "cpus:1", true, false},
		{fw, "r1", a2, "cpus:1", true, false},
		{g, "r1", ag, "cpus:1", true, false},
	} {
		filtered, until := w.b.IsFiltered(c.fw, c.role, c.ag, res(c.candidate), c.withinRef, t0.Add(time.Minute), false)
		require.Equal(t, c.want, filtered, "%+v", c)
		if c.want {
			require.Equal(t, t0.Add(time.Hour), until)
		} else {
			require.Equal(t, time.Time{}, until)
		}
	}
	require.Equal(t, 0, g.Num)
	w.check(t0.Add(time.Minute))
}

// collect lists a bit set's members.
func collect(b sorter.Bitset) []int {
	var out []int
	for i := range b.All() {
		out = append(out, i)
	}
	return out
}

// TestSecondFilterUnpacksTheCompactOne: a role and agent have one compact
// filter or a list; a second filter there turns the first into an
// ordinary one, which keeps its expiry, batch and coverage.
func TestSecondFilterUnpacksTheCompactOne(t *testing.T) {
	for _, second := range []string{"cpus:1", "cpus:4;mem:1024"} {
		w := newWorld(t, false)
		ag := w.agent("a1", "cpus:4;mem:1024")
		fw := w.framework("f1", "r1")
		w.b.Batches = 2
		w.offerAndDecline(fw, ag, "r1", time.Hour, t0)
		w.b.Batches = 3
		w.decline(fw, ag, w.take(ag, second, "r1"), 30*time.Minute, t0.Add(time.Minute))

		require.Empty(t, fw.Whole, "second %s", second)
		require.Equal(t, int32(0), ag.WholeRefused)
		list := fw.Filters.On("r1", ag.ID)
		require.Len(t, list, 2)
		requireRes(t, ag.Ref, list[0].Refused)
		require.Equal(t, t0.Add(time.Hour), list[0].Expires)
		require.Equal(t, uint64(2), list[0].Batch)
		require.Equal(t, uint64(2), list[0].Covered)
		requireRes(t, res(second), list[1].Refused)
		require.Equal(t, t0.Add(31*time.Minute), list[1].Expires)
		require.Equal(t, uint64(3), list[1].Batch)
		whole := second != "cpus:1"
		if whole {
			require.Equal(t, uint64(2), list[1].Covered)
		} else {
			require.Equal(t, uint64(0), list[1].Covered)
		}
		// With no compact filter left, RefusalsOf is the lists themselves.
		require.True(t, sameMap(fw.Filters, w.b.RefusalsOf(fw)))
		require.Equal(t, 2, w.made)
		w.check(t0.Add(time.Minute))

		// The first covering filter in the list says until when.
		filtered, until := w.b.IsFiltered(fw, "r1", ag, res("cpus:1"), true, t0.Add(2*time.Minute), false)
		require.True(t, filtered)
		require.Equal(t, t0.Add(time.Hour), until)
		// Once the second expires, the next look drops it.
		filtered, until = w.b.IsFiltered(fw, "r1", ag, res("cpus:1"), true, t0.Add(40*time.Minute), false)
		require.True(t, filtered)
		require.Equal(t, t0.Add(time.Hour), until)
		require.Len(t, fw.Filters.On("r1", ag.ID), 1)
		require.Equal(t, 1, w.dropped)
		require.True(t, ag.Filtered.Filtered(fw.Num))
		w.check(t0.Add(40 * time.Minute))
	}
}

// TestRefusalNarrowsTheReference: a refusal of all the agent has now,
// less than its reference, makes that the reference in the same
// generation (filters that covered the wider one still cover); the
// agent's compact filters are unpacked first, refusing the old reference.
// Growth past it then starts a new generation.
func TestRefusalNarrowsTheReference(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4;mem:1024")
	fw := w.framework("f1", "r1")
	g := w.framework("g", "r1")
	h := w.framework("h", "r1")
	w.offerAndDecline(g, ag, "r1", time.Hour, t0)
	require.Equal(t, int32(1), ag.WholeRefused)

	used := w.take(ag, "cpus:2", "r1") // h's, in use
	w.offerAndDecline(fw, ag, "r1", 2*time.Hour, t0)
	requireRes(t, res("cpus:2;mem:1024"), ag.Ref)
	require.Equal(t, uint64(2), ag.RefGen)
	// fw's refusal is of the new reference: compact; g's was unpacked.
	_, ok := compact(fw, "r1", ag)
	require.True(t, ok)
	_, ok = compact(g, "r1", ag)
	require.False(t, ok)
	require.Equal(t, int32(1), ag.WholeRefused)
	require.Equal(t, []heldFilter{{res("cpus:4;mem:1024").String(), t0.Add(time.Hour), 0}}, w.filtersOn(g, "r1", ag))
	require.Equal(t, uint64(2), g.Filters.On("r1", ag.ID)[0].Covered)
	require.Equal(t, []heldFilter{{res("cpus:2;mem:1024").String(), t0.Add(2 * time.Hour), 0}}, w.filtersOn(fw, "r1", ag))
	require.True(t, w.inIndex(fw, ag, "r1"))
	require.True(t, w.inIndex(g, ag, "r1"))
	require.False(t, w.inIndex(h, ag, "r1"))
	require.Equal(t, t0.Add(time.Hour), index(ag, "r1").Until)
	w.check(t0)

	// h gives back: available grows past the reference.
	w.giveBack(ag, used)
	requireRes(t, res("cpus:4;mem:1024"), ag.Ref)
	require.Equal(t, uint64(3), ag.RefGen)
	require.Empty(t, fw.Whole)
	require.Equal(t, int32(0), ag.WholeRefused)
	require.Equal(t, []heldFilter{{res("cpus:2;mem:1024").String(), t0.Add(2 * time.Hour), 0}}, w.filtersOn(fw, "r1", ag))
	require.Equal(t, uint64(2), fw.Filters.On("r1", ag.ID)[0].Covered)
	// The old generation's index no longer holds.
	require.False(t, index(ag, "r1").ValidAt(ag.RefGen, t0))
	all := res("cpus:4;mem:1024")
	filtered, _ := w.b.IsFiltered(fw, "r1", ag, all, true, t0.Add(time.Minute), false)
	require.False(t, filtered, "a filter of the narrower reference does not cover the grown one")
	filtered, until := w.b.IsFiltered(fw, "r1", ag, res("cpus:2"), true, t0.Add(time.Minute), false)
	require.True(t, filtered)
	require.Equal(t, t0.Add(2*time.Hour), until)
	filtered, until = w.b.IsFiltered(g, "r1", ag, all, true, t0.Add(time.Minute), false)
	require.True(t, filtered)
	require.Equal(t, t0.Add(time.Hour), until)
	// g's filter covers the new reference: the index starts afresh, with
	// g alone.
	idx := index(ag, "r1")
	require.Equal(t, uint64(3), idx.Gen)
	require.Equal(t, []int{w.sorterNum(g, "r1")}, collect(idx.Skip))
	require.Equal(t, t0.Add(time.Hour), idx.Until)
	require.Equal(t, uint64(3), g.Filters.On("r1", ag.ID)[0].Covered)
	w.check(t0.Add(time.Minute))
}

// TestRefusalBeyondAvailableNarrows: a refusal that holds all the agent
// has and more, but not its reference, narrows the reference to what is
// available and stays an ordinary filter, which covers it.
func TestRefusalBeyondAvailableNarrows(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4;mem:1024")
	fw := w.framework("f1", "r1")
	g := w.framework("g", "r1")
	w.offerAndDecline(g, ag, "r1", time.Hour, t0)
	w.take(ag, "cpus:3", "r1")
	w.b.AddRefusal(fw, ag, alloc("cpus:2;mem:1024", "r1"), time.Hour, t0)
	requireRes(t, res("cpus:1;mem:1024"), ag.Ref)
	require.Equal(t, uint64(2), ag.RefGen)
	require.Empty(t, fw.Whole)
	require.Empty(t, g.Whole)
	require.Equal(t, int32(0), ag.WholeRefused)
	list := fw.Filters.On("r1", ag.ID)
	require.Len(t, list, 1)
	requireRes(t, res("cpus:2;mem:1024"), list[0].Refused)
	require.Equal(t, uint64(2), list[0].Covered)
	require.True(t, w.inIndex(fw, ag, "r1"))
	requireRes(t, res("cpus:4;mem:1024"), g.Filters.On("r1", ag.ID)[0].Refused)
	w.check(t0)
}

// TestRefusalOfPartsIsOrdinary: refusals of part of the agent, in several
// roles at once, are ordinary filters, one a role, not known to cover the
// reference.
func TestRefusalOfPartsIsOrdinary(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4;mem:1024")
	fw := w.framework("f1", "r1", "r2")
	r := w.take(ag, "cpus:1", "r1").Plus(w.take(ag, "cpus:2", "r2"))
	w.b.Batches = 9
	w.decline(fw, ag, r, 10*time.Second, t0)

	require.Empty(t, fw.Whole)
	require.Equal(t, []heldFilter{{res("cpus:1").String(), t0.Add(10 * time.Second), 9}}, w.filtersOn(fw, "r1", ag))
	require.Equal(t, []heldFilter{{res("cpus:2").String(), t0.Add(10 * time.Second), 9}}, w.filtersOn(fw, "r2", ag))
	require.Equal(t, uint64(0), fw.Filters.On("r1", ag.ID)[0].Covered)
	require.Nil(t, index(ag, "r1"))
	require.Nil(t, index(ag, "r2"))
	require.Equal(t, 2, w.made)
	require.Equal(t, map[filterKey]int{
		{"f1", "r1", stamp(t0.Add(10 * time.Second)), 9}: 1,
		{"f1", "r2", stamp(t0.Add(10 * time.Second)), 9}: 1,
	}, w.live)
	w.check(t0)

	for _, c := range []struct {
		role, candidate string
		withinRef, want bool
	}{
		{"r1", "cpus:1", true, true},
		{"r1", "cpus:2", true, false}, // not covered: looked at
		{"r1", "cpus:1;mem:1", true, false},
		{"r2", "cpus:2", true, true},
		{"r2", "cpus:2", false, true},
		{"r2", "cpus:3", false, false},
	} {
		filtered, _ := w.b.IsFiltered(fw, c.role, ag, res(c.candidate), c.withinRef, t0.Add(time.Second), false)
		require.Equal(t, c.want, filtered, "%+v", c)
	}
}

// TestNoRefusal: a refusal of no time makes no filter, and no number.
func TestNoRefusal(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4")
	fw := w.framework("f1", "r1")
	r := w.take(ag, "cpus:4", "r1")
	w.giveBack(ag, r)
	w.b.AddRefusal(fw, ag, r, 0, t0)
	require.Equal(t, 0, fw.Num)
	require.Empty(t, fw.Filters)
	require.Empty(t, fw.Whole)
	require.Equal(t, int32(0), ag.WholeRefused)
	require.Equal(t, 0, w.made)
	require.Nil(t, ag.Filtered)
	filtered, _ := w.b.IsFiltered(fw, "r1", ag, r.Unallocate(), true, t0, false)
	require.False(t, filtered)
	w.check(t0)
}

// TestUnindexedSorter: with a framework sorter that does not number its
// clients, or in a role with no sorter (a role the framework left), the
// filters are kept and apply, and no index is made.
func TestUnindexedSorter(t *testing.T) {
	w := newWorld(t, false)
	w.sorters = func() sorter.Sorter { return sorter.NewRandom(sorter.Config{}) }
	ag := w.agent("a1", "cpus:4")
	fw := w.framework("f1", "r1")
	w.offerAndDecline(fw, ag, "r1", time.Hour, t0)
	w.offerAndDecline(fw, ag, "gone", time.Hour, t0)
	_, ok := compact(fw, "r1", ag)
	require.True(t, ok)
	wr, ok := compact(fw, "gone", ag)
	require.True(t, ok)
	require.Equal(t, uint64(2), wr.Covered)
	require.Nil(t, index(ag, "r1"))
	require.Nil(t, index(ag, "gone"))
	for _, role := range []string{"r1", "gone"} {
		filtered, until := w.b.IsFiltered(fw, role, ag, res("cpus:4"), true, t0, false)
		require.True(t, filtered)
		require.Equal(t, t0.Add(time.Hour), until)
	}
	w.b.ClearRefusalBits(fw, "r1")
	require.Equal(t, 2, len(w.allFilters()))
	w.b.ForgetFilters(fw, "r1")
	require.Equal(t, 1, len(w.allFilters()))
	require.Equal(t, int32(1), ag.WholeRefused)
	w.check(t0)
	w.b.ForgetFilters(fw, "")
	require.Empty(t, w.allFilters())
	require.Equal(t, int32(0), ag.WholeRefused)
	require.False(t, ag.Filtered.Filtered(fw.Num))
	w.check(t0)
}

// TestIsFilteredTrustsTheBit: without its bit on the agent a numbered
// framework has no filter there, and its lists are not looked at; a
// cache-free book trusts no bit.
func TestIsFilteredTrustsTheBit(t *testing.T) {
	for _, cacheFree := range []bool{false, true} {
		w := newWorld(t, cacheFree)
		ag := w.agent("a1", "cpus:4")
		fw := w.framework("f1", "r1")
		r := w.take(ag, "cpus:1", "r1")
		w.decline(fw, ag, r, time.Hour, t0)
		ag.Filtered.ClearFiltered(fw.Num)
		filtered, until := w.b.IsFiltered(fw, "r1", ag, res("cpus:1"), false, t0, false)
		require.Equal(t, cacheFree, filtered)
		if cacheFree {
			require.Equal(t, t0.Add(time.Hour), until)
		} else {
			require.Equal(t, time.Time{}, until)
		}
		require.Len(t, fw.Filters.On("r1", ag.ID), 1)
	}
}

// TestIsFilteredWithinRef: a filter known to cover the reference filters a
// candidate said to be within it without a look (so it is the caller's
// word that counts); a filter not known to is looked at, and a cache-free
// book always looks.
func TestIsFilteredWithinRef(t *testing.T) {
	for _, cacheFree := range []bool{false, true} {
		w := newWorld(t, cacheFree)
		ag := w.agent("a1", "cpus:4")
		fw := w.framework("f1", "r1")
		w.offerAndDecline(fw, ag, "r1", time.Hour, t0)
		beyond := res("cpus:5")
		filtered, _ := w.b.IsFiltered(fw, "r1", ag, beyond, true, t0, false)
		require.Equal(t, !cacheFree, filtered, "cache-free %v", cacheFree)
		filtered, _ = w.b.IsFiltered(fw, "r1", ag, beyond, false, t0, false)
		require.False(t, filtered)
		filtered, _ = w.b.IsFiltered(fw, "r1", ag, res("cpus:4"), false, t0, false)
		require.True(t, filtered)
	}
}

// TestIsFilteredDropsExpired: expired filters go at the next look, and
// OnFilter is told; the bit goes with the last one.
func TestIsFilteredDropsExpired(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4;mem:1024")
	fw := w.framework("f1", "r1", "r2")
	w.decline(fw, ag, w.take(ag, "cpus:1", "r1"), 10*time.Second, t0)
	w.decline(fw, ag, w.take(ag, "cpus:2", "r1"), 20*time.Second, t0)
	w.offerAndDecline(fw, ag, "r2", 30*time.Second, t0)
	require.Equal(t, 3, w.made)
	_, ok := compact(fw, "r2", ag)
	require.True(t, ok)

	// Not expired: nothing dropped, whatever is asked.
	filtered, _ := w.b.IsFiltered(fw, "r1", ag, res("mem:1"), true, t0.Add(10*time.Second), false)
	require.False(t, filtered)
	require.Equal(t, 0, w.dropped)
	require.Len(t, fw.Filters.On("r1", ag.ID), 2)

	filtered, until := w.b.IsFiltered(fw, "r1", ag, res("cpus:1"), true, t0.Add(11*time.Second), false)
	require.True(t, filtered)
	require.Equal(t, t0.Add(20*time.Second), until)
	require.Equal(t, 1, w.dropped)
	require.Equal(t, []heldFilter{{res("cpus:2").String(), t0.Add(20 * time.Second), 0}}, w.filtersOn(fw, "r1", ag))
	w.check(t0.Add(11 * time.Second))

	filtered, _ = w.b.IsFiltered(fw, "r1", ag, res("cpus:1"), true, t0.Add(21*time.Second), false)
	require.False(t, filtered)
	require.Equal(t, 2, w.dropped)
	require.NotContains(t, fw.Filters, "r1")
	require.True(t, ag.Filtered.Filtered(fw.Num), "r2's filter is still there")
	w.check(t0.Add(21 * time.Second))

	filtered, _ = w.b.IsFiltered(fw, "r2", ag, res("cpus:1"), true, t0.Add(29*time.Second), false)
	require.True(t, filtered)
	filtered, until = w.b.IsFiltered(fw, "r2", ag, res("cpus:1"), true, t0.Add(31*time.Second), false)
	require.False(t, filtered)
	require.Equal(t, time.Time{}, until)
	require.Equal(t, 3, w.dropped)
	require.Empty(t, fw.Whole)
	require.Equal(t, int32(0), ag.WholeRefused)
	require.False(t, ag.Filtered.Filtered(fw.Num))
	require.Empty(t, w.live)
	w.check(t0.Add(31 * time.Second))
}

// TestIsFilteredRecordsCoverage: a filter found to cover the reference
// at a look (after the caches were dropped, as a cache-free switch does)
// is recorded as covering, in itself and in the index.
func TestIsFilteredRecordsCoverage(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4")
	a2 := w.agent("a2", "cpus:4")
	fw := w.framework("f1", "r1")
	w.offerAndDecline(fw, ag, "r1", time.Hour, t0)
	w.offerAndDecline(fw, a2, "r1", 2*time.Hour, t0)
	w.offerAndDecline(fw, a2, "r1", 3*time.Hour, t0)
	// Drop the caches.
	for _, a := range []*cluster.Agent{ag, a2} {
		a.Refusals = tables.ByRole[*refusals.Index]{}
	}
	wr, _ := compact(fw, "r1", ag)
	wr.Covered = 0
	fw.Whole.Put("r1", int(ag.Num), wr, len(w.cs.AgentsByNum))
	fw.Filters.Each(func(_, _ string, f *refusals.Refusal) { f.Covered = 0 })

	// Not in force (an event-driven run at the expiry): nothing recorded.
	filtered, _ := w.b.IsFiltered(fw, "r1", ag, res("cpus:4"), true, t0.Add(time.Hour), false)
	require.False(t, filtered)
	wr, _ = compact(fw, "r1", ag)
	require.Equal(t, uint64(0), wr.Covered)
	require.Nil(t, index(ag, "r1"))

	filtered, _ = w.b.IsFiltered(fw, "r1", ag, res("cpus:4"), true, t0.Add(time.Minute), false)
	require.True(t, filtered)
	wr, _ = compact(fw, "r1", ag)
	require.Equal(t, uint64(2), wr.Covered)
	require.Equal(t, []int{w.sorterNum(fw, "r1")}, collect(index(ag, "r1").Skip))
	require.Equal(t, t0.Add(time.Hour), index(ag, "r1").Until)

	// A candidate the filter does not hold records nothing either.
	filtered, _ = w.b.IsFiltered(fw, "r1", a2, res("cpus:5"), false, t0.Add(time.Minute), false)
	require.False(t, filtered)
	require.Equal(t, uint64(0), fw.Filters.On("r1", a2.ID)[0].Covered)
	require.Nil(t, index(a2, "r1"))
	filtered, until := w.b.IsFiltered(fw, "r1", a2, res("cpus:1"), false, t0.Add(time.Minute), false)
	require.True(t, filtered)
	require.Equal(t, t0.Add(2*time.Hour), until)
	list := fw.Filters.On("r1", a2.ID)
	require.Equal(t, uint64(2), list[0].Covered)
	require.Equal(t, uint64(0), list[1].Covered, "only the first covering filter is looked at")
	require.Equal(t, t0.Add(2*time.Hour), index(a2, "r1").Until)
	w.check(t0.Add(time.Minute))
}

// refusers sets up f1 and f2 in r1 and r2 over agents a1 and a2, where
// each has a compact filter in r1 on a1, an ordinary one (two filters) in
// r1 on a2, and a compact one in r2 on a2, all covering.
func refusers(t *testing.T) (w *world, f1, f2 *cluster.Framework, a1, a2 *cluster.Agent) {
	w = newWorld(t, false)
	a1 = w.agent("a1", "cpus:4")
	a2 = w.agent("a2", "cpus:8")
	f1 = w.framework("f1", "r1", "r2")
	f2 = w.framework("f2", "r1", "r2")
	for _, fw := range []*cluster.Framework{f1, f2} {
		w.offerAndDecline(fw, a1, "r1", time.Hour, t0)
		w.offerAndDecline(fw, a2, "r1", time.Hour, t0)
		w.offerAndDecline(fw, a2, "r1", 2*time.Hour, t0)
		w.offerAndDecline(fw, a2, "r2", 3*time.Hour, t0)
		w.b.IsFiltered(fw, "r1", a2, a2.Available, true, t0, false)
	}
	for _, fw := range []*cluster.Framework{f1, f2} {
		require.True(t, w.inIndex(fw, a1, "r1"))
		require.True(t, w.inIndex(fw, a2, "r1"))
		require.True(t, w.inIndex(fw, a2, "r2"))
		require.Len(t, fw.Filters.On("r1", a2.ID), 2)
	}
	require.Equal(t, int32(2), a1.WholeRefused)
	require.Equal(t, int32(2), a2.WholeRefused)
	w.check(t0)
	return w, f1, f2, a1, a2
}

// TestClearRefusalBits: a framework leaving a role's sorter leaves none of
// its refusal bits in the role's indexes, keeps its filters, and finds
// them again should it come back.
func TestClearRefusalBits(t *testing.T) {
	w, f1, f2, a1, a2 := refusers(t)
	before := w.allFilters()
	w.b.ClearRefusalBits(f1, "r1")
	require.False(t, w.inIndex(f1, a1, "r1"))
	require.False(t, w.inIndex(f1, a2, "r1"))
	require.True(t, w.inIndex(f1, a2, "r2"))
	require.True(t, w.inIndex(f2, a1, "r1"))
	require.True(t, w.inIndex(f2, a2, "r1"))
	require.Equal(t, before, w.allFilters())
	require.True(t, a1.Filtered.Filtered(f1.Num))
	require.True(t, a2.Filtered.Filtered(f1.Num))
	w.check(t0)

	// Out of the sorter and back, with another number: IsFiltered finds
	// the filters and indexes them again.
	old := []int{w.sorterNum(f1, "r1"), w.sorterNum(f2, "r1")}
	w.untrack(f1, "r1")
	w.untrack(f2, "r1")
	for _, ag := range []*cluster.Agent{a1, a2} {
		require.Empty(t, collect(index(ag, "r1").Skip), "agent %s", ag.ID)
	}
	g := w.framework("g", "r1")
	w.track(f1, "r1")
	// The sorter hands their numbers out again.
	require.ElementsMatch(t, old, []int{w.sorterNum(g, "r1"), w.sorterNum(f1, "r1")})
	require.False(t, w.inIndex(g, a1, "r1"))
	require.False(t, w.inIndex(f1, a1, "r1"))
	filtered, _ := w.b.IsFiltered(g, "r1", a1, a1.Available, true, t0, false)
	require.False(t, filtered)
	filtered, until := w.b.IsFiltered(f1, "r1", a1, a1.Available, true, t0, false)
	require.True(t, filtered)
	require.Equal(t, t0.Add(time.Hour), until)
	require.False(t, w.inIndex(g, a1, "r1"))
	w.check(t0)
}

// TestForgetFiltersOfARole drops a framework's filters in one role, with
// their index entries and OnFilter told; the bits stay where filters of
// other roles are left.
func TestForgetFiltersOfARole(t *testing.T) {
	w, f1, f2, a1, a2 := refusers(t)
	w.b.ForgetFilters(f1, "r1")
	require.NotContains(t, f1.Filters, "r1")
	require.NotContains(t, f1.Whole, "r1")
	require.Contains(t, f1.Whole, "r2")
	require.Equal(t, int32(1), a1.WholeRefused)
	require.Equal(t, int32(2), a2.WholeRefused)
	require.False(t, w.inIndex(f1, a1, "r1"))
	require.False(t, w.inIndex(f1, a2, "r1"))
	require.True(t, w.inIndex(f1, a2, "r2"))
	require.True(t, w.inIndex(f2, a1, "r1"))
	require.True(t, w.inIndex(f2, a2, "r1"))
	require.False(t, a1.Filtered.Filtered(f1.Num), "no filter of f1 left on a1")
	require.True(t, a2.Filtered.Filtered(f1.Num), "r2's is left on a2")
	require.Equal(t, 8, w.made)
	require.Equal(t, 3, w.dropped)
	w.check(t0)
	filtered, _ := w.b.IsFiltered(f1, "r1", a1, a1.Available, true, t0, false)
	require.False(t, filtered)

	// Every role.
	w.b.ForgetFilters(f1, "")
	require.Empty(t, f1.Filters)
	require.Empty(t, f1.Whole)
	require.Equal(t, int32(1), a2.WholeRefused)
	require.False(t, w.inIndex(f1, a2, "r2"))
	require.True(t, w.inIndex(f2, a2, "r2"))
	require.False(t, a2.Filtered.Filtered(f1.Num))
	require.True(t, a2.Filtered.Filtered(f2.Num))
	require.Equal(t, 4, w.dropped)
	w.check(t0)

	// f2's, in r2 only, and then the rest.
	w.b.ForgetFilters(f2, "r2")
	require.Equal(t, int32(0), a2.WholeRefused)
	require.True(t, a2.Filtered.Filtered(f2.Num))
	require.Len(t, f2.Filters.On("r1", a2.ID), 2)
	w.check(t0)
	w.b.ForgetFilters(f2, "")
	require.Empty(t, w.allFilters())
	require.Empty(t, w.live)
	require.Equal(t, 8, w.dropped)
	for _, ag := range []*cluster.Agent{a1, a2} {
		require.Empty(t, slices.Collect(ag.Filtered.FilteredAll()), "agent %s", ag.ID)
		require.Equal(t, []int{f1.Num, f2.Num}, slices.Collect(ag.Filtered.DeclinedAll()), "agent %s: the rounds stay", ag.ID)
		for _, role := range ag.Refusals.Roles() {
			require.Empty(t, collect(index(ag, role).Skip), "agent %s, role %s", ag.ID, role)
		}
	}
	w.check(t0)
}

// TestForgetAgentFilters drops every framework's filters on an agent,
// inverse-offer filters included, and the agent's indexes and bits; other
// agents keep theirs.
func TestForgetAgentFilters(t *testing.T) {
	w, f1, f2, a1, a2 := refusers(t)
	for _, fw := range []*cluster.Framework{f1, f2} {
		fw.InverseFilters = map[string]refusals.InverseFilter{a1.ID: {Expires: t0}, a2.ID: {Expires: t0}}
	}
	w.b.NoteDecline(f1, a2)
	w.b.ForgetAgentFilters(a2)
	for _, fw := range []*cluster.Framework{f1, f2} {
		require.Empty(t, w.filtersOn(fw, "r1", a2))
		require.Empty(t, w.filtersOn(fw, "r2", a2))
		require.Len(t, w.filtersOn(fw, "r1", a1), 1)
		require.Equal(t, map[string]refusals.InverseFilter{a1.ID: {Expires: t0}}, fw.InverseFilters)
		require.True(t, w.inIndex(fw, a1, "r1"))
		require.NotContains(t, fw.Whole, "r2")
	}
	require.Equal(t, int32(0), a2.WholeRefused)
	require.Equal(t, int32(2), a1.WholeRefused)
	require.Nil(t, a2.Filtered)
	require.Empty(t, a2.Refusals.Roles())
	require.Nil(t, a2.Refusals.First)
	require.Equal(t, 6, w.dropped)
	w.check(t0)

	// An agent removed (its filters forgotten first) and another added
	// with its number: nothing is inherited.
	w.removeAgent(a1)
	require.Equal(t, 8, w.dropped)
	a3 := w.agent("a3", "cpus:4")
	require.Equal(t, int32(1), a3.Num)
	for _, fw := range []*cluster.Framework{f1, f2} {
		require.Empty(t, fw.Whole)
		filtered, _ := w.b.IsFiltered(fw, "r1", a3, a3.Available, true, t0, false)
		require.False(t, filtered)
	}
	require.Empty(t, w.allFilters())
	w.check(t0)
}

// TestNoOnFilter: without OnFilter, filters are made, expire and are
// forgotten all the same.
func TestNoOnFilter(t *testing.T) {
	w := newWorld(t, false)
	w.b.OnFilter = nil
	a1 := w.agent("a1", "cpus:4")
	a2 := w.agent("a2", "cpus:4")
	fw := w.framework("f1", "r1")
	w.offerAndDecline(fw, a1, "r1", time.Second, t0)
	w.offerAndDecline(fw, a2, "r1", time.Hour, t0)
	w.decline(fw, a2, w.take(a2, "cpus:1", "r1"), time.Hour, t0)
	w.offerAndDecline(fw, a1, "r2", time.Hour, t0)
	require.Len(t, w.allFilters(), 4)
	filtered, _ := w.b.IsFiltered(fw, "r1", a1, a1.Available, true, t0.Add(time.Minute), false)
	require.False(t, filtered)
	w.decline(fw, a2, w.take(a2, "cpus:1", "r2"), time.Second, t0)
	filtered, _ = w.b.IsFiltered(fw, "r2", a2, res("cpus:1"), true, t0.Add(time.Minute), false)
	require.False(t, filtered)
	require.Len(t, w.allFilters(), 3)
	w.b.ForgetFilters(fw, "r1")
	require.Len(t, w.allFilters(), 1)
	w.b.ForgetAgentFilters(a1)
	require.Empty(t, w.allFilters())
	require.Equal(t, 0, w.made)
}
