package allocator

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// pausedWithAgents returns a paused allocator with n agents a0000...,
// cpus:4;mem:1024 each, and no framework.
func pausedWithAgents(t *testing.T, n int) *Allocator {
	t.Helper()
	a, err := New(Options{Seed: 1})
	require.NoError(t, err)
	a.Pause()
	total := resources.MustParse("cpus:4;mem:1024", "*")
	for i := range n {
		require.NoError(t, a.AddAgent(fmt.Sprintf("a%04d", i), AgentInfo{}, total, nil))
	}
	return a
}

// TestPendingGivesBackItsRoom: the agents added at start-up wait for the
// first run in a table that grows to hold them all; once the run has
// taken them, an agent waiting for the next run does not keep that room.
func TestPendingGivesBackItsRoom(t *testing.T) {
	a := pausedWithAgents(t, 5000)
	a.Resume()
	require.Equal(t, 5000, a.engine.Pending.Len())
	burst := a.engine.Pending.Size()
	a.Allocate()
	require.Equal(t, 0, a.engine.Pending.Len(), "the run left agents waiting")
	bigger := resources.MustParse("cpus:8;mem:1024", "*")
	require.NoError(t, a.UpdateAgent("a0001", AgentInfo{}, &bigger))
	require.Equal(t, []string{"a0001"}, a.engine.Pending.Keys())
	require.LessOrEqual(t, a.engine.Pending.Size(), 8, "the table kept the room of %d slots the burst made", burst)
	require.NoError(t, a.CheckInvariants())
}

// TestPendingNotListedWhileAllWait: while every agent waits for the next
// run (a framework was added), agents added or changed are not listed
// apart, a list made before is dropped, and the run still takes them all.
func TestPendingNotListedWhileAllWait(t *testing.T) {
	a := pausedWithAgents(t, 10)
	require.Equal(t, 10, a.engine.Pending.Len())
	require.NoError(t, a.AddFramework("f", FrameworkInfo{Roles: []string{"r"}}, nil, Active))
	require.Equal(t, 0, a.engine.Pending.Len(), "the list made before every agent waited")
	for i := 10; i < 20; i++ {
		require.NoError(t, a.AddAgent(fmt.Sprintf("a%04d", i), AgentInfo{}, resources.MustParse("cpus:4;mem:1024", "*"), nil))
	}
	require.Equal(t, 0, a.engine.Pending.Len())
	require.True(t, a.Pending())
	require.NoError(t, a.CheckInvariants())
	a.Resume()
	res := a.Allocate()
	require.Len(t, res.Offers, 20, "every agent offered")
	require.False(t, a.Pending())
}

// TestTablesFindWhatTheyHold: frameworks, agents and roles added, removed
// and added again under the same names are found by id and path, and the
// tables yield each once.
func TestTablesFindWhatTheyHold(t *testing.T) {
	a, err := New(Options{Seed: 1})
	require.NoError(t, err)
	total := resources.MustParse("cpus:4;mem:1024", "*")
	for round := range 3 {
		for i := range 300 {
			id := fmt.Sprintf("f%03d", i)
			require.NoError(t, a.AddFramework(id, FrameworkInfo{Roles: []string{fmt.Sprintf("team%d/r%03d", i%7, i)}}, nil, Active))
			require.NoError(t, a.AddAgent(fmt.Sprintf("a%03d", i), AgentInfo{}, total, nil))
		}
		for i := range 300 {
			require.NotNil(t, a.cs.Frameworks.Get(fmt.Sprintf("f%03d", i)), "round %d", round)
			require.NotNil(t, a.cs.Agents.Get(fmt.Sprintf("a%03d", i)), "round %d", round)
			require.NotNil(t, a.roles.Get(fmt.Sprintf("team%d/r%03d", i%7, i)), "round %d", round)
		}
		require.Len(t, a.cs.Frameworks.Keys(), 300)
		require.Len(t, a.roles.Nodes.Keys(), 307, "300 roles and their 7 parents")
		require.NoError(t, a.CheckInvariants())
		// Remove all but every tenth, leaving markers behind.
		for i := range 300 {
			if i%10 != 0 {
				require.NoError(t, a.RemoveFramework(fmt.Sprintf("f%03d", i)))
				require.NoError(t, a.RemoveAgent(fmt.Sprintf("a%03d", i)))
			}
		}
		require.Equal(t, 30, a.cs.Frameworks.Len())
		require.Equal(t, 30, a.cs.Agents.Len())
		require.Nil(t, a.cs.Frameworks.Get("f001"))
		require.Nil(t, a.roles.Get("team1/r001"), "a removed framework's role stayed")
		require.NotNil(t, a.roles.Get("team0/r000"))
		require.NoError(t, a.CheckInvariants())
		for i := range 300 {
			if i%10 == 0 {
				require.NoError(t, a.RemoveFramework(fmt.Sprintf("f%03d", i)))
				require.NoError(t, a.RemoveAgent(fmt.Sprintf("a%03d", i)))
			}
		}
		require.Zero(t, a.cs.Frameworks.Len())
		require.Zero(t, a.roles.Nodes.Len())
	}
}
