package offer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/allot-go/allot/resources"
)

// Context is what Validate knows about who sends an operation and about the
// agent it applies to.
type Context struct {
	// Principal is the authenticated principal of the request; "" when none
	// is known, and then principals are not checked.
	Principal string
	// Roles are the framework's roles; ignored on the operator path.
	Roles []string
	// Operator marks an operator request (as through Mesos's /reserve,
	// /unreserve, /create-volumes and /destroy-volumes endpoints): its
	// resources must be unallocated, and roles and framework capabilities
	// are not checked.
	Operator bool
	// FrameworkCapabilities are the capabilities of the framework.
	FrameworkCapabilities Capabilities
	// AgentCapabilities are the capabilities of the agent.
	AgentCapabilities Capabilities
	// Checkpointed are the agent's checkpointed resources (its dynamic
	// reservations and persistent volumes), without allocation roles.
	Checkpointed resources.Resources
	// InUse are the persistent volumes used by tasks or executors on the
	// agent.
	InUse resources.Resources
}

// Validate checks op against every rule of Mesos's operation validation
// that can be decided without the offered resources, and returns nil or an
// error wrapping the sentinel of the first rule broken. It first checks the
// rules Conversions checks, then those that depend on ctx:
//
//   - LAUNCH: framework path only (else ErrUnsupported); resources
//     allocated to one of the framework's roles; shared volumes need
//     SHARED_RESOURCES and refined reservations RESERVATION_REFINEMENT.
//   - RESERVE: agent capabilities for hierarchical roles and refinement
//     (and the framework's for refinement); the principal, when known, set
//     on the new reservation and equal to it; on the framework path the
//     resources allocated, to the reservation role, which is one of the
//     framework's roles, and to a single role; on the operator path
//     unallocated.
//   - UNRESERVE: allocation as for RESERVE (principals are not compared, as
//     in Mesos, where an ACL decides).
//   - CREATE: persistence ids unique per role among the checkpointed
//     resources; shared volumes only with SHARED_RESOURCES; agent
//     capabilities; the principal of each volume's persistence; allocation.
//   - DESTROY: every volume checkpointed and none in use; allocation.
//   - GROW_VOLUME, SHRINK_VOLUME: the agent's RESIZE_VOLUME; allocation.
//
// Validate changes nothing and never panics.
func Validate(op Operation, ctx Context) error {
	o, err := checkOp(op)
	if err != nil {
		return err
	}
	switch o := o.(type) {
	case Launch:
		return validateLaunch(o, ctx)
	case Reserve:
		return validateReserve(o, ctx)
	case Unreserve:
		return checkAllocation(o.Resources, ctx)
	case Create:
		return validateCreate(o, ctx)
	case Destroy:
		return validateDestroy(o, ctx)
	case GrowVolume:
		return validateResize(o.Volume, o.Addition, "grown", ctx)
	case ShrinkVolume:
		return validateResize(o.Volume, resources.Resources{}, "shrunk", ctx)
	}
	return nil
}

// checkAllocation checks the allocation roles of rs: on the operator path
// none; on the framework path one, the same for all, and one of the
// framework's roles.
func checkAllocation(rs resources.Resources, ctx Context) error {
	first := ""
	for r := range rs.All() {
		if ctx.Operator {
			if r.AllocationRole != "" {
				return fmt.Errorf("%w: %s is allocated to %q", ErrAllocated, r, r.AllocationRole)
			}
			continue
		}
		if r.AllocationRole == "" {
			return fmt.Errorf("%w: %s is not allocated", ErrNotAllocated, r)
		}
		if !slices.Contains(ctx.Roles, r.AllocationRole) {
			return fmt.Errorf("%w: %s is allocated to %q, the framework's roles are %q", ErrRoleNotSubscribed, r, r.AllocationRole, ctx.Roles)
		}
		if first == "" {
			first = r.AllocationRole
		} else if r.AllocationRole != first {
			return fmt.Errorf("%w: %q and %q", ErrMultipleAllocationRoles, first, r.AllocationRole)
		}
	}
	return nil
}

// checkAgentRoles checks the agent capabilities a reservation needs: roles
// with '/' need HIERARCHICAL_ROLE, refined stacks RESERVATION_REFINEMENT.
func checkAgentRoles(r resources.Resource, ctx Context) error {
	if strings.Contains(r.Role(), "/") && !ctx.AgentCapabilities.Has(HierarchicalRole) {
		return fmt.Errorf("%w: %s", ErrHierarchicalRoleCapability, r)
	}
	if r.Reservations.IsRefined() && !ctx.AgentCapabilities.Has(ReservationRefinement) {
		return fmt.Errorf("%w: agent: %s", ErrRefinementCapability, r)
	}
	return nil
}

// checkPrincipal compares a principal set in the request with the known
// one, if any.
func checkPrincipal(got string, r resources.Resource, ctx Context) error {
	if ctx.Principal == "" {
		return nil
	}
	if got == "" {
		return fmt.Errorf("%w: %s: request by principal %q", ErrNoPrincipal, r, ctx.Principal)
	}
	if got != ctx.Principal {
		return fmt.Errorf("%w: %s has principal %q, request by principal %q", ErrPrincipalMismatch, r, got, ctx.Principal)
	}
	return nil
}

func validateReserve(o Reserve, ctx Context) error {
	for r := range o.Resources.All() {
		if err := checkAgentRoles(r, ctx); err != nil {
			return err
		}
		if !ctx.Operator && r.Reservations.IsRefined() && !ctx.FrameworkCapabilities.Has(ReservationRefinement) {
			return fmt.Errorf("%w: framework: %s", ErrRefinementCapability, r)
		}
		last, _ := r.Reservations.Last()
		if err := checkPrincipal(last.Principal, r, ctx); err != nil {
			return err
		}
		if !ctx.Operator && r.AllocationRole != "" && r.AllocationRole != r.Role() {
			return fmt.Errorf("%w: %s is reserved for %q but allocated to %q", ErrAllocationRoleMismatch, r, r.Role(), r.AllocationRole)
		}
	}
	return checkAllocation(o.Resources, ctx)
}

func validateCreate(o Create, ctx Context) error {
	for have := range ctx.Checkpointed.All() {
		if !have.IsPersistentVolume() {
			continue
		}
		for v := range o.Volumes.All() {
			if keyOf(v) == keyOf(have) {
				return fmt.Errorf("%w: %q for role %q is checkpointed: %s", ErrPersistenceIDNotUnique, keyOf(v).id, keyOf(v).role, have)
			}
		}
	}
	for v := range o.Volumes.All() {
		if v.Shared && !ctx.Operator && !ctx.FrameworkCapabilities.Has(SharedResources) {
			return fmt.Errorf("%w: %s", ErrSharedCapability, v)
		}
		if err := checkAgentRoles(v, ctx); err != nil {
			return err
		}
		if err := checkPrincipal(v.Disk.Persistence.Principal, v, ctx); err != nil {
			return err
		}
	}
	return checkAllocation(o.Volumes, ctx)
}

// unallocated returns rs without allocation roles, rs itself when it has
// none.
func unallocated(rs resources.Resources) resources.Resources {
	for r := range rs.All() {
		if r.AllocationRole != "" {
			return rs.Unallocate()
		}
	}
	return rs
}

func validateDestroy(o Destroy, ctx Context) error {
	vols := unallocated(o.Volumes)
	checkpointed := unallocated(ctx.Checkpointed)
	for v := range vols.All() {
		if !checkpointed.ContainsResource(v) {
			return fmt.Errorf("%w: %s", ErrVolumeNotFound, v)
		}
	}
	inUse := unallocated(ctx.InUse)
	for v := range vols.All() {
		if inUse.ContainsResource(v) {
			return fmt.Errorf("%w: %s", ErrVolumeInUse, v)
		}
	}
	return checkAllocation(o.Volumes, ctx)
}

func validateResize(v resources.Resource, addition resources.Resources, verb string, ctx Context) error {
	if !ctx.AgentCapabilities.Has(ResizeVolume) {
		return fmt.Errorf("%w: %s cannot be %s", ErrResizeCapability, v, verb)
	}
	all, err := resources.New(v)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidResources, err)
	}
	return checkAllocation(all.Plus(addition), ctx)
}

func validateLaunch(l Launch, ctx Context) error {
	if ctx.Operator {
		return fmt.Errorf("%w: operators do not launch tasks", ErrUnsupported)
	}
	all := l.Resources()
	for r := range all.All() {
		if r.Shared && !ctx.FrameworkCapabilities.Has(SharedResources) {
			return fmt.Errorf("%w: %s", ErrSharedCapability, r)
		}
		if r.Reservations.IsRefined() && !ctx.FrameworkCapabilities.Has(ReservationRefinement) {
			return fmt.Errorf("%w: framework: %s", ErrRefinementCapability, r)
		}
	}
	return checkAllocation(all, ctx)
}
