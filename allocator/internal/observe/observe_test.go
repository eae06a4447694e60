package observe

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

func qty(s string) resources.Quantities { return resources.MustParseQuantities(s) }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestFilterCount(t *testing.T) {
	var c FilterCount
	c.Add(t0.Add(2*time.Second), 0, 1)
	c.Add(t0.Add(time.Second), 3, 2)
	require.Equal(t, 3, c.Len())
	require.False(t, c.ExpiresBy(t0))
	require.True(t, c.ExpiresBy(t0.Add(time.Second)), "the earliest expiry is 1s")
	// At its expiry, a filter made in the same batch still applies; one
	// made in an earlier batch does not.
	require.Equal(t, 3, c.Active(t0.Add(time.Second), 3))
	require.Equal(t, 1, c.Active(t0.Add(time.Second), 4))
	require.False(t, c.ExpiresBy(t0.Add(time.Second)), "the earliest left is 2s")
	// A filter let go is not counted again as it leaves.
	c.Add(t0.Add(time.Second), 3, -1)
	require.Equal(t, 1, c.Len())
	c.Add(t0.Add(2*time.Second), 0, -1)
	require.Zero(t, c.Len())
	require.False(t, c.ExpiresBy(t0.Add(time.Hour)))
}

func TestHeldSums(t *testing.T) {
	l := New()
	l.Held("f1", "a/x", qty("cpus:2"), qty("mem:4"), true)
	l.Held("f2", "a/x", qty("cpus:1"), resources.Quantities{}, true)
	require.Equal(t, qty("cpus:3"), l.Offered)
	require.Equal(t, qty("mem:4"), l.Allocated)
	ch := l.Take(func(string) bool { return true }, func(string) bool { return true })
	require.Len(t, ch.Roles, 2, "a/x and its ancestor a")
	require.Equal(t, "a", ch.Roles[0].Role)
	require.Equal(t, "a/x", ch.Roles[1].Role)
	require.Equal(t, qty("cpus:3"), ch.Roles[1].Offered)
	require.Len(t, ch.Frameworks, 2)
	require.Equal(t, qty("cpus:2"), ch.Frameworks[0].Roles["a/x"].Offered)

	// f1 launches a task of cpus:1 of its offer and gives the rest back.
	l.Updated("f1", "a/x", resources.MustParse("cpus:2", "*"), resources.MustParse("cpus:2", "*"),
		offer.Applied{Launched: resources.MustParse("cpus:1", "*")})
	require.Equal(t, qty("cpus:1"), l.Offered, "f2's offer is all that is offered")
	require.Equal(t, qty("cpus:1;mem:4"), l.Allocated)
	// f1 gives back what it used: taken from what it uses, as nothing of
	// it was offered.
	l.Taken("f1", "a/x", resources.Resources{}, qty("cpus:1;mem:4"))
	require.True(t, l.Allocated.IsEmpty())
	require.True(t, l.ClusterDirty)
	require.True(t, l.Changed())
}

func TestTake(t *testing.T) {
	l := New()
	present := map[string]bool{"a": true, "a/x": true, "f1": true, "f2": true}
	has := func(id string) bool { return present[id] }
	l.FrameworkIn("f1", "a/x", true)
	l.Filter("f2", "a/x", t0, 0, 1)
	ch := l.Take(has, has)
	require.Equal(t, []string{"a", "a/x"}, []string{ch.Roles[0].Role, ch.Roles[1].Role})
	require.Len(t, ch.Roles[1].Suppressed, 1)
	require.Equal(t, 1, ch.Roles[1].Filters.Len())
	require.False(t, l.Changed(), "Take starts anew")
	require.Empty(t, l.Take(has, has).Roles, "each change is reported once")

	// a/x goes: it was reported, so it is reported removed; its ledger
	// stays while it counts a filter.
	delete(present, "a/x")
	l.MarkRole("a/x")
	l.MarkRole("never")
	ch = l.Take(has, has)
	require.Equal(t, []string{"a/x"}, ch.RemovedRoles, "a role never reported is not reported removed")
	require.Equal(t, 1, l.MarkRole("a/x").Filters.Len(), "the ledger kept its filter")

	// f1 is removed; f2 removed and back before the report.
	l.Removed("f1")
	delete(present, "f1")
	l.Removed("f2")
	l.Removed("f2")
	ch = l.Take(has, has)
	require.Equal(t, []string{"f1"}, ch.RemovedFrameworks)
	require.Empty(t, ch.Frameworks, "a removed framework's ledger is gone")
	l.FrameworkIn("f1", "", false)
	present["f1"] = true
	ch = l.Take(has, has)
	require.Len(t, ch.Frameworks, 1)
	require.Zero(t, ch.Frameworks[0].Offers, "a framework back starts anew")
}

func TestMarksAndTotals(t *testing.T) {
	l := New()
	l.Filter("f1", "a", t0, 0, 1)
	l.Take(func(string) bool { return true }, func(string) bool { return true })
	l.MarkExpired(t0.Add(-time.Second))
	require.False(t, l.Changed())
	l.MarkExpired(t0)
	ch := l.Take(func(string) bool { return true }, func(string) bool { return true })
	require.Len(t, ch.Roles, 1, "a filter that expired changes the role's count")
	require.Len(t, ch.Frameworks, 1)

	require.True(t, l.TotalsChanged(1))
	require.False(t, l.TotalsChanged(1))
	l.Preempted("a/x", "b")
	ch = l.Take(func(string) bool { return true }, func(string) bool { return true })
	require.Len(t, ch.Roles, 3)
	require.EqualValues(t, 1, ch.Roles[1].PreemptedFrom)
	require.EqualValues(t, 1, ch.Roles[2].PreemptedFor)
}

// TestFilterCountAsFiltersLeave: filters that leave stop counting, one by
// one even when several share an expiry, and the earliest expiry is
// worked out again from those left, so that a role is not marked expired
// for a filter that is gone.
func TestFilterCountAsFiltersLeave(t *testing.T) {
	var c FilterCount
	c.Add(t0.Add(time.Second), 3, 1)
	c.Add(t0.Add(time.Second), 3, 1)
	c.Add(t0.Add(2*time.Second), 3, 1)
	c.Add(t0.Add(time.Second), 3, -1)
	require.Equal(t, 2, c.Len(), "one of the two filters expiring at 1s left")
	require.Equal(t, 1, c.Active(t0.Add(1500*time.Millisecond), 3), "the one left at 1s expired, the one at 2s counts")

	// The filter expiring at 1s leaves before its expiry: at 1s only the
	// one at 2s counts, and it has not expired.
	var d FilterCount
	d.Add(t0.Add(time.Second), 3, 1)
	d.Add(t0.Add(2*time.Second), 3, 1)
	d.Add(t0.Add(time.Second), 3, -1)
	require.Equal(t, 1, d.Active(t0.Add(time.Second), 3))
	require.False(t, d.ExpiresBy(t0.Add(time.Second)), "what is left expires at 2s")
	require.True(t, d.ExpiresBy(t0.Add(2*time.Second)))
}

// TestHeldChanged: a role or a framework marked changed since the last
// Take makes HeldChanged true; the cluster's totals alone do not.
func TestHeldChanged(t *testing.T) {
	l := New()
	all := func(string) bool { return true }
	require.False(t, l.HeldChanged())
	l.MarkRole("a")
	require.True(t, l.HeldChanged(), "a role changed")
	l.Take(all, all)
	require.False(t, l.HeldChanged(), "Take starts anew")
	l.Framework("f1")
	require.True(t, l.HeldChanged(), "a framework changed")
	l.Take(all, all)
	l.ClusterDirty = true
	require.False(t, l.HeldChanged(), "only the cluster's figures changed")
	require.True(t, l.Changed())
}

// TestAGoneRolesLedger: the ledger of a role that is gone is dropped,
// unless it still counts filters or frameworks that suppress the role,
// which must be there should the role come back.
func TestAGoneRolesLedger(t *testing.T) {
	l := New()
	gone := func(string) bool { return false }
	l.Filter("f1", "filtered", t0, 0, 1)
	l.FrameworkIn("f1", "suppressed", true)
	l.Preempted("plain", "plain")
	l.Take(gone, gone)
	require.Equal(t, 1, l.MarkRole("filtered").Filters.Len(), "kept: it counts a filter")
	require.Contains(t, l.MarkRole("suppressed").Suppressed, "f1", "kept: f1 suppresses it")
	require.Zero(t, l.MarkRole("plain").PreemptedFrom, "dropped: the role comes back with a new ledger")
}

// TestAddingNoFilterChangesNothing: adding none (delta 0) counts no
// filter and brings no expiry forward, so that a role is not marked
// expired for a filter it never had.
func TestAddingNoFilterChangesNothing(t *testing.T) {
	var c FilterCount
	c.Add(t0.Add(2*time.Second), 0, 1)
	c.Add(t0.Add(time.Second), 0, 0)
	require.Equal(t, 1, c.Len())
	require.False(t, c.ExpiresBy(t0.Add(time.Second)), "the one filter counted expires at 2s")
	c.Add(t0.Add(2*time.Second), 0, 0)
	require.Equal(t, 1, c.Active(t0.Add(time.Second), 1))
	require.Equal(t, 0, c.Active(t0.Add(2*time.Second), 1), "the filter made in batch 0 is let go at its expiry")

	var empty FilterCount
	empty.Add(t0, 0, 0)
	require.Zero(t, empty.Len())
	require.False(t, empty.ExpiresBy(t0.Add(time.Hour)))
}

// TestAFilterExpiringAtTheEpoch: an expiry at the Unix epoch (UnixNano 0)
// is an expiry like any other: what is left after Active expires by it,
// whichever order the filters are met in.
func TestAFilterExpiringAtTheEpoch(t *testing.T) {
	epoch := time.Unix(0, 0)
	for range 20 {
		var c FilterCount
		c.Add(epoch.Add(-time.Second), 0, 1)
		c.Add(epoch, 1, 1)
		c.Add(epoch.Add(5*time.Second), 1, 1)
		require.Equal(t, 2, c.Active(epoch, 1), "the filter expired before the epoch is let go")
		require.True(t, c.ExpiresBy(epoch), "the filter at the epoch is still counted and expires by it")
	}
}
