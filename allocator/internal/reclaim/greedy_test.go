package reclaim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// greedyWorld is a1 (cpus:8;mem:8192) full of batch's tasks, and web
// guaranteed what it waits for: one task too large for ExactVictims
// victims, so that the room is covered greedily.
func greedyWorld(t *testing.T) *world {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:8;mem:8192")
	return w
}

// A greedy cover takes first the candidate that covers most of what is
// missing, and among those alike in cover and excess the youngest: web
// waits for cpus:5 on a1, full of an old b1 (cpus:2) and six tasks of
// cpus:1. b1 goes first, then the youngest three of cpus:1, not the
// oldest.
func TestGreedyTakesMostCoverThenYoungest(t *testing.T) {
	w := greedyWorld(t)
	w.launch("spark", "b1", "batch", "a1", "cpus:2;mem:2048")
	for i := 1; i <= 6; i++ {
		w.launch("spark", fmt.Sprintf("s%d", i), "batch", "a1", "cpus:1;mem:1024")
	}
	w.quota("web", "cpus:5", "")
	w.demand("nginx", "web", pend("cpus:5", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/s6@a1", "spark/s5@a1", "spark/s4@a1", "spark/b1@a1"}, victims(chosen))
}

// Among candidates that cover as much, a greedy cover takes the one that
// frees least beyond what is missing: web waits for cpus:5 on a1
// (cpus:6), where
// the youngest tasks m1 and m2 free mem it does not need and p1 to p4 do
// not: all four p, then one m.
func TestGreedyTakesLeastExcess(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:6;mem:8192")
	for i := 1; i <= 4; i++ {
		w.launch("spark", fmt.Sprintf("p%d", i), "batch", "a1", "cpus:1")
	}
	w.launch("spark", "m1", "batch", "a1", "cpus:1;mem:1024")
	w.launch("spark", "m2", "batch", "a1", "cpus:1;mem:1024")
	w.quota("web", "cpus:5", "")
	w.demand("nginx", "web", pend("cpus:5", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.ElementsMatch(t, []string{"spark/p1@a1", "spark/p2@a1", "spark/p3@a1", "spark/p4@a1", "spark/m2@a1"}, victims(chosen))
}

// A greedy cover is pruned: a victim the others cover without is
// dropped. web waits for cpus:5;mem:2560 on a1, which has cpus:1 free:
// mem-only (mem:2048) covers most and goes first, then four tasks of
// cpus:1;mem:512 cover the cpus and the mem as well: mem-only is dropped.
func TestGreedyDropsWhatTheOthersCover(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:6;mem:6144")
	w.launch("spark", "mem-only", "batch", "a1", "mem:2048")
	for i := 1; i <= 5; i++ {
		w.launch("spark", fmt.Sprintf("c%d", i), "batch", "a1", "cpus:1;mem:512")
	}
	w.quota("web", "cpus:5;mem:2560", "")
	w.demand("nginx", "web", pend("cpus:5;mem:2560", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/c5@a1", "spark/c4@a1", "spark/c3@a1", "spark/c2@a1"}, victims(chosen))
}

// Among candidates alike in cover and excess, a greedy cover takes the
// youngest, whatever their roles: a1 (cpus:5) runs, oldest first, batch's
// p1, batch2's q1, p2, q2, p3, all of cpus:1; web waits for cpus:4: the
// four youngest, p3, q2, p2 and q1, not the oldest, p1 (alike to p3 and
// p2, it comes before q1 in the candidates' order).
func TestGreedyTieYoungestAcrossRoles(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("spark2", "batch2")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:5")
	w.launch("spark", "p1", "batch", "a1", "cpus:1")
	w.launch("spark2", "q1", "batch2", "a1", "cpus:1")
	w.launch("spark", "p2", "batch", "a1", "cpus:1")
	w.launch("spark2", "q2", "batch2", "a1", "cpus:1")
	w.launch("spark", "p3", "batch", "a1", "cpus:1")
	w.quota("web", "cpus:4", "")
	w.demand("nginx", "web", pend("cpus:4", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/p3@a1", "spark2/q2@a1", "spark/p2@a1", "spark2/q1@a1"}, victims(chosen))
}

// Greedy covers on different agents are compared as any rooms are: the
// fewest victims first. web waits for cpus:5; a1 runs five young tasks of
// cpus:1, a2 four older ones of cpus:1.25: a2's four go.
func TestGreedyCoversFewestVictimsAcrossAgents(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.agent("a1", "cpus:5")
	w.agent("a2", "cpus:5")
	for i := 1; i <= 4; i++ {
		w.launch("spark", fmt.Sprintf("b%d", i), "batch", "a2", "cpus:1.25")
	}
	for i := 1; i <= 5; i++ {
		w.launch("spark", fmt.Sprintf("s%d", i), "batch", "a1", "cpus:1")
	}
	w.quota("web", "cpus:5", "")
	w.demand("nginx", "web", pend("cpus:5", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/b4@a2", "spark/b3@a2", "spark/b2@a2", "spark/b1@a2"}, victims(chosen))
}
