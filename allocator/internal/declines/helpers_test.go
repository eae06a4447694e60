package declines

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// t0 is the instant the tests' clocks start at.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// res parses resources in Mesos's text format, unreserved ones in "*".
func res(text string) resources.Resources { return resources.MustParse(text, "*") }

// alloc parses resources and tags them with the allocation role, as offers
// carry them.
func alloc(text, role string) resources.Resources { return res(text).Allocate(role) }

// requireRes compares resources by content.
func requireRes(t testing.TB, want, got resources.Resources, msgAndArgs ...any) {
	t.Helper()
	require.True(t, got.Equal(want), "got %v, want %v %s", got, want, fmt.Sprint(msgAndArgs...))
}

// filterKey names a filter as OnFilter is told of it.
type filterKey struct {
	fw, role string
	expires  string // RFC 3339, UTC
	batch    uint64
}

// stamp writes an instant exactly, whatever its year.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// world is a small cluster driven by a Book the way package allocator
// drives it: agents and frameworks are made as AddAgent and AddFramework
// make them, offers take from what is available and declines give it
// back before the refusal is recorded.
type world struct {
	t    testing.TB
	cs   *cluster.State
	tree *roles.Tree
	b    *Book
	// live is what OnFilter was told, per filter: made minus dropped.
	live          map[filterKey]int
	made, dropped int
	// sorters makes each role's framework sorter (indexed DRF by
	// default).
	sorters func() sorter.Sorter
}

// newWorld makes a world whose Book has a one-second allocation interval.
func newWorld(t testing.TB, cacheFree bool) *world {
	w := &world{
		t: t, cs: &cluster.State{}, tree: roles.NewTree(), live: map[filterKey]int{},
		sorters: func() sorter.Sorter { return sorter.NewDRF(sorter.Config{}) },
	}
	w.b = &Book{Cluster: w.cs, Roles: w.tree, AllocationInterval: time.Second, CacheFree: cacheFree}
	w.b.OnFilter = func(fw *cluster.Framework, role string, expires time.Time, batch uint64, delta int) {
		require.Contains(t, []int{1, -1}, delta, "OnFilter delta")
		k := filterKey{fw.ID, role, stamp(expires), batch}
		w.live[k] += delta
		require.GreaterOrEqual(t, w.live[k], 0, "OnFilter: %+v dropped more often than made", k)
		if w.live[k] == 0 {
			delete(w.live, k)
		}
		if delta > 0 {
			w.made++
		} else {
			w.dropped++
		}
	}
	return w
}

// agent adds an agent with total, as AddAgent does (nothing in use).
func (w *world) agent(id, total string) *cluster.Agent {
	ag := &cluster.Agent{ID: id, Total: w.cs.Shape(res(total)), Active: true, RefGen: 1}
	w.cs.NumberAgent(ag)
	w.cs.Agents.Put(ag)
	i, _ := w.cs.AgentPlace(id)
	w.cs.AgentList = slices.Insert(w.cs.AgentList, i, ag)
	ag.Total = ag.Total.Frozen()
	ag.Available = ag.Total
	w.b.AvailableGrew(ag)
	ag.Version++
	w.b.AgentChanged(ag)
	return ag
}

// removeAgent drops an agent as RemoveAgent does.
func (w *world) removeAgent(ag *cluster.Agent) {
	w.b.ForgetAgentFilters(ag)
	w.cs.UnnumberAgent(ag)
	w.cs.Agents.Delete(ag.ID)
	if i, ok := w.cs.AgentPlace(ag.ID); ok {
		w.cs.AgentList = slices.Delete(w.cs.AgentList, i, i+1)
	}
}

// framework adds an active framework subscribed to roles, tracked in
// each role's framework sorter.
func (w *world) framework(id string, roleNames ...string) *cluster.Framework {
	fw := &cluster.Framework{ID: id, Active: true}
	fw.Roles.MarkOnly(tables.Subscribed, roleNames)
	w.cs.Frameworks.Put(fw)
	for _, role := range roleNames {
		w.track(fw, role)
	}
	return fw
}

// track puts fw in role's framework sorter, making it if need be.
func (w *world) track(fw *cluster.Framework, role string) {
	if !fw.Roles.Mark(role, tables.Tracked) {
		return
	}
	node := w.tree.Ensure(role)
	node.Frameworks.Add(fw.ID)
	if node.FrameworkSorter == nil {
		node.FrameworkSorter = &roles.TrackedSorter{Sorter: w.sorters()}
	}
	require.NoError(w.t, node.FrameworkSorter.Add(fw.ID))
	require.NoError(w.t, node.FrameworkSorter.Activate(fw.ID))
}

// untrack takes fw out of role's framework sorter, as the allocator does
// when a framework leaves a role: its refusal bits go first.
func (w *world) untrack(fw *cluster.Framework, role string) {
	if !fw.Roles.Unmark(role, tables.Tracked) {
		return
	}
	node := w.tree.Get(role)
	w.b.ClearRefusalBits(fw, role)
	require.NoError(w.t, node.FrameworkSorter.Remove(fw.ID))
	if node.FrameworkSorter.Count() == 0 {
		node.FrameworkSorter = nil
	}
	node.Frameworks.Remove(fw.ID)
	w.tree.Prune(role)
}

// removeFramework drops fw as RemoveFramework does.
func (w *world) removeFramework(fw *cluster.Framework) {
	w.b.ForgetFilters(fw, "")
	w.b.LeaveRounds(fw)
	w.b.ReleaseNum(fw)
	for _, role := range fw.Roles.List(tables.Tracked) {
		w.untrack(fw, role)
	}
	w.cs.Frameworks.Delete(fw.ID)
}

// take removes text from what ag has available, as an offer does, and
// returns it tagged with role.
func (w *world) take(ag *cluster.Agent, text, role string) resources.Resources {
	r := res(text)
	require.True(w.t, ag.Available.Contains(r), "agent %s has %v, not %v", ag.ID, ag.Available, r)
	ag.Available = ag.Available.Minus(r)
	return r.Allocate(role)
}

// giveBack returns r to ag's available resources, as the allocator's
// untrackAllocation does.
func (w *world) giveBack(ag *cluster.Agent, r resources.Resources) {
	ag.Available.AddUnallocated(r, false)
	w.b.AvailableGrew(ag)
	ag.Version++
	w.b.AgentChanged(ag)
}

// decline gives r back from fw with a filter of d at now and puts fw in
// the agent's round, as the allocator's decline does.
func (w *world) decline(fw *cluster.Framework, ag *cluster.Agent, r resources.Resources, d time.Duration, now time.Time) {
	w.b.Declining = true
	w.giveBack(ag, r)
	w.b.AddRefusal(fw, ag, r, d, now)
	w.b.Declining = false
	w.b.NoteDecline(fw, ag)
}

// offerAndDecline offers all ag has to fw in role and declines it with a
// filter of d at now.
func (w *world) offerAndDecline(fw *cluster.Framework, ag *cluster.Agent, role string, d time.Duration, now time.Time) {
	w.decline(fw, ag, w.take(ag, ag.Available.String(), role), d, now)
}

// sorterNum returns fw's number in role's framework sorter.
func (w *world) sorterNum(fw *cluster.Framework, role string) int {
	i, ok := w.b.sorterNum(role, fw.ID)
	require.True(w.t, ok, "%s is not numbered in %s", fw.ID, role)
	return i
}

// index returns ag's refusal index for role, nil when there is none.
func index(ag *cluster.Agent, role string) *refusals.Index {
	idx, _ := ag.Refusals.Get(role)
	return idx
}

// inIndex reports whether fw's number in role is in ag's index for role.
func (w *world) inIndex(fw *cluster.Framework, ag *cluster.Agent, role string) bool {
	idx := index(ag, role)
	return idx != nil && idx.Skip.Has(w.sorterNum(fw, role))
}

// compact returns fw's compact filter in role on ag.
func compact(fw *cluster.Framework, role string, ag *cluster.Agent) (refusals.WholeRefusal, bool) {
	return fw.Whole.On(role, int(ag.Num))
}

// heldFilter is a filter as a test compares it: what it refused, until
// when, made after how many batches.
type heldFilter struct {
	Refused string
	Expires time.Time
	Batch   uint64
}

// filtersOn lists fw's filters in role on ag as RefusalsOn reports them
// (the compact one as an ordinary one), in their order.
func (w *world) filtersOn(fw *cluster.Framework, role string, ag *cluster.Agent) []heldFilter {
	var out []heldFilter
	for _, f := range w.b.RefusalsOn(fw, role, ag) {
		out = append(out, heldFilter{f.Refused.String(), f.Expires.UTC(), f.Batch})
	}
	return out
}

// allFilters lists every filter of the world's frameworks as RefusalsOf
// reports them, by framework, role and agent, sorted.
func (w *world) allFilters() []string {
	var out []string
	for fw := range w.cs.Frameworks.All() {
		for role, byAgent := range w.b.RefusalsOf(fw) {
			for agentID, list := range byAgent {
				for _, f := range list {
					out = append(out, fmt.Sprintf("%s %s %s %s until %s batch %d", fw.ID, role, agentID, f.Refused, stamp(f.Expires), f.Batch))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// check requires the invariant the package owns, and that what OnFilter
// was told balances the filters held. now is the instant of the latest
// run or event: an index valid then must name only frameworks whose
// filters cover the agent's reference.
func (w *world) check(now time.Time) {
	t := w.t
	t.Helper()
	held := map[filterKey]int{}
	wholeOn := map[*cluster.Agent]int{}
	for fw := range w.cs.Frameworks.All() {
		if fw.Num != 0 {
			require.Same(t, fw, w.b.RefusersByNum.At(fw.Num), "framework %s: number %d", fw.ID, fw.Num)
		}
		if w.b.CacheFree {
			require.Empty(t, fw.Whole, "framework %s: compact filters in a cache-free book", fw.ID)
		}
		for role, s := range fw.Whole {
			require.NotZero(t, s.Len(), "framework %s: empty set of compact filters in %s", fw.ID, role)
			for num := range s.All() {
				ag := w.cs.AgentsByNum.At(num)
				require.NotNil(t, ag, "framework %s: compact filter in %s on agent number %d", fw.ID, role, num)
				require.Empty(t, fw.Filters.On(role, ag.ID), "framework %s: compact and ordinary filters in %s on %s", fw.ID, role, ag.ID)
				wholeOn[ag]++
			}
		}
		for role, byAgent := range fw.Filters {
			require.NotEmpty(t, byAgent, "framework %s: empty role %s", fw.ID, role)
			for agentID, list := range byAgent {
				require.NotEmpty(t, list, "framework %s: empty list in %s on %s", fw.ID, role, agentID)
				require.NotNil(t, w.cs.Agents.Get(agentID), "framework %s: filter on unknown agent %s", fw.ID, agentID)
			}
		}
		for role, byAgent := range w.b.RefusalsOf(fw) {
			for _, list := range byAgent {
				for _, f := range list {
					held[filterKey{fw.ID, role, stamp(f.Expires), f.Batch}]++
				}
			}
		}
		for _, ag := range w.cs.AgentList {
			has := fw.Filters.AnyOn(ag.ID) || fw.Whole.AnyOn(int(ag.Num))
			if has {
				require.NotZero(t, fw.Num, "framework %s has filters and no number", fw.ID)
			}
			if fw.Num != 0 {
				require.Equal(t, has, ag.Filtered.Filtered(fw.Num), "framework %s on %s: filter bit", fw.ID, ag.ID)
			}
		}
	}
	for _, ag := range w.cs.AgentList {
		require.Equal(t, wholeOn[ag], int(ag.WholeRefused), "agent %s: count of compact filters", ag.ID)
		require.True(t, ag.Ref.Contains(ag.Available), "agent %s: available %v beyond the reference %v", ag.ID, ag.Available, ag.Ref)
		for num := range ag.Filtered.FilteredAll() {
			require.NotNil(t, w.b.RefusersByNum.At(num), "agent %s: filter bit of unheld number %d", ag.ID, num)
		}
		for num := range ag.Filtered.DeclinedAll() {
			require.NotNil(t, w.b.RefusersByNum.At(num), "agent %s: round bit of unheld number %d", ag.ID, num)
		}
		for _, role := range ag.Refusals.Roles() {
			idx := index(ag, role)
			if idx == nil || !idx.ValidAt(ag.RefGen, now) {
				continue
			}
			for i := range idx.Skip.All() {
				var member *cluster.Framework
				for fw := range w.cs.Frameworks.All() {
					if j, ok := w.b.sorterNum(role, fw.ID); ok && j == i {
						member = fw
					}
				}
				require.NotNil(t, member, "agent %s, role %s: index names number %d, which no framework holds", ag.ID, role, i)
				covers := false
				for _, f := range w.b.RefusalsOn(member, role, ag) {
					covers = covers || (f.Refused.Contains(ag.Ref) && w.b.FilterInForce(f.Expires, f.Batch, now, false))
				}
				require.True(t, covers, "agent %s, role %s: index names %s, whose filters do not cover %v", ag.ID, role, member.ID, ag.Ref)
			}
		}
	}
	require.Equal(t, held, w.live, "OnFilter's balance against the filters held")
}

// sameMap reports whether two maps are the same map (not copies).
func sameMap(a, b any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// seeded runs f with a rand seeded by seed, reporting the seed if it
// fails.
func seeded(t *testing.T, seed uint64, f func(t *testing.T, rng *rand.Rand)) {
	t.Helper()
	t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
		defer func() {
			if t.Failed() {
				t.Logf("failed with seed %d", seed)
			}
		}()
		f(t, rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
	})
}
