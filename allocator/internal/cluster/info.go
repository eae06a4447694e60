package cluster

import (
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// AgentInfo is what an agent said of itself: package allocator's
// AgentInfo, field for field, so that either converts to the other.
type AgentInfo struct {
	Hostname       string
	Attributes     map[string]string
	Region         string
	Capabilities   offer.Capabilities
	Unavailability *offer.Unavailability
}

// Pending is package allocator's Pending, field for field: tasks of
// one shape a framework waits to run.
type Pending struct {
	Resources resources.Quantities
	Count     int
}

// FrameworkInfo is what a framework said of itself: package allocator's
// FrameworkInfo, with its constraints in the form the run checks them.
type FrameworkInfo struct {
	Roles           []string
	Principal       string
	Capabilities    offer.Capabilities
	SuppressedRoles []string
	MinAllocatable  map[string][]resources.Quantities
	Constraints     map[string]Constraints
}

// Constraints is a disjunction of groups of attribute constraints: an
// agent qualifies when every constraint of at least one group holds. No
// groups means no restriction.
type Constraints [][]AttributeConstraint

// AttributeConstraint is one predicate on an agent attribute.
type AttributeConstraint struct {
	Attribute string
	Op        uint8 // one of the op constants below
	Value     string
}

// The operators of an attributeConstraint: package allocator's
// ConstraintOps by value.
const (
	OpExists uint8 = iota + 1
	opNotExists
	opEquals
	OpNotEquals
)

func (c AttributeConstraint) holds(attrs map[string]string) bool {
	v, ok := attrs[c.Attribute]
	switch c.Op {
	case OpExists:
		return ok
	case opNotExists:
		return !ok
	case opEquals:
		return ok && v == c.Value
	case OpNotEquals:
		return !ok || v != c.Value
	}
	return false
}

// Admits reports whether an agent with attrs qualifies.
func (cs Constraints) Admits(attrs map[string]string) bool {
	if len(cs) == 0 {
		return true
	}
	for _, group := range cs {
		all := true
		for _, c := range group {
			if !c.holds(attrs) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
