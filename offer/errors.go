package offer

import (
	"errors"
	"fmt"
	"strings"
)

// Errors returned by Conversions, Apply, ApplyAll and Validate, one per rule.
// Each is wrapped with the offending resource or value and checked with
// errors.Is. The comment of each names the Mesos message it corresponds to
// (src/master/validation.cpp and src/common/resources.cpp).
var (
	// ErrUnsupported: a nil operation, an operation this package does not
	// know, a LAUNCH on the operator path, or growing or shrinking a volume
	// of a resource provider. Mesos: "Growing a volume from a resource
	// provider is not supported", and unsupported operation types.
	ErrUnsupported = errors.New("offer: unsupported operation")
	// ErrEmpty: an operation without resources (no tasks, no volumes, no
	// resources to reserve or unreserve). Mesos: "Resource cannot be empty".
	ErrEmpty = errors.New("offer: operation has no resources")
	// ErrInvalidResources: a resource that is invalid on its own: see
	// resources.Resource.Validate, plus the checks Mesos adds when an
	// operation names it (non-integer gpus, empty disk metadata, a persistent
	// volume without a volume). Mesos: "Invalid resources: ...", "The 'gpus'
	// resource must be an unsigned integer", "DiskInfo is set but empty",
	// "Expecting 'volume' to be set for persistent volume".
	ErrInvalidResources = errors.New("offer: invalid resources")
	// ErrInvalidTask: a task of a LAUNCH without an id, or with the id of
	// another task of the same operation. Mesos: "Task has an invalid
	// TaskID", "Task ID is duplicated".
	ErrInvalidTask = errors.New("offer: invalid task")
	// ErrMultipleProviders: the resources of one operation come from more
	// than one resource provider. Mesos: "The resources have multiple
	// resource providers", "Some resources have a resource provider and some
	// do not".
	ErrMultipleProviders = errors.New("offer: resources of more than one resource provider")

	// ErrNotDynamicallyReserved: RESERVE or UNRESERVE of a resource whose
	// current reservation is not dynamic: unreserved resources, and static
	// reservations, which are never unreserved. A RESERVE with a source that
	// would drop a static reservation is refused the same way. Mesos:
	// "Resource ... is not dynamically reserved".
	ErrNotDynamicallyReserved = errors.New("offer: resource is not dynamically reserved")
	// ErrReserveVolume: RESERVE of a persistent volume, or from one. A volume
	// keeps the reservation it was created on until it is destroyed. Mesos
	// reports "is not dynamically reserved" for static reservations and lets
	// a volume's reservation be refined; this package refuses it.
	ErrReserveVolume = errors.New("offer: persistent volumes cannot be reserved")
	// ErrVolumeHeld: UNRESERVE of a persistent volume. Mesos: "A dynamically
	// reserved persistent volume ... cannot be unreserved directly. Please
	// destroy the persistent volume first then unreserve the resource".
	ErrVolumeHeld = errors.New("offer: a persistent volume holds the reservation; destroy the volume first")
	// ErrDynamicFromRevocable: a dynamic reservation of revocable resources.
	// Mesos: "Dynamically reserved resource ... cannot be created from
	// revocable resources".
	ErrDynamicFromRevocable = errors.New("offer: dynamic reservations cannot be made from revocable resources")
	// ErrMixedReservations: a RESERVE with a source whose resources, or
	// whose target resources, do not all carry one identical reservation
	// stack. Mesos: "Mixed reservations are not supported".
	ErrMixedReservations = errors.New("offer: mixed reservations are not supported")
	// ErrSourceMismatch: a RESERVE whose source and target differ once their
	// reservations are removed. Mesos: "Source and target resources should
	// refer to identical resource quantities".
	ErrSourceMismatch = errors.New("offer: source and target are not the same resources")
	// ErrRefinementNotStrict: a reservation refined to a role that is not a
	// strict sub-role of the role it refines, or a RESERVE with a source
	// that moves resources to a role outside the source's role. Mesos:
	// "Invalid resources: ... is not a refinement of ..." (Resources::validate)
	// for stacks; Mesos lets a source move a reservation to any role.
	ErrRefinementNotStrict = errors.New("offer: reservation is not refined to a strict sub-role")
	// ErrRefinementCapability: a refined reservation (a stack of more than
	// one reservation) on an agent, or by a framework, without
	// RESERVATION_REFINEMENT. Mesos: "Resource ... with reservation
	// refinement cannot be reserved on an agent without
	// RESERVATION_REFINEMENT capability".
	ErrRefinementCapability = errors.New("offer: reservation refinement needs the RESERVATION_REFINEMENT capability")
	// ErrHierarchicalRoleCapability: a reservation for a role with '/' on an
	// agent without HIERARCHICAL_ROLE. Mesos: "Resource ... with reservation
	// for hierarchical role ... cannot be reserved on an agent without
	// HIERARCHICAL_ROLE capability".
	ErrHierarchicalRoleCapability = errors.New("offer: hierarchical roles need the agent's HIERARCHICAL_ROLE capability")

	// ErrNoPrincipal: a principal is known but a reservation (or a volume's
	// persistence) in the request has none. Mesos: "A reserve operation was
	// attempted by principal '...', but there is a reserved resource in the
	// request with no principal set", and "... a volume in the operation
	// with no principal set in 'disk.persistence'".
	ErrNoPrincipal = errors.New("offer: no principal set")
	// ErrPrincipalMismatch: the principal of a reservation (or of a volume's
	// persistence) is not the known principal. Mesos: "A reserve operation
	// was attempted by authenticated principal '...', which does not match a
	// reserved resource in the request with principal '...'".
	ErrPrincipalMismatch = errors.New("offer: principal does not match")
	// ErrNotAllocated: a framework operation on resources without an
	// allocation role. Mesos: "A reserve operation was attempted on
	// unallocated resource ..., but frameworks can only perform reservations
	// on allocated resources", "The resources are not allocated to a role".
	ErrNotAllocated = errors.New("offer: frameworks can only operate on allocated resources")
	// ErrAllocationRoleMismatch: a framework RESERVE for a role other than
	// the allocation role. Mesos: "A reserve operation was attempted for a
	// resource with role '...', but the resource was allocated to role '...'".
	ErrAllocationRoleMismatch = errors.New("offer: reservation role is not the allocation role")
	// ErrRoleNotSubscribed: a framework operation on resources allocated (or
	// reserved) to a role the framework is not subscribed to. Mesos: "... but
	// the framework only has roles ...", "... but the framework can only
	// reserve resources with roles ...".
	ErrRoleNotSubscribed = errors.New("offer: role is not one of the framework's roles")
	// ErrMultipleAllocationRoles: one framework operation on resources
	// allocated to several roles. Mesos: "The resources have multiple
	// allocation roles ... but only one allocation role is allowed".
	ErrMultipleAllocationRoles = errors.New("offer: resources of more than one allocation role")
	// ErrAllocated: an operator operation on allocated resources; operators
	// act on unallocated resources only. Mesos: "A reserve operation was
	// attempted with an allocated resource, but the operator API only allows
	// reservations to be made to unallocated resources".
	ErrAllocated = errors.New("offer: operators can only operate on unallocated resources")

	// ErrNotPersistentVolume: a volume of CREATE, DESTROY, GROW_VOLUME or
	// SHRINK_VOLUME that is not a persistent volume. Mesos: "Resource ...
	// does not have DiskInfo", "'persistence' is not set in DiskInfo".
	ErrNotPersistentVolume = errors.New("offer: not a persistent volume")
	// ErrReadOnlyVolume: a persistent volume with mode RO. Mesos: "Read-only
	// persistent volume not supported".
	ErrReadOnlyVolume = errors.New("offer: read-only persistent volume not supported")
	// ErrVolumeFromUnreserved: a persistent volume on unreserved disk.
	// Mesos: "Persistent volumes cannot be created from unreserved
	// resources".
	ErrVolumeFromUnreserved = errors.New("offer: persistent volumes cannot be created from unreserved resources")
	// ErrVolumeFromRevocable: a persistent volume on revocable disk. Mesos:
	// "Persistent volumes cannot be created from revocable resources".
	ErrVolumeFromRevocable = errors.New("offer: persistent volumes cannot be created from revocable resources")
	// ErrPersistenceIDNotUnique: a persistence id used twice for one role on
	// one agent. Mesos: "Persistence ID '...' is not unique".
	ErrPersistenceIDNotUnique = errors.New("offer: persistence id is not unique")
	// ErrSharedCapability: a framework without SHARED_RESOURCES creating or
	// using a shared volume. Mesos: "Create volume operation for '...' has
	// been attempted by framework '...' with no SHARED_RESOURCES capability".
	ErrSharedCapability = errors.New("offer: shared volumes need the SHARED_RESOURCES capability")
	// ErrVolumeNotFound: DESTROY of a volume the agent has not checkpointed.
	// Mesos: "Persistent volumes not found".
	ErrVolumeNotFound = errors.New("offer: persistent volume not found")
	// ErrVolumeInUse: DESTROY of a volume used by a task or executor. Mesos:
	// "Persistent volumes in use".
	ErrVolumeInUse = errors.New("offer: persistent volume in use")
	// ErrSharedCopiesRemain: DESTROY of a shared volume while other copies
	// of it remain in the resources. Mesos (conversion post-validation):
	// "Persistent volume ... cannot be removed due to additional shared
	// copies".
	ErrSharedCopiesRemain = errors.New("offer: other copies of the shared volume remain")

	// ErrGrowShared: GROW_VOLUME of a shared volume. Mesos: "Growing a shared
	// persistent volume is not supported".
	ErrGrowShared = errors.New("offer: growing a shared persistent volume is not supported")
	// ErrGrowAmount: GROW_VOLUME with an empty addition. Mesos: "The size of
	// 'GrowVolume.addition' field must be greater than zero".
	ErrGrowAmount = errors.New("offer: the addition must be greater than zero")
	// ErrIncompatibleAddition: GROW_VOLUME whose addition is not the same
	// disk as the volume (other reservation, source, provider, allocation, or
	// more than one resource). Mesos: "Incompatible resources in the
	// 'GrowVolume.volume' and 'GrowVolume.addition' fields".
	ErrIncompatibleAddition = errors.New("offer: addition is not compatible with the volume")
	// ErrShrinkShared: SHRINK_VOLUME of a shared volume. Mesos: "Shrinking a
	// shared persistent volume is not supported".
	ErrShrinkShared = errors.New("offer: shrinking a shared persistent volume is not supported")
	// ErrShrinkMount: SHRINK_VOLUME of a volume on a MOUNT (or other
	// indivisible) disk. Mesos: "Shrinking a volume on a MOUNT disk is not
	// supported".
	ErrShrinkMount = errors.New("offer: shrinking a volume on a MOUNT disk is not supported")
	// ErrShrinkAmount: SHRINK_VOLUME by zero, or by the whole size or more.
	// Mesos: "Value of 'ShrinkVolume.subtract' must be greater than zero",
	// "... must be smaller than the size of 'ShrinkVolume.volume'".
	ErrShrinkAmount = errors.New("offer: subtract must be greater than zero and smaller than the volume")
	// ErrResizeCapability: GROW_VOLUME or SHRINK_VOLUME on an agent without
	// RESIZE_VOLUME. Mesos: "Volume ... cannot be grown on an agent without
	// RESIZE_VOLUME capability".
	ErrResizeCapability = errors.New("offer: resizing volumes needs the agent's RESIZE_VOLUME capability")

	// ErrDoesNotContain: the resources an operation consumes are not among
	// the offered resources still unused by earlier operations of the same
	// call. Mesos: "... does not contain ...".
	ErrDoesNotContain = errors.New("offer: operation does not apply to the offered resources")
	// ErrConservation: an operation would change the amount of a resource
	// kind. Conversions only move resources between reservations and
	// volumes; this error means a broken internal invariant, reported
	// rather than applied. Mesos CHECK-fails in Resources::apply.
	ErrConservation = errors.New("offer: operation would change the amount of a resource")
)

// OpError is the error of Apply and ApplyAll: the operation at Index (of kind
// Kind) failed with Err, and nothing was applied. Err wraps one of the
// package's sentinel errors, and so does the OpError (errors.Is looks
// through it).
type OpError struct {
	Index int
	Kind  Kind
	Err   error
}

// Error prints "offer: operation 2 (RESERVE): <why>".
func (e *OpError) Error() string {
	why := "failed"
	if e.Err != nil {
		why = strings.TrimPrefix(e.Err.Error(), "offer: ")
	}
	return fmt.Sprintf("offer: operation %d (%s): %s", e.Index, e.Kind, why)
}

// Unwrap returns Err.
func (e *OpError) Unwrap() error { return e.Err }
