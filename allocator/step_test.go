package allocator

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// An event works on the allocator's own entry, not on a copy of the
// caller's on the heap: deactivating and activating a framework allocates
// nothing, and the entry keeps nothing of the event once it is over.
func TestEventsDoNotAllocateTheirEntry(t *testing.T) {
	a, err := New(Options{Seed: 1})
	require.NoError(t, err)
	require.NoError(t, a.AddFramework("f", FrameworkInfo{Roles: []string{"r"}}, nil, Active))
	require.NoError(t, a.AddAgent("a1", AgentInfo{}, resources.MustParse("cpus:1", "*"), nil))
	n := testing.AllocsPerRun(100, func() {
		if err := a.DeactivateFramework("f"); err != nil {
			t.Fatal(err)
		}
		if err := a.ActivateFramework("f"); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, n, "allocations of two events")
	require.Equal(t, Entry{}, a.entry, "the entry of the last event is kept")
	require.ErrorIs(t, a.ActivateFramework("nope"), ErrUnknownFramework)
	require.Equal(t, Entry{}, a.entry, "the entry of a failed event is kept")
}

// TestApplyDoesNotAllocateItsEntry: an entry replayed from a journal is
// applied as the allocator's own events are, without a copy on the heap.
func TestApplyDoesNotAllocateItsEntry(t *testing.T) {
	a, err := New(Options{Seed: 1})
	require.NoError(t, err)
	require.NoError(t, a.AddFramework("f", FrameworkInfo{Roles: []string{"r"}}, nil, Active))
	deactivate := Entry{Event: EventDeactivateFramework, Framework: "f"}
	activate := Entry{Event: EventActivateFramework, Framework: "f"}
	n := testing.AllocsPerRun(100, func() {
		if _, err := a.Apply(deactivate); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Apply(activate); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, n, "allocations of two replayed events")
	require.Equal(t, Entry{}, a.entry, "the entry of the last event is kept")
	require.True(t, a.cs.Frameworks.Get("f").Active)
	_, err = a.Apply(deactivate)
	require.NoError(t, err)
	require.False(t, a.cs.Frameworks.Get("f").Active, "the replayed event was not applied")
}
