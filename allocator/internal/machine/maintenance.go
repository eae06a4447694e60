package machine

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/offer"
)

// UpdateUnavailability applies the event of Allocator.UpdateUnavailability.
func (m *Machine) UpdateUnavailability(agentID string, u *offer.Unavailability) error {
	ag, err := m.cs.Agent(agentID)
	if err != nil {
		return err
	}
	if u != nil {
		c := *u
		u = &c
	}
	ag.Info.Unavailability = u
	clear(ag.Inverse())
	for fw := range m.cs.Frameworks.All() {
		delete(fw.InverseFilters, agentID)
	}
	m.engine.WantsRun(ag)
	return nil
}

// UpdateInverseOffer applies the event of Allocator.UpdateInverseOffer.
func (m *Machine) UpdateInverseOffer(agentID, fwID string, status uint8, refuse *time.Duration) error {
	ag, err := m.cs.Agent(agentID)
	if err != nil {
		return err
	}
	fw, err := m.cs.Framework(fwID)
	if err != nil {
		return err
	}
	if status != cluster.InverseAccepted && status != cluster.InverseDeclined {
		return fmt.Errorf("%w: %d", cluster.ErrInvalidStatus, status)
	}
	st := ag.InverseState(fwID)
	st.Outstanding = false
	st.Status = status
	if refuse != nil {
		if d := m.dec.RefuseDuration(*refuse); d > 0 {
			if fw.InverseFilters == nil {
				fw.InverseFilters = map[string]refusals.InverseFilter{}
			}
			fw.InverseFilters[agentID] = refusals.InverseFilter{Expires: m.clock().Add(d), Batch: m.dec.Batches}
		}
	}
	return nil
}
