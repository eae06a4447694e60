package sim

import (
	"slices"
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
	waits       [][]time.Duration
	counts      counts
	samples     []Sample
}

// counts are the run's totals.
type counts struct {
	submitted, launched, finished, lost int
}

func newMeter(m *model, cfg Config, opts RunOptions) *meter {
	return &meter{
		config: cfg.Name, interval: opts.Interval, names: m.names, roles: m.roles,
		excluded: resources.NewNameSet(cfg.Options.FairnessExcludedResources...),
		total:    m.total.Clone(), roleUsed: make([]resources.Quantities, len(m.roles)),
		rolePending: make([]int, len(m.roles)), waits: make([][]time.Duration, len(m.roles)),
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
	mt.waits[t.role] = append(mt.waits[t.role], wait)
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

func (mt *meter) agentDown(q resources.Quantities) { mt.total.Subtract(q) }
func (mt *meter) agentUp(q resources.Quantities)   { mt.total.Add(q) }

func (mt *meter) pendingTotal() int {
	n := 0
	for _, p := range mt.rolePending {
		n += p
	}
	return n
}

// sample records the interval that ends.
func (mt *meter) sample(at time.Duration, offers, declined int, took time.Duration) {
	s := Sample{
		At: at, Utilisation: make([]float64, len(mt.names)),
		Share: make([]float64, len(mt.roles)), WeightedShare: make([]float64, len(mt.roles)),
		Pending: slices.Clone(mt.rolePending), Running: mt.running, Finished: mt.finishedNow,
		Offers: offers, Declined: declined, RunTime: took,
	}
	for i, name := range mt.names {
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
	mt.samples = append(mt.samples, s)
	mt.finishedNow = 0
}

// jain returns Jain's index of n values from their sum and their sum of
// squares: 1 for fewer than two values, or when all are zero.
func jain(n int, sum, squares float64) float64 {
	if n < 2 || squares == 0 {
		return 1
	}
	return sum * sum / (float64(n) * squares)
}
