package allocator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/resources"
)

// The default role "*" takes quota and weights like any top-level role, as
// in Mesos: frameworks that run in "*" can be capped with a limit while
// another role takes the rest of the agent in the same run.
func TestQuotaOnDefaultRole(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.UpdateQuota("*", allocator.Quota{Limits: resources.MustParseLimits("cpus:1;mem:512;disk:512")}))
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:2048;disk:2048"), nil))
	require.NoError(t, a.AddFramework("default", allocator.FrameworkInfo{Roles: []string{"*"}}, nil, allocator.Active))
	require.NoError(t, a.AddFramework("other", allocator.FrameworkInfo{Roles: []string{"other"}}, nil, allocator.Active))
	got := map[string]string{}
	for _, o := range a.Allocate().Offers {
		got[o.FrameworkID] = o.Resources.Unallocate().String()
	}
	require.Equal(t, map[string]string{
		"default": "cpus:1; mem:512; disk:512",
		"other":   "cpus:3; mem:1536; disk:1536",
	}, got)
	require.NoError(t, allocatortest.Check(a))
	v, ok := a.Role("*")
	require.True(t, ok)
	require.Equal(t, "cpus:1; disk:512; mem:512", v.Consumed.String())

	// Removing the quota lets "*" grow beyond the former limit: once
	// "other" declines the rest, "*" is offered it.
	require.NoError(t, a.UpdateQuota("*", allocator.Quota{}))
	require.NoError(t, a.RecoverResources("other", "a1", a.Frameworks()[1].Offered, &allocator.Filter{Refuse: time.Hour}))
	offers := a.AllocateAll().Offers
	require.Len(t, offers, 1)
	require.Equal(t, "default", offers[0].FrameworkID)
	require.Equal(t, "cpus:3; mem:1536; disk:1536", offers[0].Resources.Unallocate().String())
}

func TestWeightOnDefaultRole(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.UpdateWeights(map[string]float64{"*": 2}))
	require.NoError(t, a.AddFramework("default", allocator.FrameworkInfo{Roles: []string{"*"}}, nil, allocator.Active))
	require.NoError(t, a.AddFramework("other", allocator.FrameworkInfo{Roles: []string{"other"}}, nil, allocator.Active))
	// Six one-CPU agents: with weight 2, "*" ends with twice the agents of
	// "other" (each framework keeps what it is offered).
	for _, id := range []string{"a1", "a2", "a3", "a4", "a5", "a6"} {
		require.NoError(t, a.AddAgent(id, allocator.AgentInfo{}, res("cpus:1;mem:1024"), nil))
	}
	count := map[string]int{}
	for _, o := range a.Allocate().Offers {
		count[o.FrameworkID]++
	}
	require.Equal(t, map[string]int{"default": 4, "other": 2}, count)
	v, ok := a.Role("*")
	require.True(t, ok)
	require.Equal(t, 2.0, v.Weight)
}
