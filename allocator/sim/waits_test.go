package sim_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
)

// nearest returns the p-th percentile of sorted waits by nearest rank.
func nearest(sorted []time.Duration, p float64) time.Duration {
	rank := int(p * float64(len(sorted)) / 100)
	if float64(rank)*100 < p*float64(len(sorted)) {
		rank++
	}
	return sorted[max(rank, 1)-1]
}

// The histogram's percentiles are the exact ones rounded down by less
// than 1/256 of them, over waits from nanoseconds to days; the count and
// the largest wait are exact.
func TestWaitHistogramRelativeError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h sim.WaitHistogram
	var waits []time.Duration
	for range 20_000 {
		d := time.Duration(rng.ExpFloat64() * float64(rng.Int64N(int64(24*time.Hour))))
		if rng.IntN(10) == 0 {
			d = time.Duration(rng.IntN(600)) // the exact buckets
		}
		h.Add(d)
		waits = append(waits, d)
	}
	slices.Sort(waits)
	require.Equal(t, len(waits), h.Count())
	require.Equal(t, waits[len(waits)-1], h.Max())
	for _, p := range []float64{0.01, 1, 5, 10, 25, 50, 75, 90, 99, 99.9, 100} {
		exact, got := nearest(waits, p), h.Percentile(p)
		require.LessOrEqual(t, got, exact, "p%v", p)
		require.Less(t, float64(exact-got), float64(exact)/256+1e-9, "p%v: %s for %s", p, got, exact)
		if exact < 512 {
			require.Equal(t, exact, got, "p%v: below 512 ns every wait has its bucket", p)
		}
	}
	var sum float64
	for _, d := range waits {
		sum += float64(d)
	}
	require.InDelta(t, sum/float64(len(waits)), float64(h.Mean()), 1)
	require.Zero(t, new(sim.WaitHistogram).Percentile(50))
}

// A role that launches more than ExactWaits tasks keeps a histogram of
// its waits instead of each: its Summary counts and maximum are those of
// the exact run, its percentiles within 1/256 below them.
func TestRunExactWaitsBound(t *testing.T) {
	w := busyWorkload()
	exactRun, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 2, ExactWaits: -1})
	require.NoError(t, err)
	bounded, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 2, ExactWaits: 100})
	require.NoError(t, err)
	byDefault, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 2})
	require.NoError(t, err)
	require.Equal(t, exactRun.Summary, byDefault.Summary, "small runs are exact by default")
	require.Equal(t, exactRun.Waits, byDefault.Waits)

	histograms := 0
	for i, role := range exactRun.Roles {
		e, b := exactRun.Summary.Waits[i], bounded.Summary.Waits[i]
		require.Equal(t, e.Tasks, b.Tasks, role)
		require.Equal(t, e.Max, b.Max, role)
		require.Nil(t, exactRun.WaitHistograms[i])
		if e.Tasks <= 100 {
			require.Equal(t, e, b, role)
			require.Nil(t, bounded.WaitHistograms[i], role)
			continue
		}
		histograms++
		require.Nil(t, bounded.Waits[i], role)
		require.Equal(t, e.Tasks, bounded.WaitHistograms[i].Count(), role)
		for _, pair := range [][2]time.Duration{{e.P50, b.P50}, {e.P90, b.P90}, {e.P99, b.P99}} {
			require.LessOrEqual(t, pair[1], pair[0], role)
			require.Less(t, float64(pair[0]-pair[1]), float64(pair[0])/256+1e-9, role)
		}
		require.InDelta(t, float64(e.Mean), float64(b.Mean), 1, role)
	}
	require.Equal(t, 2, histograms, "two roles launch more than 100 tasks")

}
