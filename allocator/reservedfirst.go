package allocator

import (
	"github.com/allot-go/allot/allocator/internal/operations"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// AcceptApplied is Accept that also returns the operations as applied:
// the same as ops, unless Options.ReservedFirst moved launches onto
// reservations, in which case the host launches these.
func (a *Allocator) AcceptApplied(fwID, agentID string, offered resources.Resources, ops []offer.Operation, filter *Filter) ([]offer.Operation, error) {
	a.ready()
	// The rewrite depends only on what is offered and on ops: work it out
	// for the caller, and let Accept (an event of the journal) apply it.
	applied := ops
	if role, ok := offered.AllocationRole(); ok && role != "" && a.opts.ReservedFirst {
		applied = operations.ReservedFirst(role, offered, ops)
	}
	if err := a.Accept(fwID, agentID, offered, ops, filter); err != nil {
		return nil, err
	}
	return applied, nil
}
