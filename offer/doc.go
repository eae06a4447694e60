// Package offer models what the allocator hands out and what frameworks
// (and operators) do with it: offers and inverse offers, the operations
// that launch tasks, reserve and unreserve resources and manage persistent
// volumes, the validation of those operations with Apache Mesos's rules,
// and their application to offered resources.
//
// An Offer is a set of resources of one agent, allocated to one role of
// one framework; its ID comes from IDs, a counter the host owns, never from
// a clock or a random source. An InverseOffer asks a framework to give an
// agent back before a maintenance window.
//
// An Operation is one of:
//
//   - Launch: tasks with their resources, and their executor's. It converts
//     nothing; it uses resources.
//   - Reserve: dynamically reserve resources for a role, or refine an
//     existing reservation for a sub-role. Each resource carries the stack it
//     will have; the new reservation is the last entry.
//   - Unreserve: remove the last reservation of each resource, which goes
//     back to the role it refined, or to the unreserved pool.
//   - Create: make persistent volumes from reserved disk.
//   - Destroy: turn persistent volumes back into reserved disk.
//   - GrowVolume, ShrinkVolume: resize a persistent volume, taking disk of
//     the same reservation or giving it back.
//
// Conversions turns an operation into consumed and converted resources;
// Apply and ApplyAll apply operations to offered resources in order, all or
// nothing; Validate checks an operation against the rules that need to know
// who sends it and what the agent holds; Pick chooses the resources of a
// task, reservations first.
//
// # Usage
//
// A framework receives an Offer. It picks the resources of its tasks, adds
// the reservations and volumes it wants, validates every operation with what
// the host knows about the framework and the agent, and accepts:
//
//	ctx := offer.Context{
//		Principal:             "ops",
//		Roles:                 []string{"db"},
//		FrameworkCapabilities: offer.SharedResources,
//		AgentCapabilities:     agentCaps,
//		Checkpointed:          agentCheckpointed, // reservations and volumes, unallocated
//		InUse:                 volumesInUse,
//	}
//	ops := []offer.Operation{
//		offer.Reserve{Resources: reserved},
//		offer.Create{Volumes: volumes},
//		launch, // from offer.PickLaunch(o.Resources, o.Role, needs...)
//	}
//	for _, op := range ops {
//		if err := offer.Validate(op, ctx); err != nil {
//			return err // errors.Is(err, offer.ErrPrincipalMismatch), ...
//		}
//	}
//	accepted, err := offer.ApplyAll(o.Resources, ops...)
//	// accepted.Resources: the offer after the conversions;
//	// accepted.Launched:  what the tasks use;
//	// accepted.Unused:    what goes back to the agent's pool.
//
// The resources of a framework's operations carry the offer's role as their
// allocation role (resources.Resources.Allocate), as offered resources do.
//
// An operator reserves, unreserves and manages volumes on unallocated
// resources, as Mesos's /reserve, /unreserve, /create-volumes and
// /destroy-volumes endpoints do: set Context.Operator, and apply the
// operations to the agent's unallocated resources.
//
// Errors wrap one sentinel per rule, so callers test them with errors.Is;
// each sentinel's comment names the Mesos message it stands for. Apply and
// ApplyAll return an *OpError that says which operation failed (its index and
// kind) and wraps the rule it broke:
//
//	offer: operation 2 (UNRESERVE): resource is not dynamically reserved: cpus(ops):2
//
// Invalid input never panics, in any function of the package; a nil
// operation, or a nil pointer to one, is ErrUnsupported.
//
// # Conversions
//
// Every operation but Launch is a list of conversions, each replacing its
// Consumed resources by its Converted ones:
//
//	RESERVE        Source (or Resources with the last reservation popped) -> Resources
//	UNRESERVE      each resource -> the resource with the last reservation popped
//	CREATE         each volume's disk -> the volume
//	DESTROY        each volume -> its disk
//	GROW_VOLUME    volume + addition -> the larger volume
//	SHRINK_VOLUME  volume -> the smaller volume + the freed disk
//
// A volume's disk is the volume without persistence, volume (container path
// and mode) and sharing; a disk source (MOUNT, PATH, ...) is kept. A
// conversion applies when the consumed resources are among those still
// unused (ErrDoesNotContain otherwise): reserving more than offered,
// unreserving a reservation the offer does not hold (another role's, or one
// with other labels or another principal), making a volume larger than the
// reserved disk or of only part of a MOUNT disk all fail this way. No conversion makes or destroys resources,
// and Apply checks that after every operation (ErrConservation).
//
// # Validation rules
//
// Rules that need no Context are checked by Conversions, and so by Apply and
// ApplyAll, and first of all by Validate:
//
//   - every resource valid (resources.Resource.Validate), gpus whole, no
//     empty disk metadata, one resource provider per operation but LAUNCH
//     (ErrInvalidResources, ErrMultipleProviders; a task may use a
//     provider's resources with the agent's, as in Mesos); no empty operation
//     (ErrEmpty); tasks with distinct, non-empty ids (ErrInvalidTask);
//   - refined reservations only for strict sub-roles (ErrRefinementNotStrict);
//   - dynamic reservations only: static reservations are never unreserved,
//     and a reservation to make is dynamic (ErrNotDynamicallyReserved); never
//     of revocable resources (ErrDynamicFromRevocable); persistent volumes
//     are neither reserved (ErrReserveVolume) nor unreserved: destroy the
//     volume first (ErrVolumeHeld);
//   - a RESERVE with a source: one reservation stack on each side
//     (ErrMixedReservations), the same resources once reservations are
//     removed (ErrSourceMismatch), the target's role the source's or one of
//     its sub-roles (ErrRefinementNotStrict), and a static reservation kept
//     (ErrNotDynamicallyReserved);
//   - volumes only from reserved, non-revocable disk (ErrVolumeFromUnreserved,
//     ErrVolumeFromRevocable), with persistence and a container path
//     (ErrNotPersistentVolume), read-write (ErrReadOnlyVolume), each
//     persistence id once per role in a request (ErrPersistenceIDNotUnique);
//   - GROW_VOLUME: a positive addition (ErrGrowAmount), not from a resource
//     provider (ErrUnsupported), not shared (ErrGrowShared), and an addition
//     that is the same disk as the volume (ErrIncompatibleAddition);
//   - SHRINK_VOLUME: 0 < subtract < size (ErrShrinkAmount), not from a
//     resource provider, not on a MOUNT disk (ErrShrinkMount), not shared
//     (ErrShrinkShared).
//
// Validate then checks the rules that need a Context:
//
//   - agent capabilities: HIERARCHICAL_ROLE for reservations for roles with
//     '/' (ErrHierarchicalRoleCapability), RESERVATION_REFINEMENT for refined
//     reservations (ErrRefinementCapability), RESIZE_VOLUME to grow or shrink
//     (ErrResizeCapability);
//   - framework capabilities: RESERVATION_REFINEMENT to refine or use
//     refined reservations (ErrRefinementCapability), SHARED_RESOURCES to
//     create or use shared volumes (ErrSharedCapability);
//   - principals, when one is known: the new reservation of a RESERVE, and
//     the persistence of a CREATE, name it (ErrNoPrincipal,
//     ErrPrincipalMismatch); UNRESERVE and DESTROY compare no principals;
//   - the framework path: resources allocated (ErrNotAllocated) to a single
//     role (ErrMultipleAllocationRoles) that is one of the framework's roles
//     (ErrRoleNotSubscribed); a RESERVE for that very role
//     (ErrAllocationRoleMismatch);
//   - the operator path: unallocated resources only (ErrAllocated), no
//     launches (ErrUnsupported); roles and framework capabilities are not
//     checked;
//   - CREATE: persistence ids unique per role among the agent's
//     checkpointed resources (ErrPersistenceIDNotUnique);
//   - DESTROY: the volume checkpointed (ErrVolumeNotFound) and not in use by
//     a task or executor (ErrVolumeInUse).
//
// Apply and ApplyAll also refuse a volume whose persistence id its role
// already uses among the offered resources (ErrPersistenceIDNotUnique), and
// the destruction of a shared volume of which other copies remain
// (ErrSharedCopiesRemain).
//
// # Picking resources for tasks
//
// A framework that launches on unreserved resources while its own
// reservation sits idle fragments the agent and wastes the reservation. Pick
// returns resources for a need in this order: those reserved for the role
// itself, then those reserved for its ancestors, nearest first, then
// unreserved ones, and revocable ones after all of these; within a tier, in
// the order of the offer. It picks scalars only, never persistent volumes or
// shared resources (a task names those explicitly), takes MOUNT and BLOCK
// disks whole or not at all, and never takes reservations of other roles,
// sub-roles included. PickTask and PickLaunch build tasks with it.
//
// # JSON
//
// OperationJSON is an operation as JSON, as the allocator's journal writes
// it: OperationToJSON writes one, OperationJSON.Operation reads it back.
//
// # Implementation notes
//
// The package is a set of functions over values: it keeps no state, reads no
// clock and draws no random number, and the same input gives the same
// output. Its functions are safe for concurrent use as long as their
// arguments are not changed meanwhile.
//
// Apply and ApplyAll clone the offered resources once per call and change the
// copy in place; the argument is never modified, and on error it is returned
// as it was. Launch operations are tracked in Launched: a later LAUNCH, and
// any later conversion, applies only to what earlier launches left. A shared
// volume may be used by any number of tasks; it counts once in Launched and
// stays in Resources.
//
// Conservation is checked on every resource name, not only the well-known
// ones: scalar amounts are summed (a shared volume counts once, whatever its
// copies), ranges and sets are united. An operation that would change an
// amount is refused with ErrConservation; no valid operation does, so the
// error means a broken invariant.
//
// Where this package deliberately differs from Mesos:
//
//   - Conversions, Apply and ApplyAll enforce every rule that needs no Context,
//     so they never produce invalid resources whatever their input; Mesos's
//     Resources::apply only checks containment.
//   - Mesos lets a RESERVE refine the reservation of a persistent volume, and
//     a RESERVE with a source move resources to any role. Here volumes keep
//     the reservation they were made on until destroyed, and a source may
//     only be re-reserved for its own role (new labels or principal) or a
//     sub-role, keeping any static reservation: moving resources up or
//     sideways is an UNRESERVE, which checks volumes.
//   - On the framework path every operation, not only RESERVE and CREATE,
//     must name resources allocated to one of the framework's roles; Mesos
//     leaves the others to the containment check against the offer.
//   - The framework's RESERVATION_REFINEMENT capability is checked as well
//     as the agent's: Mesos frameworks without it cannot even express a
//     refined reservation.
//   - gpus must be whole in each resource, where Mesos checks their sum.
//   - Persistence ids are also checked against the offered resources in
//     Apply, a request may not name the same volume twice, and DESTROY checks
//     volumes of resource providers against the checkpointed resources too.
//   - SHRINK_VOLUME is refused on every indivisible disk (MOUNT, BLOCK, RAW
//     with an id), not only MOUNT.
//   - All the conversions of one operation must apply to what was there
//     before it; Mesos applies them one after the other, so that one
//     UNRESERVE naming a refined reservation and its parent pops both levels.
//   - A broken conservation invariant is an error, not a crash.
//   - Authorization (Mesos's reserve, unreserve, create_volumes and
//     destroy_volumes ACLs) and the rest of task validation (commands,
//     containers, health checks) belong to the host.
package offer
