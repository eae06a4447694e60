package cluster

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The operators are package allocator's ConstraintOps by value.
func TestConstraintOpValues(t *testing.T) {
	require.Equal(t, uint8(1), OpExists)
	require.Equal(t, uint8(2), opNotExists)
	require.Equal(t, uint8(3), opEquals)
	require.Equal(t, uint8(4), OpNotEquals)
}

func TestAttributeConstraintHolds(t *testing.T) {
	attrs := map[string]string{"rack": "r1", "zone": "", "os": "linux"}
	cases := []struct {
		c    AttributeConstraint
		want bool
	}{
		{AttributeConstraint{"rack", OpExists, ""}, true},
		{AttributeConstraint{"zone", OpExists, ""}, true},
		{AttributeConstraint{"gpu", OpExists, ""}, false},
		{AttributeConstraint{"rack", opNotExists, ""}, false},
		{AttributeConstraint{"zone", opNotExists, ""}, false},
		{AttributeConstraint{"gpu", opNotExists, ""}, true},
		{AttributeConstraint{"rack", opEquals, "r1"}, true},
		{AttributeConstraint{"rack", opEquals, "r2"}, false},
		{AttributeConstraint{"zone", opEquals, ""}, true},
		{AttributeConstraint{"gpu", opEquals, ""}, false},
		{AttributeConstraint{"gpu", opEquals, "x"}, false},
		{AttributeConstraint{"rack", OpNotEquals, "r1"}, false},
		{AttributeConstraint{"rack", OpNotEquals, "r2"}, true},
		{AttributeConstraint{"zone", OpNotEquals, ""}, false},
		{AttributeConstraint{"gpu", OpNotEquals, ""}, true},
		{AttributeConstraint{"gpu", OpNotEquals, "x"}, true},
		// An unknown operator never holds.
		{AttributeConstraint{"rack", 0, "r1"}, false},
		{AttributeConstraint{"gpu", 0, ""}, false},
		{AttributeConstraint{"rack", 5, "r1"}, false},
		{AttributeConstraint{"gpu", 200, ""}, false},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.c.holds(attrs), "%+v", c.c)
		require.Equal(t, c.want, Constraints{{c.c}}.Admits(attrs), "%+v", c.c)
	}
	// Nil attributes: nothing exists.
	require.False(t, AttributeConstraint{"rack", OpExists, ""}.holds(nil))
	require.True(t, AttributeConstraint{"rack", opNotExists, ""}.holds(nil))
	require.False(t, AttributeConstraint{"rack", opEquals, ""}.holds(nil))
	require.True(t, AttributeConstraint{"rack", OpNotEquals, ""}.holds(nil))
}

func TestConstraintsAdmits(t *testing.T) {
	attrs := map[string]string{"rack": "r1", "os": "linux"}
	require.True(t, Constraints(nil).Admits(attrs), "no groups admits all")
	require.True(t, Constraints{}.Admits(nil))
	require.True(t, Constraints{{}}.Admits(attrs), "an empty group holds")

	rackR1 := AttributeConstraint{"rack", opEquals, "r1"}
	rackR2 := AttributeConstraint{"rack", opEquals, "r2"}
	linux := AttributeConstraint{"os", opEquals, "linux"}
	noGPU := AttributeConstraint{"gpu", opNotExists, ""}
	gpu := AttributeConstraint{"gpu", OpExists, ""}

	// A group holds when all of its constraints hold.
	require.True(t, Constraints{{rackR1, linux, noGPU}}.Admits(attrs))
	require.False(t, Constraints{{rackR1, linux, gpu}}.Admits(attrs))
	require.False(t, Constraints{{gpu, rackR1, linux}}.Admits(attrs))
	require.False(t, Constraints{{rackR2, linux}}.Admits(attrs))
	// At least one group.
	require.True(t, Constraints{{rackR2}, {linux}}.Admits(attrs))
	require.True(t, Constraints{{rackR1}, {gpu}}.Admits(attrs))
	require.True(t, Constraints{{gpu}, {rackR2}, {rackR1, noGPU}}.Admits(attrs))
	require.False(t, Constraints{{gpu}, {rackR2}, {rackR1, gpu}}.Admits(attrs))
	require.False(t, Constraints{{gpu}, {rackR2, linux}}.Admits(attrs))
	require.True(t, Constraints{{gpu}, {}}.Admits(attrs))
	require.False(t, Constraints{{rackR1}}.Admits(nil))
	require.True(t, Constraints{{rackR1}, {noGPU}}.Admits(nil))
}

// A model test over small attribute sets: each operator by its truth table,
// groups as all, the constraints as any.
func TestConstraintsAdmitsModel(t *testing.T) {
	names := []string{"a", "b", "c"}
	values := []string{"", "x", "y"}
	// truth[op][present][equal]
	truth := map[uint8][2][2]bool{
		OpExists:    {{false, false}, {true, true}},
		opNotExists: {{true, true}, {false, false}},
		opEquals:    {{false, false}, {false, true}},
		OpNotEquals: {{true, true}, {true, false}},
		0:           {{false, false}, {false, false}},
		9:           {{false, false}, {false, false}},
	}
	ops := []uint8{OpExists, opNotExists, opEquals, OpNotEquals, 0, 9}
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	for seed := uint64(1); seed <= 30; seed++ {
		seeded(t, seed, func(t *testing.T, rng *rand.Rand) {
			for range 50 {
				attrs := map[string]string{}
				for _, n := range names {
					if rng.IntN(2) == 0 {
						attrs[n] = values[rng.IntN(len(values))]
					}
				}
				var cs Constraints
				for range rng.IntN(4) {
					var g []AttributeConstraint
					for range rng.IntN(4) {
						op := ops[rng.IntN(len(ops)-1)]
						if rng.IntN(20) == 0 {
							op = ops[len(ops)-1]
						}
						g = append(g, AttributeConstraint{Attribute: names[rng.IntN(len(names))], Op: op, Value: values[rng.IntN(len(values))]})
					}
					cs = append(cs, g)
				}
				want := len(cs) == 0
				for _, g := range cs {
					all := true
					for _, c := range g {
						v, present := attrs[c.Attribute]
						if !truth[c.Op][b(present)][b(present && v == c.Value)] {
							all = false
						}
					}
					want = want || all
				}
				require.Equal(t, want, cs.Admits(attrs), "attrs %v, constraints %+v", attrs, cs)
			}
		})
	}
}
