package allocator

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSnapshotAllocatesLittleAnAgent: a snapshot lists the keys of every
// agent's maps (offers and allocations by framework, caches by role) in
// one slice reused from agent to agent, not a new sorted slice for each
// map. The cluster holds, per agent, an allocation, an outstanding offer,
// a refusal and the caches that go with them; listing each map's keys
// afresh made about 31 allocations an agent, reusing the slice fewer than
// two (the compact filters expanded for the snapshot, mostly).
func TestSnapshotAllocatesLittleAnAgent(t *testing.T) {
	const agents = 200
	a, _ := snapshotSetup(t, agents, 20)
	want, err := a.Snapshot()
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := a.Snapshot(); err != nil {
			t.Fatal(err)
		}
	})
	require.Less(t, allocs/agents, 5.0, "allocations an agent")
	got, err := a.Snapshot()
	require.NoError(t, err)
	require.Equal(t, want, got, "the same state saves to the same bytes")
}
