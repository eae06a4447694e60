package allocator

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// A framework's record keeps its FrameworkInfo in cluster's form, copied
// field by field (spec, publicInfo): a field added to one and not the
// other, or not copied, fails here rather than vanishing from the record.
// AgentInfo converts as a whole, so the compiler checks it.
func TestFrameworkInfoRoundTripsThroughItsRecord(t *testing.T) {
	require.Equal(t, reflect.TypeOf(FrameworkInfo{}).NumField(), reflect.TypeOf(cluster.FrameworkInfo{}).NumField())
	info := FrameworkInfo{
		Roles:           []string{"a", "b"},
		Principal:       "ops",
		Capabilities:    offer.MultiRole | offer.GPUResources,
		SuppressedRoles: []string{"b"},
		MinAllocatable:  map[string][]resources.Quantities{"a": {resources.MustParseQuantities("cpus:1")}, "b": {}},
		Constraints: map[string]Constraints{
			"a": {{{Attribute: "zone", Op: OpEquals, Value: "z1"}, {Attribute: "gpu", Op: OpExists}}, {}},
			"b": nil,
		},
	}
	v := reflect.ValueOf(info)
	for i := range v.NumField() {
		require.False(t, v.Field(i).IsZero(), "field %s is not set in the test", v.Type().Field(i).Name)
	}
	require.Equal(t, info, publicInfo(info.spec()))
	s := info.spec()
	require.True(t, s.Constraints["a"].Admits(map[string]string{"zone": "z1", "gpu": "1"}))
	require.True(t, s.Constraints["a"].Admits(map[string]string{}), "the empty group holds")
	require.Nil(t, s.Constraints["b"])
}
