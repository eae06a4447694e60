package books

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/observe"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

func qty(s string) resources.Quantities { return resources.MustParseQuantities(s) }

// sameQ checks two quantities are equal (empty ones whatever their storage).
func sameQ(t *testing.T, want, got resources.Quantities, msg string) {
	t.Helper()
	require.True(t, want.Equal(got), "%s: %s, want %s", msg, got, want)
}

// newBooks returns books over an empty cluster, with DRF sorters, charged
// allowances and an Observer's ledgers.
func newBooks() *Books {
	cs, tree := &cluster.State{}, roles.NewTree()
	parking := quota.NewParking()
	b := &Books{
		Cluster: cs, Roles: tree,
		RoleSorter: &roles.TrackedSorter{Sorter: sorter.NewDRF(sorter.Config{})},
		Declines:   &declines.Book{Cluster: cs, Roles: tree},
		Parking:    &parking, Allowances: &quota.Allowances{On: true},
		Observer:           observe.New(),
		NewFrameworkSorter: func(uint64) sorter.Sorter { return sorter.NewDRF(sorter.Config{}) },
	}
	return b
}

// agent adds an agent of total, as the allocator's AddAgent does.
func (b *Books) agent(id, total string) *cluster.Agent {
	ag := &cluster.Agent{ID: id, Total: resources.MustParse(total, "*"), Active: true}
	b.Cluster.NumberAgent(ag)
	b.Cluster.Agents.Put(ag)
	i, _ := b.Cluster.AgentPlace(id)
	b.Cluster.AgentList = slices.Insert(b.Cluster.AgentList, i, ag)
	b.AddTotal(ag)
	return ag
}

func (b *Books) framework(id string, roleList ...string) *cluster.Framework {
	fw := &cluster.Framework{ID: id, Active: true}
	fw.Roles.MarkOnly(tables.Subscribed, roleList)
	b.Cluster.Frameworks.Put(fw)
	for _, r := range roleList {
		b.TrackUnderRole(fw, r)
	}
	return fw
}

// held checks every book's figure for fw in role, from first principles:
// the agents' records summed by hand.
func (b *Books) held(t *testing.T, fw *cluster.Framework, role string, offered, allocated string) {
	t.Helper()
	var inOffers, inUse resources.Quantities
	for _, ag := range b.Cluster.AgentList {
		inOffers.Add(ag.Offered.Get(fw.ID).AllocatedTo(role).Quantities())
		inUse.Add(ag.Allocated.Get(fw.ID).AllocatedTo(role).Quantities())
	}
	require.Equal(t, qty(offered), inOffers, "the agents' offered records")
	require.Equal(t, qty(allocated), inUse, "the agents' allocated records")
	all := inOffers.Plus(inUse)
	sameQ(t, all, b.RoleSorter.AllocationQuantities(role), "the role sorter's charge")
	if fs := b.FrameworkSorter(role); fs != nil {
		sameQ(t, all, fs.AllocationQuantities(fw.ID), "the framework sorter's charge")
	} else {
		require.True(t, all.IsEmpty(), "no framework sorter, nothing held")
	}
	// The Observer's ledger of the framework in the role holds the same.
	var ledgerOffered, ledgerAllocated resources.Quantities
	if l := b.Observer.Framework(fw.ID).Roles[role]; l != nil {
		ledgerOffered, ledgerAllocated = l.Offered, l.Allocated
	}
	sameQ(t, inOffers, ledgerOffered, "the Observer's offered ledger")
	sameQ(t, inUse, ledgerAllocated, "the Observer's allocated ledger")
}

func TestTrackAndUntrack(t *testing.T) {
	b := newBooks()
	ag := b.agent("a1", "cpus:8;mem:4096;cpus(r):2")
	sameQ(t, qty("cpus:10;mem:4096"), b.Cluster.Totals, "b.Cluster.Totals")
	sameQ(t, qty("cpus:2"), b.Roles.Get("r").Reserved, "the agent's reservation is in the tree")
	sameQ(t, qty("cpus:8;mem:4096"), b.Cluster.FreeHeadroom, "b.Cluster.FreeHeadroom")
	f1 := b.framework("f1", "r")

	offer := resources.MustParse("cpus:2;mem:1024;cpus(r):1", "*").Allocate("r")
	b.TrackAllocation(f1, ag, offer, false)
	b.held(t, f1, "r", "cpus:3;mem:1024", "")
	require.Equal(t, resources.MustParse("cpus:6;mem:3072;cpus(r):1", "*"), ag.Available)
	n := b.Roles.Get("r")
	sameQ(t, qty("cpus:2;mem:1024"), n.AllocatedUnreserved, "n.AllocatedUnreserved")
	sameQ(t, qty("cpus:1"), n.AllocatedReserved, "n.AllocatedReserved")
	sameQ(t, qty("cpus:6;mem:3072"), b.Cluster.FreeHeadroom, "b.Cluster.FreeHeadroom")
	sameQ(t, qty("cpus:3;mem:1024"), b.Observer.Offered, "b.Observer.Offered")

	// Part of the offer is launched: taken from the offer, in use.
	task := resources.MustParse("cpus:1;mem:512", "*").Allocate("r")
	b.UntrackAllocation(f1, ag, task, false)
	b.TrackAllocation(f1, ag, task, true)
	b.held(t, f1, "r", "cpus:2;mem:512", "cpus:1;mem:512")
	sameQ(t, qty("cpus:1;mem:512"), b.Observer.Allocated, "b.Observer.Allocated")

	// Everything given back: the books are empty again, and the framework,
	// still subscribed, stays tracked.
	b.UntrackAllocation(f1, ag, offer.Minus(task), false)
	b.UntrackAllocation(f1, ag, task, true)
	b.held(t, f1, "r", "", "")
	require.True(t, ag.Total.Equal(ag.Available), "%s", ag.Available)
	require.True(t, n.AllocatedUnreserved.IsEmpty())
	require.True(t, n.AllocatedReserved.IsEmpty())
	sameQ(t, qty("cpus:8;mem:4096"), b.Cluster.FreeHeadroom, "b.Cluster.FreeHeadroom")
	require.True(t, f1.Roles.Has("r", tables.Tracked))
}

func TestAFrameworkLeavesARoleWhenItHoldsNothingThere(t *testing.T) {
	b := newBooks()
	ag := b.agent("a1", "cpus:8")
	f1 := b.framework("f1", "r")
	// f1 holds resources in s, a role it is not subscribed to (a
	// reservation made for another role, say).
	held := resources.MustParse("cpus:1", "*").Allocate("s")
	b.TrackAllocation(f1, ag, held, true)
	require.True(t, f1.Roles.Has("s", tables.Tracked))
	require.Equal(t, 2, b.SorterRoles)
	require.Equal(t, []string{"r", "s"}, b.RolesWithSorters())
	b.UntrackAllocation(f1, ag, held, true)
	require.False(t, f1.Roles.Has("s", tables.Tracked), "nothing held in s any more")
	require.Nil(t, b.FrameworkSorter("s"))
	require.False(t, b.RoleSorter.Contains("s"))
	require.Equal(t, 1, b.SorterRoles)
}

func TestSyncActivation(t *testing.T) {
	b := newBooks()
	f1 := b.framework("f1", "r")
	fs := b.FrameworkSorter("r")
	require.Equal(t, []string{"f1"}, fs.Sort())
	f1.Roles.Mark("r", tables.Suppressed)
	b.SyncActivation(f1, "r")
	require.Empty(t, fs.Sort(), "a suppressed framework is not offered")
	f1.Roles.Unmark("r", tables.Suppressed)
	f1.Active = false
	b.SyncActivation(f1, "r")
	require.Empty(t, fs.Sort())
	f1.Active = true
	b.SyncActivation(f1, "r")
	require.Equal(t, []string{"f1"}, fs.Sort())
}

func TestRemoveTotal(t *testing.T) {
	b := newBooks()
	a1 := b.agent("a1", "cpus:4;cpus(r):1")
	b.agent("a2", "cpus:2")
	v := b.Cluster.TotalsVersion
	b.RemoveTotal(a1)
	sameQ(t, qty("cpus:2"), b.Cluster.Totals, "b.Cluster.Totals")
	require.Greater(t, b.Cluster.TotalsVersion, v)
	require.True(t, b.Roles.Get("r") == nil || b.Roles.Get("r").Reserved.IsEmpty())
	sameQ(t, qty("cpus:2"), b.Cluster.FreeHeadroom, "b.Cluster.FreeHeadroom")

	// The sorters see the totals as one pool agent once refreshed.
	b.RefreshSorterTotals()
	require.Equal(t, b.Cluster.TotalsVersion, b.RoleSorter.TotalsVersion)
}

func TestTakeFrom(t *testing.T) {
	var first, second tables.PerFramework
	first.Set("f", resources.MustParse("cpus:2", "*"))
	second.Set("f", resources.MustParse("cpus:3", "*"))
	a, b := TakeFrom(&first, &second, "f", resources.MustParse("cpus:4", "*"))
	require.True(t, resources.MustParse("cpus:2", "*").Equal(a), "%s", a)
	require.True(t, resources.MustParse("cpus:2", "*").Equal(b), "%s", b)
	require.True(t, first.Get("f").IsEmpty())
	require.True(t, resources.MustParse("cpus:1", "*").Equal(second.Get("f")), "%s", second.Get("f"))
}

// TestResourcesOfTwoRolesAtOnce: resources allocated to two roles, tracked
// and given back in one call, are booked to each role for its own part.
func TestResourcesOfTwoRolesAtOnce(t *testing.T) {
	b := newBooks()
	ag := b.agent("a1", "cpus:8;mem:4096")
	f1 := b.framework("f1", "r", "s")
	both := resources.MustParse("cpus:2", "*").Allocate("r").Plus(resources.MustParse("mem:512", "*").Allocate("s"))
	b.TrackAllocation(f1, ag, both, false)
	b.held(t, f1, "r", "cpus:2", "")
	b.held(t, f1, "s", "mem:512", "")

	b.UntrackAllocation(f1, ag, both, false)
	b.held(t, f1, "r", "", "")
	b.held(t, f1, "s", "", "")
	require.True(t, ag.Total.Equal(ag.Available), "%s", ag.Available)
	require.True(t, b.Roles.Get("r").AllocatedUnreserved.IsEmpty())
	require.True(t, b.Roles.Get("s").AllocatedUnreserved.IsEmpty())
}

// TestTheObserverSeesSuppression: a framework that suppresses a role is
// listed so in the role's ledger once its activation is synced, and is
// taken off the list when it revives the role.
func TestTheObserverSeesSuppression(t *testing.T) {
	b := newBooks()
	f1 := b.framework("f1", "r")
	ledger := b.Observer.MarkRole("r")
	require.NotContains(t, ledger.Suppressed, "f1")
	f1.Roles.Mark("r", tables.Suppressed)
	b.SyncActivation(f1, "r")
	require.Contains(t, ledger.Suppressed, "f1", "f1 suppresses r")
	f1.Roles.Unmark("r", tables.Suppressed)
	b.SyncActivation(f1, "r")
	require.NotContains(t, ledger.Suppressed, "f1", "f1 revived r")
}

// TestTheObserverSeesTheClusterChange: adding or removing an agent changes
// the cluster's figures the Observer reports, and an agent's reservations
// change their role's figures.
func TestTheObserverSeesTheClusterChange(t *testing.T) {
	b := newBooks()
	everything := func(string) bool { return true }
	b.Observer.Take(everything, everything)
	a1 := b.agent("a1", "cpus:4")
	require.True(t, b.Observer.Changed(), "an agent was added")
	b.Observer.Take(everything, everything)
	b.RemoveTotal(a1)
	require.True(t, b.Observer.Changed(), "an agent was removed")
	b.Observer.Take(everything, everything)

	b.agent("a2", "cpus:4;cpus(team/x):1")
	ch := b.Observer.Take(everything, everything)
	var changed []string
	for _, r := range ch.Roles {
		changed = append(changed, r.Role)
	}
	require.Equal(t, []string{"team", "team/x"}, changed, "the reservation's role and its ancestor")
}

// TestAnAgentsVersionNeverRepeats: every change that may grow what an
// agent has available gives the agent a version it never had, so that
// nothing concluded about it at an earlier version (a role with no use
// for it, say) is taken as current.
func TestAnAgentsVersionNeverRepeats(t *testing.T) {
	b := newBooks()
	ag := &cluster.Agent{ID: "a1", Total: resources.MustParse("cpus:8", "*"), Active: true}
	seen := map[uint64]bool{ag.Version: true}
	next := func(what string) {
		t.Helper()
		require.False(t, seen[ag.Version], "%s: version %d again", what, ag.Version)
		seen[ag.Version] = true
	}
	b.Cluster.NumberAgent(ag)
	b.Cluster.Agents.Put(ag)
	b.Cluster.AgentList = append(b.Cluster.AgentList, ag)
	b.AddTotal(ag)
	next("added")
	f1 := b.framework("f1", "r")
	offer := resources.MustParse("cpus:2", "*").Allocate("r")
	for range 2 {
		b.TrackAllocation(f1, ag, offer, false)
		b.UntrackAllocation(f1, ag, offer, false)
		next("an offer given back")
		b.RecomputeAvailable(ag)
		next("measured again")
	}
}

// TestSortersSeeTheCurrentTotals: after any change of the cluster's
// totals, every sorter (the role sorter and each role's framework sorter)
// measures shares against the new totals, even when an agent leaves and
// another of a different size comes.
func TestSortersSeeTheCurrentTotals(t *testing.T) {
	b := newBooks()
	a1 := b.agent("a1", "cpus:4")
	// team has no framework sorter of its own; team/x has one.
	f1 := b.framework("f1", "team/x")
	b.TrackAllocation(f1, a1, resources.MustParse("cpus:2", "*").Allocate("team/x"), true)
	shares := func(want float64) {
		t.Helper()
		b.RefreshSorterTotals()
		require.InDelta(t, want, b.RoleSorter.Sorter.(sorter.Sharer).ShareOf("team/x"), 1e-9, "the role sorter's share")
		require.InDelta(t, want, b.FrameworkSorter("team/x").Sorter.(sorter.Sharer).ShareOf("f1"), 1e-9, "the framework sorter's share")
	}
	shares(0.5)

	// a1 is replaced by a2, twice its size (f1 still holds cpus:2 on a1's
	// records, which the sorters keep).
	b.RemoveTotal(a1)
	b.agent("a2", "cpus:8")
	shares(0.25)
	b.agent("a3", "cpus:8")
	shares(0.125)
}

// TestAgentsWithRevocableOrShared: the cluster counts the agents whose
// total has revocable or shared resources, as they come and go (while it
// counts any, no role is taken as capped).
func TestAgentsWithRevocableOrShared(t *testing.T) {
	b := newBooks()
	a1 := b.agent("a1", "cpus:4;cpus{REV}:2")
	b.agent("a2", "cpus:4")
	require.Equal(t, 1, b.Cluster.RevocableOrSharedAgents)
	b.RemoveTotal(a1)
	require.Zero(t, b.Cluster.RevocableOrSharedAgents, "a1 left")
	b.AddTotal(a1)
	require.Equal(t, 1, b.Cluster.RevocableOrSharedAgents, "a1 is back")
}
