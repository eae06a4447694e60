package refusals

import (
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWholeSetIsAMap drives a WholeSet and a plain map with the same random
// puts and drops, over few and many agent numbers, and requires the same
// contents after each: whether the set is a map or a slice is not seen.
func TestWholeSetIsAMap(t *testing.T) {
	for _, numbers := range []int{10, 100, 1000} {
		seed := uint64(numbers)
		rng := rand.New(rand.NewPCG(seed, 1))
		var s WholeSet
		model := map[int]WholeRefusal{}
		wentDense := false
		for step := range 4 * numbers {
			num := 1 + rng.IntN(numbers)
			if rng.IntN(4) == 0 {
				_, had := model[num]
				require.Equal(t, had, s.drop(num), "seed %d step %d: drop %d", seed, step, num)
				delete(model, num)
			} else {
				w := WholeRefusal{Expires: rng.Int64N(1000) - 500, Batch: uint64(step), Covered: rng.Uint64N(3)}
				s.Put(num, w, numbers+1)
				model[num] = w
			}
			wentDense = wentDense || s.dense != nil
			require.Equal(t, len(model), s.Len(), "seed %d step %d", seed, step)
			if step%50 == 0 || len(model) < 5 {
				got := maps.Collect(s.All())
				if len(model) == 0 {
					require.Empty(t, got)
				} else {
					require.Equal(t, model, got, "seed %d step %d", seed, step)
				}
			}
			for range 8 {
				probe := rng.IntN(numbers + 2)
				w, ok := s.Get(probe)
				mw, mok := model[probe]
				require.Equal(t, mok, ok, "seed %d step %d: get %d", seed, step, probe)
				require.Equal(t, mw, w)
			}
		}
		require.Equal(t, numbers >= denseFrom, wentDense, "numbers %d: dense once it held enough", numbers)
	}
}

// TestWholeSetGrowsPastTheNumbers checks that a dense set takes numbers
// handed out after it turned dense.
func TestWholeSetGrowsPastTheNumbers(t *testing.T) {
	var s WholeSet
	for num := 1; num <= denseFrom; num++ {
		s.Put(num, WholeRefusal{Expires: int64(num)}, denseFrom+1)
	}
	require.NotNil(t, s.dense, "a full set is dense")
	s.Put(5*denseFrom, WholeRefusal{Expires: 7}, 5*denseFrom+1)
	w, ok := s.Get(5 * denseFrom)
	require.True(t, ok)
	require.Equal(t, int64(7), w.Expires)
	_, ok = s.Get(5*denseFrom - 1)
	require.False(t, ok, "numbers in between have none")
	require.Equal(t, denseFrom+1, s.Len())
}
