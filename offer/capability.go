package offer

import "strings"

// Capabilities is a set of framework or agent capabilities, as Mesos's
// FrameworkInfo and AgentInfo declare them. The zero value has none.
type Capabilities uint32

const (
	// MultiRole: the framework can subscribe to several roles; agents without
	// it cannot run such frameworks' tasks.
	MultiRole Capabilities = 1 << iota
	// RevocableResources: the framework accepts revocable resources.
	RevocableResources
	// SharedResources: the framework accepts shared persistent volumes.
	SharedResources
	// ReservationRefinement: the framework (or agent) understands refined
	// reservation stacks.
	ReservationRefinement
	// GPUResources: the framework accepts agents with GPUs.
	GPUResources
	// RegionAware: the framework accepts agents in a fault-domain region other
	// than the master's.
	RegionAware
	// HierarchicalRole: the agent (or framework) understands roles with '/'.
	HierarchicalRole
	// ResizeVolume: the agent can grow and shrink persistent volumes.
	ResizeVolume
)

var capabilityNames = []string{
	"MULTI_ROLE", "REVOCABLE_RESOURCES", "SHARED_RESOURCES", "RESERVATION_REFINEMENT",
	"GPU_RESOURCES", "REGION_AWARE", "HIERARCHICAL_ROLE", "RESIZE_VOLUME",
}

// Has reports whether every capability of want is in c.
func (c Capabilities) Has(want Capabilities) bool { return c&want == want }

// String lists the capabilities by their Mesos names, joined by '|'.
func (c Capabilities) String() string {
	var parts []string
	for i, name := range capabilityNames {
		if c&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "|")
}

// ParseCapability returns the capability with the given Mesos name.
func ParseCapability(name string) (Capabilities, bool) {
	for i, n := range capabilityNames {
		if n == name {
			return 1 << i, true
		}
	}
	return 0, false
}
