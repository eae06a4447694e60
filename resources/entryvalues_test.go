package resources

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// portsOf returns a Resources of ports holding r (normalised, not empty).
func portsOf(r Ranges) Resources {
	var rs Resources
	rs.addEntry(entryOf(&Resource{Name: "ports", Type: RangesType, Ranges: r}, 1))
	return rs
}

// narrow reports whether rs's one entry keeps its ranges narrow.
func narrow(t *testing.T, rs Resources) bool {
	t.Helper()
	require.Len(t, rs.entries, 1)
	v := rs.entries[0].vals
	require.NotNil(t, v)
	return v.more == nil
}

// Ranges whose bounds fit 32 bits are kept in 8 bytes a range, others as
// given; a value is narrow whenever it can be, so a wide value that loses
// its wide part becomes narrow and equals the same ranges made narrow.
func TestRangesKeptNarrow(t *testing.T) {
	require.EqualValues(t, 8, unsafe.Sizeof(narrowRange{}))
	const top32 = math.MaxUint32
	edge := portsOf(Ranges{{0, top32}})
	require.True(t, narrow(t, edge), "bounds of 32 bits are narrow")
	require.Equal(t, uint64(1)<<32, edge.entries[0].vals.count())
	require.Equal(t, "ports:[0-4294967295]", edge.String())
	wide := portsOf(Ranges{{5, 9}, {top32 + 1, top32 + 1}})
	require.False(t, narrow(t, wide), "a bound past 32 bits is wide")

	small := wide.Minus(portsOf(Ranges{{top32 + 1, top32 + 1}}))
	require.True(t, narrow(t, small), "what is left of a wide value is narrow")
	require.True(t, small.Equal(portsOf(Ranges{{5, 9}})))
	require.True(t, portsOf(Ranges{{5, 9}}).Contains(small) && small.Contains(portsOf(Ranges{{5, 9}})))
	back := small.Plus(portsOf(Ranges{{top32 + 1, top32 + 1}}))
	require.False(t, narrow(t, back))
	require.True(t, back.Equal(wide))
	require.True(t, back.Contains(small) && !small.Contains(back))
	require.False(t, small.Equal(back))

	// A lookup keeps its ranges as given, wide where they would fit narrow,
	// and still finds the narrow value that holds them.
	probe := RangesResource("ports", Ranges{{5, 9}})
	require.True(t, small.ContainsResource(probe))
	require.Equal(t, 1, small.Copies(probe))
	require.True(t, wide.ContainsResource(probe))
	require.True(t, small.ContainsResource(RangesResource("ports", Ranges{{6, 7}})))
	require.False(t, small.ContainsResource(RangesResource("ports", Ranges{{6, 12}})))
	require.False(t, small.ContainsResource(RangesResource("ports", Ranges{{5, 9}, {top32 + 1, top32 + 1}})))
	require.True(t, wide.ContainsResource(RangesResource("ports", Ranges{{5, 9}, {top32 + 1, top32 + 1}})))
	var m meta
	lookup, stored := lookupEntry(&probe, &m), small.entries[0]
	require.True(t, sameValue(&stored, &lookup) && sameValue(&lookup, &stored), "a wide lookup and the narrow value it equals")
	for _, rs := range []Resources{wide, small} {
		read, _, err := NewDecoder().ReadResources(NewEncoder().AppendResources(nil, rs))
		require.NoError(t, err)
		require.True(t, read.Equal(rs), "%s read back as %s", rs, read)
		require.Equal(t, narrow(t, rs), narrow(t, read), "%s read back", rs)
	}
}

// Sums, differences, containment and counts of port lists, short and
// longer than the buffers operations unpack into on the stack, narrow and
// wide, agree with the same operations on Ranges.
func TestRangesValuesAgainstRanges(t *testing.T) {
	seed := uint64(20261127)
	rng := rand.New(rand.NewPCG(seed, 2))
	for round := range 1500 {
		n := 1 + rng.IntN(4*onStack*2)
		a, b := randomMarks(rng, n, rng.Float64()), randomMarks(rng, n, rng.Float64())
		ra, rb := rangesOf(a), rangesOf(b)
		if rng.IntN(4) == 0 { // a wide bound on one side
			ra = append(ra, Range{1 << 40, 1<<40 + uint64(rng.IntN(3))})
		}
		if len(ra) == 0 || len(rb) == 0 {
			continue
		}
		x, y := portsOf(ra), portsOf(rb)
		require.Equal(t, []Resource{RangesResource("ports", ra)}, x.Slice(), "seed %d round %d", seed, round)
		sum, diff := x.Plus(y), x.Minus(y)
		want := ra.Union(rb)
		require.Equal(t, "ports:"+want.String(), sum.String(), "seed %d round %d: %v ∪ %v", seed, round, ra, rb)
		if d := ra.Difference(rb); len(d) == 0 {
			require.True(t, diff.IsEmpty(), "seed %d round %d", seed, round)
		} else {
			require.Equal(t, "ports:"+d.String(), diff.String(), "seed %d round %d: %v ∖ %v", seed, round, ra, rb)
			require.Equal(t, d[len(d)-1].End <= math.MaxUint32, narrow(t, diff), "seed %d round %d: narrow when it can be", seed, round)
		}
		require.Equal(t, ra.Contains(rb), x.Contains(y), "seed %d round %d: %v ⊇ %v", seed, round, ra, rb)
		require.Equal(t, rb.Contains(ra), y.Contains(x), "seed %d round %d: %v ⊇ %v", seed, round, rb, ra)
		require.True(t, sum.Contains(x) && sum.Contains(y), "seed %d round %d", seed, round)
		var q Quantities
		q.SetScalar("ports", Units(int64(min(ra.Count(), 1<<40))))
		require.True(t, x.ContainsQuantities(q), "seed %d round %d: %v holds %v", seed, round, ra, q)
		q.SetScalar("ports", Units(int64(min(ra.Count(), 1<<40)+1)))
		require.False(t, x.ContainsQuantities(q), "seed %d round %d: %v holds %v", seed, round, ra, q)
	}
}
