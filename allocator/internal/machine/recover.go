package machine

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// Recover applies the event of Allocator.RecoverAllocated (allocatedFirst)
// and is how the other events give resources back; refuse, when not nil,
// is the refusal filter's duration.
func (m *Machine) Recover(fwID, agentID string, res resources.Resources, refuse *time.Duration, allocatedFirst bool) error {
	fw, ag, err := m.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	if res.IsEmpty() {
		return nil
	}
	// Nothing below keeps res or changes it in place: what the allocator
	// keeps of it are new values.
	if role, single := res.AllocationRole(); single && role == "" {
		return fmt.Errorf("%w: %s has no allocation role", cluster.ErrInvalidResources, res)
	} else if !single && slices.Contains(res.AllocationRoles(), "") {
		return fmt.Errorf("%w: %s has no allocation role", cluster.ErrInvalidResources, res)
	}
	if !ag.Offered.Get(fwID).Contains(res) && !ag.Allocated.Get(fwID).Contains(res) && !ag.OfferedOrUsed(fwID).Contains(res) {
		return fmt.Errorf("%w: framework %q, agent %q: %s", cluster.ErrNotHeld, fwID, agentID, res)
	}
	m.books.UntrackAllocation(fw, ag, res, allocatedFirst)
	if refuse != nil {
		m.dec.AddRefusal(fw, ag, res, *refuse, m.clock())
	}
	return nil
}
