package tables

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAppendSortedKeys(t *testing.T) {
	tests := []struct {
		name  string
		dst   []string
		first string
		more  map[string]int
		want  []string
	}{
		{"nothing", nil, "", nil, nil},
		{"first only", nil, "m", nil, []string{"m"}},
		{"map only", nil, "", map[string]int{"b": 1, "a": 2, "c": 3}, []string{"a", "b", "c"}},
		{"first sorts among the map's", nil, "m", map[string]int{"z": 1, "a": 2}, []string{"a", "m", "z"}},
		{"first last", nil, "z", map[string]int{"b": 1, "a": 2}, []string{"a", "b", "z"}},
		{"dst kept as it is", []string{"y", "x"}, "m", map[string]int{"b": 1}, []string{"y", "x", "b", "m"}},
		{"dst kept, nothing to add", []string{"y", "x"}, "", nil, []string{"y", "x"}},
		{"the map's empty key", nil, "m", map[string]int{"": 1}, []string{"", "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, AppendSortedKeys(tt.dst, tt.first, tt.more))
		})
	}
}

func TestAppendSortedKeysRandom(t *testing.T) {
	const seed = 5
	rng := rand.New(rand.NewPCG(seed, 4))
	for round := range 300 {
		more := map[string]bool{}
		for range rng.IntN(8) {
			more[fmt.Sprintf("k%02d", rng.IntN(30))] = true
		}
		first := ""
		if rng.IntN(2) == 0 {
			first = fmt.Sprintf("f%02d", rng.IntN(30))
		}
		var dst []string
		for range rng.IntN(3) {
			dst = append(dst, fmt.Sprintf("z%d", rng.IntN(10)))
		}
		prefix := slices.Clone(dst)
		want := slices.Collect(maps.Keys(more))
		if first != "" {
			want = append(want, first)
		}
		slices.Sort(want)
		got := AppendSortedKeys(dst, first, more)
		msg := fmt.Sprintf("seed %d round %d", seed, round)
		require.True(t, slices.Equal(prefix, got[:len(prefix)]), "%s: %q kept as %q", msg, prefix, got)
		require.True(t, slices.Equal(want, got[len(prefix):]), "%s: %q, want %q after %q", msg, got, want, prefix)
	}
}
