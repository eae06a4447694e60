package allocator

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// TestAgentResourcesShareStorage: an agent with nothing in use keeps one
// copy of its resources, shared by its total, available and reference;
// changing available in place (an offer of part of it) copies it first, so
// the total and the reference keep what they had. A refusal of everything
// available makes the reference available's storage again.
func TestAgentResourcesShareStorage(t *testing.T) {
	clock := &benchClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a, err := New(Options{Clock: clock.Now, Seed: 1})
	require.NoError(t, err)
	total := resources.MustParse("cpus:4;mem:1024;ports:[31000-31009]", "*")
	require.NoError(t, a.AddAgent("a1", AgentInfo{Hostname: "h1"}, total, nil))
	ag := a.cs.Agents.Get("a1")
	require.True(t, ag.Available.Identical(ag.Total), "available is not the total's storage")
	require.True(t, ag.Ref.Identical(ag.Total), "the reference is not the total's storage")

	want := ag.Total.String()
	ag.Available.Subtract(resources.MustParse("cpus:1;ports:[31000-31001]", "*"))
	require.Equal(t, want, ag.Total.String(), "a change of available changed the total")
	require.Equal(t, want, ag.Ref.String(), "a change of available changed the reference")
	require.Equal(t, "cpus:3; mem:1024; ports:[31002-31009]", ag.Available.String())
	require.False(t, ag.Available.Identical(ag.Total))
	ag.Available = ag.Total // put it back as the allocator had it

	// The same when the reference already covers what becomes available
	// (it does not change then): available is still the total's storage,
	// frozen, so a change in place still copies it.
	ag.Ref = total.Plus(resources.MustParse("cpus:1", "*")).Frozen()
	a.books.RecomputeAvailable(ag)
	require.True(t, ag.Available.Identical(ag.Total))
	ag.Available.Subtract(resources.MustParse("mem:24", "*"))
	require.Equal(t, want, ag.Total.String(), "a change of available changed the total")
	a.books.RecomputeAvailable(ag)
	ag.RefIsAvailable()

	// Offer everything to a framework, which declines it with a filter:
	// the refusal covers the reference, and the agent's storage stays one.
	require.NoError(t, a.AddFramework("f1", FrameworkInfo{Roles: []string{"r"}}, nil, Active))
	res := a.AllocateAll()
	require.Len(t, res.Offers, 1)
	o := res.Offers[0]
	require.NoError(t, a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &Filter{Refuse: time.Hour}))
	require.Equal(t, want, ag.Total.String())
	require.Equal(t, want, ag.Available.String())
	require.True(t, ag.Ref.Equal(ag.Available))
	require.NoError(t, a.CheckInvariants())
}

// TestAgentsShareEqualTotals: agents added or updated with the same total
// (the same entries in the same order) keep one storage of it, which
// nothing changes in place; a total that differs, even only in its order,
// keeps its own, and offers and runs are as without sharing.
func TestAgentsShareEqualTotals(t *testing.T) {
	clock := &benchClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a, err := New(Options{Clock: clock.Now, Seed: 1})
	require.NoError(t, err)
	shape := "cpus:8;mem:4096;ports:[31000-32000]"
	for _, id := range []string{"a1", "a2", "a3"} {
		// A fresh value each time, as a host decoding agents' messages has.
		require.NoError(t, a.AddAgent(id, AgentInfo{Hostname: id}, resources.MustParse(shape, "*"), nil))
	}
	require.NoError(t, a.AddAgent("a4", AgentInfo{Hostname: "a4"}, resources.MustParse("mem:4096;cpus:8;ports:[31000-32000]", "*"), nil))
	ag := func(id string) *cluster.Agent { return a.cs.Agents.Get(id) }
	require.True(t, ag("a1").Total.Identical(ag("a2").Total))
	require.True(t, ag("a1").Total.Identical(ag("a3").Total))
	require.False(t, ag("a1").Total.Identical(ag("a4").Total), "another order is another value")
	require.Equal(t, "mem:4096; cpus:8; ports:[31000-32000]", ag("a4").Total.String())

	// A total given with allocation roles is stripped of them, then shared.
	require.NoError(t, a.AddAgent("a5", AgentInfo{Hostname: "a5"}, resources.MustParse(shape, "*").Allocate("r"), nil))
	require.True(t, ag("a1").Total.Identical(ag("a5").Total))

	// An offer of a1's resources, and its use, leave the others' totals.
	require.NoError(t, a.AddFramework("f1", FrameworkInfo{Roles: []string{"r"}}, nil, Active))
	res := a.AllocateAll()
	require.Len(t, res.Offers, 5)
	for _, o := range res.Offers {
		if o.AgentID == "a1" {
			require.NoError(t, a.UpdateAllocation("f1", "a1", o.Resources, nil))
		}
	}
	for _, id := range []string{"a1", "a2", "a3", "a5"} {
		require.Equal(t, "cpus:8; mem:4096; ports:[31000-32000]", ag(id).Total.String(), id)
	}

	// An update to a new total takes that shape's storage, or starts one.
	bigger := "cpus:16;mem:4096;ports:[31000-32000]"
	for _, id := range []string{"a2", "a3"} {
		total := resources.MustParse(bigger, "*")
		require.NoError(t, a.UpdateAgent(id, AgentInfo{Hostname: id}, &total))
	}
	require.True(t, ag("a2").Total.Identical(ag("a3").Total))
	require.Equal(t, "cpus:8; mem:4096; ports:[31000-32000]", ag("a1").Total.String())
	require.NoError(t, a.CheckInvariants())
}

// TestAgentRecordSize: the agent record fits the 480-byte size class, its
// rarely used fields out of line (cluster.AgentRare), and an agent with none of
// them has none: neither a run nor a snapshot and its restore makes it.
func TestAgentRecordSize(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(cluster.Agent{}), uintptr(480), "the agent record grew past its size class")

	clock := &benchClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a, err := New(Options{Clock: clock.Now, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, a.AddFramework("f1", FrameworkInfo{Roles: []string{"r"}}, nil, Active))
	total := resources.MustParse("cpus:4;mem:1024", "*")
	require.NoError(t, a.AddAgent("a1", AgentInfo{}, total, nil))
	require.NoError(t, a.AddAgent("a2", AgentInfo{}, total, map[string]resources.Resources{
		"f2": resources.MustParse("cpus:1", "*").Allocate("r"), // f2 is not added yet
	}))
	require.Len(t, a.AllocateAll().Offers, 2)
	require.Nil(t, a.cs.Agents.Get("a1").Rare, "an agent with no rare field made room for them")
	require.NotNil(t, a.cs.Agents.Get("a2").Rare, "the use of a framework not added yet was not kept")
	require.Equal(t, "cpus:1", a.cs.Agents.Get("a2").Unclaimed()["f2"].Unallocate().String())

	data, err := a.Snapshot()
	require.NoError(t, err)
	require.Nil(t, a.cs.Agents.Get("a1").Rare, "saving the agent made room for its rare fields")
	b, err := Restore(data, RestoreOptions{Clock: clock.Now})
	require.NoError(t, err)
	require.Nil(t, b.cs.Agents.Get("a1").Rare, "restoring the agent made room for its rare fields")
	require.Equal(t, "cpus:1", b.cs.Agents.Get("a2").Unclaimed()["f2"].Unallocate().String())
}
