package machine

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/resources"
)

// RecoverHeld applies the event of Allocator.RecoverHeld.
func (m *Machine) RecoverHeld(fwID, agentID string, res resources.Resources, d time.Duration) error {
	fw, ag, err := m.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	if err := CheckHold(res, d); err != nil {
		return err
	}
	if !ag.Allocated.Get(fwID).Contains(res) {
		return fmt.Errorf("%w: framework %q does not use %s on agent %q", cluster.ErrNotHeld, fwID, res, agentID)
	}
	m.holdFor(fw, ag, res, d)
	return nil
}

// PreemptTask applies the event of Allocator.PreemptTask.
func (m *Machine) PreemptTask(fwID, taskID string, d time.Duration) error {
	fw, t, err := m.cs.Task(fwID, taskID)
	if err != nil {
		return err
	}
	held := t.Owns.NonShared()
	if err := CheckHold(held, d); err != nil {
		return err
	}
	ag := m.cs.Agents.Get(t.Agent)
	if !ag.Allocated.Get(fwID).Contains(held) {
		return fmt.Errorf("%w: framework %q, task %q on agent %q: %s (given back already?)", cluster.ErrNotHeld, fwID, taskID, t.Agent, held)
	}
	if shared := t.Owns.Shared(); !shared.IsEmpty() {
		// The task's shared volumes go as EndTask lets them go; its other
		// resources are held. EndTask refuses before it changes anything,
		// and then the task owns what it owned.
		owns := t.Owns
		t.Owns = shared
		if err := m.EndTask(fwID, taskID); err != nil {
			t.Owns = owns
			return err
		}
	} else {
		m.tasks.Forget(fw, t)
	}
	m.holdFor(fw, ag, held, d)
	return nil
}

// CheckHold checks what RecoverHeld and PreemptTask would hold, res for d
// (and what a snapshot says is held).
func CheckHold(res resources.Resources, d time.Duration) error {
	if d <= 0 || d > declines.MaxRefuse {
		return fmt.Errorf("%w: hold of %s, want a positive duration of at most %s", cluster.ErrInvalidHold, d, declines.MaxRefuse)
	}
	if res.IsEmpty() {
		return fmt.Errorf("%w: nothing to hold", cluster.ErrInvalidHold)
	}
	if res.HasShared() {
		return fmt.Errorf("%w: shared volumes stay available and cannot be held: %s", cluster.ErrInvalidHold, res.Shared())
	}
	if role, single := res.AllocationRole(); (single && role == "") || (!single && slices.Contains(res.AllocationRoles(), "")) {
		return fmt.Errorf("%w: %s has no allocation role", cluster.ErrInvalidResources, res)
	}
	return nil
}

// holdFor moves res (checked) from what fw uses on ag to a hold for it.
// Nothing else changes: held resources count as they did in use.
func (m *Machine) holdFor(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, d time.Duration) {
	ag.Allocated.Set(fw.ID, ag.Allocated.Get(fw.ID).Minus(res))
	ag.More().Holds.Add(fw.ID, res.Clone(), m.clock().Add(d))
	m.engine.WantsRun(ag)
}
