package allocator

import (
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Outstanding offers.
//
// The allocator remembers, per agent, the offers it made that are still
// outstanding, so that a host can find what to rescind before an operator
// destroys a shared volume or unreserves resources (as Mesos's master
// rescinds the offers that hold them), and so that a snapshot holds them.
// The host gives offers back by their resources (Accept, RecoverResources),
// not by id: resources that leave a framework's offered holdings on an
// agent end the offer they equal, if one does; otherwise they are taken
// from the framework's newest offers there first, which end when emptied.

// Offers returns every outstanding offer: made, and not yet accepted,
// declined or rescinded in full (what is left of one given back in part).
// They are sorted by agent, then in the order they were made. Their
// resources are shared, frozen values: a change in place copies them.
func (a *Allocator) Offers() []offer.Offer {
	a.ready()
	var out []offer.Offer
	for _, ag := range a.cs.AgentList {
		for i := range ag.Outstanding {
			out = append(out, ag.OfferView(&ag.Outstanding[i]))
		}
	}
	return out
}

// OffersHolding returns the outstanding offers on the agent that hold any
// of res (allocation roles ignored), in the order they were made: what a
// host rescinds before an operator's DESTROY of a shared volume, or an
// UNRESERVE, of res.
func (a *Allocator) OffersHolding(agentID string, res resources.Resources) ([]offer.Offer, error) {
	a.ready()
	ag, err := a.cs.Agent(agentID)
	if err != nil {
		return nil, err
	}
	plain := res.Unallocate()
	var out []offer.Offer
	for i := range ag.Outstanding {
		o := &ag.Outstanding[i]
		held := o.Res.Unallocate()
		if !held.Minus(plain).Equal(held) {
			out = append(out, ag.OfferView(o))
		}
	}
	return out, nil
}

// RescindOffer takes back an outstanding offer, as Mesos's master rescinds
// one: its resources return to the agent's available pool with no filter,
// to be offered again at the next run. An id that is not outstanding is
// ErrUnknownOffer.
func (a *Allocator) RescindOffer(offerID string) error {
	return a.stepErr(Entry{Event: EventRescindOffer, Offer: offerID})
}
