package allocator_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

func pending(text string, n int) allocator.Pending {
	return allocator.Pending{Resources: resources.MustParseQuantities(text), Count: n}
}

// demandCluster has one agent of cpus:8;mem:8192 and frameworks a and b,
// each in a role of its own name.
func demandCluster(t *testing.T, opts allocator.Options) *allocator.Allocator {
	t.Helper()
	a, err := allocator.New(opts)
	require.NoError(t, err)
	require.NoError(t, a.AddAgent("n1", allocator.AgentInfo{}, resources.MustParse("cpus:8;mem:8192", "*"), nil))
	for _, id := range []string{"a", "b"} {
		require.NoError(t, a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{id}}, nil, allocator.Active))
	}
	return a
}

// Offers to frameworks that state demand hold their tasks, handed out one
// by one in DRF order: a's tasks are cpu-heavy, b's memory-heavy, and
// progressive filling gives them 3 (cpus 6/8, mem 1536/8192) and 3 (cpus
// 1.5/8, mem 6144/8192) before neither fits.
func TestDemandSizesOffersTaskByTask(t *testing.T) {
	a := demandCluster(t, allocator.Options{Seed: 1})
	require.NoError(t, a.UpdateDemand("a", "a", []allocator.Pending{pending("cpus:2;mem:512", 10)}))
	require.NoError(t, a.UpdateDemand("b", "b", []allocator.Pending{pending("cpus:0.5;mem:2048", 10)}))
	res := a.AllocateAll()
	require.Len(t, res.Offers, 2)
	got := map[string]string{}
	for _, o := range res.Offers {
		got[o.FrameworkID] = o.Resources.Quantities().String()
	}
	require.Equal(t, "cpus:6; mem:1536", got["a"])
	require.Equal(t, "cpus:1.5; mem:6144", got["b"])
	left, err := a.Demand("a")
	require.NoError(t, err)
	require.Equal(t, 7, left["a"][0].Count, "three tasks were offered for")
}

// With WholeOffers the first framework in DRF order is offered all that is
// left, as in Mesos, but only frameworks whose task fits are offered.
func TestDemandWholeOffers(t *testing.T) {
	a := demandCluster(t, allocator.Options{Seed: 1, WholeOffers: true})
	require.NoError(t, a.UpdateDemand("a", "a", []allocator.Pending{pending("cpus:2;mem:512", 2)}))
	require.NoError(t, a.UpdateDemand("b", "b", []allocator.Pending{pending("cpus:16", 1)}))
	res := a.AllocateAll()
	require.Len(t, res.Offers, 1)
	require.Equal(t, "a", res.Offers[0].FrameworkID)
	require.Equal(t, "cpus:8; mem:8192", res.Offers[0].Resources.Quantities().String())
	left, err := a.Demand("a")
	require.NoError(t, err)
	require.Empty(t, left["a"], "both of a's tasks fit in the whole offer")
}

// A framework whose tasks fit nowhere is not offered anything, and
// Explain names the shape; a framework that waits for nothing is kept out
// like a suppressed one.
func TestExplainNamesUnfitDemand(t *testing.T) {
	a := demandCluster(t, allocator.Options{Seed: 1})
	require.NoError(t, a.UpdateDemand("a", "a", []allocator.Pending{pending("cpus:16", 1), pending("gpus:1", 2)}))
	require.NoError(t, a.UpdateDemand("b", "b", nil))
	res := a.AllocateAll()
	require.Empty(t, res.Offers)
	require.Equal(t, 1, res.Stats.Skips[allocator.ReasonNoFit])

	ex, err := a.Explain("a")
	require.NoError(t, err)
	require.Len(t, ex.Roles, 1)
	require.Equal(t, allocator.ReasonNoFit, ex.Roles[0].Reason)
	g := ex.Roles[0].Reasons[0]
	require.Len(t, g.Unfit, 2)
	require.Equal(t, "cpus:16", g.Unfit[0].Resources.String())
	require.Equal(t, "cpus:8; mem:8192", g.Left.String())
	require.Contains(t, ex.String(), "no pending task fits")

	ex, err = a.Explain("b")
	require.NoError(t, err)
	require.Equal(t, allocator.ReasonNoFit, ex.Roles[0].Reason)
	require.Empty(t, ex.Roles[0].Reasons[0].Unfit, "nothing is pending")

	// Stating a task that fits triggers a run and is offered.
	require.NoError(t, a.UpdateDemand("b", "b", []allocator.Pending{pending("cpus:1;mem:1024", 1)}))
	res = a.Allocate()
	require.Len(t, res.Offers, 1)
	require.Equal(t, "cpus:1; mem:1024", res.Offers[0].Resources.Quantities().String())
}

// Bad statements are refused with an error that names the problem, and
// change nothing.
func TestUpdateDemandValidates(t *testing.T) {
	a := demandCluster(t, allocator.Options{Seed: 1})
	require.NoError(t, a.UpdateDemand("a", "a", []allocator.Pending{pending("cpus:1", 2)}))
	before, err := a.Snapshot()
	require.NoError(t, err)
	for name, c := range map[string]struct {
		fw, role string
		p        []allocator.Pending
		want     error
	}{
		"unknown framework": {"x", "a", nil, allocator.ErrUnknownFramework},
		"role not its own":  {"a", "b", nil, allocator.ErrRoleNotSubscribed},
		"no resources":      {"a", "a", []allocator.Pending{{Count: 1}}, allocator.ErrInvalidDemand},
		"count zero":        {"a", "a", []allocator.Pending{pending("cpus:1", 0)}, allocator.ErrInvalidDemand},
		"too many shapes":   {"a", "a", make([]allocator.Pending, allocator.MaxPending+1), allocator.ErrInvalidDemand},
	} {
		err := a.UpdateDemand(c.fw, c.role, c.p)
		require.Error(t, err, name)
		require.True(t, errors.Is(err, c.want), "%s: %v", name, err)
	}
	after, err := a.Snapshot()
	require.NoError(t, err)
	require.True(t, bytes.Equal(before, after), "a refused statement changes nothing")
}

// A statement goes through the journal and a snapshot unchanged.
func TestDemandJournalAndSnapshot(t *testing.T) {
	var journal []allocator.Entry
	a := demandCluster(t, allocator.Options{Seed: 1, Journal: func(e allocator.Entry) { journal = append(journal, e) }})
	stated := []allocator.Pending{pending("cpus:2;mem:512", 3), pending("mem:64", 1)}
	require.NoError(t, a.UpdateDemand("a", "a", stated))
	last := journal[len(journal)-1]
	require.Equal(t, allocator.EventUpdateDemand, last.Event)
	text, err := last.MarshalJSON()
	require.NoError(t, err)
	var back allocator.Entry
	require.NoError(t, back.UnmarshalJSON(text))
	require.Equal(t, "a", back.Role)
	require.Len(t, back.Demand, 2)
	require.Equal(t, "cpus:2; mem:512", back.Demand[0].Resources.String())
	require.Equal(t, 3, back.Demand[0].Count)

	a.AllocateAll()
	data, err := a.Snapshot()
	require.NoError(t, err)
	b, err := allocator.Restore(data, allocator.RestoreOptions{})
	require.NoError(t, err)
	want, _ := a.Demand("a")
	got, err := b.Demand("a")
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// A role below its guarantee gets as many of its tasks as the agent holds
// in the guarantees stage, and nothing is held back as headroom once the
// guarantee is met: g (guaranteed cpus:4;mem:4096) and o each get four
// tasks of cpus:1;mem:1024 on one agent of cpus:8;mem:8192.
func TestDemandMeetsGuaranteesTaskByTask(t *testing.T) {
	a, err := allocator.New(allocator.Options{Seed: 1})
	require.NoError(t, err)
	require.NoError(t, a.AddAgent("n1", allocator.AgentInfo{}, resources.MustParse("cpus:8;mem:8192", "*"), nil))
	require.NoError(t, a.UpdateQuota("g", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:4;mem:4096")}))
	for _, id := range []string{"g", "o"} {
		require.NoError(t, a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{id}}, nil, allocator.Active))
		require.NoError(t, a.UpdateDemand(id, id, []allocator.Pending{pending("cpus:1;mem:1024", 10)}))
	}
	res := a.AllocateAll()
	require.Len(t, res.Offers, 2)
	for _, o := range res.Offers {
		require.Equal(t, "cpus:4; mem:4096", o.Resources.Quantities().String(), o.FrameworkID)
	}
	require.Zero(t, res.Stats.Skips[allocator.ReasonHeadroom])
}
