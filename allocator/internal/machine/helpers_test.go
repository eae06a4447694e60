package machine

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
	"github.com/allot-go/allot/allocator/internal/fingerprint"
	"github.com/allot-go/allot/allocator/internal/operations"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// t0 is the instant the tests' clocks start at.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// minAllocatable is the allocator's default minimum allocatable resources.
var minAllocatable = []resources.Quantities{resources.MustParseQuantities("cpus:0.01"), resources.MustParseQuantities("mem:32")}

func res(text string) resources.Resources         { return resources.MustParse(text, "*") }
func alloc(text, role string) resources.Resources { return res(text).Allocate(role) }
func qty(text string) resources.Quantities        { return resources.MustParseQuantities(text) }

// world is the parts of an allocator wired as package allocator wires them
// (Allocator.init, default options, no observer), driven through a
// Machine; the clock is now, moved by hand.
type world struct {
	t        *testing.T
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
	engine   *run.Engine
	m        *Machine
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, now: t0, tree: roles.NewTree(), parking: quota.NewParking(), reclaims: reclaim.NewState()}
	clock := func() time.Time { return w.now }
	w.tasks = cluster.NewLedger(&w.cs)
	w.dec = declines.Book{Cluster: &w.cs, Roles: w.tree, AllocationInterval: time.Second}
	w.rs = &roles.TrackedSorter{Sorter: sorter.NewDRF(sorter.Config{})}
	w.books = books.Books{Cluster: &w.cs, Roles: w.tree, RoleSorter: w.rs, Declines: &w.dec,
		Parking: &w.parking, Allowances: &w.allow,
		NewFrameworkSorter: func(salt uint64) sorter.Sorter { return sorter.NewLazyDRF(sorter.Config{Seed: int64(salt)}) }}
	w.ops = operations.Operations{Cluster: &w.cs, Books: &w.books, Tasks: &w.tasks}
	w.engine = run.New(run.Config{Seed: 1, Clock: clock, AllocationInterval: time.Second, MinAllocatable: minAllocatable},
		run.Parts{Cluster: &w.cs, Roles: w.tree, RoleSorter: w.rs, Books: &w.books, Parking: &w.parking,
			Declines: &w.dec, Tasks: &w.tasks, Reclaims: &w.reclaims, Explain: &w.log, Rand: rand.New(rand.NewPCG(1, 2))})
	w.m = New(Parts{Cluster: &w.cs, Roles: w.tree, RoleSorter: w.rs, Books: &w.books, Allowances: &w.allow,
		Parking: &w.parking, Declines: &w.dec, Operations: &w.ops, Tasks: &w.tasks, Reclaims: &w.reclaims,
		Engine: w.engine, Explain: &w.log, Clock: clock})
	return w
}

// check is package allocator's CheckInvariants on the world.
func (w *world) check() error {
	return audit.Check(audit.Parts{Cluster: &w.cs, Roles: w.tree, RoleSorter: w.rs, SorterRoles: w.books.SorterRoles,
		Pending: &w.engine.Pending, Declines: &w.dec, Parking: &w.parking, MinAllocatable: minAllocatable})
}

// ok applies an event that must succeed and leave the books consistent.
func (w *world) ok(err error) {
	w.t.Helper()
	require.NoError(w.t, err)
	require.NoError(w.t, w.check())
}

// refuses applies an event that must fail with want and change nothing.
func (w *world) refuses(want error, event func() error) {
	w.t.Helper()
	before := w.state()
	err := event()
	require.ErrorIs(w.t, err, want)
	require.Equal(w.t, before, w.state(), "the refused event (%v) changed the state", err)
	require.NoError(w.t, w.check())
}

// agent adds an agent with total, waiting for nothing after.
func (w *world) agent(id, total string) *cluster.Agent {
	w.t.Helper()
	w.ok(w.m.AddAgent(id, cluster.AgentInfo{Hostname: "h-" + id}, res(total), nil))
	return w.cs.Agents.Get(id)
}

// framework adds an active framework subscribed to roleList.
func (w *world) framework(id string, caps offer.Capabilities, roleList ...string) *cluster.Framework {
	w.t.Helper()
	w.ok(w.m.AddFramework(id, cluster.FrameworkInfo{Roles: roleList, Principal: "ops", Capabilities: caps}, nil, true))
	return w.cs.Frameworks.Get(id)
}

// allocate makes a periodic run and returns its offers.
func (w *world) allocate() []offer.Offer {
	w.t.Helper()
	out := w.engine.Triggered(true).Offers
	require.NoError(w.t, w.check())
	return out
}

// offerTo makes a run and returns the one offer it made to fwID.
func (w *world) offerTo(fwID string) offer.Offer {
	w.t.Helper()
	var mine []offer.Offer
	for _, o := range w.allocate() {
		if o.FrameworkID == fwID {
			mine = append(mine, o)
		}
	}
	require.Len(w.t, mine, 1, "offers to %s", fwID)
	return mine[0]
}

// launch accepts o with one task per id, each of the quantities each.
func (w *world) launch(o offer.Offer, each string, ids ...string) {
	w.t.Helper()
	var tasks []offer.Task
	left := o.Resources
	for _, id := range ids {
		task, ok := offer.PickTask(left, id, qty(each), o.Role)
		require.True(w.t, ok, "task %s does not fit %s", id, left)
		tasks = append(tasks, task)
		left = left.Minus(task.Resources)
	}
	w.ok(w.m.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil))
}

// pending lists the agents waiting for a run ("*": every agent).
func (w *world) pending() string {
	if w.engine.PendingAll {
		return "*"
	}
	return strings.Join(w.engine.Pending.Keys(), ",")
}

// clearPending forgets the agents waiting for a run, so that the next
// event's are seen alone.
func (w *world) clearPending() {
	w.engine.PendingAll = false
	w.engine.Pending.Clear()
}

// state renders what an event may change: the fingerprints of package
// fingerprint, and what they leave out (agents' versions and info,
// outstanding offers, inverse-offer states and rounds of declines;
// frameworks' info, demand, inverse filters and numbers; the agents that
// wait for a run, the whitelist and the sums of the cluster).
func (w *world) state() string {
	var b strings.Builder
	for _, ag := range w.cs.AgentList {
		fmt.Fprintf(&b, "agent %s #%d %x v%d info=%+v unavail=%v headroom=%s\n", ag.ID, ag.Num, fingerprint.Agent(ag),
			ag.Version, infoText(ag.Info), unavailability(ag.Info.Unavailability), ag.Headroom)
		for _, o := range ag.Outstanding {
			fmt.Fprintf(&b, "  outstanding %s %s %s %s\n", o.ID, o.Framework, o.Role, o.Res)
		}
		for _, id := range slices.Sorted(maps.Keys(ag.Inverse())) {
			fmt.Fprintf(&b, "  inverse %s %+v\n", id, *ag.Inverse()[id])
		}
		fmt.Fprintf(&b, "  round %v\n", w.dec.RoundMembers(ag))
	}
	for _, id := range w.cs.Frameworks.Keys() {
		fw := w.cs.Frameworks.Get(id)
		fmt.Fprintf(&b, "framework %s active=%v num=%d info=%+v demand=%v inverse=%v roles=%v tracked=%v\n", id, fw.Active, fw.Num,
			fw.Info, fw.Demand, fw.InverseFilters, fw.Roles.List(tables.Subscribed), fw.Roles.List(tables.Tracked))
	}
	fmt.Fprintf(&b, "rest %x filters %x reclaim %x\n", fingerprint.Rest(false, w.engine.Whitelist, w.tree, &w.cs),
		fingerprint.Filters(&w.cs, &w.dec, w.now), fingerprint.Reclaim(&w.reclaims))
	fmt.Fprintf(&b, "pending %s whitelist %v runs %d\n", w.pending(), slices.Sorted(maps.Keys(w.engine.Whitelist)), w.engine.Runs)
	fmt.Fprintf(&b, "totals %s free %s excess %s\n", w.cs.Totals, w.cs.FreeHeadroom, w.cs.Excess)
	return b.String()
}

func infoText(i cluster.AgentInfo) string {
	return fmt.Sprintf("%s %v %s %d", i.Hostname, i.Attributes, i.Region, i.Capabilities)
}

func unavailability(u *offer.Unavailability) string {
	if u == nil {
		return "none"
	}
	return fmt.Sprintf("%v+%v", u.Start, u.Duration)
}

// time5s is a refusal filter's duration.
const time5s = 5 * time.Second

// filters is the fingerprint of the refusal filters alive now.
func (w *world) filters() uint64 { return fingerprint.Filters(&w.cs, &w.dec, w.now) }

// requireRes compares resources by content.
func requireRes(t testing.TB, want, got resources.Resources, msgAndArgs ...any) {
	t.Helper()
	require.True(t, got.Equal(want), "got %v, want %v %s", got, want, fmt.Sprint(msgAndArgs...))
}

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
