package cluster

import (
	"slices"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// OutstandingOffer is an offer made and not yet accepted, declined or
// rescinded in full.
type OutstandingOffer struct {
	ID, Framework, Role string
	Res                 resources.Resources // tagged with role; frozen
}

// OffersTaken ends or shrinks the outstanding offers of fw on ag in role
// for resources (tagged with role) that left fw's offered holdings there.
// left, when not empty, is what the offer taken whole became and still
// holds (the rest of an offer some operations were applied to): the offer
// stays outstanding with it.
func (ag *Agent) OffersTaken(fwID, role string, taken, left resources.Resources) {
	for i := len(ag.Outstanding) - 1; i >= 0; i-- {
		o := &ag.Outstanding[i]
		if o.Framework == fwID && o.Role == role && (o.Res.Identical(taken) || o.Res.Equal(taken)) {
			if left.IsEmpty() {
				ag.Outstanding = slices.Delete(ag.Outstanding, i, i+1)
			} else {
				o.Res = left.Frozen()
			}
			return
		}
	}
	for i := len(ag.Outstanding) - 1; i >= 0 && !taken.IsEmpty(); i-- {
		o := &ag.Outstanding[i]
		if o.Framework != fwID || o.Role != role {
			continue
		}
		// What of the offer taken holds: o − (o − taken).
		part := o.Res.Minus(o.Res.Minus(taken))
		if part.IsEmpty() {
			continue
		}
		taken = taken.Minus(part)
		if rest := o.Res.Minus(part); rest.IsEmpty() {
			ag.Outstanding = slices.Delete(ag.Outstanding, i, i+1)
		} else {
			o.Res = rest.Frozen()
		}
	}
}

// DropOffers forgets every outstanding offer of fw on ag.
func (ag *Agent) DropOffers(fwID string) {
	ag.Outstanding = slices.DeleteFunc(ag.Outstanding, func(o OutstandingOffer) bool { return o.Framework == fwID })
}

func (ag *Agent) OfferView(o *OutstandingOffer) offer.Offer {
	return offer.Offer{ID: o.ID, FrameworkID: o.Framework, AgentID: ag.ID, Role: o.Role, Resources: o.Res}
}
