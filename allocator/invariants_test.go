package allocator

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/resources"
)

// invariantCluster is two agents, one with a reservation for web, and two
// frameworks after a run: something offered, something refused.
func invariantCluster(t *testing.T) *Allocator {
	t.Helper()
	a, err := New(Options{Seed: 1, Clock: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	require.NoError(t, err)
	a2 := resources.MustParse("cpus:2;mem:1024", "*")
	a2.Add(resources.MustParse("cpus:2;mem:1024", "web"))
	require.NoError(t, a.AddAgent("a1", AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil))
	require.NoError(t, a.AddAgent("a2", AgentInfo{}, a2, nil))
	require.NoError(t, a.AddFramework("web", FrameworkInfo{Roles: []string{"web"}}, nil, Active))
	require.NoError(t, a.AddFramework("batch", FrameworkInfo{Roles: []string{"batch"}}, nil, Active))
	res := a.Allocate()
	require.NotEmpty(t, res.Offers)
	require.NoError(t, a.CheckInvariants())
	return a
}

// Every part of the bookkeeping CheckInvariants recomputes is caught when
// it is wrong.
func TestCheckInvariantsFindsCorruption(t *testing.T) {
	cpu := resources.MustParseQuantities("cpus:1")
	cases := []struct {
		name    string
		corrupt func(a *Allocator)
		want    string
	}{
		{"totals", func(a *Allocator) { a.cs.Totals.Add(cpu) }, "cluster totals"},
		{"headroom", func(a *Allocator) { a.cs.FreeHeadroom.Add(cpu) }, "free headroom"},
		{"available", func(a *Allocator) { a.cs.Agents.Get("a1").Available.Add(resources.MustParse("cpus:1", "*")) }, "available + offered + allocated"},
		{"over-allocated flag", func(a *Allocator) { a.cs.Agents.Get("a1").OverAllocated = true }, "over-allocated flag"},
		{"pending agent", func(a *Allocator) { a.engine.Pending.Put(&cluster.Agent{ID: "a1"}) }, "agent a1 waits for a run"},
		{"pending agent removed", func(a *Allocator) { a.engine.Pending.Put(&cluster.Agent{ID: "gone"}) }, "agent gone waits for a run"},
		{"role sorter", func(a *Allocator) {
			require.NoError(t, a.roleSorter.Allocated("web", "a1", resources.MustParse("cpus:1", "")))
		}, "role sorter: web holds"},
		{"framework sorter", func(a *Allocator) {
			require.NoError(t, a.books.FrameworkSorter("web").Allocated("web", "a1", resources.MustParse("cpus:1", "")))
		}, "framework sorter web: web holds"},
		{"framework sorter's clients", func(a *Allocator) {
			require.NoError(t, a.books.FrameworkSorter("web").Add("stray"))
		}, "framework sorter web: 2 frameworks, its node 1"},
		{"count of framework sorters", func(a *Allocator) { a.books.SorterRoles++ }, "2 roles have a framework sorter, counted 3"},
		{"role tree reserved", func(a *Allocator) { a.roles.Get("web").Reserved.Add(cpu) }, "role web: reserved"},
		{"role tree allocated", func(a *Allocator) { a.roles.Get("batch").AllocatedUnreserved.Add(cpu) }, "role batch: allocated"},
		{"role children order", func(a *Allocator) {
			c := a.roles.Root.Children
			c[0], c[1] = c[1], c[0]
		}, "out of order"},
		{"role missing from its parent", func(a *Allocator) {
			a.roles.Root.Children = a.roles.Root.Children[1:]
		}, "not among its parent's children"},
		{"agent list", func(a *Allocator) { a.cs.AgentList[0], a.cs.AgentList[1] = a.cs.AgentList[1], a.cs.AgentList[0] }, "is not listed at its place"},
		{"agent listed twice", func(a *Allocator) { a.cs.AgentList[1] = a.cs.AgentList[0] }, "is not listed at its place"},
		{"agent list short", func(a *Allocator) { a.cs.AgentList = a.cs.AgentList[:1] }, "1 agents listed, 2 agents"},
		{"filter on unknown agent", func(a *Allocator) {
			a.cs.Frameworks.Get("batch").Filters = map[string]map[string][]refusals.Refusal{"batch": {"a9": {{}}}}
		}, "filter in batch for unknown agent a9"},
		{"outstanding offer", func(a *Allocator) {
			for _, ag := range a.cs.AgentList {
				if len(ag.Outstanding) > 0 {
					ag.Outstanding = append(ag.Outstanding, ag.Outstanding[0])
					return
				}
			}
		}, "more than it is offered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := invariantCluster(t)
			c.corrupt(a)
			err := a.CheckInvariants()
			require.Error(t, err)
			require.True(t, strings.Contains(err.Error(), c.want), "got %v, want %q", err, c.want)
		})
	}
}
