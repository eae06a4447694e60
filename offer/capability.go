package offer

import (
	"strconv"
	"strings"
)

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

// Names lists the capabilities one by one, by their Mesos names, lowest
// bit first; a bit without a name is written in hexadecimal ("0x100").
// It returns nil for none.
func (c Capabilities) Names() []string {
	var out []string
	for bit := Capabilities(1); bit != 0; bit <<= 1 {
		if c&bit == 0 {
			continue
		}
		if i := bits(bit); i < len(capabilityNames) {
			out = append(out, capabilityNames[i])
		} else {
			out = append(out, "0x"+strconv.FormatUint(uint64(bit), 16))
		}
	}
	return out
}

// bits returns the position of the one bit set in bit.
func bits(bit Capabilities) int {
	i := 0
	for bit > 1 {
		bit >>= 1
		i++
	}
	return i
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
