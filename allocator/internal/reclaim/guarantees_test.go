package reclaim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// A run makes room for at most MaxGroupsPerRole pending tasks of one
// role, whichever of its frameworks states them: web's nginx and nginx2,
// guaranteed cpus:70 between them, wait for 40 tasks of cpus:1 each on
// a1, full of 70 such tasks of batch.
func TestAtMostMaxGroupsPerRole(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.framework("nginx2", "web")
	w.agent("a1", "cpus:70")
	for i := 1; i <= 70; i++ {
		w.launch("spark", fmt.Sprintf("t%02d", i), "batch", "a1", "cpus:1")
	}
	w.quota("web", "cpus:70", "")
	w.demand("nginx", "web", pend("cpus:1", 40))
	w.demand("nginx2", "web", pend("cpus:1", 40))
	chosen, _ := w.reclaim(Guarantees)
	require.Len(t, chosen, MaxGroupsPerRole)
}

// A task that waits for victims chosen already counts against
// MaxGroupsPerRole as a room does: batch's b2 (cpus:64) frees room for 64
// of web's tasks of cpus:1, and no more is chosen in the run, however
// many web's nginx and nginx2 wait for.
func TestWaitingForVictimsCountsAgainstTheBound(t *testing.T) {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	w.framework("nginx2", "web")
	w.agent("a1", "cpus:128")
	w.launch("spark", "b1", "batch", "a1", "cpus:64")
	w.launch("spark", "b2", "batch", "a1", "cpus:64")
	w.quota("web", "cpus:128", "")
	w.demand("nginx", "web", pend("cpus:1", 100))
	w.demand("nginx2", "web", pend("cpus:1", 100))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/b2@a1"}, victims(chosen))
}

// No two groups stand for more pending tasks than a framework states,
// within a run too: team/x, guaranteed cpus:2, gets two rooms for xfw's
// three tasks; team, guaranteed cpus:6, makes room for the third only.
func TestNestedGuaranteeRoomsWithinTheStatement(t *testing.T) {
	w := fullCluster(t, 2)
	w.framework("xfw", "team/x")
	w.quota("team", "cpus:6", "")
	w.quota("team/x", "cpus:2", "")
	w.demand("xfw", "team/x", pend("cpus:1;mem:1024", 3))
	chosen, _ := w.reclaim(Guarantees)
	require.Len(t, chosen, 3)
	require.Equal(t, []string{"team/x", "team/x", "team"}, []string{chosen[0].ForRole, chosen[1].ForRole, chosen[2].ForRole})
}

// The first role in path order is made room for like any other: api,
// guaranteed cpus:1, takes batch's youngest.
func TestFirstRoleInPathOrder(t *testing.T) {
	w := fullCluster(t, 1)
	w.framework("gw", "api")
	w.quota("api", "cpus:1", "")
	w.demand("gw", "api", pend("cpus:1;mem:1024", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"spark/t04@a1"}, victims(chosen))
}

// An ancestor shared with the role a room is held in loses nothing to
// that room's victims, for the guarantees later victims are checked
// against: team, guaranteed cpus:3, runs team/old's o1 to o4 on a1.
// team/x (guaranteed cpus:1) takes o4: team is back at cpus:4 once x
// runs. api (guaranteed cpus:1) may then take o3: team keeps cpus:3.
func TestHeldInAncestorLosesNothingToLaterChecks(t *testing.T) {
	w := newWorld(t)
	w.framework("old", "team/old")
	w.framework("xfw", "team/x")
	w.framework("gw", "api")
	w.agent("a1", "cpus:4")
	for i := 1; i <= 4; i++ {
		w.launch("old", fmt.Sprintf("o%d", i), "team/old", "a1", "cpus:1")
	}
	w.quota("team", "cpus:3", "")
	w.quota("team/x", "cpus:1", "")
	w.quota("api", "cpus:1", "")
	w.demand("xfw", "team/x", pend("cpus:1", 1))
	w.demand("gw", "api", pend("cpus:1", 1))
	chosen, _ := w.reclaim(Guarantees)
	require.Equal(t, []string{"old/o4@a1", "old/o3@a1"}, victims(chosen))
	require.Equal(t, "team/x", chosen[0].ForRole)
	require.Equal(t, "api", chosen[1].ForRole)
}
