package allocator

import (
	"fmt"

	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/offer"
)

// UpdateUnavailability replaces an agent's maintenance window (nil clears
// it), clears inverse-offer filters for the agent and triggers an allocation
// of the agent, which makes the inverse offers.
func (a *Allocator) UpdateUnavailability(agentID string, u *offer.Unavailability) error {
	return a.stepErr(Entry{Event: EventUpdateUnavailability, Agent: agentID, Unavailability: u})
}

// updateUnavailability is UpdateUnavailability's handler (see events.go).
func (a *Allocator) updateUnavailability(agentID string, u *offer.Unavailability) error {
	ag, err := a.cs.Agent(agentID)
	if err != nil {
		return err
	}
	if u != nil {
		c := *u
		u = &c
	}
	ag.Info.Unavailability = u
	clear(ag.Inverse())
	for fw := range a.cs.Frameworks.All() {
		delete(fw.InverseFilters, agentID)
	}
	a.engine.WantsRun(ag)
	return nil
}

// UpdateInverseOffer records a framework's answer to an inverse offer for an
// agent; with a filter, the framework gets no inverse offer for the agent for
// the filter's time.
func (a *Allocator) UpdateInverseOffer(agentID, fwID string, status InverseOfferStatus, filter *Filter) error {
	return a.stepErr(Entry{Event: EventUpdateInverseOffer, Agent: agentID, Framework: fwID, Status: status, Filter: filter})
}

// updateInverseOffer is UpdateInverseOffer's handler (see events.go).
func (a *Allocator) updateInverseOffer(agentID, fwID string, status InverseOfferStatus, filter *Filter) error {
	ag, err := a.cs.Agent(agentID)
	if err != nil {
		return err
	}
	fw, err := a.cs.Framework(fwID)
	if err != nil {
		return err
	}
	if status != InverseAccepted && status != InverseDeclined {
		return fmt.Errorf("%w: %d", ErrInvalidStatus, status)
	}
	st := ag.InverseState(fwID)
	st.Outstanding = false
	st.Status = uint8(status)
	if filter != nil {
		if d := a.dec.RefuseDuration(filter.Refuse); d > 0 {
			if fw.InverseFilters == nil {
				fw.InverseFilters = map[string]refusals.InverseFilter{}
			}
			fw.InverseFilters[agentID] = refusals.InverseFilter{Expires: a.opts.Clock().Add(d), Batch: a.dec.Batches}
		}
	}
	return nil
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
