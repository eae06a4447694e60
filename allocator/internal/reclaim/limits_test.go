package reclaim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// A new room must leave the pending ones theirs within a limit, counting
// what a pending group gives back once its victims have all ended: team
// is limited to mem:3072 and at it (team/old's o1, cpus:1;mem:2048, on
// a1; o2, mem:1024, on a2, where batch's b1 of cpus:1;mem:1024 runs too).
// team/x, guaranteed cpus:2, waits for two tasks of cpus:1;mem:1024. The
// first room is o1, which frees mem:1024 beyond it. The second is b1 with
// o2 (inside team, freeing the mem the task would add to it): were b1 to
// end first, team is back at its limit once o1's room is held, whichever
// group ends last.
func TestPendingGroupGivesBackBeyondItsRoom(t *testing.T) {
	w := newWorld(t)
	w.framework("xfw", "team/x")
	w.framework("old", "team/old")
	w.framework("spark", "batch")
	w.agent("a1", "cpus:1;mem:2048")
	w.agent("a2", "cpus:1;mem:2048")
	w.launch("old", "o1", "team/old", "a1", "cpus:1;mem:2048")
	w.launch("old", "o2", "team/old", "a2", "mem:1024")
	w.launch("spark", "b1", "batch", "a2", "cpus:1;mem:1024")
	w.quota("team", "", "mem:3072")
	w.quota("team/x", "cpus:2", "")
	w.demand("xfw", "team/x", pend("cpus:1;mem:1024", 2))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"old/o1@a1", "spark/b1@a2", "old/o2@a2"}, victims(chosen))
	require.Equal(t, "cpus:1; mem:1024", chosen[1].Room.String())
	require.Equal(t, "{}", chosen[2].Room.String())
}

// A greedy cover, once pruned, must still leave the pending groups their
// room within a limit: what it frees moves between its victims' rooms.
// team is limited to mem:9216 and consumes mem:6144, all in team/old:
// z (cpus:1;mem:1024) and y (mem:4096) on a2, g (cpus:1;mem:1024) on
// a1; batch's o1 to o3 (cpus:1;mem:1536) run on a2 too, younger than z
// and older than y. team/x waits for a task of cpus:1;mem:1024, whose
// room is g, and one of cpus:4;mem:4096, which would take team past its
// limit by mem:1024 unless its victims in team free that. The greedy
// cover is y, z and the three o; pruned of y, the o (younger than z)
// would hold mem:4096 before z ends, with g's room pending: no room.
func TestPrunedCoverLeavesPendingRoomsTheirLimit(t *testing.T) {
	w := newWorld(t)
	w.framework("xfw", "team/x")
	w.framework("old", "team/old")
	w.framework("spark", "batch")
	w.agent("a1", "cpus:1;mem:1024")
	w.agent("a2", "cpus:4;mem:9728")
	w.launch("old", "z", "team/old", "a2", "cpus:1;mem:1024")
	for i := 1; i <= 3; i++ {
		w.launch("spark", fmt.Sprintf("o%d", i), "batch", "a2", "cpus:1;mem:1536")
	}
	w.launch("old", "y", "team/old", "a2", "mem:4096")
	w.launch("old", "g", "team/old", "a1", "cpus:1;mem:1024")
	w.quota("team", "", "mem:9216")
	w.quota("team/x", "cpus:5", "")
	w.demand("xfw", "team/x", pend("cpus:1;mem:1024", 1), pend("cpus:4;mem:4096", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"old/g@a1"}, victims(chosen))
}
