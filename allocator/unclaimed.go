package allocator

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
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

// checkReportedUse validates what an agent reports in use, per framework:
// for a known framework, resources allocated to roles it subscribes to; for
// one not added yet, resources with allocation roles they may be
// allocated to.
func (a *Allocator) checkReportedUse(agentID string, used map[string]resources.Resources) error {
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := a.frameworks.Lookup(fwID); ok {
			if err := checkUsed(used[fwID], fw.Info.Roles); err != nil {
				return fmt.Errorf("agent %q, framework %q: %w", agentID, fwID, err)
			}
			continue
		}
		if err := validID("framework", fwID); err != nil {
			return fmt.Errorf("agent %q: %w", agentID, err)
		}
		if err := checkUsed(used[fwID], used[fwID].AllocationRoles()); err != nil {
			return fmt.Errorf("agent %q, framework %q not added yet: %w", agentID, fwID, err)
		}
	}
	return nil
}

// unknownUse returns the part of used (checked) that belongs to frameworks
// not added yet, or nil.
func (a *Allocator) unknownUse(used map[string]resources.Resources) map[string]resources.Resources {
	var out map[string]resources.Resources
	for fwID, res := range used {
		if _, ok := a.frameworks.Lookup(fwID); ok || res.IsEmpty() {
			continue
		}
		if out == nil {
			out = map[string]resources.Resources{}
		}
		out[fwID] = out[fwID].Plus(res)
	}
	return out
}

// claims returns the agents where framework id, about to be added with
// roles, has usage to claim, after checking it: the usage's roles must be
// among the framework's, and what used says for such an agent, if
// anything, must be that usage.
func (a *Allocator) claims(id string, roles []string, used map[string]resources.Resources) (map[string]bool, error) {
	var out map[string]bool
	for _, ag := range a.agentList {
		agentID := ag.ID
		res, ok := ag.Unclaimed()[id]
		if !ok {
			continue
		}
		if err := checkUsed(res, roles); err != nil {
			return nil, fmt.Errorf("framework %q: agent %q reported it uses %s: %w", id, agentID, res, err)
		}
		if u, ok := used[agentID]; ok && !u.Equal(res) {
			return nil, fmt.Errorf("%w: framework %q on agent %q: used %s, the agent reported %s", ErrInvalidResources, id, agentID, u, res)
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[agentID] = true
	}
	return out, nil
}

// claim makes the usage the agents reported for fw (on the agents of
// claims) its allocation: what is available does not change.
func (a *Allocator) claim(fw *cluster.Framework, claims map[string]bool) {
	for _, agentID := range slices.Sorted(maps.Keys(claims)) {
		ag := a.agents.Get(agentID)
		res := ag.Unclaimed()[fw.ID]
		delete(ag.Unclaimed(), fw.ID)
		a.trackInUse(fw, ag, res)
	}
}
