package cluster

import "errors"

// The errors of the allocator's events, defined here so that the parts
// can return them; package allocator exports each under the same name
// and documents it.
var (
	ErrUnknownFramework   = errors.New("allocator: unknown framework")
	ErrDuplicateFramework = errors.New("allocator: framework already added")
	ErrUnknownAgent       = errors.New("allocator: unknown agent")
	ErrDuplicateAgent     = errors.New("allocator: agent already added")
	ErrInvalidID          = errors.New("allocator: invalid id")
	ErrInvalidRole        = errors.New("allocator: invalid role")
	ErrInvalidResources   = errors.New("allocator: invalid resources")
	ErrInvalidWeight      = errors.New("allocator: invalid weight")
	ErrInvalidQuota       = errors.New("allocator: invalid quota")
	// ErrNotHeld: resources recovered or operated on that the framework does
	// not hold on the agent.
	ErrNotHeld = errors.New("allocator: resources not held by framework on agent")
	// ErrNotAvailable: operator operations on resources that are not
	// unallocated on the agent.
	ErrNotAvailable = errors.New("allocator: resources not available on agent")
	// ErrRoleNotSubscribed: resources allocated to a role the framework is not
	// subscribed to.
	ErrRoleNotSubscribed = errors.New("allocator: framework not subscribed to role")
	// ErrOperation: an operation failed validation or could not be applied;
	// the wrapped error from package offer says which rule.
	ErrOperation = errors.New("allocator: operation rejected")
	// ErrInvalidStatus: an inverse-offer response without a status.
	ErrInvalidStatus = errors.New("allocator: invalid inverse offer status")
	// ErrUnknownTask: a task id the framework does not run: never launched
	// through Accept or UpdateAllocation, or already ended.
	ErrUnknownTask = errors.New("allocator: unknown task")
	// ErrDuplicateTask: a launch of a task id the framework already runs.
	ErrDuplicateTask = errors.New("allocator: task already running")
	// ErrInvalidHold: a hold of no resources, of shared volumes, or for a
	// duration that is not positive or passes MaxRefuse.
	ErrInvalidHold = errors.New("allocator: invalid hold")
	// ErrUnknownOffer: an offer id that is not outstanding.
	ErrUnknownOffer = errors.New("allocator: unknown offer")
	// ErrOverflow: an event that would take a sum the allocator keeps past
	// resources.MaxTotal (see the package doc).
	ErrOverflow = errors.New("allocator: amounts too large")
	// ErrInvalidOptions: options that cannot work (negative interval, a
	// minimum allocatable entry that is not quantities).
	ErrInvalidOptions = errors.New("allocator: invalid options")
	// ErrInvalidDemand: a statement of demand with a shape of no resources
	// (or of an amount that is not positive), a count below one or above
	// MaxPendingCount, or more than MaxPending shapes.
	ErrInvalidDemand = errors.New("allocator: invalid demand")
)

// MaxPending is the most shapes one statement of demand may hold, and
// MaxPendingCount the most tasks of one shape.
const (
	MaxPending      = 1024
	MaxPendingCount = 1<<31 - 1
)
