package machine

import (
	"fmt"

	"github.com/allot-go/allot/allocator/internal/cluster"
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

// RescindOffer applies the event of Allocator.RescindOffer.
func (m *Machine) RescindOffer(offerID string) error {
	for _, ag := range m.cs.AgentList {
		for i := range ag.Outstanding {
			if o := ag.Outstanding[i]; o.ID == offerID {
				return m.Recover(o.Framework, ag.ID, o.Res, nil, false)
			}
		}
	}
	return fmt.Errorf("%w: %q", cluster.ErrUnknownOffer, offerID)
}
