package allocator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
)

// With ChargeBeyondAllowance, a role that uses exactly its pool
// reservation sorts as if it held nothing: it is offered the next agent
// before a role that holds a little of the shared pool. Without it (Mesos),
// the reservation counts in its share and the other role goes first.
func TestChargeBeyondAllowance(t *testing.T) {
	next := func(charge bool) (string, float64) {
		clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, ChargeBeyondAllowance: charge})
		must(t, a.AddFramework("fp", allocator.FrameworkInfo{Roles: []string{"pool"}}, nil, true))
		must(t, a.AddFramework("fo", allocator.FrameworkInfo{Roles: []string{"other"}}, nil, true))
		must(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus(pool):4;mem(pool):4096"), nil))
		require.Equal(t, "fp", a.Allocate().Offers[0].FrameworkID)
		must(t, a.AddAgent("a2", allocator.AgentInfo{}, res("cpus:1;mem:1024"), nil))
		require.Equal(t, "fo", a.Allocate().Offers[0].FrameworkID)
		must(t, a.AddAgent("a3", allocator.AgentInfo{}, res("cpus:1;mem:1024"), nil))
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
