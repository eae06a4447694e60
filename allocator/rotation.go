package allocator

import (
	"github.com/allot-go/allot/resources"
)

// The rotation after declines is kept by package declines (its doc says
// how it works); the decline that starts it and the record Explain
// keeps of it are here.

// decline is RecoverResources's handler: the resources come back, as
// recover gives them, and the framework joins the agent's round.
func (a *Allocator) decline(fwID, agentID string, res resources.Resources, filter *Filter) error {
	fw, ag, err := a.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	a.dec.Declining = true
	err = a.recover(fwID, agentID, res, filter, false)
	a.dec.Declining = false
	if err != nil || res.IsEmpty() {
		return err
	}
	a.dec.NoteDecline(fw, ag)
	return nil
}
