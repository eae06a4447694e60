package reclaim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Fair share makes room for a pending task a framework states, and a
// shape stated zero times is none: web states no task of cpus:2;mem:2048
// and one of cpus:1;mem:1024: one victim, for the latter.
func TestFairShareNoRoomForAShapeStatedZeroTimes(t *testing.T) {
	w := fullCluster(t, 2)
	w.demand("nginx", "web", pend("cpus:2;mem:2048", 0), pend("cpus:1;mem:1024", 1))
	chosen, _ := w.reclaim(FairShare)
	require.Equal(t, []string{"spark/t08@a2"}, victims(chosen))
	require.Equal(t, "cpus:1; mem:1024", chosen[0].Task.String())
}

// A role that states zero tasks waits for none, and would take from
// nobody, whatever its share: as in TestFairShareCrossesNoRole, t takes
// two of a's tasks when a states none of cpus:1;mem:1024.
func TestFairShareStatedZeroTasksWaitsForNone(t *testing.T) {
	w := threeRoles(t)
	w.demand("afw", "a", pend("cpus:1;mem:1024", 0))
	chosen, _ := w.reclaim(FairShare)
	require.Equal(t, []string{"afw/x5@a1", "afw/x4@a1"}, victims(chosen))
}

// Each victim role of a fair-share move stays at or above the taker after
// it, the older victims' roles as well as the youngest's: a1 (cpus:10)
// runs b's b1 and b2 (cpus:0.5), then a's x1 to x6 (cpus:1.5); t waits
// for cpus:2. x6 and b2 would free it exactly, but leave b at 1/20,
// below t at 2/10: x6 and x5 go.
func TestFairShareEveryVictimRoleStaysAboveTheTaker(t *testing.T) {
	w := newWorld(t)
	w.framework("bfw", "b")
	w.framework("afw", "a")
	w.framework("tfw", "t")
	w.agent("a1", "cpus:10")
	w.launch("bfw", "b1", "b", "a1", "cpus:0.5")
	w.launch("bfw", "b2", "b", "a1", "cpus:0.5")
	for i := 1; i <= 6; i++ {
		w.launch("afw", fmt.Sprintf("x%d", i), "a", "a1", "cpus:1.5")
	}
	w.demand("tfw", "t", pend("cpus:2", 1))
	chosen, _ := w.reclaim(FairShare)
	require.Equal(t, []string{"afw/x6@a1", "afw/x5@a1"}, victims(chosen))
}

// A role with nobody above it takes nothing by fair share, not even what
// pending victims free beyond their rooms, which a role below it may
// then wait for: a1 (cpus:8) runs h's h1 to h4 (cpus:2). g, guaranteed
// cpus:1, takes h4, which frees cpus:1 beyond its room. h, still the
// highest at 6/8, and l, at nothing, each wait for a task of cpus:1: l
// counts on h4's cpus:1 and nothing more is chosen.
func TestFairShareHighestRoleLeavesTheFreedToOthers(t *testing.T) {
	w := newWorld(t)
	w.framework("gfw", "g")
	w.framework("hfw", "h")
	w.framework("lfw", "l")
	w.agent("a1", "cpus:8")
	for i := 1; i <= 4; i++ {
		w.launch("hfw", fmt.Sprintf("h%d", i), "h", "a1", "cpus:2")
	}
	w.quota("g", "cpus:1", "")
	w.demand("gfw", "g", pend("cpus:1", 1))
	w.demand("hfw", "h", pend("cpus:1", 1))
	w.demand("lfw", "l", pend("cpus:1", 1))
	chosen, _ := w.reclaim(FairShare)
	require.Equal(t, []string{"hfw/h4@a1"}, victims(chosen))
	require.Equal(t, "g", chosen[0].ForRole)
}

// Fair share takes only from roles above the taker, not from one at its
// share, even where the move would leave the two equal: t and v are at
// 2/10 (cpus), h above them at 4/10. t waits for mem:1024, which only v's
// v2 frees on a1 (a2, with mem free, is no use to t): nothing is chosen.
func TestFairShareTakesNothingFromARoleAtItsShare(t *testing.T) {
	w := newWorld(t)
	w.framework("hfw", "h")
	w.framework("tfw", "t")
	w.framework("vfw", "v")
	w.agent("a1", "cpus:6;mem:1024")
	w.agent("a2", "cpus:4;mem:9216")
	w.unusable[[2]string{"tfw", "a2"}] = true
	w.launch("vfw", "v1", "v", "a1", "cpus:2")
	w.launch("vfw", "v2", "v", "a1", "mem:1024")
	w.launch("tfw", "t1", "t", "a1", "cpus:2")
	w.launch("hfw", "h1", "h", "a1", "cpus:2")
	w.launch("hfw", "h2", "h", "a2", "cpus:2")
	w.demand("tfw", "t", pend("mem:1024", 1))
	chosen, _ := w.reclaim(FairShare)
	require.Empty(t, chosen)
}
