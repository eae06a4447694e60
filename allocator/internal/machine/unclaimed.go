package machine

import (
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
)

// Usage reported for frameworks not added yet.
//
// After a master fails over, agents often register again before their
// frameworks do, and report what those frameworks' tasks use. As in Mesos,
// that usage counts as in use on the agent at once: it is neither available
// nor offered, so the agent is not offered to anybody else (and no inverse
// offer goes to anybody for it). It counts in no sorter and no role's
// quota until the framework is added: AddFramework claims it, and from then
// on it is the framework's allocation like any other. RemoveAgent drops it
// with the agent.

// claim makes the usage the agents reported for fw (on the agents of
// claims) its allocation: what is available does not change.
func (m *Machine) claim(fw *cluster.Framework, claims map[string]bool) {
	for _, agentID := range slices.Sorted(maps.Keys(claims)) {
		ag := m.cs.Agents.Get(agentID)
		res := ag.Unclaimed()[fw.ID]
		delete(ag.Unclaimed(), fw.ID)
		m.books.TrackInUse(fw, ag, res)
	}
}
