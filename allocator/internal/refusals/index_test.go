package refusals

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// indexModel is an Index as plain values: the generation, and the first
// expiry marked for each framework in it.
type indexModel struct {
	gen   uint64
	first map[int]int64 // framework number → expiry of its first mark, ns
}

// until is the earliest expiry among the frameworks' first marks, 0 when
// none. (A framework marked again keeps the expiry it was first marked
// with: the index then ends no later than any of its filters.)
func (m indexModel) until() (int64, bool) {
	var out int64
	ok := false
	for _, e := range m.first {
		if !ok || e < out {
			out, ok = e, true
		}
	}
	return out, ok
}

// TestIndexAgainstModel marks random frameworks with random expiries over a
// few generations and compares the index with the model after each mark:
// the frameworks it holds, its generation, when it ends, and ValidAt
// around that instant and for other generations.
func TestIndexAgainstModel(t *testing.T) {
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for seed := uint64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var idx Index
		m := indexModel{first: map[int]int64{}}
		for step := range 300 {
			gen := m.gen
			switch rng.IntN(12) {
			case 0:
				gen++ // a new generation
			case 1:
				gen = rng.Uint64N(4) // any other, or the same
			}
			i := rng.IntN(200)
			exp := base + rng.Int64N(50)
			idx.Mark(i, gen, time.Unix(0, exp))
			if gen != m.gen {
				m = indexModel{gen: gen, first: map[int]int64{}}
			}
			if _, ok := m.first[i]; !ok {
				m.first[i] = exp
			}

			require.Equal(t, m.gen, idx.Gen, "seed %d step %d", seed, step)
			require.Equal(t, len(m.first), idx.Skip.Count(), "seed %d step %d", seed, step)
			for j := range 210 {
				if _, want := m.first[j]; want != idx.Skip.Has(j) {
					require.Equal(t, want, idx.Skip.Has(j), "seed %d step %d: framework %d", seed, step, j)
				}
			}
			var nums []int
			for j := range idx.Skip.All() {
				nums = append(nums, j)
			}
			var wantNums []int
			for j := range m.first {
				wantNums = append(wantNums, j)
			}
			sort.Ints(wantNums)
			require.Equal(t, wantNums, nums, "seed %d step %d", seed, step)

			until, _ := m.until()
			require.Equal(t, until, idx.Until.UnixNano(), "seed %d step %d: until", seed, step)
			at := func(d int64) time.Time { return time.Unix(0, until+d) }
			require.True(t, idx.ValidAt(m.gen, at(-1)), "seed %d step %d: valid before its end", seed, step)
			require.True(t, idx.ValidAt(m.gen, at(-1000)), "seed %d step %d", seed, step)
			require.False(t, idx.ValidAt(m.gen, at(0)), "seed %d step %d: over at its end", seed, step)
			require.False(t, idx.ValidAt(m.gen, at(1)), "seed %d step %d", seed, step)
			require.False(t, idx.ValidAt(m.gen+1, at(-1)), "seed %d step %d: for its generation only", seed, step)
			require.False(t, idx.ValidAt(m.gen-1, at(-1)), "seed %d step %d: for its generation only", seed, step)
		}
	}
}

// The zero index holds no framework and is valid for no run; a first mark
// starts it, in generation 0 too.
func TestIndexZero(t *testing.T) {
	var idx Index
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	require.False(t, idx.ValidAt(0, now))
	require.False(t, idx.ValidAt(0, time.Time{}))
	idx.Mark(3, 0, now.Add(time.Second))
	require.True(t, idx.ValidAt(0, now))
	require.True(t, idx.Skip.Has(3))
	require.Equal(t, now.Add(time.Second), idx.Until)
	// A later expiry does not extend it, an earlier one shortens it.
	idx.Mark(5, 0, now.Add(time.Minute))
	require.Equal(t, now.Add(time.Second), idx.Until)
	idx.Mark(6, 0, now.Add(time.Millisecond))
	require.Equal(t, now.Add(time.Millisecond), idx.Until)
	// A new generation forgets the old one's frameworks and expiries.
	idx.Mark(1, 9, now.Add(time.Hour))
	require.Equal(t, uint64(9), idx.Gen)
	require.Equal(t, 1, idx.Skip.Count())
	require.True(t, idx.Skip.Has(1))
	require.Equal(t, now.Add(time.Hour), idx.Until)
	require.True(t, idx.ValidAt(9, now.Add(time.Minute)))
	require.False(t, idx.ValidAt(0, now))
}

// InForceAt: a filter applies to every run before its expiry, and at the
// very instant of it only to a periodic run of the batch it was made in.
func TestInForceAt(t *testing.T) {
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	rng := rand.New(rand.NewPCG(11, 11))
	for n := range 5000 {
		exp, now := rng.Int64N(4), rng.Int64N(4)
		batch, batches := rng.Uint64N(3), rng.Uint64N(3)
		periodic := rng.IntN(2) == 0
		want := now < exp || (now == exp && periodic && batch == batches)
		got := InForceAt(time.Unix(0, base+exp), batch, time.Unix(0, base+now), periodic, batches)
		require.Equal(t, want, got, "case %d: expires %d batch %d now %d periodic %v batches %d", n, exp, batch, now, periodic, batches)
	}
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	require.True(t, InForceAt(at, 3, at, true, 3))
	require.False(t, InForceAt(at, 3, at, true, 4))
	require.False(t, InForceAt(at, 4, at, true, 3))
	require.False(t, InForceAt(at, 3, at, false, 3))
	require.True(t, InForceAt(at, 0, at.Add(-time.Nanosecond), false, 9))
	require.False(t, InForceAt(at, 3, at.Add(time.Nanosecond), true, 3))
	// The same instant in another zone is the same instant.
	require.True(t, InForceAt(at, 1, at.In(time.FixedZone("x", 3600)), true, 1))
}
