package audit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/resources"
)

// refusing is the world after f1 refused, in role r, part of what a1 has
// left (an ordinary filter, which a1 lists f1 as filtered for) and all of
// a2 (a compact filter, counted on a2): a consistent state, as the
// refusal book keeps it.
func refusing(t *testing.T) *world {
	w := newWorld(t)
	a2 := w.b.Cluster.Agents.Get("a2")
	now := time.Unix(1000, 0)
	w.b.Declines.AddRefusal(w.fw, w.ag, resources.MustParse("cpus:1", "*").Allocate("r"), time.Minute, now)
	w.b.Declines.AddRefusal(w.fw, a2, a2.Available.Allocate("r"), time.Minute, now)
	w.fw.InverseFilters = map[string]refusals.InverseFilter{"a1": {Expires: now.Add(time.Hour)}}
	require.NotZero(t, w.fw.Num, "a framework that refused is numbered")
	require.Len(t, w.fw.Filters.On("r", "a1"), 1, "the part of a1 is an ordinary filter")
	require.EqualValues(t, 1, a2.WholeRefused, "all of a2 is a compact filter")
	require.NoError(t, w.check(), "the refusals are consistent")
	return w
}

// TestCheckFindsEachFilterCorruption: the refusal filters name known
// agents, which list their framework as filtered; compact filters are
// counted on their agents, never sit beside ordinary ones, and a
// framework's number is its own. Each drift is reported by name.
func TestCheckFindsEachFilterCorruption(t *testing.T) {
	cases := map[string]struct {
		corrupt func(w *world)
		want    string
	}{
		"a filter on an unknown agent": {func(w *world) {
			w.fw.Filters.Add("r", "ghost", refusals.Refusal{})
		}, "filter in r for unknown agent ghost"},
		"a filter on an agent that does not list its framework": {func(w *world) {
			w.ag.Filtered.ClearFiltered(w.fw.Num)
		}, "filter in r on a1, which does not list it as filtered"},
		"an inverse-offer filter on an unknown agent": {func(w *world) {
			w.fw.InverseFilters["ghost"] = refusals.InverseFilter{}
		}, "inverse-offer filter for unknown agent ghost"},
		"a framework number held by another": {func(w *world) {
			w.b.Declines.RefusersByNum.Set(w.fw.Num, &cluster.Framework{ID: "f2"})
		}, "framework f1: number 1 is not its own"},
		"a compact filter on an unknown agent number": {func(w *world) {
			w.fw.Whole.Put("r", 99, refusals.WholeRefusal{}, 100)
		}, "compact filter in r for unknown agent number 99"},
		"a compact filter on an agent that does not list its framework": {func(w *world) {
			w.b.Cluster.Agents.Get("a2").Filtered.ClearFiltered(w.fw.Num)
		}, "compact filter in r on a2, which does not list it as filtered"},
		"a compact filter beside an ordinary one": {func(w *world) {
			w.fw.Filters.Add("r", "a2", refusals.Refusal{})
		}, "compact and ordinary filters in r on a2"},
		"an agent's count of compact filters": {func(w *world) {
			w.b.Cluster.Agents.Get("a2").WholeRefused++
		}, "agent a2 counts 2 compact filters, holds 1"},
		"a compact filter not counted on its agent": {func(w *world) {
			w.b.Cluster.Agents.Get("a2").WholeRefused--
		}, "agent a2 counts 0 compact filters, holds 1"},
		"an empty set of compact filters": {func(w *world) {
			w.fw.Whole["s"] = &refusals.WholeSet{}
		}, "0 compact filters in s"},
		"compact filters in a cache-free allocator": {func(w *world) {
			w.cacheFree = true
		}, "compact filters in a cache-free allocator"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := refusing(t)
			tc.corrupt(w)
			require.ErrorContains(t, w.check(), tc.want)
		})
	}
}

// A framework that has filters but no number yet (a restored one, before
// its first refusal numbers it) is consistent: agents list only numbered
// frameworks as filtered, and a number 0 is no one's.
func TestCheckAcceptsFiltersOfAnUnnumberedFramework(t *testing.T) {
	w := newWorld(t)
	w.fw.Filters.Add("r", "a1", refusals.Refusal{Refused: resources.MustParse("cpus:1", "*")})
	require.Zero(t, w.fw.Num)
	require.NoError(t, w.check())
}

// A cache-free allocator keeps every refusal in the ordinary lists: its
// refusal of a whole agent is consistent, and only a compact filter in it
// is reported.
func TestCheckAcceptsACacheFreeAllocatorsFilters(t *testing.T) {
	w := newWorld(t)
	w.cacheFree, w.b.Declines.CacheFree = true, true
	a2 := w.b.Cluster.Agents.Get("a2")
	w.b.Declines.AddRefusal(w.fw, a2, a2.Available.Allocate("r"), time.Minute, time.Unix(1000, 0))
	require.Len(t, w.fw.Filters.On("r", "a2"), 1)
	require.Empty(t, w.fw.Whole)
	require.NoError(t, w.check())
}
