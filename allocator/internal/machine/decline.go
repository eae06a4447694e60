package machine

import (
	"time"

	"github.com/allot-go/allot/resources"
)

// Decline applies the event of Allocator.RecoverResources: the resources
// come back, as Recover gives them, and the framework joins the agent's
// round of declines (package declines keeps the rotation).
func (m *Machine) Decline(fwID, agentID string, res resources.Resources, refuse *time.Duration) error {
	fw, ag, err := m.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	m.dec.Declining = true
	err = m.Recover(fwID, agentID, res, refuse, false)
	m.dec.Declining = false
	if err != nil || res.IsEmpty() {
		return err
	}
	m.dec.NoteDecline(fw, ag)
	return nil
}
