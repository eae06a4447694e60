package allocator_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// The role Explain names at a quota limit is the one whose limit keeps
// the framework off the whole offer, reservations included: the limits cut
// only the unreserved part, and the role's own reservation on the agent is
// offered beside it. Here a/b/c's limit alone leaves cpus:0.7 of the
// unreserved cpus, which with its reserved cpus:0.5 meets the minimum of
// cpus:1; a/b's leaves none, and cpus:0.5 does not: a/b's limit binds.
func TestQuotaLimitNamedCountsTheReservedRest(t *testing.T) {
	a, err := allocator.New(allocator.Options{Seed: 1, MinAllocatable: []resources.Quantities{resources.MustParseQuantities("cpus:1")}})
	require.NoError(t, err)
	require.NoError(t, a.UpdateQuota("a/b/c", allocator.Quota{Limits: resources.MustParseLimits("cpus:1.2")}))
	require.NoError(t, a.UpdateQuota("a/b", allocator.Quota{Limits: resources.MustParseLimits("cpus:0.5")}))
	require.NoError(t, a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"a/b/c"}}, nil, allocator.Active))
	total, err := resources.Parse("cpus(a/b/c):0.5;cpus:2.5", "*")
	require.NoError(t, err)
	require.NoError(t, a.AddAgent("s1", allocator.AgentInfo{}, total, nil))
	require.Empty(t, a.AllocateAll().Offers)

	ex, err := a.Explain("f")
	require.NoError(t, err)
	require.Len(t, ex.Roles, 1)
	require.Equal(t, allocator.ReasonQuotaLimit, ex.Roles[0].Reason, ex.String())
	g := ex.Roles[0].Reasons[0]
	require.Equal(t, "a/b", g.QuotaRole, ex.String())
	require.Equal(t, "cpus:0.5", g.Consumed.String())
}
