package allocator_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
)

// An entry that Apply refuses changes nothing: an allocation whose run
// would have another number is refused before it runs.
func TestApplyRefusedRunChangesNothing(t *testing.T) {
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: allocator.NewManualClock(livenessStart).Now})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	before := a.Describe()
	_, err := a.Apply(allocator.Entry{Event: allocator.EventAllocateAll, Run: 7})
	require.ErrorIs(t, err, allocator.ErrReplay)
	require.Equal(t, before, a.Describe(), "the refused entry ran")
	require.Zero(t, a.LastRun().Run)
	require.Empty(t, a.Offers())
	res, err := a.Apply(allocator.Entry{Event: allocator.EventAllocateAll, Run: 1})
	require.NoError(t, err)
	require.Len(t, res.Offers, 1, "the run of the right number")
}

// A replayed AcceptEach must apply every operation it holds (the journal
// keeps only those that were applied); one that would be dropped refuses
// the entry, before the others launch or the filter is made.
func TestApplyRefusedAcceptEachChangesNothing(t *testing.T) {
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: allocator.NewManualClock(livenessStart).Now})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	o := a.Allocate().Offers[0]
	good := offer.Launch{Tasks: []offer.Task{{ID: "t1", Resources: res("cpus:1;mem:1024").Allocate("r")}}}
	bad := offer.Launch{Tasks: []offer.Task{{ID: "t1", Resources: res("cpus:1;mem:1024").Allocate("r")}}} // the same id again
	var fp0, fp1 allocator.Fingerprint
	a.Fingerprint(&fp0)
	_, err := a.Apply(allocator.Entry{Event: allocator.EventAcceptEach, Framework: "f", Agent: "a1", Resources: o.Resources,
		Operations: []offer.Operation{good, bad}, Filter: &allocator.Filter{Refuse: time.Hour}})
	require.ErrorIs(t, err, allocator.ErrReplay)
	require.ErrorIs(t, err, allocator.ErrDuplicateTask)
	a.Fingerprint(&fp1)
	require.True(t, fp0.Equal(&fp1), "the refused entry changed the state")
	require.Empty(t, a.Tasks("f"))
	require.Empty(t, a.Filters())

	// Taken as an event, the same call drops the bad operation and keeps
	// the good one; its journal entry holds only the good one.
	var journaled []allocator.Entry
	b := newAllocator(t, allocator.Options{Seed: 1, Clock: allocator.NewManualClock(livenessStart).Now,
		Journal: func(e allocator.Entry) { journaled = append(journaled, e) }})
	require.NoError(t, b.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, b.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	o = b.Allocate().Offers[0]
	each, err := b.AcceptEach("f", "a1", o.Resources, []offer.Operation{good, bad}, nil)
	require.NoError(t, err)
	require.NoError(t, each[0])
	require.True(t, errors.Is(each[1], allocator.ErrDuplicateTask), "%v", each[1])
	last := journaled[len(journaled)-1]
	require.Equal(t, allocator.EventAcceptEach, last.Event)
	require.Len(t, last.Operations, 1)
}

// Every kind of event of the table is one the journal names, and the
// scenario files and the random events reach (see their tests).
func TestEventKindsAreDistinct(t *testing.T) {
	seen := map[allocator.EventKind]bool{}
	for _, k := range allocator.EventKinds() {
		require.False(t, seen[k], "%s twice", k)
		seen[k] = true
		var e allocator.Entry
		require.NoError(t, e.UnmarshalJSON([]byte(`{"event":"`+string(k)+`"}`)), "%s", k)
	}
	require.Len(t, seen, 33)
}
