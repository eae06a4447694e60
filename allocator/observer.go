package allocator

import (
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
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

// observerState is the allocator's side of an Observer: what frameworks
// hold, kept as it changes (only when an Observer is registered), and what
// changed since the last report.
type observerState struct {
	obs   Observer
	watch func() time.Duration
	// frameworks are the frameworks' ledgers; roles per role, for the
	// role's own frameworks.
	frameworks map[string]*frameworkLedger
	roles      map[string]*roleLedger
	cluster    ClusterMetrics
	// dirtyRoles and dirtyFrameworks changed since the last report (each
	// once: their ledgers say they are listed), removedFrameworks left;
	// reported are the roles reported and not removed since.
	dirtyRoles        []*roleLedger
	dirtyFrameworks   []*frameworkLedger
	removedFrameworks []string
	reported          map[string]struct{}
	clusterDirty      bool
	totalsVersion     uint64
	// now is the clock's reading for the report being made.
	now time.Time
}

type frameworkLedger struct {
	id                    string
	offers, inverseOffers uint64
	roles                 map[string]*roleLedger
	dirty                 bool
}

// roleLedger is what is held, and how many filters are kept, for one
// framework in one role, or for all the frameworks of a role (which also
// lists the frameworks that suppress it).
type roleLedger struct {
	role               string
	offered, allocated resources.Quantities
	filters            filterCount
	suppressed         map[string]struct{}
	dirty              bool
	// preemptedFrom and preemptedFor count the tasks runs chose to end in
	// the role and for it (all frameworks' ledger of a role only).
	preemptedFrom, preemptedFor uint64
}

// filterCount counts refusal filters by expiry, so that those that can no
// longer apply stop counting before a run drops them.
type filterCount struct {
	n        int
	counts   map[filterKey]int
	earliest int64
}

// filterKey is a filter's expiry (UnixNano) and how many periodic runs had
// been made when it was made (see filterInForce).
type filterKey struct {
	expires int64
	batch   uint64
}

// add counts delta filters expiring at t, made after batch periodic runs.
// A filter already let go (active) is not counted again as it leaves.
func (c *filterCount) add(t time.Time, batch uint64, delta int) {
	k := filterKey{t.UnixNano(), batch}
	if delta < 0 {
		if c.counts[k] == 0 {
			return
		}
		c.counts[k] += delta
		c.n += delta
		if c.counts[k] <= 0 {
			delete(c.counts, k)
		}
		return
	}
	if c.counts == nil {
		c.counts = map[filterKey]int{}
	}
	if c.n == 0 || k.expires < c.earliest {
		c.earliest = k.expires
	}
	c.counts[k] += delta
	c.n += delta
}

// expiresBy reports whether some filter counted expires by now.
func (c *filterCount) expiresBy(now time.Time) bool {
	return c.n > 0 && now.UnixNano() >= c.earliest
}

// active lets go of the filters that can no longer apply at now, with
// batches periodic runs made (filterAlive), and returns how many are left.
func (c *filterCount) active(now time.Time, batches uint64) int {
	if !c.expiresBy(now) {
		return c.n
	}
	t := now.UnixNano()
	c.earliest = 0
	for k, n := range c.counts {
		if k.expires < t || (k.expires == t && k.batch != batches) {
			c.n -= n
			delete(c.counts, k)
		} else if c.earliest == 0 || k.expires < c.earliest {
			c.earliest = k.expires
		}
	}
	return c.n
}

func newObserverState(o Observer, watch func() time.Duration) *observerState {
	return &observerState{
		obs: o, watch: watch,
		frameworks: map[string]*frameworkLedger{}, roles: map[string]*roleLedger{},
		reported: map[string]struct{}{},
	}
}

// framework returns fw's ledger, made on first use, and marks it changed.
func (s *observerState) framework(id string) *frameworkLedger {
	f := s.frameworks[id]
	if f == nil {
		f = &frameworkLedger{id: id, roles: map[string]*roleLedger{}}
		s.frameworks[id] = f
	}
	if !f.dirty {
		f.dirty = true
		s.dirtyFrameworks = append(s.dirtyFrameworks, f)
	}
	return f
}

// frameworkRole returns the ledger of a framework in one of its roles,
// made on first use, and marks the framework as changed.
func (s *observerState) frameworkRole(fwID, role string) *roleLedger {
	f := s.framework(fwID)
	fr := f.roles[role]
	if fr == nil {
		fr = &roleLedger{role: role}
		f.roles[role] = fr
	}
	return fr
}

// role returns the ledger of a role, made on first use.
func (s *observerState) role(role string) *roleLedger {
	r := s.roles[role]
	if r == nil {
		r = &roleLedger{role: role}
		s.roles[role] = r
	}
	return r
}

// markRole marks a role and its ancestors changed.
func (s *observerState) markRole(role string) *roleLedger {
	first := s.role(role)
	for r := first; !r.dirty; {
		r.dirty = true
		s.dirtyRoles = append(s.dirtyRoles, r)
		i := strings.LastIndexByte(r.role, '/')
		if i < 0 {
			break
		}
		r = s.role(r.role[:i])
	}
	return first
}

// observeHeld records that fw's holdings in role changed: offered and
// allocated (non-shared scalar quantities) added or, with add false, taken
// away.
func (a *Allocator) observeHeld(fw *cluster.Framework, role string, offered, allocated resources.Quantities, add bool) {
	s := a.obs
	fr := s.frameworkRole(fw.ID, role)
	r := s.markRole(role)
	if !offered.IsEmpty() {
		roles.Adjust(&fr.offered, offered, add)
		roles.Adjust(&r.offered, offered, add)
		roles.Adjust(&s.cluster.Offered, offered, add)
	}
	if !allocated.IsEmpty() {
		roles.Adjust(&fr.allocated, allocated, add)
		roles.Adjust(&r.allocated, allocated, add)
		roles.Adjust(&s.cluster.Allocated, allocated, add)
	}
	s.clusterDirty = true
}

// observeFilter records that a filter of fw in role expiring at t, made
// after batch periodic runs, was made (delta 1) or dropped (-1).
func (a *Allocator) observeFilter(fw *cluster.Framework, role string, t time.Time, batch uint64, delta int) {
	s := a.obs
	fr := s.frameworkRole(fw.ID, role)
	fr.filters.add(t, batch, delta)
	s.markRole(role).filters.add(t, batch, delta)
}

// observeFramework marks a framework and one of its roles changed (role
// may be empty), and notes whether the framework suppresses the role.
func (a *Allocator) observeFramework(fw *cluster.Framework, role string) {
	if a.obs == nil {
		return
	}
	a.obs.framework(fw.ID)
	if role == "" {
		return
	}
	r := a.obs.markRole(role)
	if fw.Roles.Has(role, tables.Tracked) && fw.Roles.Has(role, tables.Suppressed) {
		if r.suppressed == nil {
			r.suppressed = map[string]struct{}{}
		}
		r.suppressed[fw.ID] = struct{}{}
	} else {
		delete(r.suppressed, fw.ID)
	}
}

// observeRole marks a role (and its ancestors) changed.
func (a *Allocator) observeRole(role string) {
	if a.obs != nil {
		a.obs.markRole(role)
	}
}

// observeRun reports a run that ended; started is the stopwatch reading
// at its start.
func (a *Allocator) observeRun(res Result, started time.Duration) {
	s := a.obs
	var last *frameworkLedger
	for _, o := range res.Offers {
		// Offers come sorted by framework.
		if last == nil || last.id != o.FrameworkID {
			last = s.framework(o.FrameworkID)
		}
		last.offers++
	}
	for _, o := range res.InverseOffers {
		s.framework(o.FrameworkID).inverseOffers++
	}
	for _, p := range res.Preemptions {
		s.markRole(p.Role).preemptedFrom++
		s.markRole(p.For).preemptedFor++
	}
	// Filters that expired since count no more.
	for _, r := range s.roles {
		if r.filters.expiresBy(a.explain.now) {
			s.markRole(r.role)
		}
	}
	for id, f := range s.frameworks {
		for _, r := range f.roles {
			if r.filters.expiresBy(a.explain.now) {
				s.framework(id)
				break
			}
		}
	}
	if s.totalsVersion != a.cs.TotalsVersion {
		// Every share moved with the cluster's totals.
		s.totalsVersion = a.cs.TotalsVersion
		for n := range a.roles.Nodes.All() {
			path := n.Path
			s.markRole(path)
		}
		for fw := range a.cs.Frameworks.All() {
			id := fw.ID
			s.framework(id)
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
	if run == nil && len(s.dirtyRoles) == 0 && len(s.dirtyFrameworks) == 0 && len(s.removedFrameworks) == 0 && !s.clusterDirty {
		return
	}
	s.now = a.opts.Clock()
	rep := Report{Run: run, Cluster: ClusterMetrics{
		Total: a.cs.Totals.Clone(), Offered: s.cluster.Offered.Clone(), Allocated: s.cluster.Allocated.Clone(),
	}}
	if len(s.dirtyRoles) > 0 || len(s.dirtyFrameworks) > 0 {
		a.refreshSorterTotals()
	}
	slices.SortFunc(s.dirtyRoles, func(x, y *roleLedger) int { return strings.Compare(x.role, y.role) })
	for _, r := range s.dirtyRoles {
		r.dirty = false
		// A role with a framework sorter has a node; one without either
		// is gone.
		node := a.roles.Get(r.role)
		if node == nil {
			if _, ok := s.reported[r.role]; ok {
				delete(s.reported, r.role)
				rep.RemovedRoles = append(rep.RemovedRoles, r.role)
			}
			if r.filters.n == 0 && len(r.suppressed) == 0 {
				// (A framework may keep filters in a role it left.)
				delete(s.roles, r.role)
			}
			continue
		}
		s.reported[r.role] = struct{}{}
		rep.Roles = append(rep.Roles, a.roleMetrics(r, node))
	}
	slices.SortFunc(s.dirtyFrameworks, func(x, y *frameworkLedger) int { return strings.Compare(x.id, y.id) })
	for _, f := range s.dirtyFrameworks {
		f.dirty = false
		if fw := a.cs.Frameworks.Get(f.id); fw != nil && s.frameworks[f.id] == f {
			rep.Frameworks = append(rep.Frameworks, a.frameworkMetrics(fw, f))
		}
	}
	for _, id := range s.removedFrameworks {
		if _, back := a.cs.Frameworks.Lookup(id); !back && !slices.Contains(rep.RemovedFrameworks, id) {
			rep.RemovedFrameworks = append(rep.RemovedFrameworks, id)
		}
	}
	slices.Sort(rep.RemovedFrameworks)
	clear(s.dirtyRoles)
	s.dirtyRoles = s.dirtyRoles[:0]
	clear(s.dirtyFrameworks)
	s.dirtyFrameworks = s.dirtyFrameworks[:0]
	s.removedFrameworks = s.removedFrameworks[:0]
	s.clusterDirty = false
	s.obs.Observe(rep)
}

func (a *Allocator) roleMetrics(r *roleLedger, node *roles.Node) RoleMetrics {
	m := RoleMetrics{Role: r.role, Weight: 1, Share: -1}
	if w, ok := a.roles.Weights[r.role]; ok {
		m.Weight = w
	}
	if sr, ok := a.roleSorter.Sorter.(sorter.Sharer); ok {
		m.Share = sr.ShareOf(r.role)
	}
	m.Offered, m.Allocated, m.Filters = r.offered.Clone(), r.allocated.Clone(), r.filters.active(a.obs.now, a.dec.Batches)
	m.Suppressed = len(r.suppressed)
	m.PreemptedFrom, m.PreemptedFor = r.preemptedFrom, r.preemptedFor
	if node != nil {
		m.Guarantee, m.Limit = node.Q().Guarantees.Clone(), node.Q().Limits.Clone()
		m.Consumed, m.OfferedOrAllocated = node.Consumed(), node.AllocatedUnreserved.Clone()
		m.Frameworks = node.Frameworks.Len()
	}
	return m
}

func (a *Allocator) frameworkMetrics(fw *cluster.Framework, l *frameworkLedger) FrameworkMetrics {
	m := FrameworkMetrics{Framework: fw.ID, Active: fw.Active, Offers: l.offers, InverseOffers: l.inverseOffers}
	for role := range fw.Roles.All(tables.Tracked) {
		rm := FrameworkRoleMetrics{Role: role, Share: -1, Suppressed: fw.Roles.Has(role, tables.Suppressed)}
		if fs := a.frameworkSorter(role); fs != nil {
			if sr, ok := fs.Sorter.(sorter.Sharer); ok {
				rm.Share = sr.ShareOf(fw.ID)
			}
		}
		if r := l.roles[role]; r != nil {
			rm.Offered, rm.Allocated, rm.Filters = r.offered.Clone(), r.allocated.Clone(), r.filters.active(a.obs.now, a.dec.Batches)
		}
		m.Roles = append(m.Roles, rm)
	}
	return m
}

// frameworkRemoved drops a removed framework's ledger.
func (a *Allocator) frameworkRemoved(fw *cluster.Framework) {
	if a.obs == nil {
		return
	}
	delete(a.obs.frameworks, fw.ID)
	a.obs.removedFrameworks = append(a.obs.removedFrameworks, fw.ID)
}

// observeTaken records that part of what fw held in role was given back:
// taken from what it was offered, the rest (of q, the non-shared
// quantities given back) from what it used.
func (a *Allocator) observeTaken(fw *cluster.Framework, role string, taken resources.Resources, q resources.Quantities) {
	var offered resources.Quantities
	if !taken.IsEmpty() {
		taken.NonShared().AddQuantitiesTo(&offered)
	}
	a.observeHeld(fw, role, offered, q.Minus(offered), false)
}

// observeUpdated records operations applied to offered resources: taken
// from what fw was offered (the rest from what it used), and become the
// unused rest, still offered, and the launched tasks' resources.
func (a *Allocator) observeUpdated(fw *cluster.Framework, role string, offered, taken resources.Resources, accepted offer.Applied) {
	var all resources.Quantities
	offered.NonShared().AddQuantitiesTo(&all)
	a.observeTaken(fw, role, taken, all)
	var unused, launched resources.Quantities
	accepted.Unused.NonShared().AddQuantitiesTo(&unused)
	accepted.Launched.NonShared().AddQuantitiesTo(&launched)
	a.observeHeld(fw, role, unused, launched, true)
}
