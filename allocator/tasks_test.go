package allocator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// launchTasks offers agent a1 (cpus:4;mem:4096) to "web" and launches one
// task of cpus:1;mem:1024 per id, declining the rest without a filter.
func launchTasks(t *testing.T, ids ...string) *allocator.Allocator {
	t.Helper()
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	offers := a.Allocate().Offers
	require.Len(t, offers, 1)
	o := offers[0]
	var tasks []offer.Task
	left := o.Resources
	for _, id := range ids {
		task, ok := offer.PickTask(left, id, resources.MustParseQuantities("cpus:1;mem:1024"), o.Role)
		require.True(t, ok, "task %s does not fit", id)
		tasks = append(tasks, task)
		left = left.Minus(task.Resources)
	}
	require.NoError(t, a.Accept("web", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil))
	return a
}

func allocatedTo(a *allocator.Allocator, fw, agent string) string {
	v, _ := a.Agent(agent)
	return v.Allocated[fw].String()
}

func TestEndTaskFreesOnlyThatTask(t *testing.T) {
	a := launchTasks(t, "t1", "t2")
	require.Equal(t, "cpus(allocated: web):2; mem(allocated: web):2048", allocatedTo(a, "web", "a1"))
	require.NoError(t, a.EndTask("web", "t1"))
	require.Equal(t, "cpus(allocated: web):1; mem(allocated: web):1024", allocatedTo(a, "web", "a1"))
	tasks := a.Tasks("web")
	require.Len(t, tasks, 1)
	require.Equal(t, "t2", tasks[0].ID)
	require.Equal(t, "a1", tasks[0].Agent)
	require.NoError(t, allocatortest.Check(a))

	// The same end reported again is an error and changes nothing: t2's
	// resources stay allocated.
	before := a.Describe()
	err := a.EndTask("web", "t1")
	require.ErrorIs(t, err, allocator.ErrUnknownTask)
	require.Equal(t, before, a.Describe())
	require.Equal(t, "cpus(allocated: web):1; mem(allocated: web):1024", allocatedTo(a, "web", "a1"))

	require.NoError(t, a.EndTask("web", "t2"))
	require.Equal(t, "{}", allocatedTo(a, "web", "a1"))
	require.Empty(t, a.Tasks("web"))
	require.ErrorIs(t, a.EndTask("web", "never"), allocator.ErrUnknownTask)
	require.ErrorIs(t, a.EndTask("nobody", "t2"), allocator.ErrUnknownFramework)
}

func TestLaunchOfRunningTaskIDRefused(t *testing.T) {
	a := launchTasks(t, "t1")
	a.AllocateAll()
	v, _ := a.Agent("a1")
	offered := v.Offered["web"]
	require.False(t, offered.IsEmpty())
	task, ok := offer.PickTask(offered, "t1", resources.MustParseQuantities("cpus:1"), "web")
	require.True(t, ok)
	before := a.Describe()
	err := a.Accept("web", "a1", offered, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}, nil)
	require.ErrorIs(t, err, allocator.ErrDuplicateTask)
	require.Equal(t, before, a.Describe())

	// Two launches of one call may not share an id either.
	other, _ := offer.PickTask(offered.Minus(task.Resources), "t9", resources.MustParseQuantities("cpus:1"), "web")
	task.ID, other.ID = "t9", "t9"
	err = a.Accept("web", "a1", offered, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}, offer.Launch{Tasks: []offer.Task{other}}}, nil)
	require.ErrorIs(t, err, allocator.ErrDuplicateTask)
	require.Equal(t, before, a.Describe())
}

func TestTasksEndWithAgentAndFramework(t *testing.T) {
	a := launchTasks(t, "t1", "t2")
	require.NoError(t, a.RemoveAgent("a1"))
	require.Empty(t, a.Tasks("web"))
	require.ErrorIs(t, a.EndTask("web", "t1"), allocator.ErrUnknownTask)

	a = launchTasks(t, "t1")
	require.NoError(t, a.RemoveFramework("web"))
	require.NoError(t, a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	require.Empty(t, a.Tasks("web"))
	require.ErrorIs(t, a.EndTask("web", "t1"), allocator.ErrUnknownTask)
}

// A shared volume used by two tasks stays allocated until the last one
// ends, however the tasks were launched.
func TestEndTaskKeepsSharedVolumeInUse(t *testing.T) {
	for _, oneCall := range []bool{true, false} {
		clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
		require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096;"+sharedVolume), nil))
		require.NoError(t, a.AddFramework("db", allocator.FrameworkInfo{Roles: []string{"db"}, Principal: "ops", Capabilities: offer.SharedResources}, nil, allocator.Active))
		o := a.Allocate().Offers[0]
		vol := res(sharedVolume).Allocate("db")
		cpu := res("cpus:1").Allocate("db")
		t1 := offer.Task{ID: "t1", Resources: cpu.Plus(vol)}
		t2 := offer.Task{ID: "t2", Resources: cpu.Plus(vol)}
		if oneCall {
			require.NoError(t, a.Accept("db", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{t1, t2}}}, nil))
		} else {
			require.NoError(t, a.Accept("db", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{t1}}}, nil))
			o = a.AllocateAll().Offers[0]
			require.NoError(t, a.Accept("db", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{t2}}}, nil))
		}
		require.NoError(t, allocatortest.Check(a))
		require.NoError(t, a.EndTask("db", "t1"))
		v, _ := a.Agent("a1")
		require.True(t, v.Allocated["db"].Contains(vol), "oneCall=%v: the volume t2 uses was freed: %s", oneCall, v.Allocated["db"])
		require.NoError(t, allocatortest.Check(a))
		require.NoError(t, a.EndTask("db", "t2"))
		v, _ = a.Agent("a1")
		require.True(t, v.Allocated["db"].IsEmpty(), "oneCall=%v: left allocated: %s", oneCall, v.Allocated["db"])
		require.NoError(t, allocatortest.Check(a))
	}
}

// A task launched with no resources still takes its id in the ledger: the
// same id cannot be launched again until it ends.
func TestTaskWithoutResourcesInLedger(t *testing.T) {
	a := launchTasks(t, "t1")
	a.AllocateAll()
	v, _ := a.Agent("a1")
	offered := v.Offered["web"]
	// The task has no resources of its own; its executor has.
	launch := []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "empty"}}, Executor: res("cpus:1").Allocate("web")}}
	require.NoError(t, a.UpdateAllocation("web", "a1", offered, launch))
	require.Len(t, a.Tasks("web"), 2)
	v, _ = a.Agent("a1")
	err := a.UpdateAllocation("web", "a1", v.Offered["web"], []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "empty"}}, Executor: res("cpus:1").Allocate("web")}})
	require.ErrorIs(t, err, allocator.ErrDuplicateTask)
	require.NoError(t, a.EndTask("web", "empty"))
	require.Len(t, a.Tasks("web"), 1)
}
