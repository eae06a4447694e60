package machine

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// UpdateWeights refuses every weight when one names an invalid role or is
// not a positive finite number.
func TestUpdateWeightsRefusesBadInput(t *testing.T) {
	w := newWorld(t)
	for name, tc := range inOrder(map[string]struct {
		weights map[string]float64
		want    error
	}{
		"an invalid role": {map[string]float64{"a": 2, "b//c": 2}, cluster.ErrInvalidRole},
		"zero":            {map[string]float64{"a": 2, "b": 0}, cluster.ErrInvalidWeight},
		"negative":        {map[string]float64{"a": 2, "b": -1}, cluster.ErrInvalidWeight},
		"not a number":    {map[string]float64{"a": 2, "b": math.NaN()}, cluster.ErrInvalidWeight},
		"infinite":        {map[string]float64{"a": 2, "b": math.Inf(1)}, cluster.ErrInvalidWeight},
	}) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.UpdateWeights(tc.weights) })
		})
	}
}

// A weight other than 1 is kept for its role (which the tree then
// holds), weight 1 is the default and is forgotten; the role sorter
// weighs shares by it.
func TestUpdateWeights(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", 0, "a")
	w.allocate()
	share := w.rs.Sorter.(sorter.Sharer).ShareOf("a")
	require.Positive(t, share)
	w.ok(w.m.UpdateWeights(map[string]float64{"a": 2, "b/c": 0.001}))
	require.Equal(t, map[string]float64{"a": 2, "b/c": 0.001}, w.tree.Weights)
	require.NotNil(t, w.tree.Get("b/c"))
	require.NotNil(t, w.tree.Get("b"))
	require.InDelta(t, share/2, w.rs.Sorter.(sorter.Sharer).ShareOf("a"), 1e-9)
	w.ok(w.m.UpdateWeights(map[string]float64{"a": 1, "b/c": 1}))
	require.Empty(t, w.tree.Weights)
	require.Nil(t, w.tree.Get("b/c"), "nothing keeps b/c")
	require.Nil(t, w.tree.Get("b"))
	require.NotNil(t, w.tree.Get("a"), "a has a framework")
	require.InDelta(t, share, w.rs.Sorter.(sorter.Sharer).ShareOf("a"), 1e-9)
}

func quotaOf(guarantees, limits string) roles.Quota {
	q := roles.Quota{Guarantees: qty(guarantees)}
	if limits != "" {
		q.Limits = resources.MustParseLimits(limits)
	}
	return q
}

// UpdateQuota refuses an invalid role, guarantees above limits or above
// resources.MaxScalar, guarantees of all roles past resources.MaxTotal,
// and quota that would contradict an ancestor's limits or a descendant's
// guarantees.
func TestUpdateQuotaRefusesBadInput(t *testing.T) {
	w := newWorld(t)
	w.ok(w.m.UpdateQuota("a", quotaOf("", "cpus:4")))
	w.ok(w.m.UpdateQuota("b/c", quotaOf("cpus:4", "")))
	above := qty("cpus:1000000000000")
	above.AddScalar("cpus", 1)
	var limitAbove resources.Limits
	limitAbove.Set("cpus", resources.MaxScalar+1)
	for name, tc := range inOrder(map[string]struct {
		role string
		q    roles.Quota
		want error
	}{
		"an invalid role":                     {"a//", quotaOf("cpus:1", ""), cluster.ErrInvalidRole},
		"guarantees above limits":             {"d", quotaOf("cpus:2", "cpus:1"), cluster.ErrInvalidQuota},
		"guarantees above MaxScalar":          {"d", roles.Quota{Guarantees: above}, cluster.ErrInvalidQuota},
		"limits above MaxScalar":              {"d", roles.Quota{Limits: limitAbove}, cluster.ErrInvalidQuota},
		"above an ancestor's limits":          {"a/x/y", quotaOf("cpus:5", ""), cluster.ErrInvalidQuota},
		"limits below a child's guarantees":   {"b", quotaOf("", "cpus:3"), cluster.ErrInvalidQuota},
		"limits below a grandchild's":         {"b", quotaOf("", "cpus:3;mem:1"), cluster.ErrInvalidQuota},
		"an own limit below own guarantees":   {"b/c", quotaOf("cpus:4", "cpus:3"), cluster.ErrInvalidQuota},
		"an ancestor's limit on another name": {"a/x", quotaOf("cpus:5;mem:1", ""), cluster.ErrInvalidQuota},
	}) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.UpdateQuota(tc.role, tc.q) })
		})
	}
	// Guarantees within the limits above them, and limits above the
	// guarantees below them, are taken.
	w.t = t
	w.ok(w.m.UpdateQuota("a/x/y", quotaOf("cpus:4", "")))
	w.ok(w.m.UpdateQuota("b", quotaOf("", "cpus:4")))
}

// The quota guarantees of all roles together stay within MaxTotal: a role
// whose guarantee would pass it is refused, a role changing its own
// guarantee within it is not.
func TestUpdateQuotaGuaranteesWithinMaxTotal(t *testing.T) {
	w := newWorld(t)
	max := roles.Quota{Guarantees: qty("cpus:1000000000000")}
	n := int(resources.MaxTotal / resources.MaxScalar)
	for i := range n {
		require.NoError(t, w.m.UpdateQuota(fmt.Sprintf("r%04d", i), max))
	}
	require.NoError(t, w.check())
	w.ok(w.m.UpdateQuota("r0000", max))
	w.refuses(cluster.ErrOverflow, func() error { return w.m.UpdateQuota("z", quotaOf("cpus:1", "")) })
	w.ok(w.m.UpdateQuota("z", quotaOf("mem:1", "")))
}

// UpdateQuota sets a role's quota (a copy of it), and a zero quota
// removes it; the role tree keeps a role only while something needs it.
func TestUpdateQuota(t *testing.T) {
	w := newWorld(t)
	epoch := w.parking.CapEpoch
	q := quotaOf("cpus:1", "cpus:2;mem:100")
	w.ok(w.m.UpdateQuota("a/b", q))
	require.Greater(t, w.parking.CapEpoch, epoch)
	n := w.tree.Get("a/b")
	require.NotNil(t, n)
	require.Equal(t, "cpus:1", n.Q().Guarantees.String())
	require.Equal(t, "cpus:2; mem:100", n.Q().Limits.String())
	q.Guarantees.AddScalar("cpus", resources.Units(1))
	require.Equal(t, "cpus:1", n.Q().Guarantees.String(), "the tree keeps its own copy")

	w.ok(w.m.UpdateQuota("a/b", roles.Quota{}))
	require.Nil(t, w.tree.Get("a/b"))
	require.Nil(t, w.tree.Get("a"))
	w.ok(w.m.UpdateQuota("c", roles.Quota{}))
	require.Nil(t, w.tree.Get("c"), "no quota, no role")

	// A role a framework is in stays, without quota.
	w.framework("f1", 0, "d")
	w.ok(w.m.UpdateQuota("d", quotaOf("cpus:1", "")))
	w.ok(w.m.UpdateQuota("d", roles.Quota{}))
	require.NotNil(t, w.tree.Get("d"))
	require.True(t, w.tree.Get("d").Q().IsZero())
}
