package run_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/resources"
)

// Frameworks whose filters are known to refuse everything on an agent are
// stepped over, counted in Stats.Refused, once the role has
// refusals.IndexAbove (4) of them; below that they are visited and passed
// over one by one. A cache-free engine visits them all.
func TestRefusersAreSteppedOver(t *testing.T) {
	for _, tc := range []struct {
		refusers  int
		cacheFree bool
		refused   int
		filtered  int
	}{
		{3, false, 0, 3},
		{4, false, 4, 0},
		{5, false, 5, 0},
		{5, true, 0, 5},
	} {
		t.Run(fmt.Sprintf("%d refusers, cache-free %v", tc.refusers, tc.cacheFree), func(t *testing.T) {
			w := newWorld(t, run.Config{CacheFree: tc.cacheFree})
			w.agent("a1", "cpus:1;mem:1024")
			for i := range tc.refusers {
				w.framework(fmt.Sprintf("f%d", i), "r")
				w.decline(w.run(true).Offers, time.Minute)
			}
			r := w.run(true)
			require.Empty(t, r.Offers)
			require.Equal(t, tc.refused, r.Stats.Refused)
			require.Equal(t, tc.filtered, r.Stats.Skips[explain.Filtered])
		})
	}
}

// A role whose frameworks could take nothing on an agent is not walked
// there again (counted unchanged) while nothing that could change that
// changes: not after the agent changes, after the role's frameworks
// change, or after the filter behind it ends. A cache-free engine walks
// it every time.
func TestNobodyIsRememberedUntilSomethingChanges(t *testing.T) {
	for _, cacheFree := range []bool{false, true} {
		w := newWorld(t, run.Config{CacheFree: cacheFree})
		w.agent("a1", "cpus:1;mem:1024")
		w.framework("f1", "r")
		w.decline(w.run(true).Offers, 5*time.Second)
		unchanged := func() int {
			t.Helper()
			r := w.run(true)
			require.Empty(t, r.Offers)
			if cacheFree {
				require.Zero(t, r.Stats.Unchanged)
				require.Equal(t, []string{"f1 r a1 fair filtered"}, w.passes())
			}
			return r.Stats.Unchanged
		}
		first := unchanged()
		require.Zero(t, first, "the first run walks")
		if !cacheFree {
			require.Equal(t, 1, unchanged(), "then it is remembered")
		}
		w.ok(w.m.UpdateAgent("a1", cluster.AgentInfo{Hostname: "new"}, nil))
		require.Zero(t, unchanged(), "the agent changed")
		if !cacheFree {
			require.Equal(t, 1, unchanged())
		}
		w.ok(w.m.UpdateFramework("f1", cluster.FrameworkInfo{Roles: []string{"r"}, Principal: "p2"}))
		require.Zero(t, unchanged(), "r's frameworks changed")
		w.now = w.now.Add(4 * time.Second)
		if !cacheFree {
			require.Equal(t, 1, unchanged())
		}
		w.now = w.now.Add(time.Second)
		r := w.run(true)
		require.Equal(t, []string{"f1 r a1 cpus:1; mem:1024"}, offers(r.Offers), "the filter ended")
	}
}

// A role capped in a run is parked: later runs leave it out of the role
// sorter and count it capped, until an event could uncap it (here its
// limit raised), and a cache-free engine parks nothing and finds the cap
// every run.
func TestCappedRolesAreParked(t *testing.T) {
	for _, cacheFree := range []bool{false, true} {
		w := newWorld(t, run.Config{CacheFree: cacheFree, MinAllocatable: []resources.Quantities{qty("cpus:0.01")}})
		w.agent("a1", "cpus:4")
		w.quota("o", "", "cpus:1")
		w.framework("fo", "o")
		require.Equal(t, []string{"fo o a1 cpus:1"}, w.allocateAll())
		for i := range 2 {
			r := w.run(true)
			require.Empty(t, r.Offers)
			require.Equal(t, 1, r.Stats.Capped)
			if i == 0 || cacheFree {
				// (A role parked by an earlier run is not looked at: its
				// frameworks are not counted again.)
				require.Equal(t, "quota-limit:1", skips(r.Stats))
			}
			if cacheFree {
				require.Empty(t, w.parking.Parked)
			} else {
				require.Equal(t, []string{"o"}, w.parking.Parked)
			}
		}
		w.quota("o", "", "cpus:2")
		r := w.run(true)
		require.Equal(t, []string{"fo o a1 cpus:1"}, offers(r.Offers))
		require.Zero(t, r.Stats.Capped)
		// A run with no agent to look at uncaps every role.
		r = w.run(true)
		require.Equal(t, 1, r.Stats.Capped, "at the new limit")
		if !cacheFree {
			require.Equal(t, []string{"o"}, w.parking.Parked)
		}
		r = w.run(false)
		require.Zero(t, r.Stats.Agents)
		require.Zero(t, r.Stats.Capped)
		require.Empty(t, w.parking.Parked)
	}
}

// DropCaches forgets every cached answer: the next run walks every role
// and looks at parked roles again, and makes the same offers.
func TestDropCaches(t *testing.T) {
	w := newWorld(t, run.Config{MinAllocatable: []resources.Quantities{qty("cpus:0.01")}})
	w.agent("a1", "cpus:4")
	w.quota("o", "", "cpus:1")
	w.framework("fo", "o")
	w.framework("f1", "r")
	r := w.run(true)
	require.Equal(t, []string{"f1 r a1 cpus:3", "fo o a1 cpus:1"}, offers(r.Offers))
	w.decline(r.Offers[:1], time.Minute)
	r = w.run(true)
	require.Empty(t, r.Offers)
	require.Equal(t, 1, r.Stats.Capped)
	require.Zero(t, r.Stats.Unchanged)
	r = w.run(true)
	require.Equal(t, 1, r.Stats.Unchanged)
	require.Equal(t, []string{"o"}, w.parking.Parked)
	w.e.DropCaches()
	require.Empty(t, w.parking.Parked)
	w.check()
	r = w.run(true)
	require.Empty(t, r.Offers)
	require.Zero(t, r.Stats.Unchanged)
	require.Equal(t, 1, r.Stats.Capped)
	require.Equal(t, "filtered:1 quota-limit:1", skips(r.Stats))
}

// SetOfferOrder switches the rotation after declines off (Mesos's order)
// and whole offers on, as a restored snapshot's options say.
func TestSetOfferOrder(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", "r")
	w.demand("f1", "r", pend("cpus:1", 9))
	w.e.SetOfferOrder(true, true)
	w.decline(w.run(true).Offers, 0)
	w.dec.NoteDecline(w.cs.Frameworks.Get("f1"), w.cs.Agents.Get("a1"))
	r := w.run(true)
	require.Equal(t, []string{"f1 r a1 cpus:4; mem:4096"}, offers(r.Offers), "whole, and nobody held back")
	require.Empty(t, w.passes())
	require.Equal(t, []int{1}, counts(w, "f1", "r"))
}
