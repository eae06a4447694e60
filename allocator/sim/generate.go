package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/allot-go/allot/resources"
)

// Generator draws Count tasks for a framework from the run's seed: their
// submission times from Arrival, their resources from Size and their
// durations from Duration. Task i (from 1) is named Prefix-i (Prefix
// defaults to "g" and the generator's index in Workload.Generators, "g0").
// The draws come from a stream of the seed named by Framework and Prefix:
// other generators do not change them.
type Generator struct {
	Framework, Role string
	Prefix          string
	Count           int
	Arrival         Arrival
	Size            Size
	// Duration is drawn in seconds.
	Duration Dist
	// Group and DifferentMachines are given to every task.
	Group             string
	DifferentMachines bool
}

// Arrival is an arrival process: the submission times of n tasks.
type Arrival interface {
	// Times returns n times in ascending order, drawn from rng.
	Times(rng *rand.Rand, n int) []time.Duration
}

// AllAtOnce submits every task at At: a backlog.
type AllAtOnce struct{ At time.Duration }

// Times returns n times At.
func (a AllAtOnce) Times(_ *rand.Rand, n int) []time.Duration {
	ts := make([]time.Duration, n)
	for i := range ts {
		ts[i] = a.At
	}
	return ts
}

// Poisson submits tasks from Start at Rate tasks per second on average,
// with exponential gaps between them.
type Poisson struct {
	Start time.Duration
	Rate  float64
}

// Times returns n times of a Poisson process.
func (p Poisson) Times(rng *rand.Rand, n int) []time.Duration {
	ts := make([]time.Duration, n)
	t := float64(p.Start)
	for i := range ts {
		t += rng.ExpFloat64() / p.Rate * float64(time.Second)
		ts[i] = time.Duration(math.Min(t, float64(maxTime)))
	}
	return ts
}

// Bursts submits Size tasks every Every from Start, each burst spread
// uniformly over its first Spread (all at once when Spread is zero).
type Bursts struct {
	Start, Every, Spread time.Duration
	Size                 int
}

// Times returns n times in bursts.
func (b Bursts) Times(rng *rand.Rand, n int) []time.Duration {
	ts := make([]time.Duration, 0, n)
	for burst := 0; len(ts) < n; burst++ {
		at := time.Duration(math.Min(float64(b.Start)+float64(burst)*float64(b.Every), float64(maxTime)))
		for range min(b.Size, n-len(ts)) {
			t := at
			if b.Spread > 0 {
				t += time.Duration(rng.Int64N(int64(b.Spread)))
			}
			ts = append(ts, min(t, maxTime)) // t cannot wrap: both parts are at most maxTime
		}
	}
	slices.Sort(ts)
	return ts
}

// Dist is a distribution of positive numbers.
type Dist interface {
	Sample(rng *rand.Rand) float64
}

// Fixed is always its value.
type Fixed float64

// Sample returns f.
func (f Fixed) Sample(*rand.Rand) float64 { return float64(f) }

// Uniform is uniform on [Min, Max).
type Uniform struct{ Min, Max float64 }

// Sample draws a value.
func (u Uniform) Sample(rng *rand.Rand) float64 { return u.Min + (u.Max-u.Min)*rng.Float64() }

// Exponential has mean Mean.
type Exponential struct{ Mean float64 }

// Sample draws a value.
func (e Exponential) Sample(rng *rand.Rand) float64 { return e.Mean * rng.ExpFloat64() }

// LogNormal has median Median and log-space standard deviation Sigma: the
// heavy-tailed durations of batch jobs.
type LogNormal struct{ Median, Sigma float64 }

// Sample draws a value.
func (l LogNormal) Sample(rng *rand.Rand) float64 {
	return l.Median * math.Exp(l.Sigma*rng.NormFloat64())
}

// Choice is one of Values, with probabilities proportional to Weights
// (equal when Weights is nil).
type Choice struct {
	Values  []float64
	Weights []float64
}

// Sample draws a value.
func (c Choice) Sample(rng *rand.Rand) float64 { return c.Values[pick(rng, len(c.Values), c.Weights)] }

// Size draws a task's resources: one of Shapes (with probabilities
// proportional to Weights, equal when nil), every amount multiplied by a
// draw of Scale (1 when nil) and rounded to the thousandth, at least one
// thousandth.
type Size struct {
	Shapes  []resources.Quantities
	Weights []float64
	Scale   Dist
}

// FixedSize is a Size of one shape, from quantities text ("cpus:1;mem:2048").
func FixedSize(text string) Size {
	return Size{Shapes: []resources.Quantities{resources.MustParseQuantities(text)}}
}

// Sample draws resources.
func (s Size) Sample(rng *rand.Rand) resources.Quantities {
	shape := s.Shapes[pick(rng, len(s.Shapes), s.Weights)]
	if s.Scale == nil {
		return shape
	}
	return scaled(shape, s.Scale.Sample(rng))
}

// scaled multiplies every amount of q by f, keeping every name at least a
// thousandth.
func scaled(q resources.Quantities, f float64) resources.Quantities {
	var out resources.Quantities
	for name, v := range q.All() {
		amount := math.Max(v.Float64()*f, 0.001)
		out.Set(name, math.Min(amount, maxAmount))
	}
	return out
}

// pick draws an index below n with probabilities proportional to weights
// (equal when weights is nil).
func pick(rng *rand.Rand, n int, weights []float64) int {
	if weights == nil {
		return rng.IntN(n)
	}
	var sum float64
	for _, w := range weights {
		sum += w
	}
	x := rng.Float64() * sum
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return n - 1
}

// maxGenerated bounds the tasks of one generator.
const maxGenerated = 10_000_000

// maxAmount is the largest amount a drawn size may hold, the bound package
// resources puts on amounts.
const maxAmount = 1e12

// validate checks what can be checked before drawing.
func (g Generator) validate() error {
	switch {
	case g.Framework == "":
		return fmt.Errorf("no framework")
	case g.Count < 0 || g.Count > maxGenerated:
		return fmt.Errorf("count %d: want 0 to %d", g.Count, maxGenerated)
	case g.Arrival == nil:
		return fmt.Errorf("no arrival process")
	case g.Duration == nil:
		return fmt.Errorf("no duration distribution")
	case len(g.Size.Shapes) == 0:
		return fmt.Errorf("no task shape")
	case g.Size.Weights != nil && len(g.Size.Weights) != len(g.Size.Shapes):
		return fmt.Errorf("%d weights for %d shapes", len(g.Size.Weights), len(g.Size.Shapes))
	}
	if err := validWeights(g.Size.Weights); err != nil {
		return err
	}
	if err := validArrival(g.Arrival); err != nil {
		return err
	}
	for _, d := range []Dist{g.Duration, g.Size.Scale} {
		if c, ok := d.(Choice); ok {
			if len(c.Values) == 0 || (c.Weights != nil && len(c.Weights) != len(c.Values)) {
				return fmt.Errorf("choice of %d values with %d weights", len(c.Values), len(c.Weights))
			}
			if err := validWeights(c.Weights); err != nil {
				return err
			}
		}
	}
	return nil
}

func validArrival(a Arrival) error {
	switch a := a.(type) {
	case Poisson:
		if !(a.Rate > 0) || math.IsInf(a.Rate, 0) || a.Start < 0 || a.Start > maxTime {
			return fmt.Errorf("poisson rate %v from %s: want a finite rate above zero from 0 to %s", a.Rate, a.Start, maxTime)
		}
	case Bursts:
		if a.Size < 1 || a.Every <= 0 || a.Start < 0 || a.Spread < 0 || max(a.Start, a.Every, a.Spread) > maxTime {
			return fmt.Errorf("bursts of %d every %s from %s over %s: want at least one task, a positive period, times from 0 to %s",
				a.Size, a.Every, a.Start, a.Spread, maxTime)
		}
	case AllAtOnce:
		if a.At < 0 {
			return fmt.Errorf("arrival at %s is negative", a.At)
		}
	}
	return nil
}

func validWeights(ws []float64) error {
	var sum float64
	for _, w := range ws {
		if !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("weight %v: want a finite number, zero or more", w)
		}
		sum += w
	}
	if ws != nil && sum <= 0 {
		return fmt.Errorf("weights sum to zero")
	}
	return nil
}

// prefix returns the prefix of the task ids of g, the i-th generator.
func (g Generator) prefix(i int) string {
	if g.Prefix != "" {
		return g.Prefix
	}
	return fmt.Sprintf("g%d", i)
}

// generate draws g's tasks. i is g's index, for the default prefix.
func (g Generator) generate(rng *rand.Rand, i int) ([]Task, error) {
	if err := g.validate(); err != nil {
		return nil, err
	}
	prefix := g.prefix(i)
	times := g.Arrival.Times(rng, g.Count)
	if len(times) != g.Count {
		return nil, fmt.Errorf("arrival process gave %d times for %d tasks", len(times), g.Count)
	}
	tasks := make([]Task, g.Count)
	for n := range tasks {
		secs := g.Duration.Sample(rng)
		if !(secs > 0) || secs > maxTime.Seconds() {
			return nil, fmt.Errorf("task %d: duration %v s: want above zero and at most %v", n+1, secs, maxTime.Seconds())
		}
		d := max(time.Duration(secs*float64(time.Second)), time.Nanosecond)
		tasks[n] = Task{
			Framework: g.Framework, Role: g.Role, ID: fmt.Sprintf("%s-%d", prefix, n+1),
			Submit: times[n], Resources: g.Size.Sample(rng), Duration: d,
			Group: g.Group, DifferentMachines: g.DifferentMachines,
		}
	}
	return tasks, nil
}
