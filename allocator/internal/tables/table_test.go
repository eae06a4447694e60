package tables

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

type node struct {
	path string
	n    int
}

type byPath struct{}

func (byPath) Of(r *node) string { return r.path }

// A table finds each record by its key, reports a missing one as missing,
// and lists its keys sorted whatever the order of the table's iteration.
func TestTable(t *testing.T) {
	var tb Table[node, byPath]
	r, ok := tb.Lookup("a")
	require.False(t, ok)
	require.Nil(t, r)
	require.Empty(t, tb.Keys())
	require.NotNil(t, tb.Keys(), "no keys is an empty list")

	const seed = 7
	rng := rand.New(rand.NewPCG(seed, 2))
	want := map[string]*node{}
	for step := range 500 {
		k := fmt.Sprintf("k%d", rng.IntN(40))
		msg := fmt.Sprintf("seed %d step %d key %s", seed, step, k)
		if rng.IntN(3) == 0 {
			tb.Delete(k)
			delete(want, k)
		} else {
			rec := &node{path: k, n: step}
			tb.Put(rec)
			want[k] = rec
		}
		got, ok := tb.Lookup(k)
		require.Equal(t, want[k] != nil, ok, msg)
		require.Same(t, want[k], got, msg)
		keys := tb.Keys()
		require.Equal(t, slices.Sorted(maps.Keys(want)), keys, msg)
		require.Len(t, keys, len(want), msg)
	}
	for k, rec := range want {
		got, ok := tb.Lookup(k)
		require.True(t, ok, k)
		require.Same(t, rec, got, k)
	}
	_, ok = tb.Lookup("absent")
	require.False(t, ok)
}
