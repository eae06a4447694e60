package allocator_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// A subtree needs the larger of its own unmet guarantee and the sum of its
// children's. With a and a/b both guaranteed 4 cpus, a framework of a/c
// may take a's 4 as guarantee, but a/b's 4 must then stay free: the run
// may not lower the headroom it holds by more than the subtree's need
// fell, and role x, with no guarantee, gets nothing. Mesos and the
// package doc agree on the figure; the run once lowered it by all it gave.
func TestNestedGuaranteeKeepsItsHeadroom(t *testing.T) {
	for seed := range int64(20) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			a, err := allocator.New(allocator.Options{Seed: seed})
			require.NoError(t, err)
			require.NoError(t, a.UpdateQuota("a", allocator.MustParseQuota("cpus:4")))
			require.NoError(t, a.UpdateQuota("a/b", allocator.MustParseQuota("cpus:4")))
			require.NoError(t, a.AddFramework("c", allocator.FrameworkInfo{Roles: []string{"a/c"}}, nil, allocator.Active))
			require.NoError(t, a.AddFramework("x", allocator.FrameworkInfo{Roles: []string{"x"}}, nil, allocator.Active))
			for _, id := range []string{"agent-1", "agent-2"} {
				require.NoError(t, a.AddAgent(id, allocator.AgentInfo{}, resources.MustParse("cpus:4", "*"), nil))
			}
			res := a.AllocateAll()
			offered := map[string]resources.Scalar{}
			for _, o := range res.Offers {
				offered[o.FrameworkID] += o.Resources.Quantities().Scalar("cpus")
			}
			require.Equal(t, resources.MustScalar(4), offered["c"], "a/c takes a's guarantee")
			require.Zero(t, offered["x"], "x took the headroom a/b's guarantee needs: %v", res.Offers)
			require.NoError(t, a.CheckInvariants())
		})
	}
}
