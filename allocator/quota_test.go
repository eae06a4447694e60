package allocator

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// A run over many roles with quota, flat and nested, allocates a few
// times, not once or twice per role: the required headroom is worked out
// at the start and the end of every run with quota.
func TestRunWithManyQuotaRolesAllocatesLittle(t *testing.T) {
	a, err := New(Options{Seed: 1})
	require.NoError(t, err)
	q := Quota{Guarantees: resources.MustParseQuantities("cpus:1;mem:1024")}
	const roles = 300
	for i := range roles {
		role := fmt.Sprintf("r%03d", i)
		if i%2 == 1 { // half of them under 30 parents with quota of their own
			parent := fmt.Sprintf("t%02d", i%30)
			require.NoError(t, a.UpdateQuota(parent, Quota{Guarantees: resources.MustParseQuantities("cpus:2;mem:2048")}))
			role = parent + "/" + role
		}
		require.NoError(t, a.UpdateQuota(role, q))
		require.NoError(t, a.AddFramework("f-"+role, FrameworkInfo{Roles: []string{role}}, nil, Active))
	}
	// Fewer agents than guarantees: the guarantees stay unmet, so both
	// figures of a run are worked out, and every agent is offered.
	for i := range 10 {
		require.NoError(t, a.AddAgent(fmt.Sprintf("agent-%d", i), AgentInfo{}, resources.MustParse("cpus:1;mem:1024", "*"), nil))
	}
	require.Len(t, a.AllocateAll().Offers, 10)
	n := testing.AllocsPerRun(20, func() {
		if got := len(a.AllocateAll().Offers); got != 0 {
			t.Fatalf("an empty run made %d offers", got)
		}
	})
	require.Less(t, n, float64(roles/10), "allocations of an empty run over %d roles with quota", roles)
}
