package allocator

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// FrameworkInfo is what the allocator needs to know of a framework.
type FrameworkInfo struct {
	// Roles the framework subscribes to; at least one.
	Roles []string
	// Principal the framework authenticated as; operations are checked
	// against it when set.
	Principal    string
	Capabilities offer.Capabilities
	// SuppressedRoles get no offers until revived.
	SuppressedRoles []string
	// MinAllocatable overrides Options.MinAllocatable per role; a present
	// but empty list means "anything".
	MinAllocatable map[string][]resources.Quantities
	// Constraints restrict, per role, the agents whose resources the
	// framework is offered, by agent attributes.
	Constraints map[string]Constraints
}

// Constraints is a disjunction of groups: an agent qualifies when every
// predicate of at least one group holds. No groups means no restriction.
type Constraints []ConstraintGroup

// ConstraintGroup is a conjunction of attribute predicates.
type ConstraintGroup []AttributeConstraint

// Activation says whether AddFramework adds a framework Active (offered
// resources from the next run) or Inactive (it keeps what it uses and is
// offered nothing until ActivateFramework), as a framework that
// re-registers with Mesos's master after a failover may be.
type Activation bool

const (
	Active   Activation = true
	Inactive Activation = false
)

// ConstraintOp is a predicate on one agent attribute.
type ConstraintOp uint8

const (
	// OpExists: the agent has the attribute.
	OpExists ConstraintOp = iota + 1
	// OpNotExists: the agent lacks the attribute.
	OpNotExists
	// OpEquals: the attribute has Value.
	OpEquals
	// OpNotEquals: the attribute is absent or differs from Value.
	OpNotEquals
)

// AttributeConstraint is one predicate on an agent attribute.
type AttributeConstraint struct {
	Attribute string
	Op        ConstraintOp
	Value     string
}

func (info FrameworkInfo) clone() FrameworkInfo {
	info.Roles = slices.Clone(info.Roles)
	info.SuppressedRoles = slices.Clone(info.SuppressedRoles)
	if info.MinAllocatable != nil {
		m := make(map[string][]resources.Quantities, len(info.MinAllocatable))
		for k, v := range info.MinAllocatable {
			m[k] = slices.Clone(v)
		}
		info.MinAllocatable = m
	}
	if info.Constraints != nil {
		m := make(map[string]Constraints, len(info.Constraints))
		for k, v := range info.Constraints {
			m[k] = slices.Clone(v)
		}
		info.Constraints = m
	}
	return info
}

// AgentInfo is what the allocator needs to know of an agent.
type AgentInfo struct {
	// Hostname is matched against the whitelist.
	Hostname string
	// Attributes are matched by framework offer constraints.
	Attributes map[string]string
	// Region is the agent's fault-domain region ("" when unknown).
	Region       string
	Capabilities offer.Capabilities
	// Unavailability is a scheduled maintenance window, if any.
	Unavailability *offer.Unavailability
}

func (info AgentInfo) clone() AgentInfo {
	if info.Attributes != nil {
		m := make(map[string]string, len(info.Attributes))
		for k, v := range info.Attributes {
			m[k] = v
		}
		info.Attributes = m
	}
	if info.Unavailability != nil {
		u := *info.Unavailability
		info.Unavailability = &u
	}
	return info
}

// Filter is a framework's refusal of resources when it declines them or
// gives them back: for Refuse, the allocator offers the framework nothing on
// that agent in that role that the refused resources contain.
type Filter struct {
	// Refuse is how long the refusal lasts. Zero installs no filter; a
	// negative value means DefaultRefuse; values above MaxRefuse are capped.
	// A filter lasts at least one allocation interval.
	Refuse time.Duration
}

// refuse is the filter's duration, nil without a filter.
func (f *Filter) refuse() *time.Duration {
	if f == nil {
		return nil
	}
	return &f.Refuse
}

// Quota is a role's guarantee and limit. Guarantees are met before fair
// sharing (and resources are held back for them); limits are never passed.
// The zero value means no quota.
type Quota struct {
	Guarantees resources.Quantities
	Limits     resources.Limits
}

// ParseQuota reads a quota whose guarantees and limits are the same, from
// quantities text ("cpus:4;mem:8192"), as an operator who sets quota on a
// role in Mesos gives one amount for both.
func ParseQuota(text string) (Quota, error) {
	q, err := resources.ParseQuantities(text)
	if err != nil {
		return Quota{}, fmt.Errorf("%w: %w", ErrInvalidQuota, err)
	}
	return Quota{Guarantees: q, Limits: resources.LimitsOf(q)}, nil
}

// MustParseQuota is ParseQuota for constants; it panics on invalid text.
func MustParseQuota(text string) Quota {
	q, err := ParseQuota(text)
	if err != nil {
		panic(err)
	}
	return q
}

// IsZero reports whether the quota guarantees and limits nothing.
func (q Quota) IsZero() bool { return q.Guarantees.IsEmpty() && q.Limits.IsEmpty() }

// InverseOfferStatus is a framework's answer to an inverse offer.
type InverseOfferStatus uint8

const (
	// InverseAccepted: the framework will release the agent in time.
	InverseAccepted InverseOfferStatus = iota + 1
	// InverseDeclined: the framework will not.
	InverseDeclined
)

// The inverse-offer answers' earlier names.
const (
	// Deprecated: use InverseAccepted; Accept is the method that launches.
	Accept = InverseAccepted
	// Deprecated: use InverseDeclined.
	Decline = InverseDeclined
)

// The answers are the inverse-offer records' values.
const (
	_ = uint(uint8(InverseAccepted) - cluster.InverseAccepted)
	_ = uint(cluster.InverseAccepted - uint8(InverseAccepted))
	_ = uint(uint8(InverseDeclined) - cluster.InverseDeclined)
	_ = uint(cluster.InverseDeclined - uint8(InverseDeclined))
)

// String returns "ACCEPT" or "DECLINE".
func (s InverseOfferStatus) String() string {
	switch s {
	case InverseAccepted:
		return "ACCEPT"
	case InverseDeclined:
		return "DECLINE"
	}
	return "UNKNOWN"
}

// The record's operators are the ConstraintOps by value.
const (
	_ = uint(uint8(OpExists) - cluster.OpExists)
	_ = uint(cluster.OpExists - uint8(OpExists))
	_ = uint(uint8(OpNotEquals) - cluster.OpNotEquals)
	_ = uint(cluster.OpNotEquals - uint8(OpNotEquals))
)

// spec is info as a framework's record keeps it (info is not copied: pass
// a clone).
func (info FrameworkInfo) spec() cluster.FrameworkInfo {
	s := cluster.FrameworkInfo{
		Roles: info.Roles, Principal: info.Principal, Capabilities: info.Capabilities,
		SuppressedRoles: info.SuppressedRoles, MinAllocatable: info.MinAllocatable,
	}
	if info.Constraints != nil {
		s.Constraints = make(map[string]cluster.Constraints, len(info.Constraints))
		for role, cs := range info.Constraints {
			var set cluster.Constraints
			if cs != nil {
				set = make(cluster.Constraints, len(cs))
			}
			for i, g := range cs {
				if g != nil {
					set[i] = make([]cluster.AttributeConstraint, len(g))
				}
				for j, c := range g {
					set[i][j] = cluster.AttributeConstraint{Attribute: c.Attribute, Op: uint8(c.Op), Value: c.Value}
				}
			}
			s.Constraints[role] = set
		}
	}
	return s
}

// publicInfo is the FrameworkInfo s was made from (s is not copied).
func publicInfo(s cluster.FrameworkInfo) FrameworkInfo {
	info := FrameworkInfo{
		Roles: s.Roles, Principal: s.Principal, Capabilities: s.Capabilities,
		SuppressedRoles: s.SuppressedRoles, MinAllocatable: s.MinAllocatable,
	}
	if s.Constraints != nil {
		info.Constraints = make(map[string]Constraints, len(s.Constraints))
		for role, set := range s.Constraints {
			var cs Constraints
			if set != nil {
				cs = make(Constraints, len(set))
			}
			for i, g := range set {
				if g != nil {
					cs[i] = make(ConstraintGroup, len(g))
				}
				for j, c := range g {
					cs[i][j] = AttributeConstraint{Attribute: c.Attribute, Op: ConstraintOp(c.Op), Value: c.Value}
				}
			}
			info.Constraints[role] = cs
		}
	}
	return info
}
