package refusals

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func sortedKeys(m map[int]bool) []int {
	var out []int
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Ints(out)
	return out
}

func collect(seq func(func(int) bool), most int) []int {
	var out []int
	for i := range seq {
		if len(out) == most {
			break
		}
		out = append(out, i)
	}
	return out
}

// TestFrameworkBitsAgainstModel sets and clears the two bits of random
// frameworks, and clears rounds, in FrameworkBits and in two plain sets:
// each bit reads back what was put, whatever is done to the other.
func TestFrameworkBitsAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		var b FrameworkBits
		filtered, declined := map[int]bool{}, map[int]bool{}
		most := 40 + rng.IntN(120) // frameworks numbered below most
		for step := range 600 {
			num := rng.IntN(most)
			if rng.IntN(8) == 0 {
				num = rng.IntN(3) // the first words' ends
			}
			switch op := rng.IntN(20); {
			case op < 6:
				b.SetFiltered(num)
				filtered[num] = true
			case op < 10:
				b.ClearFiltered(num)
				filtered[num] = false
			case op < 15:
				b.SetDeclined(num)
				declined[num] = true
			case op < 19:
				b.ClearDeclined(num)
				declined[num] = false
			default:
				b.ClearRound()
				clear(declined)
			}
			for j := range most + 70 {
				if b.Filtered(j) != filtered[j] || b.Declined(j) != declined[j] {
					require.Equal(t, filtered[j], b.Filtered(j), "seed %d step %d: filtered %d", seed, step, j)
					require.Equal(t, declined[j], b.Declined(j), "seed %d step %d: declined %d", seed, step, j)
				}
			}
			wantF, wantD := sortedKeys(filtered), sortedKeys(declined)
			require.Equal(t, wantF, collect(b.FilteredAll(), -1), "seed %d step %d: all filtered", seed, step)
			require.Equal(t, wantD, collect(b.DeclinedAll(), -1), "seed %d step %d: all declined", seed, step)
			if len(wantF) > 1 {
				require.Equal(t, wantF[:1], collect(b.FilteredAll(), 1), "seed %d step %d: stops", seed, step)
			}
			if len(wantD) > 1 {
				require.Equal(t, wantD[:1], collect(b.DeclinedAll(), 1), "seed %d step %d: stops", seed, step)
			}
		}
	}
}

// The bits of framework n are 2n and 2n+1 of one bitset, and clearing a
// round leaves every filter bit.
func TestFrameworkBitsLayout(t *testing.T) {
	var b FrameworkBits
	b.SetFiltered(0)
	b.SetDeclined(0)
	b.SetDeclined(1)
	b.SetFiltered(33) // bit 66, the second word
	b.SetDeclined(40) // bit 81
	require.Equal(t, FrameworkBits{0b1011, 1<<2 | 1<<17}, b)
	require.False(t, b.Filtered(1))
	require.False(t, b.Declined(33))
	require.True(t, b.Filtered(33))
	require.False(t, b.Filtered(2)) // neither bit 4 nor 5 is set
	b.ClearRound()
	require.Equal(t, FrameworkBits{0b0001, 1 << 2}, b)
	require.Equal(t, []int{0, 33}, collect(b.FilteredAll(), -1))
	require.Empty(t, collect(b.DeclinedAll(), -1))
	b.ClearFiltered(0)
	b.ClearFiltered(500) // past the end: nothing
	b.ClearDeclined(500)
	require.Equal(t, FrameworkBits{0, 1 << 2}, b)
	var none FrameworkBits
	none.ClearRound()
	require.False(t, none.Filtered(0))
	require.False(t, none.Declined(0))
}
