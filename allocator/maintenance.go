package allocator

import (
	"github.com/allot-go/allot/offer"
)

// UpdateUnavailability replaces an agent's maintenance window (nil clears
// it), clears inverse-offer filters for the agent and triggers an allocation
// of the agent, which makes the inverse offers.
func (a *Allocator) UpdateUnavailability(agentID string, u *offer.Unavailability) error {
	return a.stepErr(Entry{Event: EventUpdateUnavailability, Agent: agentID, Unavailability: u})
}

// UpdateInverseOffer records a framework's answer to an inverse offer for an
// agent; with a filter, the framework gets no inverse offer for the agent for
// the filter's time.
func (a *Allocator) UpdateInverseOffer(agentID, fwID string, status InverseOfferStatus, filter *Filter) error {
	return a.stepErr(Entry{Event: EventUpdateInverseOffer, Agent: agentID, Framework: fwID, Status: status, Filter: filter})
}

// InverseOfferStatuses returns, per agent and framework, the last answer to
// an inverse offer.
func (a *Allocator) InverseOfferStatuses() map[string]map[string]InverseOfferStatus {
	a.ready()
	out := map[string]map[string]InverseOfferStatus{}
	for ag := range a.cs.Agents.All() {
		id := ag.ID
		for fwID, st := range ag.Inverse() {
			if st.Status == 0 {
				continue
			}
			if out[id] == nil {
				out[id] = map[string]InverseOfferStatus{}
			}
			out[id][fwID] = InverseOfferStatus(st.Status)
		}
	}
	return out
}
