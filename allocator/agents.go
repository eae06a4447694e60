package allocator

import (
	"github.com/allot-go/allot/resources"
)

// AddAgent adds an agent with its total resources. used lists, per
// framework, what runs there already (tagged with allocation roles). What a
// framework not added yet uses counts as in use on the agent, not offered,
// until AddFramework claims it, as Mesos counts it. It
// triggers an allocation of this agent.
func (a *Allocator) AddAgent(id string, info AgentInfo, total resources.Resources, used map[string]resources.Resources) error {
	return a.stepErr(Entry{Event: EventAddAgent, Agent: id, AgentInfo: &info, Resources: total, Used: used})
}

// RemoveAgent drops an agent with everything offered, allocated, held and
// reported in use on it, and every filter that names it. The tasks of the
// ledger that ran there leave it (they were lost with the agent): EndTask
// of one of them is then ErrUnknownTask. No allocation is triggered.
func (a *Allocator) RemoveAgent(id string) error {
	return a.stepErr(Entry{Event: EventRemoveAgent, Agent: id})
}

// UpdateAgent replaces an agent's info and, when total is not nil, its total
// resources. Changed attributes clear every framework's filters for the
// agent. The total may drop below what is in use; the agent is then
// over-allocated and offers nothing until enough is recovered. Triggers an
// allocation of the agent when anything changed.
func (a *Allocator) UpdateAgent(id string, info AgentInfo, total *resources.Resources) error {
	return a.stepErr(Entry{Event: EventUpdateAgent, Agent: id, AgentInfo: &info, Total: total})
}

// AddResourceProvider grows an agent's total by a resource provider's
// resources and records what frameworks already use of them (frameworks
// not added yet as AddAgent does). No allocation.
func (a *Allocator) AddResourceProvider(agentID string, total resources.Resources, used map[string]resources.Resources) error {
	return a.stepErr(Entry{Event: EventAddResourceProvider, Agent: agentID, Resources: total, Used: used})
}

// ActivateAgent makes an agent's resources offerable again. No allocation.
func (a *Allocator) ActivateAgent(id string) error {
	return a.stepErr(Entry{Event: EventActivateAgent, Agent: id})
}

// DeactivateAgent keeps an agent's resources from being offered; nothing is
// recovered. No allocation.
func (a *Allocator) DeactivateAgent(id string) error {
	return a.stepErr(Entry{Event: EventDeactivateAgent, Agent: id})
}

// UpdateWhitelist restricts offers to agents whose hostnames are listed; nil
// lifts the restriction, an empty list stops all offers. No allocation.
func (a *Allocator) UpdateWhitelist(hostnames []string) {
	_ = a.stepErr(Entry{Event: EventUpdateWhitelist, Hostnames: hostnames})
}
