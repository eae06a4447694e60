package placement

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// partitionInput is one task over agents in three zones and six racks,
// spread over zones by two rankers, with limits per zone and per rack.
func partitionInput() Input {
	in := Input{
		Tasks: tasks(1, "t", "g", "cpus:1", func(t *Task) {
			t.Preferences = []Ranker{Spread("rack").Weighted(0), Spread("zone"), BinPack("cpus"), Spread("zone").Weighted(2), Spread("rack")}
			t.Constraints = []Filter{MaxPerValue("zone", 3), MaxPerValue("rack", 1), MaxPerValue("zone", 2)}
		}),
		Agents: map[string]Agent{},
	}
	for i := range 6 {
		agent := fmt.Sprintf("a%d", i+1)
		in.Offers = append(in.Offers, offerOn(i+1, "web", "cpus:4"))
		in.Agents[agent] = Agent{Attributes: Attributes{"zone": "z" + fmt.Sprint(i%3), "rack": "r" + fmt.Sprint(i)}}
	}
	return in
}

// A class is split by the attribute of its first weighted Spread ranker
// when that attribute has fewer than maxParts values: one part per value
// and one for agents without it. Every Spread ranker on that attribute
// scores whole parts, the lowest MaxPerValue limit on it closes parts, and
// its counts no longer make entries stale.
func TestPartitionByTheFirstWeightedSpread(t *testing.T) {
	defer func(n int) { maxParts = n }(maxParts)
	maxParts = 4 // the zones' three values are fewer
	in := partitionInput()
	p, err := newPlacer(&in)
	require.NoError(t, err)
	c := p.classes[0]
	require.NotNil(t, c.part)
	require.Equal(t, "zone", c.part.table.name)
	require.Equal(t, 4, c.nparts)
	require.Equal(t, 3.0, c.partW)
	var inPart []bool
	for _, r := range c.rankers {
		inPart = append(inPart, r.inPart)
	}
	require.Equal(t, []bool{false, true, false, true, false}, inPart)
	require.Equal(t, int32(2), c.partMax)
	for _, ga := range c.deps {
		require.NotSame(t, c.part, ga, "the partition attribute is still a dependency")
	}
	require.Len(t, c.deps, 1) // the racks

	// With as many values as maxParts, the class is not split.
	maxParts = 3
	in = partitionInput()
	p, err = newPlacer(&in)
	require.NoError(t, err)
	c = p.classes[0]
	require.Nil(t, c.part)
	require.Equal(t, 1, c.nparts)
	require.Zero(t, c.partMax)
	require.Zero(t, c.partW)
}
