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
