package allocator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/resources"
)

// Agents of the largest cpus amount join until the cluster's totals would
// pass resources.MaxTotal: that agent is refused and nothing wraps around.
func TestClusterTotalsNeverWrap(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	total := res("cpus:1000000000000")
	added := 0
	var err error
	for i := range 10000 {
		if err = a.AddAgent(fmt.Sprintf("a%05d", i), allocator.AgentInfo{}, total, nil); err != nil {
			break
		}
		added++
	}
	require.ErrorIs(t, err, allocator.ErrOverflow)
	require.Equal(t, int(resources.MaxTotal/resources.MaxScalar), added)
	require.Len(t, a.AllocateAll().Offers, added)
	v, ok := a.Role("r")
	require.True(t, ok)
	require.Equal(t, resources.MaxTotal, v.OfferedOrAllocated.Scalar("cpus"))
	require.Equal(t, 1.0, v.Share)
	require.NoError(t, a.CheckInvariants())
	require.NoError(t, allocatortest.Check(a))
}

// Frameworks may hold more than an agent's total (reported as used, or a
// total that shrank); what they hold beyond the totals counts towards the
// bound too, so role holdings never wrap either.
func TestHeldBeyondTotalsNeverWraps(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	max := res("cpus:1000000000000")
	small := res("cpus:1")
	var err error
	rounds := 0
	for i := range 5000 {
		id := fmt.Sprintf("a%05d", i)
		if err = a.AddAgent(id, allocator.AgentInfo{}, max, map[string]resources.Resources{"f": max.Allocate("r")}); err != nil {
			break
		}
		// The agent shrinks under what f holds there: f now holds 10^12
		// cpus beyond the cluster's totals.
		if err = a.UpdateAgent(id, allocator.AgentInfo{}, &small); err != nil {
			break
		}
		rounds++
	}
	require.ErrorIs(t, err, allocator.ErrOverflow)
	require.Equal(t, 1000, rounds)
	v, ok := a.Role("r")
	require.True(t, ok)
	held := v.OfferedOrAllocated.Scalar("cpus")
	require.Positive(t, held)
	require.LessOrEqual(t, held, resources.MaxTotal)
	require.NoError(t, a.CheckInvariants())
}
