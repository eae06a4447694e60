package placement

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A class's heaps are given back once its last task is placed, and only
// those with storage, so that later classes reuse them rather than
// allocate their own.
func TestDoneClassesGiveTheirHeapsBack(t *testing.T) {
	in := Input{
		Tasks: append(append(tasks(3, "a", "", "cpus:1"), tasks(2, "b", "", "cpus:2")...),
			tasks(2, "c", "", "cpus:3", preferring(Spread("zone")))...),
		Offers: sized("cpus:8", "cpus:8", "cpus:8"),
		Agents: map[string]Agent{
			"a1": {Attributes: Attributes{"zone": "x"}},
			"a2": {Attributes: Attributes{"zone": "y"}},
		},
		Rankers: []Ranker{BinPack("cpus")},
	}
	p, err := newPlacer(&in)
	require.NoError(t, err)
	require.Len(t, p.classes, 3)
	p.run()
	for i, c := range p.classes {
		require.Zero(t, c.pending, "class %d", i)
		require.Nil(t, c.parts, "class %d keeps its heaps", i)
	}
	require.NotEmpty(t, p.pool)
	for _, h := range p.pool {
		require.Positive(t, cap(h), "a heap without storage in the pool")
		require.Empty(t, h)
	}
}
