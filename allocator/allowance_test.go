package allocator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// With ChargeBeyondAllowance, a role that uses exactly its pool
// reservation sorts as if it held nothing: it is offered the next agent
// before a role that holds a little of the shared pool. Without it (Mesos),
// the reservation counts in its share and the other role goes first.
func TestChargeBeyondAllowance(t *testing.T) {
	next := func(charge bool) (string, float64) {
		clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, ChargeBeyondAllowance: charge})
		require.NoError(t, a.AddFramework("fp", allocator.FrameworkInfo{Roles: []string{"pool"}}, nil, allocator.Active))
		require.NoError(t, a.AddFramework("fo", allocator.FrameworkInfo{Roles: []string{"other"}}, nil, allocator.Active))
		require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus(pool):4;mem(pool):4096"), nil))
		require.Equal(t, "fp", a.Allocate().Offers[0].FrameworkID)
		require.NoError(t, a.AddAgent("a2", allocator.AgentInfo{}, res("cpus:1;mem:1024"), nil))
		require.Equal(t, "fo", a.Allocate().Offers[0].FrameworkID)
		require.NoError(t, a.AddAgent("a3", allocator.AgentInfo{}, res("cpus:1;mem:1024"), nil))
		offers := a.Allocate().Offers
		require.Len(t, offers, 1)
		v, _ := a.Role("pool")
		require.NoError(t, a.CheckInvariants())
		return offers[0].FrameworkID, v.Share
	}
	got, share := next(true)
	require.Equal(t, "fp", got, "charged beyond its reservation, the pool role is offered the next agent")
	require.Equal(t, 1.0/6, share, "it holds cpus:1 beyond its reservation of 4, of 6 in the cluster")
	got, share = next(false)
	require.Equal(t, "fo", got, "charged for everything, the pool role waits")
	require.Equal(t, 4.0/6, share)
}

// A role whose quota guarantee is its pool reservation has that amount as
// allowance once, not twice: what it holds of the shared pool beyond its
// reservation counts.
func TestAllowanceCountsPoolReservationOnce(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, ChargeBeyondAllowance: true})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus(pool):4;mem(pool):4096;cpus:2;mem:2048"), nil))
	require.NoError(t, a.AddAgent("a2", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.UpdateQuota("pool", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:4;mem:4096")}))
	require.NoError(t, a.AddFramework("fp", allocator.FrameworkInfo{Roles: []string{"pool"}}, nil, allocator.Active))
	for _, o := range a.Allocate().Offers {
		if o.AgentID == "a1" {
			require.NoError(t, a.Accept("fp", "a1", o.Resources, launchOps("all", o.Resources), nil))
		} else {
			require.NoError(t, a.RecoverResources("fp", o.AgentID, o.Resources, &allocator.Filter{Refuse: time.Hour}))
		}
	}
	v, ok := a.Role("pool")
	require.True(t, ok)
	require.Equal(t, "cpus:6; mem:6144", v.Consumed.String())
	require.InDelta(t, 0.2, v.Share, 1e-9, "cpus:2 beyond the pool reservation, of cpus:10 (twice it would be 0)")
}

// Frameworks of a role the cluster has nothing free for are not counted as
// held back for headroom when no guarantee is unmet.
func TestNoHeadroomReasonWithoutUnmetGuarantees(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:2;mem:2048"), nil))
	require.NoError(t, a.UpdateQuota("c", allocator.Quota{Limits: resources.MustParseLimits("cpus:1")}))
	require.NoError(t, a.AddFramework("fa", allocator.FrameworkInfo{Roles: []string{"a"}}, nil, allocator.Active))
	o := a.Allocate().Offers[0]
	require.NoError(t, a.Accept("fa", "a1", o.Resources, launchOps("t", o.Resources), nil))
	require.NoError(t, a.AddFramework("fb", allocator.FrameworkInfo{Roles: []string{"b"}}, nil, allocator.Active))
	clock.Advance(time.Second)
	require.Empty(t, a.AllocateAll().Offers)
	require.Zero(t, a.Skips("fb")[allocator.ReasonHeadroom])
}
