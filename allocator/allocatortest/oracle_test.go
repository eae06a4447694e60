package allocatortest

import (
	"errors"
	"strings"
	"testing"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
	"github.com/stretchr/testify/require"
)

// plainSorter hides every optional interface of the sorter it wraps: no
// snapshots, no walks, no charges, no index; sorted as Mesos sorts.
type plainSorter struct{ sorter.Sorter }

// A sorter without sorter.Snapshotter: snapshots fail with a named error
// that changes nothing, and the cache-free twin still compares every run.
func TestSorterWithoutSnapshotter(t *testing.T) {
	plain := func(c sorter.Config) sorter.Sorter { return plainSorter{sorter.NewDRF(c)} }
	opts := Options{Fast: true, Allocator: allocator.Options{RoleSorter: plain, FrameworkSorter: plain}}
	mix := DefaultMix()
	mix[SnapshotRestore] = 10
	for i, s := range Sequences(3, 40, mix, 60) {
		if err := RunSequence(opts, s); err != nil {
			t.Fatalf("sequence %d: %v", i, err)
		}
	}
}

// stableRandom is the random sorter claiming, falsely, that walking it
// changes nothing (sorter.Stable): the caches then skip walks, the
// cache-free twin does not, and the two draw different numbers.
type stableRandom struct{ *sorter.Random }

func (stableRandom) Stable() {}

// A cache that skips what it should not is found: the twin and the next
// run's copies differ from the allocator, and the violation says so.
func TestOracleFindsAFalseClaim(t *testing.T) {
	liar := func(c sorter.Config) sorter.Sorter { return stableRandom{sorter.NewRandom(c)} }
	opts := Options{Fast: true, Allocator: allocator.Options{FrameworkSorter: liar}}
	for i, s := range Sequences(1, 200, DefaultMix(), 80) {
		err := RunSequence(opts, s)
		if err == nil {
			continue
		}
		var v *Violation
		if !errors.As(err, &v) {
			t.Fatalf("sequence %d: %v, want a *Violation", i, err)
		}
		if msg := v.Error(); !strings.Contains(msg, "twin") && !strings.Contains(msg, "the next AllocateAll") {
			t.Fatalf("sequence %d: the violation is not the oracle's: %v", i, err)
		}
		return
	}
	t.Fatal("200 sequences with a sorter that falsely claims to be stable: no violation")
}

// The work-conservation check refuses reasons the views do not bear out.
func TestConservationRefusesFalseReasons(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	free := resources.MustParse("cpus:2;mem:1024", "")
	c := conservationCase{
		h: h, f: allocator.FrameworkView{ID: "f0", Roles: []string{"a"}}, role: "a",
		v: allocator.AgentView{ID: "a0", Total: free, Available: free}, free: free,
	}
	for _, r := range []allocator.Reason{allocator.ReasonFairness, allocator.ReasonNothingLeft, allocator.ReasonFiltered,
		allocator.ReasonQuotaLimit, allocator.ReasonHeadroom, allocator.ReasonMinAllocatable, allocator.ReasonIncapable,
		allocator.ReasonConstraints, allocator.ReasonNoFit, allocator.ReasonDeclined} {
		if err := c.check(explained{reason: r}, true); err == nil {
			t.Errorf("%s with nothing in the views to bear it out: taken", r)
		}
	}
	if err := c.check(explained{}, false); err == nil {
		t.Error("no reason at all: taken")
	}
	c.filters = []allocator.FilterView{{Framework: "f0", Role: "a", Agent: "a0", Refused: free}}
	if err := c.check(explained{reason: allocator.ReasonFiltered}, true); err != nil {
		t.Errorf("filtered, with the filter: %v", err)
	}
	c.unmetBefore = true
	if err := c.check(explained{reason: allocator.ReasonHeadroom}, true); err != nil {
		t.Errorf("headroom, with a guarantee unmet: %v", err)
	}
}

// A guarantee met before a run only thanks to a hold the run ended counts
// as unmet at the run's start: the run may have given the hold back before
// any offer. Holds still held, holds in other roles and reserved holds do
// not lower consumption. A room the run chose for the framework on the
// agent, in the hold's role, may have made the hold seen after the run (an
// expired room's hold given back as the run starts, its room chosen again
// at the end): what is held then counts as kept only beyond the room's
// task.
func TestUnmetAtStartCountsHoldsGivenBack(t *testing.T) {
	held := func(spec, role string) map[string]resources.Resources {
		return map[string]resources.Resources{"f0": resources.MustParse(spec, "").Allocate(role)}
	}
	roles := []allocator.RoleView{{
		Role:     "a/b",
		Consumed: resources.MustParse("cpus:4;mem:2688", "").Quantities(),
		Quota:    allocator.Quota{Guarantees: resources.MustParse("cpus:4;mem:2048", "").Quantities()},
	}}
	room := func(agent, fw, role, task string) []allocator.Preemption {
		return []allocator.Preemption{{FrameworkID: "f1", TaskID: "t1", AgentID: agent, Role: "c",
			For: "a/b", ForFramework: fw, HeldIn: role, ForTask: resources.MustParseQuantities(task)}}
	}
	for _, c := range []struct {
		name          string
		before, after map[string]resources.Resources
		made          []allocator.Preemption
		want          bool
	}{
		{"a subrole's hold ended", held("mem:1024;ports:[31000-31000]", "a/b/c"), nil, nil, true},
		{"the hold is still held", held("mem:1024", "a/b/c"), held("mem:1024", "a/b/c"), nil, false},
		{"part of the hold ended, too little to matter", held("mem:1024", "a/b/c"), held("mem:512", "a/b/c"), nil, false},
		{"another role's hold ended", held("mem:1024", "a/c"), nil, nil, false},
		{"a reserved hold ended", held("mem(a/b):1024", "a/b"), nil, nil, false},
		{"the hold ended and its room chosen again", held("mem:1024", "a/b/c"), held("mem:1024", "a/b/c"), room("a0", "f0", "a/b/c", "cpus:1;mem:1024"), true},
		{"a room chosen for a smaller task", held("mem:1024", "a/b/c"), held("mem:1024", "a/b/c"), room("a0", "f0", "a/b/c", "mem:256"), false},
		{"a room on another agent", held("mem:1024", "a/b/c"), held("mem:1024", "a/b/c"), room("a1", "f0", "a/b/c", "cpus:1;mem:1024"), false},
		{"a room for another framework", held("mem:1024", "a/b/c"), held("mem:1024", "a/b/c"), room("a0", "f1", "a/b/c", "cpus:1;mem:1024"), false},
		{"a room in another role", held("mem:1024", "a/b/c"), held("mem:1024", "a/b/c"), room("a0", "f0", "a/b", "cpus:1;mem:1024"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			gone := heldGone([]allocator.AgentView{{ID: "a0", Held: c.before}}, []allocator.AgentView{{ID: "a0", Held: c.after}}, c.made)
			require.Equal(t, c.want, unmetAtStart(roles, gone))
		})
	}
	require.False(t, unmetAtStart(roles, nil), "nothing given back: the guarantee was met")
}

// Two runs that differ only in a choice withdrawn differ: the twins
// compare what reclaim withdraws as they compare what it chooses.
func TestSameRunComparesWithdrawals(t *testing.T) {
	p := allocator.Preemption{FrameworkID: "f1", TaskID: "t1", AgentID: "a1", Role: "batch", For: "web", ForFramework: "w1", HeldIn: "web"}
	want := allocator.Result{Withdrawn: []allocator.Preemption{p}}
	require.NoError(t, sameRun(want, want))
	err := sameRun(want, allocator.Result{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "withdrawn: ")
	other := p
	other.ForFramework = "w2"
	require.Error(t, sameRun(want, allocator.Result{Withdrawn: []allocator.Preemption{other}}))
}
