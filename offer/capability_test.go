package offer

import (
	"slices"
	"testing"
)

func TestCapabilityNames(t *testing.T) {
	cases := []struct {
		c    Capabilities
		want []string
	}{
		{0, nil},
		{MultiRole, []string{"MULTI_ROLE"}},
		{ResizeVolume | MultiRole | GPUResources, []string{"MULTI_ROLE", "GPU_RESOURCES", "RESIZE_VOLUME"}},
		{ResizeVolume << 1, []string{"0x100"}},
		{1 << 31, []string{"0x80000000"}},
	}
	for _, c := range cases {
		if got := c.c.Names(); !slices.Equal(got, c.want) {
			t.Errorf("%#x: Names() = %q, want %q", uint32(c.c), got, c.want)
		}
	}
	// Every named capability parses back.
	for _, name := range (MultiRole | RevocableResources | SharedResources | ReservationRefinement | GPUResources | RegionAware | HierarchicalRole | ResizeVolume).Names() {
		if _, ok := ParseCapability(name); !ok {
			t.Errorf("ParseCapability(%q) failed", name)
		}
	}
}
