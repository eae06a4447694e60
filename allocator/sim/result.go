package sim

import (
	"slices"
	"time"
)

// StopReason says why a run stopped.
type StopReason string

const (
	// StopIntervals: it made RunOptions.Intervals runs.
	StopIntervals StopReason = "intervals"
	// StopDone: every task ended and no event was left.
	StopDone StopReason = "done"
	// StopStalled: tasks wait that no agent can run, and nothing is left
	// to happen.
	StopStalled StopReason = "stalled"
	// StopLimit: it reached RunOptions.MaxIntervals.
	StopLimit StopReason = "limit"
)

// Result is what a run measured.
type Result struct {
	Config   string
	Interval time.Duration
	// Resources are the cluster's scalar resources, Roles the roles with
	// their Weights: the indexes of Sample's and Summary's figures.
	Resources []string
	Roles     []string
	Weights   []float64
	// Samples has one Sample per interval.
	Samples []Sample
	// Waits are, per role, the waits of every task launched (from its
	// submission to its launch), ascending.
	Waits   [][]time.Duration
	Summary Summary
	Stopped StopReason
}

// Summary sums a run up.
type Summary struct {
	Intervals int
	// Utilisation is the mean of the samples' per resource.
	Utilisation []float64
	// Share and WeightedShare are the means of the samples' per role.
	Share, WeightedShare []float64
	// Jain is the mean of the samples' index over the Contended
	// intervals, those with two roles or more waiting; 1 when there are
	// none.
	Jain      float64
	Contended int
	// Waits are per role.
	Waits []WaitStats
	// Submitted counts submissions (a task lost with its agent is
	// submitted again), Launched launches, Finished tasks that ran to
	// their end, Lost tasks lost with their agent, Unfinished tasks
	// pending or running when the run stopped.
	Submitted, Launched, Finished, Lost, Unfinished int
	// Offers and Declined sum the samples'.
	Offers, Declined int
	// RunTime sums up the allocation runs' durations; zero without a
	// stopwatch.
	RunTime RunTimeStats
}

// WaitStats are the waits of one role's launched tasks, by nearest rank.
type WaitStats struct {
	Tasks                    int
	Mean, P50, P90, P99, Max time.Duration
}

// RunTimeStats are the allocation runs' durations.
type RunTimeStats struct {
	Total, Mean, Max time.Duration
}

// Role returns the index of role in r.Roles, and false if r has no such
// role.
func (r *Result) Role(role string) (int, bool) {
	i := slices.Index(r.Roles, role)
	return i, i >= 0
}

// Resource returns the index of resource name in r.Resources, and false
// if r has no such resource.
func (r *Result) Resource(name string) (int, bool) {
	i := slices.Index(r.Resources, name)
	return i, i >= 0
}

// result sums the run up.
func (mt *meter) result(stop StopReason, unfinished int) *Result {
	r := &Result{
		Config: mt.config, Interval: mt.interval, Resources: mt.names,
		Samples: mt.samples, Waits: mt.waits, Stopped: stop,
	}
	for _, role := range mt.roles {
		r.Roles = append(r.Roles, role.Name)
		r.Weights = append(r.Weights, role.Weight)
	}
	s := &r.Summary
	s.Intervals = len(mt.samples)
	s.Submitted, s.Launched, s.Finished, s.Lost = mt.counts.submitted, mt.counts.launched, mt.counts.finished, mt.counts.lost
	s.Unfinished = unfinished
	s.Utilisation = means(mt.samples, len(mt.names), func(x Sample) []float64 { return x.Utilisation })
	s.Share = means(mt.samples, len(mt.roles), func(x Sample) []float64 { return x.Share })
	s.WeightedShare = means(mt.samples, len(mt.roles), func(x Sample) []float64 { return x.WeightedShare })
	var jainSum float64
	for _, x := range mt.samples {
		s.Offers += x.Offers
		s.Declined += x.Declined
		s.RunTime.Total += x.RunTime
		s.RunTime.Max = max(s.RunTime.Max, x.RunTime)
		if x.Contended >= 2 {
			s.Contended++
			jainSum += x.Jain
		}
	}
	s.Jain = 1
	if s.Contended > 0 {
		s.Jain = jainSum / float64(s.Contended)
	}
	if n := len(mt.samples); n > 0 {
		s.RunTime.Mean = s.RunTime.Total / time.Duration(n)
	}
	for _, w := range r.Waits {
		slices.Sort(w)
		s.Waits = append(s.Waits, waitStats(w))
	}
	return r
}

// means returns the mean over samples of each of the n figures that get
// returns.
func means(samples []Sample, n int, get func(Sample) []float64) []float64 {
	out := make([]float64, n)
	if len(samples) == 0 {
		return out
	}
	for _, x := range samples {
		for i, v := range get(x) {
			out[i] += v
		}
	}
	for i := range out {
		out[i] /= float64(len(samples))
	}
	return out
}

// waitStats sums up sorted waits.
func waitStats(w []time.Duration) WaitStats {
	if len(w) == 0 {
		return WaitStats{}
	}
	var sum float64 // waits can add up past a Duration
	for _, d := range w {
		sum += float64(d)
	}
	return WaitStats{
		Tasks: len(w), Mean: time.Duration(sum / float64(len(w))),
		P50: percentile(w, 50), P90: percentile(w, 90), P99: percentile(w, 99), Max: w[len(w)-1],
	}
}

// percentile returns the p-th percentile of sorted values by nearest rank:
// the smallest value at least p% of them do not exceed.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 · n)
	return sorted[max(rank, 1)-1]
}
