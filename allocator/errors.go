package allocator

import "github.com/allot-go/allot/allocator/internal/cluster"

// Errors returned by the allocator's events, wrapped with the offending id or
// value; test with errors.Is. An event that returns an error changes nothing.
var (
	ErrUnknownFramework   = cluster.ErrUnknownFramework
	ErrDuplicateFramework = cluster.ErrDuplicateFramework
	ErrUnknownAgent       = cluster.ErrUnknownAgent
	ErrDuplicateAgent     = cluster.ErrDuplicateAgent
	ErrInvalidID          = cluster.ErrInvalidID
	ErrInvalidRole        = cluster.ErrInvalidRole
	ErrInvalidResources   = cluster.ErrInvalidResources
	ErrInvalidWeight      = cluster.ErrInvalidWeight
	ErrInvalidQuota       = cluster.ErrInvalidQuota
	// ErrNotHeld: resources recovered or operated on that the framework does
	// not hold on the agent.
	ErrNotHeld = cluster.ErrNotHeld
	// ErrNotAvailable: operator operations on resources that are not
	// unallocated on the agent.
	ErrNotAvailable = cluster.ErrNotAvailable
	// ErrRoleNotSubscribed: resources allocated to a role the framework is not
	// subscribed to.
	ErrRoleNotSubscribed = cluster.ErrRoleNotSubscribed
	// ErrOperation: an operation failed validation or could not be applied;
	// the wrapped error from package offer says which rule.
	ErrOperation = cluster.ErrOperation
	// ErrInvalidStatus: an inverse-offer response without a status.
	ErrInvalidStatus = cluster.ErrInvalidStatus
	// ErrUnknownTask: a task id the framework does not run: never launched
	// through Accept or UpdateAllocation, or already ended.
	ErrUnknownTask = cluster.ErrUnknownTask
	// ErrDuplicateTask: a launch of a task id the framework already runs.
	ErrDuplicateTask = cluster.ErrDuplicateTask
	// ErrInvalidHold: a hold of no resources, of shared volumes, or for a
	// duration that is not positive or passes MaxRefuse.
	ErrInvalidHold = cluster.ErrInvalidHold
	// ErrUnknownOffer: an offer id that is not outstanding.
	ErrUnknownOffer = cluster.ErrUnknownOffer
	// ErrOverflow: an event that would take a sum the allocator keeps past
	// resources.MaxTotal (see the package doc).
	ErrOverflow = cluster.ErrOverflow
	// ErrInvalidOptions: options that cannot work (negative interval, a
	// minimum allocatable entry that is not quantities).
	ErrInvalidOptions = cluster.ErrInvalidOptions
)
