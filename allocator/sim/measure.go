package sim

import (
	"encoding/csv"
	"io"
	"time"

	"github.com/allot-go/allot/resources"
)

// Sample is what one interval measured, after its allocation run and the
// frameworks' answers (so nothing is left offered: what is held is used).
type Sample struct {
	At time.Duration
	// Utilisation is, per resource of Result.Resources, the part of the
	// cluster's total in use (agents that failed or are in maintenance
	// left out of the total).
	Utilisation []float64
	// Share is, per role of Result.Roles, its dominant share: the largest
	// part of the cluster it uses of any resource (those the
	// configuration's FairnessExcludedResources names left out), whatever
	// the sorter. WeightedShare is Share over the role's weight.
	Share, WeightedShare []float64
	// Pending counts, per role, the tasks submitted and not launched.
	Pending []int
	// Contended counts the roles with pending tasks; Jain is Jain's
	// fairness index over their weighted shares, (Σx)² / (n Σx²): 1 when
	// they are equal, 1/n when one has everything. It is 1 when fewer
	// than two roles wait.
	Contended int
	Jain      float64
	// Running counts the tasks running; Finished those that ended in
	// the interval.
	Running, Finished int
	// Offers counts the offers of the allocation run, Declined those
	// declined whole.
	Offers, Declined int
	// RunTime is the allocation run's duration by RunOptions.Stopwatch;
	// zero without one.
	RunTime time.Duration
}

// meter keeps the figures of a run as it goes.
type meter struct {
	config   string
	interval time.Duration
	names    []string
	roles    []Role
	excluded resources.NameSet

	total, used resources.Quantities
	roleUsed    []resources.Quantities
	rolePending []int
	running     int
	finishedNow int
	waits       []waitLog
	counts      counts

	// sums are what the Summary's means are made of, added up every
	// interval, so that the Summary is the same whichever samples are
	// kept.
	sums sums
	// samples are the samples kept: those of the intervals that are a
	// multiple of stride, at most maxSamples of them when it is above
	// zero (stride doubles when they would be more).
	samples    []Sample
	stride     int
	maxSamples int
	// scratch is the sample of an interval not kept, made again in the
	// same slices every interval so that a long run allocates nothing for
	// the samples it does not keep.
	scratch Sample

	// out writes every sample as a CSV line (RunOptions.SamplesCSV);
	// header says whether the header is still to be written.
	out      *csv.Writer
	record   []string
	header   bool
	onSample func(string, Sample) error
}

// counts are the run's totals.
type counts struct {
	submitted, launched, finished, lost, preempted int
}

// sums are the running sums of every interval's figures.
type sums struct {
	intervals                    int
	utilisation, share, weighted []float64
	jain                         float64
	contended                    int
	offers, declined             int
	runTimeTotal, runTimeMax     time.Duration
}

// continuedCSV is RunOptions.SamplesCSV after the first run of a
// Comparison: the header is written already, and the next run's lines
// follow the previous run's.
type continuedCSV struct{ io.Writer }

func newMeter(m *model, cfg Config, opts RunOptions) *meter {
	mt := &meter{
		config: cfg.Name, interval: opts.Interval, names: m.names, roles: m.roles,
		excluded: resources.NewNameSet(cfg.Options.FairnessExcludedResources...),
		total:    m.total.Clone(), roleUsed: make([]resources.Quantities, len(m.roles)),
		rolePending: make([]int, len(m.roles)), waits: make([]waitLog, len(m.roles)),
		stride: max(opts.SampleEvery, 1), maxSamples: opts.MaxSamples, onSample: opts.OnSample,
	}
	for i := range mt.waits {
		mt.waits[i].limit = opts.ExactWaits
	}
	mt.sums.utilisation = make([]float64, len(m.names))
	mt.sums.share = make([]float64, len(m.roles))
	mt.sums.weighted = make([]float64, len(m.roles))
	mt.scratch = mt.newSample()
	switch w := opts.SamplesCSV.(type) {
	case nil:
	case continuedCSV:
		mt.out = csv.NewWriter(w.Writer)
	default:
		mt.out, mt.header = csv.NewWriter(w), true
	}
	return mt
}

// newSample returns a Sample with its slices made for the run's resources
// and roles, the three of floats in one allocation.
func (mt *meter) newSample() Sample {
	nr, nn := len(mt.roles), len(mt.names)
	floats := make([]float64, nn+2*nr)
	return Sample{
		Utilisation: floats[:nn:nn], Share: floats[nn : nn+nr : nn+nr], WeightedShare: floats[nn+nr:],
		Pending: make([]int, nr),
	}
}

func (mt *meter) submitted(t *taskSpec) {
	mt.rolePending[t.role]++
	mt.counts.submitted++
}

func (mt *meter) launched(t *taskSpec, wait time.Duration) {
	mt.rolePending[t.role]--
	mt.used.Add(t.Resources)
	mt.roleUsed[t.role].Add(t.Resources)
	mt.running++
	mt.waits[t.role].add(wait)
	mt.counts.launched++
}

// stoppedRunning takes a task's resources out of use.
func (mt *meter) stoppedRunning(t *taskSpec) {
	mt.used.Subtract(t.Resources)
	mt.roleUsed[t.role].Subtract(t.Resources)
	mt.running--
}

func (mt *meter) finished(t *taskSpec) {
	mt.stoppedRunning(t)
	mt.finishedNow++
	mt.counts.finished++
}

func (mt *meter) lost(t *taskSpec) {
	mt.stoppedRunning(t)
	mt.counts.lost++
}

func (mt *meter) preempted(t *taskSpec) {
	mt.stoppedRunning(t)
	mt.counts.preempted++
}

func (mt *meter) agentDown(q resources.Quantities) { mt.total.Subtract(q) }
func (mt *meter) agentUp(q resources.Quantities)   { mt.total.Add(q) }

func (mt *meter) pendingTotal() int {
	n := 0
	for _, p := range mt.rolePending {
		n += p
	}
	return n
}

// sample measures the interval that ends: adds it to the sums, writes it
// to the CSV sink and the callback, and keeps it if its interval is one
// to keep.
func (mt *meter) sample(at time.Duration, offers, declined int, took time.Duration) error {
	keep := mt.sums.intervals%mt.stride == 0
	s := mt.scratch
	if keep {
		s = mt.newSample()
	}
	s.At, s.Running, s.Finished, s.Offers, s.Declined, s.RunTime = at, mt.running, mt.finishedNow, offers, declined, took
	copy(s.Pending, mt.rolePending)
	for i, name := range mt.names {
		s.Utilisation[i] = 0 // the scratch sample's slices hold the last interval's
		if total := mt.total.Float64(name); total > 0 {
			s.Utilisation[i] = mt.used.Float64(name) / total
		}
	}
	var sum, squares float64
	for r, role := range mt.roles {
		s.Share[r], _ = mt.roleUsed[r].DominantShare(mt.total, mt.excluded)
		s.WeightedShare[r] = s.Share[r] / role.Weight
		if mt.rolePending[r] > 0 {
			s.Contended++
			sum += s.WeightedShare[r]
			squares += s.WeightedShare[r] * s.WeightedShare[r]
		}
	}
	s.Jain = jain(s.Contended, sum, squares)
	mt.finishedNow = 0
	mt.add(&s)
	if keep {
		mt.keep(s)
	}
	return mt.emit(&s)
}

// add adds a sample to the sums, in the order of the intervals, so that
// the means are the same to the bit as means over every sample.
func (mt *meter) add(s *Sample) {
	u := &mt.sums
	u.intervals++
	for i, v := range s.Utilisation {
		u.utilisation[i] += v
	}
	for r := range s.Share {
		u.share[r] += s.Share[r]
		u.weighted[r] += s.WeightedShare[r]
	}
	u.offers += s.Offers
	u.declined += s.Declined
	u.runTimeTotal += s.RunTime
	u.runTimeMax = max(u.runTimeMax, s.RunTime)
	if s.Contended >= 2 {
		u.contended++
		u.jain += s.Jain
	}
}

// keep appends a sample to those kept and, past maxSamples, keeps every
// other one and doubles the stride: the kept samples stay evenly spaced,
// at most maxSamples of them, whatever the run's length.
func (mt *meter) keep(s Sample) {
	mt.samples = append(mt.samples, s)
	if mt.maxSamples <= 0 || len(mt.samples) <= mt.maxSamples {
		return
	}
	n := 0
	for k := 0; k < len(mt.samples); k += 2 {
		mt.samples[n] = mt.samples[k]
		n++
	}
	clear(mt.samples[n:]) // let the dropped samples' slices go
	mt.samples = mt.samples[:n]
	mt.stride *= 2
}

// emit writes a sample to the CSV sink and gives it to the callback.
func (mt *meter) emit(s *Sample) error {
	if mt.out != nil {
		if mt.header {
			mt.header = false
			if err := mt.out.Write(samplesHeader(mt.names, mt.roleNames())); err != nil {
				return err
			}
		}
		mt.record = appendSampleRecord(mt.record[:0], mt.config, s)
		if err := mt.out.Write(mt.record); err != nil {
			return err
		}
	}
	if mt.onSample != nil {
		return mt.onSample(mt.config, *s)
	}
	return nil
}

// flush writes what the CSV sink still buffers, at the end of a run.
func (mt *meter) flush() error {
	if mt.out == nil {
		return nil
	}
	mt.out.Flush()
	return mt.out.Error()
}

func (mt *meter) roleNames() []string {
	names := make([]string, len(mt.roles))
	for i, r := range mt.roles {
		names[i] = r.Name
	}
	return names
}

// jain returns Jain's index of n values from their sum and their sum of
// squares: 1 for fewer than two values, or when all are zero.
func jain(n int, sum, squares float64) float64 {
	if n < 2 || squares == 0 {
		return 1
	}
	return sum * sum / (float64(n) * squares)
}
