package run_test

import (
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/audit"
	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/machine"
	"github.com/allot-go/allot/allocator/internal/operations"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// t0 is the instant the tests' clocks start at.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func res(text string) resources.Resources         { return resources.MustParse(text, "*") }
func alloc(text, role string) resources.Resources { return res(text).Allocate(role) }
func qty(text string) resources.Quantities        { return resources.MustParseQuantities(text) }

// world is an engine over the parts of an allocator, wired as package
// allocator wires them (Allocator.init, no observer); the cluster is
// built and changed through a machine.Machine, the clock moved by hand.
type world struct {
	t        *testing.T
	cfg      run.Config
	now      time.Time
	cs       cluster.State
	tree     *roles.Tree
	rs       *roles.TrackedSorter
	books    books.Books
	allow    quota.Allowances
	parking  quota.Parking
	dec      declines.Book
	ops      operations.Operations
	tasks    cluster.Ledger
	reclaims reclaim.State
	log      explain.Log
	e        *run.Engine
	m        *machine.Machine
}

// newWorld makes a world whose engine has cfg, with a seed of 1, a
// one-second allocation interval and the allocator's default minimum
// allocatable resources where cfg leaves them out.
func newWorld(t *testing.T, cfg run.Config) *world {
	w := &world{t: t, now: t0, tree: roles.NewTree(), parking: quota.NewParking(), reclaims: reclaim.NewState()}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.AllocationInterval == 0 {
		cfg.AllocationInterval = time.Second
	}
	if cfg.MinAllocatable == nil {
		cfg.MinAllocatable = []resources.Quantities{qty("cpus:0.01"), qty("mem:32")}
	}
	cfg.Clock = func() time.Time { return w.now }
	w.cfg = cfg
	w.tasks = cluster.NewLedger(&w.cs)
	w.dec = declines.Book{Cluster: &w.cs, Roles: w.tree, AllocationInterval: cfg.AllocationInterval,
		MesosOfferOrder: cfg.MesosOfferOrder, CacheFree: cfg.CacheFree}
	w.rs = &roles.TrackedSorter{Sorter: sorter.NewDRF(sorter.Config{Seed: cfg.Seed})}
	w.books = books.Books{Cluster: &w.cs, Roles: w.tree, RoleSorter: w.rs, Declines: &w.dec,
		Parking: &w.parking, Allowances: &w.allow,
		NewFrameworkSorter: func(salt uint64) sorter.Sorter {
			c := sorter.Config{Seed: cfg.Seed ^ int64(salt)}
			if cfg.CacheFree {
				return sorter.NewDRF(c)
			}
			return sorter.NewLazyDRF(c)
		}}
	w.ops = operations.Operations{Cluster: &w.cs, Books: &w.books, Tasks: &w.tasks}
	w.e = run.New(cfg, run.Parts{Cluster: &w.cs, Roles: w.tree, RoleSorter: w.rs, Books: &w.books,
		Parking: &w.parking, Declines: &w.dec, Tasks: &w.tasks, Reclaims: &w.reclaims, Explain: &w.log,
		Rand: rand.New(rand.NewPCG(uint64(cfg.Seed), 0x616c6c6f74))})
	w.m = machine.New(machine.Parts{Cluster: &w.cs, Roles: w.tree, RoleSorter: w.rs, Books: &w.books,
		Allowances: &w.allow, Parking: &w.parking, Declines: &w.dec, Operations: &w.ops, Tasks: &w.tasks,
		Reclaims: &w.reclaims, Engine: w.e, Explain: &w.log, Clock: cfg.Clock})
	return w
}

// ok checks an event succeeded and left the books consistent.
func (w *world) ok(err error) {
	w.t.Helper()
	require.NoError(w.t, err)
	w.check()
}

func (w *world) check() {
	w.t.Helper()
	require.NoError(w.t, audit.Check(audit.Parts{Cluster: &w.cs, Roles: w.tree, RoleSorter: w.rs,
		SorterRoles: w.books.SorterRoles, Pending: &w.e.Pending, Declines: &w.dec, Parking: &w.parking,
		MinAllocatable: w.cfg.MinAllocatable, CacheFree: w.cfg.CacheFree}))
}

// agent adds an agent of total, with hostname "h-"+id.
func (w *world) agent(id, total string) *cluster.Agent {
	w.t.Helper()
	return w.agentInfo(id, total, cluster.AgentInfo{})
}

func (w *world) agentInfo(id, total string, info cluster.AgentInfo) *cluster.Agent {
	w.t.Helper()
	if info.Hostname == "" {
		info.Hostname = "h-" + id
	}
	w.ok(w.m.AddAgent(id, info, res(total), nil))
	return w.cs.Agents.Get(id)
}

// framework adds an active framework subscribed to roleList.
func (w *world) framework(id string, roleList ...string) *cluster.Framework {
	w.t.Helper()
	return w.frameworkInfo(id, cluster.FrameworkInfo{Roles: roleList})
}

func (w *world) frameworkInfo(id string, info cluster.FrameworkInfo) *cluster.Framework {
	w.t.Helper()
	if info.Principal == "" {
		info.Principal = "ops"
	}
	w.ok(w.m.AddFramework(id, info, nil, true))
	return w.cs.Frameworks.Get(id)
}

// quota sets a role's guarantees and limits ("" for none).
func (w *world) quota(role, guarantees, limits string) {
	w.t.Helper()
	q := roles.Quota{Guarantees: qty(guarantees)}
	if limits != "" {
		q.Limits = resources.MustParseLimits(limits)
	}
	w.ok(w.m.UpdateQuota(role, q))
}

// demand states fw's pending tasks in role.
func (w *world) demand(fw, role string, pending ...cluster.Pending) {
	w.t.Helper()
	w.ok(w.m.UpdateDemand(fw, role, pending))
}

func pend(q string, n int) cluster.Pending { return cluster.Pending{Resources: qty(q), Count: n} }

// run makes a run (periodic: over every agent) and checks the books
// after it.
func (w *world) run(periodic bool) run.Result {
	w.t.Helper()
	r := w.e.Triggered(periodic)
	w.check()
	return r
}

// offers renders offers as "framework role agent resources", in order.
func offers(out []offer.Offer) []string {
	var s []string
	for _, o := range out {
		s = append(s, fmt.Sprintf("%s %s %s %s", o.FrameworkID, o.Role, o.AgentID, o.Resources.Unallocate()))
	}
	return s
}

// allocateAll makes a periodic run and renders its offers.
func (w *world) allocateAll() []string {
	w.t.Helper()
	return offers(w.run(true).Offers)
}

// decline gives back every offer of out, with a filter of refuse when not
// zero.
func (w *world) decline(out []offer.Offer, refuse time.Duration) {
	w.t.Helper()
	for _, o := range out {
		var d *time.Duration
		if refuse != 0 {
			d = &refuse
		}
		w.ok(w.m.Decline(o.FrameworkID, o.AgentID, o.Resources, d))
	}
}

// reasonNames are explain's reason codes by name.
var reasonNames = [...]string{
	explain.None: "none", explain.Inactive: "inactive", explain.Suppressed: "suppressed",
	explain.Incapable: "incapable", explain.Constraints: "constraints", explain.NoFit: "no-fit",
	explain.Filtered: "filtered", explain.QuotaLimit: "quota-limit", explain.Headroom: "headroom",
	explain.MinAllocatable: "min-allocatable", explain.Fairness: "fairness", explain.Declined: "declined",
	explain.NothingLeft: "nothing-left", explain.AgentInactive: "agent-inactive",
}

// passes renders the latest run's pass-overs as "framework role agent
// stage reason".
func (w *world) passes() []string {
	var s []string
	for _, p := range w.log.Passes {
		stage := "fair"
		if p.Stage == cluster.StageGuarantees {
			stage = "guarantees"
		}
		s = append(s, fmt.Sprintf("%s %s %s %s %s", p.Framework.ID, p.Node.Path, p.Agent.ID, stage, reasonNames[p.Reason]))
	}
	return s
}

// skips renders a run's Skips as "reason:count", leaving out zeros.
func skips(st run.Stats) string {
	var s []string
	for reason, n := range st.Skips {
		if n != 0 {
			s = append(s, fmt.Sprintf("%s:%d", reasonNames[reason], n))
		}
	}
	return strings.Join(s, " ")
}

// giveBack gives back every offer of out, as RecoverResources without a
// filter would but without joining the agents' rounds of declines.
func (w *world) giveBack(out []offer.Offer) {
	w.t.Helper()
	for _, o := range out {
		w.ok(w.m.Recover(o.FrameworkID, o.AgentID, o.Resources, nil, false))
	}
}

// holdsOf returns ag's holds with their resources parsed again, so that
// require.Equal compares them by content.
func holdsOf(ag *cluster.Agent) cluster.HoldList {
	var out cluster.HoldList
	for _, h := range ag.Holds() {
		out = append(out, cluster.Hold{Framework: h.Framework, Res: resources.MustParse(h.Res.String(), "*"), Until: h.Until})
	}
	return out
}

// requireRes compares resources by content.
func requireRes(t testing.TB, want, got resources.Resources, msgAndArgs ...any) {
	t.Helper()
	require.True(t, got.Equal(want), "got %v, want %v %s", got, want, fmt.Sprint(msgAndArgs...))
}

func ptr[T any](v T) *T { return &v }

// inOrder yields a table's cases in the order of their names, so that
// every run of a test meets them in the same order.
func inOrder[T any](cases map[string]T) iter.Seq2[string, T] {
	return func(yield func(string, T) bool) {
		for _, name := range slices.Sorted(maps.Keys(cases)) {
			if !yield(name, cases[name]) {
				return
			}
		}
	}
}
