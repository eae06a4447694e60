package allocator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
)

// A framework that launches small tasks on unreserved resources leaves its
// role's reservation idle and the shared pool in pieces; with ReservedFirst
// the tasks land on the reservation, and the pool stays whole for others.
func TestReservedFirst(t *testing.T) {
	run := func(reservedFirst bool) (launched []offer.Operation, freeForOthers string, tasks []allocator.TaskView) {
		clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, ReservedFirst: reservedFirst})
		require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:8;mem:8192;cpus(r):4;mem(r):4096"), nil))
		require.NoError(t, a.AddFramework("fr", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
		o := a.Allocate().Offers[0]
		var ts []offer.Task
		for i := range 4 { // a framework that asks for unreserved resources
			ts = append(ts, offer.Task{ID: fmt.Sprintf("t%d", i), Resources: res("cpus:1;mem:1024").Allocate("r")})
		}
		applied, err := a.AcceptApplied("fr", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: ts}}, nil)
		require.NoError(t, err)
		require.NoError(t, a.CheckInvariants())
		require.NoError(t, a.AddFramework("other", allocator.FrameworkInfo{Roles: []string{"other"}}, nil, allocator.Active))
		for _, o := range a.Allocate().Offers {
			if o.FrameworkID == "other" {
				freeForOthers = o.Resources.Unallocate().String()
			}
		}
		return applied, freeForOthers, a.Tasks("fr")
	}

	applied, free, tasks := run(false)
	require.Equal(t, "cpus:4; mem:4096", free, "without the option the pool is left in pieces")
	require.True(t, applied[0].(offer.Launch).Tasks[0].Resources.Equal(res("cpus:1;mem:1024").Allocate("r")))
	require.True(t, tasks[0].Resources.Equal(res("cpus:1;mem:1024").Allocate("r")))

	applied, free, tasks = run(true)
	require.Equal(t, "cpus:8; mem:8192", free, "with it the pool stays whole")
	onReservation := res("cpus(r):1;mem(r):1024").Allocate("r")
	for i, task := range applied[0].(offer.Launch).Tasks {
		require.True(t, task.Resources.Equal(onReservation), "task %d launched on %s", i, task.Resources)
		require.True(t, tasks[i].Resources.Equal(onReservation), "ledger: task %d on %s", i, tasks[i].Resources)
	}
}
