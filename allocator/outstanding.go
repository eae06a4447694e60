package allocator

import (
	"fmt"
	"slices"

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

// outstandingOffer is an offer made and not yet accepted, declined or
// rescinded in full.
type outstandingOffer struct {
	id, framework, role string
	res                 resources.Resources // tagged with role; frozen
}

// offersTaken ends or shrinks the outstanding offers of fw on ag in role
// for resources (tagged with role) that left fw's offered holdings there.
// left, when not empty, is what the offer taken whole became and still
// holds (the rest of an offer some operations were applied to): the offer
// stays outstanding with it.
func (ag *agent) offersTaken(fwID, role string, taken, left resources.Resources) {
	for i := len(ag.outstanding) - 1; i >= 0; i-- {
		o := &ag.outstanding[i]
		if o.framework == fwID && o.role == role && (o.res.Identical(taken) || o.res.Equal(taken)) {
			if left.IsEmpty() {
				ag.outstanding = slices.Delete(ag.outstanding, i, i+1)
			} else {
				o.res = left.Frozen()
			}
			return
		}
	}
	for i := len(ag.outstanding) - 1; i >= 0 && !taken.IsEmpty(); i-- {
		o := &ag.outstanding[i]
		if o.framework != fwID || o.role != role {
			continue
		}
		// What of the offer taken holds: o − (o − taken).
		part := o.res.Minus(o.res.Minus(taken))
		if part.IsEmpty() {
			continue
		}
		taken = taken.Minus(part)
		if rest := o.res.Minus(part); rest.IsEmpty() {
			ag.outstanding = slices.Delete(ag.outstanding, i, i+1)
		} else {
			o.res = rest.Frozen()
		}
	}
}

// dropOffers forgets every outstanding offer of fw on ag.
func (ag *agent) dropOffers(fwID string) {
	ag.outstanding = slices.DeleteFunc(ag.outstanding, func(o outstandingOffer) bool { return o.framework == fwID })
}

func (ag *agent) offerView(o *outstandingOffer) offer.Offer {
	return offer.Offer{ID: o.id, FrameworkID: o.framework, AgentID: ag.id, Role: o.role, Resources: o.res}
}

// Offers returns every outstanding offer: made, and not yet accepted,
// declined or rescinded in full (what is left of one given back in part).
// They are sorted by agent, then in the order they were made. Their
// resources are shared, frozen values: a change in place copies them.
func (a *Allocator) Offers() []offer.Offer {
	a.ready()
	var out []offer.Offer
	for _, ag := range a.agentList {
		for i := range ag.outstanding {
			out = append(out, ag.offerView(&ag.outstanding[i]))
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
	ag, err := a.agent(agentID)
	if err != nil {
		return nil, err
	}
	plain := res.Unallocate()
	var out []offer.Offer
	for i := range ag.outstanding {
		o := &ag.outstanding[i]
		held := o.res.Unallocate()
		if !held.Minus(plain).Equal(held) {
			out = append(out, ag.offerView(o))
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

// rescindOffer is RescindOffer's handler (see events.go).
func (a *Allocator) rescindOffer(offerID string) error {
	for _, ag := range a.agentList {
		for i := range ag.outstanding {
			if o := ag.outstanding[i]; o.id == offerID {
				return a.recover(o.framework, ag.id, o.res, nil, false)
			}
		}
	}
	return fmt.Errorf("%w: %q", ErrUnknownOffer, offerID)
}
