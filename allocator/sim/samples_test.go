package sim_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
	"github.com/allot-go/allot/resources"
)

// rolesWorkload is a loaded cluster of 8 agents shared by n roles, each
// with a framework submitting tasks of 1 or 2 CPUs as a Poisson stream of
// perSecond tasks a second in all for about the given seconds: enough
// contention for the shares and waits to move.
func rolesWorkload(n int, perSecond float64, seconds int) sim.Workload {
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 8, Resources: "cpus:16;mem:65536"}}}
	shapes := []resources.Quantities{qty("cpus:1;mem:2048"), qty("cpus:2;mem:8192")}
	for i := range n {
		w.Generators = append(w.Generators, sim.Generator{
			Framework: fmt.Sprintf("fw%02d", i), Role: fmt.Sprintf("role%02d", i), Count: int(perSecond*float64(seconds))/n + 1,
			Arrival: sim.Poisson{Rate: perSecond / float64(n)}, Size: sim.Size{Shapes: shapes},
			Duration: sim.Exponential{Mean: 60 + 10*float64(i%5)},
		})
	}
	return w
}

// The Summary is of every interval and every task, whichever samples are
// kept: the same to the bit, and so the same table and summary CSV, with
// every sample, one in a hundred, or at most ten (over the demonstration's
// first burst).
func TestSummaryWhateverTheResolution(t *testing.T) {
	const intervals = 900
	w := sim.BurstyAndSteady()
	configs := []sim.Config{{Name: "drf"}, {Name: "usage", RoleSorterWithClock: sim.Usage(5 * time.Minute)}}
	compare := func(opts sim.RunOptions) *sim.Comparison {
		opts.Seed, opts.Intervals = 1, intervals
		c, err := sim.Compare(w, configs, opts)
		require.NoError(t, err)
		return c
	}
	every := compare(sim.RunOptions{})
	hundredth := compare(sim.RunOptions{SampleEvery: 100})
	ten := compare(sim.RunOptions{MaxSamples: 10})
	text := func(c *sim.Comparison) string {
		var b bytes.Buffer
		require.NoError(t, c.WriteTable(&b))
		require.NoError(t, c.WriteSummaryCSV(&b))
		return b.String()
	}
	for k, r := range every.Results {
		require.Len(t, r.Samples, intervals)
		require.Equal(t, 1, r.SampleStride)
		require.Equal(t, r.Summary, hundredth.Results[k].Summary)
		require.Equal(t, r.Summary, ten.Results[k].Summary)
		require.Equal(t, r.Waits, hundredth.Results[k].Waits)

		// The kept samples are the full run's at their intervals.
		h := hundredth.Results[k]
		require.Equal(t, 100, h.SampleStride)
		require.Len(t, h.Samples, intervals/100)
		for i, s := range h.Samples {
			require.Equal(t, r.Samples[100*i], s)
		}
		tn := ten.Results[k]
		require.LessOrEqual(t, len(tn.Samples), 10)
		require.Equal(t, 128, tn.SampleStride) // 900 intervals: 15 samples 64 apart, 8 at 128
		for i, s := range tn.Samples {
			require.Equal(t, r.Samples[tn.SampleStride*i], s)
		}
	}
	require.Equal(t, text(every), text(hundredth))
	require.Equal(t, text(every), text(ten))
}

// The samples streamed to RunOptions.SamplesCSV are the lines
// WriteSamplesCSV writes of every sample kept, one header for a
// comparison; kept at a lower resolution, the stream still has every
// interval.
func TestSamplesCSVStream(t *testing.T) {
	w := traceWorkload(t)
	var streamed bytes.Buffer
	full, err := sim.Compare(w, threeConfigs, sim.RunOptions{Seed: 1, SamplesCSV: &streamed})
	require.NoError(t, err)
	var kept bytes.Buffer
	require.NoError(t, full.WriteSamplesCSV(&kept))
	require.Equal(t, kept.String(), streamed.String())
	require.Equal(t, 1+3*248, bytes.Count(streamed.Bytes(), []byte("\n")))

	var sparse bytes.Buffer
	few, err := sim.Compare(w, threeConfigs, sim.RunOptions{Seed: 1, SamplesCSV: &sparse, MaxSamples: 5})
	require.NoError(t, err)
	require.Equal(t, kept.String(), sparse.String())
	for _, r := range few.Results {
		require.LessOrEqual(t, len(r.Samples), 5)
	}

	// Run writes the header too, and OnSample sees every interval.
	var one bytes.Buffer
	var seen []time.Duration
	res, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 1, SamplesCSV: &one, SampleEvery: 50,
		OnSample: func(config string, s sim.Sample) error {
			require.Equal(t, "drf", config)
			seen = append(seen, s.At)
			return nil
		}})
	require.NoError(t, err)
	require.Len(t, seen, 248)
	require.Equal(t, 247*time.Second, seen[247])
	require.Len(t, res.Samples, 5) // 0, 50, ..., 200 s
	var alone bytes.Buffer
	require.NoError(t, (&sim.Comparison{Results: []*sim.Result{full.Results[0]}}).WriteSamplesCSV(&alone))
	require.Equal(t, alone.String(), one.String())
}

// A run keeps at most MaxSamples samples however long it is, evenly
// spaced from time zero.
func TestMaxSamplesBound(t *testing.T) {
	w := rolesWorkload(8, 1, 1200)
	for _, bound := range []int{1, 7, 64, 1000} {
		for _, intervals := range []int{1, 5, 333, 1200} {
			calls := 0
			res, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 3, Intervals: intervals, SampleEvery: 3, MaxSamples: bound,
				OnSample: func(string, sim.Sample) error { calls++; return nil }})
			require.NoError(t, err)
			require.Equal(t, intervals, calls)
			require.Equal(t, intervals, res.Summary.Intervals)
			require.LessOrEqual(t, len(res.Samples), bound, "bound %d, %d intervals", bound, intervals)
			require.Equal(t, (intervals+res.SampleStride-1)/res.SampleStride, len(res.Samples), "all the intervals at the stride")
			for i, s := range res.Samples {
				require.Equal(t, time.Duration(i*res.SampleStride)*time.Second, s.At)
			}
			// The stride is the least that keeps within the bound.
			if res.SampleStride > 3 {
				half := res.SampleStride / 2
				require.Greater(t, (intervals+half-1)/half, bound)
			}
		}
	}
}

// A sample sink that fails, or a callback's error, stops the run with
// that error; bad resolutions are refused.
func TestSampleSinkErrors(t *testing.T) {
	w := traceWorkload(t)
	boom := errors.New("disk full")
	_, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 1, SamplesCSV: failingWriter{boom}})
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, `config "drf"`)
	calls := 0
	_, err = sim.Compare(w, threeConfigs, sim.RunOptions{Seed: 1, OnSample: func(string, sim.Sample) error {
		calls++
		if calls == 10 {
			return boom
		}
		return nil
	}})
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "at 9s")
	require.Equal(t, 10, calls)
	for _, opts := range []sim.RunOptions{{SampleEvery: -1}, {MaxSamples: -2}} {
		_, err := sim.Run(w, sim.Config{Name: "drf"}, opts)
		require.ErrorIs(t, err, sim.ErrInvalidOptions)
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// quietWorkload is n roles with three long tasks each, submitted 1000 s
// apart, on four agents: after the last submission nothing happens but
// the intervals, so that a long run costs its samples more than its
// allocations.
func quietWorkload(n int) sim.Workload {
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 4, Resources: "cpus:16;mem:65536"}}}
	for i := range n {
		for k := range 3 {
			w.Tasks = append(w.Tasks, sim.Task{
				Framework: fmt.Sprintf("fw%02d", i), Role: fmt.Sprintf("role%02d", i), ID: fmt.Sprintf("t%d", k),
				Submit: time.Duration(k) * 1000 * time.Second, Resources: qty("cpus:1;mem:1024"), Duration: 1_000_000_000 * time.Second,
			})
		}
	}
	return w
}

// The memory of a run of a million intervals of 8 roles, with every
// sample kept, one in a hundred, and at most a thousand. Reported per run:
// retained-B, the heap the Result holds once done (HeapAlloc after a
// collection, the Result alive, over the baseline before the run), and
// peak-heap-B, the largest HeapAlloc over the baseline read every 10,000
// intervals during the run.
func BenchmarkLongRun(b *testing.B) {
	const intervals = 1_000_000
	w := quietWorkload(8)
	for _, bc := range []struct {
		name string
		opts sim.RunOptions
	}{
		{"keep=all", sim.RunOptions{}},
		{"keep=every100", sim.RunOptions{SampleEvery: 100}},
		{"keep=max1000", sim.RunOptions{MaxSamples: 1000}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opts := bc.opts
			opts.Seed, opts.Intervals = 1, intervals
			var peak uint64
			var ms runtime.MemStats
			opts.OnSample = func(_ string, s sim.Sample) error {
				if s.At%(10_000*time.Second) == 0 {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
				return nil
			}
			b.ReportAllocs()
			var retained, peakOver uint64
			for b.Loop() {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				base := ms.HeapAlloc
				peak = base
				res, err := sim.Run(w, sim.Config{Name: "drf"}, opts)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&ms)
				retained = ms.HeapAlloc - min(base, ms.HeapAlloc)
				peakOver = max(peak, ms.HeapAlloc) - base
				runtime.KeepAlive(res)
			}
			b.ReportMetric(float64(retained), "retained-B")
			b.ReportMetric(float64(peakOver), "peak-heap-B")
		})
	}
}
