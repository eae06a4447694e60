package machine

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// UpdateAllocation applies the event of Allocator.UpdateAllocation.
func (m *Machine) UpdateAllocation(fwID, agentID string, offered resources.Resources, ops []offer.Operation) error {
	_, err := m.ops.Update(fwID, agentID, offered, ops)
	return err
}

// Accept applies the event of Allocator.Accept.
func (m *Machine) Accept(fwID, agentID string, offered resources.Resources, ops []offer.Operation, refuse *time.Duration) error {
	accepted, err := m.ops.Update(fwID, agentID, offered, ops)
	if err != nil {
		return err
	}
	if accepted.Unused.IsEmpty() {
		return nil
	}
	return m.Recover(fwID, agentID, accepted.Unused, refuse, false)
}

// AcceptEach applies the event of Allocator.AcceptEach.
func (m *Machine) AcceptEach(fwID, agentID string, offered resources.Resources, ops []offer.Operation, refuse *time.Duration) ([]error, error) {
	if _, err := m.cs.Framework(fwID); err != nil {
		return nil, err
	}
	ag, err := m.cs.Agent(agentID)
	if err != nil {
		return nil, err
	}
	if err := m.ops.CheckOffered(fwID, ag, offered); err != nil {
		return nil, err
	}
	results := make([]error, len(ops))
	left := offered.Clone()
	for i, op := range ops {
		accepted, err := m.ops.Update(fwID, agentID, left, []offer.Operation{op})
		if err != nil {
			results[i] = err
			continue
		}
		left = accepted.Unused
	}
	if !left.IsEmpty() {
		if err := m.Recover(fwID, agentID, left, refuse, false); err != nil {
			// left is held: every step kept what it did not use offered.
			panic(fmt.Sprintf("allocator: AcceptEach: giving back the rest: %v", err))
		}
	}
	return results, nil
}
