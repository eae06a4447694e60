package machine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

func pending(q string, n int) cluster.Pending { return cluster.Pending{Resources: qty(q), Count: n} }

// UpdateDemand refuses an unknown framework, a role it does not subscribe
// to, and a statement with too many shapes, a shape of nothing, or a
// count out of range.
func TestUpdateDemandRefusesBadInput(t *testing.T) {
	w := newWorld(t)
	w.framework("f1", 0, "r")
	w.ok(w.m.UpdateDemand("f1", "r", []cluster.Pending{pending("cpus:1", 1)}))
	w.clearPending()
	many := make([]cluster.Pending, cluster.MaxPending+1)
	for i := range many {
		many[i] = pending("cpus:1", 1)
	}
	// Past the most a count may be (on 32-bit platforms int wraps it
	// negative, refused all the same).
	tooMany := int64(cluster.MaxPendingCount) + 1
	for name, tc := range inOrder(map[string]struct {
		fw, role string
		pending  []cluster.Pending
		want     error
	}{
		"unknown framework":     {"f9", "r", nil, cluster.ErrUnknownFramework},
		"a role not subscribed": {"f1", "q", nil, cluster.ErrRoleNotSubscribed},
		"too many shapes":       {"f1", "r", many, cluster.ErrInvalidDemand},
		"a shape of nothing":    {"f1", "r", []cluster.Pending{pending("cpus:1", 1), {Count: 1}}, cluster.ErrInvalidDemand},
		"count zero":            {"f1", "r", []cluster.Pending{pending("cpus:1", 0)}, cluster.ErrInvalidDemand},
		"count negative":        {"f1", "r", []cluster.Pending{pending("cpus:1", -1)}, cluster.ErrInvalidDemand},
		"count too large":       {"f1", "r", []cluster.Pending{pending("cpus:1", int(tooMany))}, cluster.ErrInvalidDemand},
	}) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.UpdateDemand(tc.fw, tc.role, tc.pending) })
		})
	}
}

// UpdateDemand stores a copy of the statement for the role; a statement
// of something makes every agent wait for a run, an empty one (nothing
// pending) takes the framework out of the role's sorter and asks for no
// run.
func TestUpdateDemand(t *testing.T) {
	w := newWorld(t)
	w.framework("f1", 0, "r", "q")
	fw := w.cs.Frameworks.Get("f1")
	w.clearPending()
	epoch := w.parking.CapEpoch

	most := make([]cluster.Pending, cluster.MaxPending)
	for i := range most {
		most[i] = pending("cpus:1", 1)
	}
	most[0] = pending("cpus:1;mem:32", cluster.MaxPendingCount)
	w.ok(w.m.UpdateDemand("f1", "r", most))
	require.Len(t, fw.Demand["r"], cluster.MaxPending)
	require.Equal(t, "*", w.pending())
	require.Greater(t, w.parking.CapEpoch, epoch)
	most[0].Resources.AddScalar("cpus", resources.Units(1))
	most[0].Count = 7
	require.Equal(t, pending("cpus:1;mem:32", cluster.MaxPendingCount), fw.Demand["r"][0], "the statement is a copy")
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("r").Sort())

	w.clearPending()
	w.ok(w.m.UpdateDemand("f1", "q", nil))
	require.Equal(t, []cluster.Pending{}, fw.Demand["q"])
	require.Empty(t, w.pending(), "waiting for nothing asks for no run")
	require.Empty(t, w.books.FrameworkSorter("q").Sort(), "nothing pending: out of q's sorter")
	require.Len(t, fw.Demand["r"], cluster.MaxPending, "r's statement stays")

	w.ok(w.m.UpdateDemand("f1", "q", []cluster.Pending{pending("gpus:1", 1)}))
	require.Equal(t, []cluster.Pending{pending("gpus:1", 1)}, fw.Demand["q"])
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("q").Sort())
	require.Equal(t, "*", w.pending())
}
