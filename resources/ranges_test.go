package resources

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// rangesOf returns the normalised ranges of the integers marked in in.
func rangesOf(in []bool) Ranges {
	out := Ranges{}
	for i := 0; i < len(in); i++ {
		if !in[i] {
			continue
		}
		j := i
		for j+1 < len(in) && in[j+1] {
			j++
		}
		out = append(out, Range{uint64(i), uint64(j)})
		i = j
	}
	return out
}

// randomMarks marks each of n integers with probability p.
func randomMarks(rng *rand.Rand, n int, p float64) []bool {
	m := make([]bool, n)
	for i := range m {
		m[i] = rng.Float64() < p
	}
	return m
}

// Union and Difference of normalised ranges give the set operations'
// results, normalised, in storage of exactly their length; Union of lists
// that are not normalised (out of order, overlapping, adjacent) gives
// the same as of their normalised forms.
func TestRangesUnionDifference(t *testing.T) {
	seed := uint64(20261127)
	rng := rand.New(rand.NewPCG(seed, 1))
	for round := range 2000 {
		n := 1 + rng.IntN(120)
		a, b := randomMarks(rng, n, rng.Float64()), randomMarks(rng, n, rng.Float64())
		union, diff := make([]bool, n), make([]bool, n)
		for i := range n {
			union[i], diff[i] = a[i] || b[i], a[i] && !b[i]
		}
		ra, rb := rangesOf(a), rangesOf(b)
		got := ra.Union(rb)
		require.Equal(t, rangesOf(union), got, "seed %d round %d: %v ∪ %v", seed, round, ra, rb)
		require.Equal(t, len(got), cap(got), "seed %d round %d: union storage", seed, round)
		got = ra.Difference(rb)
		require.Equal(t, rangesOf(diff), got, "seed %d round %d: %v \\ %v", seed, round, ra, rb)
		require.Equal(t, len(got), cap(got), "seed %d round %d: difference storage", seed, round)
		// The same ranges cut into pieces and shuffled: not normalised.
		var pieces Ranges
		for _, x := range ra {
			for b := x.Begin; b <= x.End; {
				e := min(x.End, b+uint64(rng.IntN(3)))
				pieces = append(pieces, Range{b, e})
				b = e + 1
			}
		}
		rng.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
		require.Equal(t, rangesOf(union), pieces.Union(rb), "seed %d round %d: pieces of %v ∪ %v", seed, round, ra, rb)
	}
	top := uint64(math.MaxUint64)
	require.Equal(t, Ranges{{0, top}}, Ranges{{0, 10}, {top - 5, top}}.Union(Ranges{{11, top - 6}}))
	require.Equal(t, Ranges{{5, top}}, Ranges{{top - 1, top}}.Union(Ranges{{5, top - 2}}))
	require.Equal(t, Ranges{{0, 4}, {top, top}}, Ranges{{0, top}}.Difference(Ranges{{5, top - 1}}))
	require.Empty(t, Ranges{{3, 9}}.Difference(Ranges{{0, 20}}))
	require.True(t, slices.Equal(Ranges{{1, 2}}, Ranges{{1, 2}}.Union(nil)))
}

// Union and Difference make one allocation each, however many ranges.
func TestRangesAllocateOnce(t *testing.T) {
	var used, all Ranges
	for i := range 16 {
		used = append(used, Range{uint64(31000 + 12*i), uint64(31009 + 12*i)})
	}
	all = Ranges{{31000, 32000}}
	if n := testing.AllocsPerRun(50, func() { _ = all.Difference(used) }); n != 1 {
		t.Errorf("Difference: %v allocations", n)
	}
	left := all.Difference(used)
	if n := testing.AllocsPerRun(50, func() { _ = left.Union(used) }); n != 1 {
		t.Errorf("Union: %v allocations", n)
	}
}
