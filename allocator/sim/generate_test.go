package sim_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
	"github.com/allot-go/allot/resources"
)

func newRng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func TestArrivals(t *testing.T) {
	rng := newRng(1)
	require.Equal(t, []time.Duration{time.Minute, time.Minute, time.Minute}, sim.AllAtOnce{At: time.Minute}.Times(rng, 3))

	// Poisson: ascending, from Start on, 2 a second on average.
	ts := sim.Poisson{Start: time.Hour, Rate: 2}.Times(rng, 20000)
	require.True(t, slices.IsSorted(ts))
	require.Greater(t, ts[0], time.Hour)
	mean := (ts[len(ts)-1] - time.Hour).Seconds() / float64(len(ts))
	require.InDelta(t, 0.5, mean, 0.01)

	// Bursts: 3 tasks at 10 s, 40 s, 70 s, each spread over 5 s.
	ts = sim.Bursts{Start: 10 * time.Second, Every: 30 * time.Second, Spread: 5 * time.Second, Size: 3}.Times(rng, 8)
	require.Len(t, ts, 8)
	require.True(t, slices.IsSorted(ts))
	for i, d := range ts {
		start := 10*time.Second + time.Duration(i/3)*30*time.Second
		require.True(t, d >= start && d < start+5*time.Second, "task %d at %s, burst at %s", i, d, start)
	}
	require.Equal(t, []time.Duration{0, 0, time.Minute}, sim.Bursts{Every: time.Minute, Size: 2}.Times(rng, 3))
}

func TestDistributions(t *testing.T) {
	rng := newRng(2)
	mean := func(d sim.Dist) float64 {
		var sum float64
		for range 20000 {
			sum += d.Sample(rng)
		}
		return sum / 20000
	}
	require.Equal(t, 7.0, sim.Fixed(7).Sample(rng))
	require.InDelta(t, 15, mean(sim.Uniform{Min: 10, Max: 20}), 0.1)
	require.InDelta(t, 60, mean(sim.Exponential{Mean: 60}), 1.2)
	// A log-normal's mean is its median times e^(σ²/2).
	require.InDelta(t, 100*math.Exp(0.125), mean(sim.LogNormal{Median: 100, Sigma: 0.5}), 1.5)
	require.InDelta(t, 2.5, mean(sim.Choice{Values: []float64{1, 4}, Weights: []float64{1, 1}}), 0.03)
	require.Equal(t, 4.0, sim.Choice{Values: []float64{1, 4}, Weights: []float64{0, 1}}.Sample(rng))
}

func TestSizes(t *testing.T) {
	rng := newRng(3)
	require.Equal(t, "cpus:1; mem:2048", sim.FixedSize("cpus:1;mem:2048").Sample(rng).String())
	// Scaled, rounded to the thousandth, at least a thousandth.
	s := sim.Size{Shapes: []resources.Quantities{qty("cpus:1;mem:2048")}, Scale: sim.Fixed(0.0001)}
	require.Equal(t, "cpus:0.001; mem:0.205", s.Sample(rng).String())
	s = sim.Size{Shapes: []resources.Quantities{qty("cpus:1"), qty("cpus:8")}, Weights: []float64{3, 1}}
	n := 0
	for range 4000 {
		if s.Sample(rng).Float64("cpus") == 8 {
			n++
		}
	}
	require.InDelta(t, 1000, n, 60)
}

// Generated tasks are named Prefix-i, come from the seed alone (each
// generator from a stream of its own), and are submitted in time order.
func TestGenerators(t *testing.T) {
	g := func(prefix string) sim.Generator {
		return sim.Generator{Framework: "f", Prefix: prefix, Count: 50, Arrival: sim.Poisson{Rate: 1},
			Size: sim.FixedSize("cpus:1"), Duration: sim.Exponential{Mean: 10}}
	}
	w := sim.Workload{Generators: []sim.Generator{g("x")}}
	alone, err := w.Expand(5)
	require.NoError(t, err)
	require.Len(t, alone, 50)
	require.Equal(t, "x-1", alone[0].ID)
	require.True(t, slices.IsSortedFunc(alone, func(a, b sim.Task) int { return cmp.Compare(a.Submit, b.Submit) }))
	again, err := w.Expand(5)
	require.NoError(t, err)
	require.Equal(t, alone, again)
	other, err := w.Expand(6)
	require.NoError(t, err)
	require.NotEqual(t, alone[0].Submit, other[0].Submit)

	// Another generator before it does not change its tasks.
	w.Generators = []sim.Generator{g("y"), g("x")}
	both, err := w.Expand(5)
	require.NoError(t, err)
	require.Len(t, both, 100)
	var xs []sim.Task
	for _, tk := range both {
		if tk.ID[0] == 'x' {
			xs = append(xs, tk)
		}
	}
	require.Equal(t, alone, xs)

	w.Generators = []sim.Generator{g("x"), g("x")}
	w.Agents = []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:1"}}
	_, err = sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 5})
	require.ErrorIs(t, err, sim.ErrInvalidWorkload)
	require.ErrorContains(t, err, `task "x-1" of framework "f" submitted twice`)
}
