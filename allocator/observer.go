package allocator

import (
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/observe"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Observer receives the allocator's figures, for a host's metrics: at the
// end of every allocation run, and at the end of every event that changes
// one of them. It is registered in Options.Observer and called
// synchronously, from the goroutine that called the allocator (a
// runner.Runner's, with its lock held): it must not call back into the
// allocator or its runner, and should be quick (setting a few gauges is).
//
// A report carries only what changed since the previous one: the roles and
// frameworks whose figures moved, and those that went away. Shares move
// with every allocation and with the cluster's totals: a role's or a
// framework's share is reported with its other figures, and the end of a
// run after the cluster's totals changed reports every role and framework.
// The library imports no metrics package; allocator/metrics names each
// figure as Mesos's allocator does, for a host to hand to its own.
type Observer interface {
	Observe(Report)
}

// ObserverFunc is a function that is an Observer.
type ObserverFunc func(Report)

// Observe calls f.
func (f ObserverFunc) Observe(r Report) { f(r) }

// Report is what changed in the allocator since the previous report.
type Report struct {
	// Run is the run that just ended; nil in the report of an event.
	Run *RunReport
	// Cluster is always reported.
	Cluster ClusterMetrics
	// Roles and Frameworks whose figures changed, sorted by name.
	Roles      []RoleMetrics
	Frameworks []FrameworkMetrics
	// RemovedRoles and RemovedFrameworks left since the previous report
	// (a role leaves when the role tree drops it), sorted.
	RemovedRoles, RemovedFrameworks []string
}

// RunReport is one allocation run.
type RunReport struct {
	Stats RunStats
	// Preemptions is the number of tasks the run chose to end
	// (Options.Reclaim).
	Preemptions int
	// Duration is the run's duration by Options.Stopwatch; zero without
	// one.
	Duration time.Duration
}

// ClusterMetrics are the cluster's scalar resources: the sum of the
// agents' totals, and what frameworks hold of them, offered (not yet used)
// and allocated (in use). Shared volumes are not counted as held.
type ClusterMetrics struct {
	Total, Offered, Allocated resources.Quantities
}

// RoleMetrics are one role's figures.
type RoleMetrics struct {
	Role   string
	Weight float64
	// Share is the role's share as the role sorter orders it (the weighted
	// dominant share of its subtree with DRF), -1 when the role sorter is
	// not a sorter.Sharer.
	Share float64
	// Offered and Allocated are held by the role's own frameworks in the
	// role (scalars, shared volumes not counted).
	Offered, Allocated resources.Quantities
	// Guarantee and Limit are the role's quota; Consumed counts against it
	// (the subtree's reservations and unreserved non-revocable scalars
	// offered or allocated), OfferedOrAllocated is the latter part.
	Guarantee                    resources.Quantities
	Limit                        resources.Limits
	Consumed, OfferedOrAllocated resources.Quantities
	// Filters counts the refusal filters in force for the role's
	// frameworks in the role, by the clock when the report is made.
	Filters int
	// Frameworks counts the frameworks known under the role (subscribed,
	// or still holding resources in it); Suppressed those of them that
	// suppress offers in it.
	Frameworks, Suppressed int
	// PreemptedFrom and PreemptedFor count the tasks runs chose to end in
	// the role, and for it (Options.Reclaim), since the role was first
	// reported.
	PreemptedFrom, PreemptedFor uint64
}

// FrameworkMetrics are one framework's figures.
type FrameworkMetrics struct {
	Framework string
	Active    bool
	// Offers and InverseOffers count the offers and inverse offers made to
	// the framework since it was added.
	Offers, InverseOffers uint64
	// Roles are the roles the framework is known under, by name.
	Roles []FrameworkRoleMetrics
}

// FrameworkRoleMetrics are a framework's figures in one of its roles.
type FrameworkRoleMetrics struct {
	Role string
	// Share is the framework's share in the role's framework sorter, -1
	// when that sorter is not a sorter.Sharer.
	Share              float64
	Offered, Allocated resources.Quantities
	Filters            int
	Suppressed         bool
}

// observer is the allocator's side of an Observer: the ledgers of what
// frameworks hold, kept as it changes (only when an Observer is
// registered), the stopwatch, and the clock's reading for the report
// being made.
type observer struct {
	*observe.Ledgers
	obs   Observer
	watch func() time.Duration
	now   time.Time
}

func newObserver(o Observer, watch func() time.Duration) *observer {
	return &observer{Ledgers: observe.New(), obs: o, watch: watch}
}

// observeRun reports a run that ended; started is the stopwatch reading
// at its start.
func (a *Allocator) observeRun(res Result, started time.Duration) {
	s := a.obs
	for i := 0; i < len(res.Offers); {
		// Offers come sorted by framework.
		j := i + 1
		for j < len(res.Offers) && res.Offers[j].FrameworkID == res.Offers[i].FrameworkID {
			j++
		}
		s.Framework(res.Offers[i].FrameworkID).Offers += uint64(j - i)
		i = j
	}
	for _, o := range res.InverseOffers {
		s.Framework(o.FrameworkID).InverseOffers++
	}
	for _, p := range res.Preemptions {
		s.Preempted(p.Role, p.For)
	}
	s.MarkExpired(a.explain.Now)
	if s.TotalsChanged(a.cs.TotalsVersion) {
		// Every share moved with the cluster's totals.
		for n := range a.roles.Nodes.All() {
			s.MarkRole(n.Path)
		}
		for fw := range a.cs.Frameworks.All() {
			s.Framework(fw.ID)
		}
	}
	run := &RunReport{Stats: res.Stats, Preemptions: len(res.Preemptions)}
	if s.watch != nil {
		run.Duration = s.watch() - started
	}
	a.report(run)
}

// report hands the Observer what changed, if anything did (always at the
// end of a run).
func (a *Allocator) report(run *RunReport) {
	s := a.obs
	if run == nil && !s.Changed() {
		return
	}
	s.now = a.opts.Clock()
	rep := Report{Run: run, Cluster: ClusterMetrics{
		Total: a.cs.Totals.Clone(), Offered: s.Offered.Clone(), Allocated: s.Allocated.Clone(),
	}}
	if s.HeldChanged() {
		a.books.RefreshSorterTotals()
	}
	// A role with a framework sorter has a node; one without either is
	// gone.
	ch := s.Take(func(role string) bool { return a.roles.Get(role) != nil },
		func(id string) bool { return a.cs.Frameworks.Get(id) != nil })
	for _, r := range ch.Roles {
		rep.Roles = append(rep.Roles, a.roleMetrics(r, a.roles.Get(r.Role)))
	}
	for _, f := range ch.Frameworks {
		rep.Frameworks = append(rep.Frameworks, a.frameworkMetrics(a.cs.Frameworks.Get(f.ID), f))
	}
	rep.RemovedRoles, rep.RemovedFrameworks = ch.RemovedRoles, ch.RemovedFrameworks
	s.obs.Observe(rep)
}

func (a *Allocator) roleMetrics(r *observe.RoleLedger, node *roles.Node) RoleMetrics {
	m := RoleMetrics{Role: r.Role, Weight: 1, Share: -1}
	if w, ok := a.roles.Weights[r.Role]; ok {
		m.Weight = w
	}
	if sr, ok := a.roleSorter.Sorter.(sorter.Sharer); ok {
		m.Share = sr.ShareOf(r.Role)
	}
	m.Offered, m.Allocated, m.Filters = r.Offered.Clone(), r.Allocated.Clone(), r.Filters.Active(a.obs.now, a.dec.Batches)
	m.Suppressed = len(r.Suppressed)
	m.PreemptedFrom, m.PreemptedFor = r.PreemptedFrom, r.PreemptedFor
	if node != nil {
		m.Guarantee, m.Limit = node.Q().Guarantees.Clone(), node.Q().Limits.Clone()
		m.Consumed, m.OfferedOrAllocated = node.Consumed(), node.AllocatedUnreserved.Clone()
		m.Frameworks = node.Frameworks.Len()
	}
	return m
}

func (a *Allocator) frameworkMetrics(fw *cluster.Framework, l *observe.FrameworkLedger) FrameworkMetrics {
	m := FrameworkMetrics{Framework: fw.ID, Active: fw.Active, Offers: l.Offers, InverseOffers: l.InverseOffers}
	for role := range fw.Roles.All(tables.Tracked) {
		rm := FrameworkRoleMetrics{Role: role, Share: -1, Suppressed: fw.Roles.Has(role, tables.Suppressed)}
		if fs := a.books.FrameworkSorter(role); fs != nil {
			if sr, ok := fs.Sorter.(sorter.Sharer); ok {
				rm.Share = sr.ShareOf(fw.ID)
			}
		}
		if r := l.Roles[role]; r != nil {
			rm.Offered, rm.Allocated, rm.Filters = r.Offered.Clone(), r.Allocated.Clone(), r.Filters.Active(a.obs.now, a.dec.Batches)
		}
		m.Roles = append(m.Roles, rm)
	}
	return m
}

// markRole marks a role (and its ancestors) changed, when there is an
// Observer.
func (o *observer) markRole(role string) {
	if o != nil {
		o.MarkRole(role)
	}
}
