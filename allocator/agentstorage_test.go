package allocator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	ag := a.agents["a1"]
	require.True(t, ag.available.Identical(ag.total), "available is not the total's storage")
	require.True(t, ag.ref.Identical(ag.total), "the reference is not the total's storage")

	want := ag.total.String()
	ag.available.Subtract(resources.MustParse("cpus:1;ports:[31000-31001]", "*"))
	require.Equal(t, want, ag.total.String(), "a change of available changed the total")
	require.Equal(t, want, ag.ref.String(), "a change of available changed the reference")
	require.Equal(t, "cpus:3; mem:1024; ports:[31002-31009]", ag.available.String())
	require.False(t, ag.available.Identical(ag.total))
	ag.available = ag.total // put it back as the allocator had it

	// The same when the reference already covers what becomes available
	// (it does not change then): available is still the total's storage,
	// frozen, so a change in place still copies it.
	ag.ref = total.Plus(resources.MustParse("cpus:1", "*")).Frozen()
	a.recomputeAvailable(ag)
	require.True(t, ag.available.Identical(ag.total))
	ag.available.Subtract(resources.MustParse("mem:24", "*"))
	require.Equal(t, want, ag.total.String(), "a change of available changed the total")
	a.recomputeAvailable(ag)
	ag.refIsAvailable()

	// Offer everything to a framework, which declines it with a filter:
	// the refusal covers the reference, and the agent's storage stays one.
	require.NoError(t, a.AddFramework("f1", FrameworkInfo{Roles: []string{"r"}}, nil, Active))
	res := a.AllocateAll()
	require.Len(t, res.Offers, 1)
	o := res.Offers[0]
	require.NoError(t, a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &Filter{Refuse: time.Hour}))
	require.Equal(t, want, ag.total.String())
	require.Equal(t, want, ag.available.String())
	require.True(t, ag.ref.Equal(ag.available))
	require.NoError(t, a.CheckInvariants())
}
