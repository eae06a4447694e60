package reclaim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// Of the sets of the fewest victims, up to ExactVictims of them, the one
// that frees least beyond what is missing, found by an exhaustive search
// where a greedy cover would differ: web waits for cpus:3 on a1, full of
// y1 to y3 (cpus:1) and x (cpus:1.5). A greedy cover would take x first,
// then two of the y; the three y free exactly what is missing.
func TestExactSearchBeatsTheGreedyCover(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:4.5;mem:1024")
	w.launch("spark", "y1", "batch", "a1", "cpus:1")
	w.launch("spark", "y2", "batch", "a1", "cpus:1")
	w.launch("spark", "y3", "batch", "a1", "cpus:1")
	w.launch("spark", "x", "batch", "a1", "cpus:1.5")
	w.quota("web", "cpus:3", "")
	w.demand("nginx", "web", pend("cpus:3", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/y3@a1", "spark/y2@a1", "spark/y1@a1"}, victims(chosen))
}

// The youngest victims win across agents, where the agent with the
// youngest task has no candidate as young: a1 runs web's own task, the
// youngest of all, and batch's b1; a2 runs batch's older y-old and its
// y-young, younger than b1. web waits for cpus:1: y-young goes.
func TestYoungestVictimAcrossAgents(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:2")
	w.agent("a2", "cpus:2")
	w.launch("spark", "y-old", "batch", "a2", "cpus:1")
	w.launch("spark", "b1", "batch", "a1", "cpus:1")
	w.launch("spark", "y-young", "batch", "a2", "cpus:1")
	w.launch("nginx", "n1", "web", "a1", "cpus:1")
	w.quota("web", "cpus:2", "")
	w.demand("nginx", "web", pend("cpus:1", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/y-young@a2"}, victims(chosen))
}

// Less freed beyond what is missing comes before youth across agents: a1
// runs the youngest task, b1 (cpus:2), a2 an old one of cpus:1; web waits
// for cpus:1: the old one on a2, which frees nothing beyond.
func TestLeastExcessAcrossAgents(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:2")
	w.agent("a2", "cpus:1")
	w.launch("spark", "old", "batch", "a2", "cpus:1")
	w.launch("spark", "b1", "batch", "a1", "cpus:2")
	w.quota("web", "cpus:1", "")
	w.demand("nginx", "web", pend("cpus:1", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/old@a2"}, victims(chosen))
}

// A victim's role keeps its guarantee in what the set frees, and only in
// that: keep, guaranteed cpus:1;mem:1024, runs two tasks of cpus:1 and no
// mem. web may take one of them: keep stays at cpus:1, and it lacks mem
// whatever ends.
func TestVictimGuaranteeOnlyInWhatTheSetFrees(t *testing.T) {
	w := newWorld(t)
	w.framework("keeper", "keep")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:2;mem:1024")
	w.launch("keeper", "k1", "keep", "a1", "cpus:1")
	w.launch("keeper", "k2", "keep", "a1", "cpus:1")
	w.quota("keep", "cpus:1;mem:1024", "")
	w.quota("web", "cpus:1", "")
	w.demand("nginx", "web", pend("cpus:1;mem:512", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"keeper/k2@a1"}, victims(chosen))
}

// A limit counts only in the resources the task needs: team, limited to
// mem:1024, consumes mem:2048 (team/old's o1, a limit lowered), and
// team/x, guaranteed cpus:1, waits for a task of cpus:1. The task adds no
// mem: batch's b1, the youngest, goes, not o1 for the mem it frees.
func TestLimitOnlyInWhatTheTaskNeeds(t *testing.T) {
	w := newWorld(t)
	w.framework("xfw", "team/x")
	w.framework("old", "team/old")
	w.framework("spark", "batch")
	w.agent("a1", "cpus:2;mem:2048")
	w.launch("old", "o1", "team/old", "a1", "cpus:1;mem:2048")
	w.launch("spark", "b1", "batch", "a1", "cpus:1")
	w.quota("team", "", "mem:1024")
	w.quota("team/x", "cpus:1", "")
	w.demand("xfw", "team/x", pend("cpus:1", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/b1@a1"}, victims(chosen))
}

// A task on an agent the run does not list (one being removed, numbered
// after every listed agent) is no victim: a1 runs batch's b1, a2, not
// listed, batch's younger b2; web waits for cpus:1: b1 goes.
func TestNoVictimOnAnUnlistedAgent(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:1")
	gone := &cluster.Agent{ID: "a2", Active: true, Total: resources.MustParse("cpus:1", "*"), Headroom: qty("cpus:1")}
	w.cs.NumberAgent(gone)
	w.cs.Agents.Put(gone)
	w.launch("spark", "b1", "batch", "a1", "cpus:1")
	w.launch("spark", "b2", "batch", "a2", "cpus:1")
	w.quota("web", "cpus:1", "")
	w.demand("nginx", "web", pend("cpus:1", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/b1@a1"}, victims(chosen))
}

// The more victims on revocable resources, on one agent too: a1 runs
// batch's old, on a revocable cpu, and young, both freeing mem:1024 (they
// are not alike, though of one role and freeing the same): old goes.
func TestRevocableVictimFirstOnOneAgent(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:1;mem:2048")
	w.launchUses("spark", "old", "batch", "a1", "cpus{REV}:1;mem:1024", "mem:1024")
	w.launch("spark", "young", "batch", "a1", "mem:1024")
	w.quota("web", "mem:1024", "")
	w.demand("nginx", "web", pend("mem:1024", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/old@a1"}, victims(chosen))
}
