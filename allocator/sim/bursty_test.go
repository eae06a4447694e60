package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
)

// burstyComparison runs the demonstration workload with DRF and with the
// usage-history sorter (a five-minute half-life).
func burstyComparison(t *testing.T) (drf, usage *sim.Result) {
	t.Helper()
	cmp, err := sim.Compare(sim.BurstyAndSteady(), []sim.Config{
		{Name: "drf"},
		{Name: "usage", RoleSorterWithClock: sim.Usage(5 * time.Minute)},
	}, sim.RunOptions{Seed: 1, Intervals: sim.BurstyIntervals})
	require.NoError(t, err)
	return cmp.Results[0], cmp.Results[1]
}

// figures are what the demonstration shows of a configuration.
type figures struct {
	cpus, mem, jain                float64
	launched, finished, unfinished int
	burstyShare, steadyShare       float64
	burstyLaunched, steadyLaunched int
	burstyWaits, steadyWaits       [3]time.Duration // p50, p90, p99
}

func figuresOf(r *sim.Result) figures {
	b, _ := r.Role("bursty")
	s, _ := r.Role("steady")
	sum := r.Summary
	waits := func(w sim.WaitStats) [3]time.Duration {
		return [3]time.Duration{w.P50.Round(100 * time.Millisecond), w.P90.Round(100 * time.Millisecond), w.P99.Round(100 * time.Millisecond)}
	}
	round := func(v float64) float64 { return float64(int(v*1000+0.5)) / 1000 }
	return figures{
		cpus: round(sum.Utilisation[0]), mem: round(sum.Utilisation[1]), jain: round(sum.Jain),
		launched: sum.Launched, finished: sum.Finished, unfinished: sum.Unfinished,
		burstyShare: round(sum.Share[b]), steadyShare: round(sum.Share[s]),
		burstyLaunched: sum.Waits[b].Tasks, steadyLaunched: sum.Waits[s].Tasks,
		burstyWaits: waits(sum.Waits[b]), steadyWaits: waits(sum.Waits[s]),
	}
}

func secs(s ...float64) [3]time.Duration {
	var out [3]time.Duration
	for i, v := range s {
		out[i] = time.Duration(v * float64(time.Second))
	}
	return out
}

// Where the usage-history sorter helps, and where it costs, on one
// workload: the figures the lab prints, asserted one by one, and the
// relations between them that make the case.
func TestBurstyAndSteady(t *testing.T) {
	drf, usage := burstyComparison(t)
	require.Equal(t, figures{
		cpus: 0.914, mem: 0.72, jain: 0.99,
		launched: 2397, finished: 2297, unfinished: 422,
		burstyShare: 0.351, steadyShare: 0.739, burstyLaunched: 587, steadyLaunched: 1810,
		burstyWaits: secs(129, 282, 321), steadyWaits: secs(111, 203.1, 265),
	}, figuresOf(drf))
	require.Equal(t, figures{
		cpus: 0.887, mem: 0.718, jain: 0.952,
		launched: 2333, finished: 2237, unfinished: 482,
		burstyShare: 0.366, steadyShare: 0.704, burstyLaunched: 600, steadyLaunched: 1733,
		burstyWaits: secs(116, 244, 277), steadyWaits: secs(127.5, 250.4, 340.9),
	}, figuresOf(usage))

	// The same submissions reach both: three bursts of 200, and steady's
	// Poisson stream of 1.2 a second (2160 expected in 1800 s, 2119 drawn).
	for _, r := range []*sim.Result{drf, usage} {
		require.Equal(t, 2719, r.Summary.Submitted)
		require.Equal(t, r.Summary.Submitted, r.Summary.Finished+r.Summary.Unfinished)
		require.Zero(t, r.Summary.Lost)
		// bursty's tasks hold 8 GB for 90 s on average: 600 of them in
		// half an hour are at most 0.375 of the memory on average.
		b, _ := r.Role("bursty")
		require.LessOrEqual(t, r.Summary.Share[b], 0.375)
	}

	// Where it helps: every burst is served further (all 600 tasks run,
	// against 587), and the bursty tenant waits less at every percentile.
	d, u := figuresOf(drf), figuresOf(usage)
	require.Greater(t, u.burstyLaunched, d.burstyLaunched)
	require.Greater(t, u.burstyShare, d.burstyShare)
	for i := range 3 {
		require.Less(t, u.burstyWaits[i], d.burstyWaits[i], "bursty wait %d", i)
		// Where it costs: the steady tenant waits more...
		require.Greater(t, u.steadyWaits[i], d.steadyWaits[i], "steady wait %d", i)
	}
	// ... 8 GB tasks strand CPUs steady's tasks would have used, so fewer
	// CPUs are in use and fewer tasks finish, memory being about as full...
	require.Less(t, u.cpus, d.cpus)
	require.InDelta(t, u.mem, d.mem, 0.005)
	require.Less(t, u.finished, d.finished)
	// ... and the weighted shares stay apart while a burst is served
	// beyond DRF's point of equal shares: Jain's index falls.
	require.Less(t, u.jain, d.jain)
}

// During a burst DRF holds the two tenants at equal dominant shares; the
// usage sorter lets bursty pass steady.
func TestBurstyShares(t *testing.T) {
	drf, usage := burstyComparison(t)
	b, _ := drf.Role("bursty")
	s, _ := drf.Role("steady")
	at := func(r *sim.Result, sec int) (float64, float64) {
		x := r.Samples[sec]
		return x.WeightedShare[b], x.WeightedShare[s]
	}
	round := func(v float64) float64 { return float64(int(v*1000+0.5)) / 1000 }
	type pair struct{ bursty, steady float64 }
	shares := func(r *sim.Result, sec int) pair {
		x, y := at(r, sec)
		return pair{round(x), round(y)}
	}
	// Before the first burst (5 minutes) steady has the cluster to itself,
	// at its 90% of the CPUs give or take its Poisson stream.
	require.Equal(t, pair{0, 0.813}, shares(drf, 290))
	require.Equal(t, shares(drf, 290), shares(usage, 290))
	// Three minutes into the first burst: DRF holds the two at equal
	// dominant shares (bursty's memory, steady's CPUs), within a task;
	// the usage sorter has let bursty pass steady by a fifth of the
	// cluster (bursty's record is nothing, steady's is its minutes at
	// 0.8 and more).
	bd, sd := at(drf, 480)
	require.InDelta(t, bd, sd, 0.0125) // a task of steady is 2 of 160 CPUs
	require.Equal(t, pair{0.625, 0.613}, shares(drf, 480))
	require.Equal(t, pair{0.725, 0.513}, shares(usage, 480))
}
