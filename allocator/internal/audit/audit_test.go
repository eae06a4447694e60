package audit

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// world is two agents and a framework holding resources on one of them,
// kept by the books as the allocator keeps them: a consistent state.
type world struct {
	b       *books.Books
	parking *quota.Parking
	pending cluster.AgentTable
	ag      *cluster.Agent
	fw      *cluster.Framework
	// cacheFree is the allocator's option of that name, as the check is
	// told of it.
	cacheFree bool
}

func newWorld(t *testing.T) *world {
	cs, tree := &cluster.State{}, roles.NewTree()
	parking := quota.NewParking()
	w := &world{parking: &parking}
	w.b = &books.Books{Cluster: cs, Roles: tree, RoleSorter: &roles.TrackedSorter{Sorter: sorter.NewDRF(sorter.Config{})},
		Declines: &declines.Book{Cluster: cs, Roles: tree}, Parking: &parking, Allowances: &quota.Allowances{},
		NewFrameworkSorter: func(uint64) sorter.Sorter { return sorter.NewDRF(sorter.Config{}) }}
	for _, id := range []string{"a1", "a2"} {
		ag := &cluster.Agent{ID: id, Total: resources.MustParse("cpus:4;mem:4096;cpus(r):1", "*"), Active: true}
		cs.NumberAgent(ag)
		cs.Agents.Put(ag)
		i, _ := cs.AgentPlace(id)
		cs.AgentList = slices.Insert(cs.AgentList, i, ag)
		w.b.AddTotal(ag)
	}
	w.ag = cs.Agents.Get("a1")
	w.fw = &cluster.Framework{ID: "f1", Active: true}
	w.fw.Roles.MarkOnly(tables.Subscribed, []string{"r"})
	cs.Frameworks.Put(w.fw)
	w.b.TrackUnderRole(w.fw, "r")
	w.b.TrackAllocation(w.fw, w.ag, resources.MustParse("cpus:2;mem:1024;cpus(r):1", "*").Allocate("r"), true)
	require.NoError(t, w.check(), "the world is consistent")
	return w
}

func (w *world) check() error {
	return Check(Parts{Cluster: w.b.Cluster, Roles: w.b.Roles, RoleSorter: w.b.RoleSorter, SorterRoles: w.b.SorterRoles,
		Pending: &w.pending, Declines: w.b.Declines, Parking: w.parking, MinAllocatable: []resources.Quantities{resources.MustParseQuantities("cpus:0.01")},
		CacheFree: w.cacheFree})
}

// TestCheckFindsEachCorruption: a check that recomputes the bookkeeping
// reports every kind of drift between what is kept and what the agents'
// records say, each in a message that names it.
func TestCheckFindsEachCorruption(t *testing.T) {
	cases := map[string]struct {
		corrupt func(w *world)
		want    string
	}{
		"available off its total": {func(w *world) {
			w.ag.Available = w.ag.Available.Minus(resources.MustParse("cpus:1", "*"))
		}, "a1"},
		"headroom off its available": {func(w *world) { w.ag.Headroom.Add(resources.MustParseQuantities("cpus:1")) }, "headroom"},
		"cluster totals":             {func(w *world) { w.b.Cluster.Totals.Add(resources.MustParseQuantities("cpus:1")) }, "totals"},
		"free headroom": {func(w *world) {
			w.b.Cluster.FreeHeadroom.Subtract(resources.MustParseQuantities("cpus:1"))
		}, "free headroom"},
		"the role sorter's charge": {func(w *world) {
			_ = w.b.RoleSorter.Sorter.(sorter.Charger).Charge("r", resources.MustParseQuantities("cpus:1"), true)
		}, "r"},
		"the framework sorter's charge": {func(w *world) {
			_ = w.b.FrameworkSorter("r").Sorter.(sorter.Charger).Charge("f1", resources.MustParseQuantities("mem:1"), true)
		}, "f1"},
		"the role tree's allocation": {func(w *world) {
			w.b.Roles.TrackAllocatedUnreserved("r", resources.MustParseQuantities("cpus:1"), true)
		}, "r"},
		"the role tree's reservations": {func(w *world) {
			w.b.Roles.TrackReserved("r", resources.MustParseQuantities("cpus:1"), true)
		}, "r"},
		"an agent listed out of place": {func(w *world) {
			l := w.b.Cluster.AgentList
			l[0], l[1] = l[1], l[0]
		}, "listed"},
		"an agent listed twice": {func(w *world) {
			l := w.b.Cluster.AgentList
			w.b.Cluster.AgentList = append([]*cluster.Agent{l[0]}, l...)
		}, "is not listed at its place"},
		"a pending agent that is not the agent": {func(w *world) {
			w.pending.Put(&cluster.Agent{ID: "a1"})
		}, "waits for a run"},
		"a count of framework sorters": {func(w *world) { w.b.SorterRoles++ }, "framework sorter"},
		"a parked role that could take more": {func(w *world) {
			w.parking.Add("r")
			w.parking.ParkedEpoch = w.parking.CapEpoch
		}, "could take more"},
		"over-allocated agents counted": {func(w *world) { w.b.Cluster.OverAllocatedAgents++ }, "over-allocated"},
		"held beyond totals": {func(w *world) {
			w.b.Cluster.Excess.Add(resources.MustParseQuantities("cpus:1"))
		}, "beyond"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			tc.corrupt(w)
			err := w.check()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

// A framework holding resources in two roles is consistent: each role's
// framework sorter is charged with what the framework holds in that role
// alone, and the check compares each with that part.
func TestCheckTakesEachRolesPart(t *testing.T) {
	w := newWorld(t)
	w.fw.Roles.MarkOnly(tables.Subscribed, []string{"r", "s"})
	w.b.TrackUnderRole(w.fw, "s")
	w.b.TrackAllocation(w.fw, w.ag, resources.MustParse("cpus:1;mem:512", "*").Allocate("s"), true)
	require.NoError(t, w.check())
	_ = w.b.FrameworkSorter("s").Sorter.(sorter.Charger).Charge("f1", resources.MustParseQuantities("cpus:1"), true)
	require.ErrorContains(t, w.check(), "f1")
}
