package run_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/run"
)

// A run keeps its candidate agents and its offer records in storage it
// leaves to the next run: a run over no more agents than the last one
// reuses it rather than allocating its own.
func TestARunReusesTheLastRunsStorage(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:1;mem:1024")
	w.agent("a2", "cpus:1;mem:1024")
	w.framework("f1", "r")
	first := w.run(true)
	require.Len(t, first.Offers, 2)
	agents, _ := w.e.RunStorage()
	require.Equal(t, 2, cap(agents))
	agentsAt, offersAt := unsafe.SliceData(agents), unsafe.SliceData(w.log.Offers)
	w.giveBack(first.Offers)
	require.Len(t, w.run(true).Offers, 2)
	agents, _ = w.e.RunStorage()
	require.Same(t, agentsAt, unsafe.SliceData(agents), "the candidate agents' storage is reused")
	require.Same(t, offersAt, unsafe.SliceData(w.log.Offers), "the offer records' storage is reused")
}

// The ranks of a run's agents are kept by agent number in a table that
// grows with the cluster to one entry an agent number, no more.
func TestTheRankTableGrowsToTheAgents(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:1;mem:1024")
	w.agent("a2", "cpus:1;mem:1024")
	w.run(true)
	_, ranks := w.e.RunStorage()
	require.Len(t, ranks, len(w.cs.AgentsByNum))
	w.agent("a3", "cpus:1;mem:1024")
	w.agent("a4", "cpus:1;mem:1024")
	w.run(true)
	_, ranks = w.e.RunStorage()
	require.Len(t, ranks, len(w.cs.AgentsByNum))
}
