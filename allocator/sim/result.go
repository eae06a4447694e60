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
	// Samples are the Samples kept: one per interval by default, one in
	// SampleStride intervals (those at 0, SampleStride, 2·SampleStride,
	// ...) when RunOptions.SampleEvery or MaxSamples keep fewer. The
	// Summary is of every interval whichever are kept.
	Samples []Sample
	// SampleStride is the number of intervals from one kept Sample to the
	// next: RunOptions.SampleEvery (1 by default), doubled as often as
	// MaxSamples made the run drop every other one.
	SampleStride int
	// Waits are, per role, the waits of every task launched (from its
	// submission to its launch), ascending, for a role of at most
	// RunOptions.ExactWaits launches; nil for a role of more, whose
	// waits are in WaitHistograms instead, so that a long run's waits
	// take bounded memory.
	Waits [][]time.Duration
	// WaitHistograms are, per role, the histogram of the waits of a role
	// of more than RunOptions.ExactWaits launches, nil for the others.
	WaitHistograms []*WaitHistogram
	Summary        Summary
	Stopped        StopReason
}

// Summary sums a run up.
type Summary struct {
	Intervals int
	// Utilisation is the mean of every interval's per resource.
	Utilisation []float64
	// Share and WeightedShare are the means of every interval's per role.
	Share, WeightedShare []float64
	// Jain is the mean of the intervals' index over the Contended
	// intervals, those with two roles or more waiting; 1 when there are
	// none.
	Jain      float64
	Contended int
	// Waits are per role.
	Waits []WaitStats
	// Submitted counts submissions (a task lost with its agent or
	// preempted is submitted again), Launched launches, Finished tasks
	// that ran to their end, Lost tasks lost with their agent, Preempted
	// tasks ended because an allocation run chose them (Options.Reclaim),
	// Unfinished tasks pending or running when the run stopped.
	Submitted, Launched, Finished, Lost, Preempted, Unfinished int
	// Offers and Declined sum every interval's.
	Offers, Declined int
	// RunTime sums up the allocation runs' durations; zero without a
	// stopwatch.
	RunTime RunTimeStats
}

// WaitStats are the waits of one role's launched tasks, by nearest rank:
// exact for a role of at most RunOptions.ExactWaits launches; for more,
// the percentiles are read from a WaitHistogram (lower by less than 1/256
// of the figure), and Tasks, Mean and Max are exact still.
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

// result sums the run up: the means from the running sums of every
// interval and the waits from every task launched (or their histogram),
// whichever samples were kept.
func (mt *meter) result(stop StopReason, unfinished int) *Result {
	r := &Result{
		Config: mt.config, Interval: mt.interval, Resources: mt.names,
		Samples: mt.samples, SampleStride: mt.stride, Stopped: stop,
		Waits: make([][]time.Duration, len(mt.waits)), WaitHistograms: make([]*WaitHistogram, len(mt.waits)),
	}
	for _, role := range mt.roles {
		r.Roles = append(r.Roles, role.Name)
		r.Weights = append(r.Weights, role.Weight)
	}
	u := &mt.sums
	s := &r.Summary
	s.Intervals = u.intervals
	s.Submitted, s.Launched, s.Finished, s.Lost = mt.counts.submitted, mt.counts.launched, mt.counts.finished, mt.counts.lost
	s.Preempted = mt.counts.preempted
	s.Unfinished = unfinished
	s.Utilisation = mean(u.utilisation, u.intervals)
	s.Share = mean(u.share, u.intervals)
	s.WeightedShare = mean(u.weighted, u.intervals)
	s.Offers, s.Declined = u.offers, u.declined
	s.RunTime.Total, s.RunTime.Max = u.runTimeTotal, u.runTimeMax
	s.Contended = u.contended
	s.Jain = 1
	if s.Contended > 0 {
		s.Jain = u.jain / float64(s.Contended)
	}
	if u.intervals > 0 {
		s.RunTime.Mean = s.RunTime.Total / time.Duration(u.intervals)
	}
	for i := range mt.waits {
		l := &mt.waits[i]
		s.Waits = append(s.Waits, l.stats()) // sorts the waits kept
		r.Waits[i], r.WaitHistograms[i] = l.exact, l.hist
	}
	return r
}

// mean returns sums over n, each (zeros when n is zero).
func mean(sums []float64, n int) []float64 {
	out := make([]float64, len(sums))
	if n == 0 {
		return out
	}
	for i, v := range sums {
		out[i] = v / float64(n)
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
