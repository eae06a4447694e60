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

// Resources that fit what an agent has available can still take it past
// its total by name when it is over-allocated in another kind (here its
// reservation for web): what is held beyond the totals grows, and a later
// agent that would take the sum past MaxTotal is refused.
func TestExcessGrowsOnAnOverAllocatedAgent(t *testing.T) {
	a, err := allocator.New(allocator.Options{})
	require.NoError(t, err)
	require.NoError(t, a.AddFramework("f1", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Inactive))
	total := resources.MustParse("cpus(web):2;cpus:999999999999990", "*")
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{Hostname: "h1"}, total,
		map[string]resources.Resources{"f1": resources.MustParse("cpus(web):3", "*").Allocate("web")}))
	// f2 takes every unreserved cpu: a1 holds cpus:999999999999993 of a
	// total of 999999999999992, one beyond it.
	require.NoError(t, a.AddFramework("f2", allocator.FrameworkInfo{Roles: []string{"web"}},
		map[string]resources.Resources{"a1": resources.MustParse("cpus:999999999999990", "*").Allocate("web")}, allocator.Inactive))
	require.NoError(t, a.CheckInvariants())
	// Totals are MaxTotal-8 and one more is held: cpus:8 would make
	// MaxTotal+1, cpus:7 exactly MaxTotal.
	require.ErrorIs(t, a.AddAgent("a2", allocator.AgentInfo{Hostname: "h2"}, resources.MustParse("cpus:8", "*"), nil), allocator.ErrOverflow)
	require.NoError(t, a.AddAgent("a3", allocator.AgentInfo{Hostname: "h3"}, resources.MustParse("cpus:7", "*"), nil))
	require.NoError(t, a.CheckInvariants())
}
