package explain

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/codec"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func qty(s string) resources.Quantities { return resources.MustParseQuantities(s) }

// world is a cluster built by hand and the log of one run over it.
type world struct {
	t    *testing.T
	cs   *cluster.State
	tree *roles.Tree
	dec  *declines.Book
	log  Log
	// missing are the capabilities each framework lacks for the whole of
	// every agent.
	missing map[string]offer.Capabilities
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, cs: &cluster.State{}, tree: roles.NewTree(), missing: map[string]offer.Capabilities{}}
	w.dec = &declines.Book{Cluster: w.cs, Roles: w.tree, AllocationInterval: time.Second}
	return w
}

func (w *world) agent(id, total string) *cluster.Agent {
	ag := &cluster.Agent{ID: id, Total: resources.MustParse(total, "*"), Active: true, RefGen: 1}
	w.cs.NumberAgent(ag)
	w.cs.Agents.Put(ag)
	i, _ := w.cs.AgentPlace(id)
	w.cs.AgentList = slices.Insert(w.cs.AgentList, i, ag)
	ag.Available = ag.Total.Frozen()
	ag.Ref = ag.Available
	return ag
}

func (w *world) framework(id, role string) *cluster.Framework {
	fw := &cluster.Framework{ID: id, Active: true}
	fw.Roles.MarkOnly(tables.Subscribed, []string{role})
	fw.Roles.Mark(role, tables.Tracked)
	w.cs.Frameworks.Put(fw)
	w.tree.Ensure(role).Frameworks.Add(id)
	return fw
}

// begin starts run 1 over every agent.
func (w *world) begin() {
	var ids []string
	for _, ag := range w.cs.AgentList {
		ids = append(ids, ag.ID)
	}
	w.log.Begin(1, t0, false, 0, ids)
}

func (w *world) offer(fw *cluster.Framework, role string, ag *cluster.Agent) {
	w.log.Offers = append(w.log.Offers, Offer{Key: OfferKey{Framework: fw.ID, Role: role, Agent: ag.ID}, Res: ag.Available.Allocate(role), Ag: ag})
}

func (w *world) why(fw *cluster.Framework, role string, ag *cluster.Agent) (bool, uint8, Found) {
	e := New(&w.log, w.cs, w.dec, nil, func(fw *cluster.Framework, _ *cluster.Agent) offer.Capabilities { return w.missing[fw.ID] })
	return e.Why(fw, w.tree.Get(role), ag)
}

func TestWhyOfferedAndLeftOut(t *testing.T) {
	w := newWorld(t)
	a1, a2 := w.agent("a1", "cpus:4"), w.agent("a2", "cpus:4")
	f1, f2 := w.framework("f1", "r"), w.framework("f2", "r")
	w.begin()
	w.log.Skipped = append(w.log.Skipped, a2)
	w.offer(f1, "r", a1)

	offered, reason, _ := w.why(f1, "r", a1)
	require.True(t, offered)
	require.Equal(t, None, reason)
	_, reason, _ = w.why(f1, "r", a2)
	require.Equal(t, AgentInactive, reason, "the run left a2 out")

	// f2 was not looked at on a1: f1 of its role took it.
	_, reason, found := w.why(f2, "r", a1)
	require.Equal(t, Fairness, reason)
	require.Equal(t, "f1", found.Winner)
	require.Equal(t, "r", found.WinnerRole)

	f2.Active = false
	_, reason, _ = w.why(f2, "r", a1)
	require.Equal(t, Inactive, reason)
	f2.Active, f2.Joined = true, 1
	_, reason, _ = w.why(f2, "r", a1)
	require.Equal(t, Inactive, reason, "joined after the run")
	f2.Joined = 0
	f2.Roles.Mark("r", tables.Suppressed)
	_, reason, _ = w.why(f2, "r", a1)
	require.Equal(t, Suppressed, reason)
}

func TestWhyFromPasses(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	w.begin()
	node := w.tree.Get("r")
	w.log.Pass(f1, a1, node, cluster.StageFairShare, QuotaLimit, qty("cpus:4"))
	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, QuotaLimit, reason)
	require.Equal(t, qty("cpus:4"), found.Offer, "the quantities behind the pass")

	// A capability lacking for the whole agent is the more actionable
	// reason, whatever the run met first.
	w.missing["f1"] = offer.GPUResources
	_, reason, found = w.why(f1, "r", a1)
	require.Equal(t, Incapable, reason)
	require.Equal(t, offer.GPUResources, found.Missing)
	delete(w.missing, "f1")

	// A pass in stage one only counts when stage two did not look.
	w.begin()
	w.log.Pass(f1, a1, node, cluster.StageGuarantees, Headroom, qty("cpus:1"))
	_, reason, _ = w.why(f1, "r", a1)
	require.Equal(t, Headroom, reason)
	w.log.Pass(f1, a1, node, cluster.StageFairShare, MinAllocatable, qty("cpus:0.001"))
	_, reason, found = w.why(f1, "r", a1)
	require.Equal(t, MinAllocatable, reason, "stage two is what the run did last")
	require.Equal(t, qty("cpus:0.001"), found.Offer)

	// A pass dropped (None) is no record.
	w.begin()
	w.log.Pass(f1, a1, node, cluster.StageFairShare, None, resources.Quantities{})
	_, reason, _ = w.why(f1, "r", a1)
	require.Equal(t, NothingLeft, reason)
}

func TestWhyFilteredAndCapped(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	w.dec.AddRefusal(f1, a1, a1.Available.Allocate("r"), time.Minute, t0.Add(-time.Second))
	w.begin()
	// Stepped over through the refusal index: a visit says so.
	w.log.Visit(a1, w.tree.Get("r"), cluster.StageFairShare, true)
	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, Filtered, reason)
	require.Equal(t, t0.Add(time.Minute-time.Second), found.Until)

	w2 := newWorld(t)
	b1 := w2.agent("a1", "cpus:4")
	g1 := w2.framework("f1", "r")
	w2.begin()
	node := w2.tree.Get("r")
	node.CappedRun, node.CappedBy = 1, Headroom
	_, reason, found = w2.why(g1, "r", b1)
	require.Equal(t, Headroom, reason, "a role capped in the run was not looked at")
	require.Equal(t, qty("cpus:4"), found.Offer)
}

func TestSinceKeepsDetailsAcrossRuns(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1, f2 := w.framework("f1", "r"), w.framework("f2", "r")
	w.begin()
	node := w.tree.Get("r")
	w.log.Pass(f2, a1, node, cluster.StageFairShare, Filtered, resources.Quantities{})
	start := len(w.log.Passes)
	require.Same(t, cluster.NoPasses, w.log.Since(start, false), "nothing passed over: the shared empty entry")
	require.Same(t, cluster.NoPassesIndexed, w.log.Since(start, true))
	w.log.Pass(f1, a1, node, cluster.StageFairShare, NoFit, qty("cpus:3"))
	kept := w.log.Since(start, false)
	require.Len(t, kept.Passes, 1)
	require.Less(t, kept.Passes[0].Detail, int32(0), "a kept detail is the entry's own")

	// The next run reuses the log; the entry keeps its passes.
	w.begin()
	w.log.Unchanged(a1, node, cluster.StageFairShare, kept)
	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, NoFit, reason)
	require.Equal(t, qty("cpus:3"), found.Offer)
}

func TestRemovedRemembersTheLatest(t *testing.T) {
	var l Log
	for i := range maxRemembered + 6 {
		fw := &cluster.Framework{ID: fmt.Sprintf("f%d", i)}
		fw.Roles.MarkOnly(tables.Subscribed, []string{"r", "s"})
		l.Forget(fw, uint64(i))
	}
	_, ok := l.Removed("f5")
	require.False(t, ok, "the oldest are forgotten")
	got, ok := l.Removed("f6")
	require.True(t, ok)
	require.Equal(t, []string{"r", "s"}, got)
}

// walked writes l and reads it back into a fresh log over the same world.
func walked(t *testing.T, w *world, l *Log) (*Log, error) {
	c := codec.NewWriter(0)
	NewWalker(w.cs, w.tree).Log(c, l, func() {})
	require.NoError(t, c.Err())
	r := codec.NewReader(c.Out.B)
	back := &Log{}
	rw := NewWalker(w.cs, w.tree)
	rw.Log(r, back, func() {})
	require.NoError(t, r.Err())
	rw.Derive(back)
	return back, rw.Check(back)
}

func TestWalkerRoundTrip(t *testing.T) {
	w := newWorld(t)
	a1, a2 := w.agent("a1", "cpus:4"), w.agent("a2", "cpus:2")
	f1 := w.framework("f1", "r")
	gone := &cluster.Framework{ID: "gone"}
	w.begin()
	w.log.Skipped = append(w.log.Skipped, a2)
	w.offer(f1, "r", a1)
	w.log.Pass(gone, a2, w.tree.Get("r"), cluster.StageFairShare, QuotaLimit, qty("cpus:1"))
	w.log.Visit(a1, w.tree.Get("r"), cluster.StageFairShare, true)
	w.log.Forget(gone, 1)

	back, err := walked(t, w, &w.log)
	require.NoError(t, err)
	require.Equal(t, w.log.Run, back.Run)
	require.True(t, w.log.Now.Equal(back.Now))
	require.Equal(t, w.log.Candidates, back.Candidates)
	require.Same(t, a2, back.Skipped[0], "ids resolve to the state's agents")
	require.Same(t, a1, back.Offers[0].Ag)
	require.Equal(t, "gone", back.Passes[0].Framework.ID, "an id the state lacks is a stand-in")
	require.Equal(t, w.log.details, back.details)
	require.Equal(t, w.log.visits[0].indexed, back.visits[0].indexed)
	roles, ok := back.Removed("gone")
	require.True(t, ok)
	require.Empty(t, roles)
}

func TestWalkerChecksWhatItRead(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	bad := map[string]func(l *Log){
		"a reason past the last": func(l *Log) { l.Passes[0].Reason = NumReasons },
		"a stage past the last":  func(l *Log) { l.Passes[0].Stage = cluster.StageFairShare + 1 },
		"a detail not held":      func(l *Log) { l.Passes[0].Detail = 2 },
		"a kept detail in the log": func(l *Log) {
			l.Passes[0].Detail = -1
		},
		"records of run 0": func(l *Log) { l.Run = 0 },
		"a visit of no kind": func(l *Log) {
			l.visits = append(l.visits, visitRecord{ag: a1, node: w.tree.Get("r"), kind: visitUnfit + 1})
		},
	}
	for name, damage := range bad {
		t.Run(name, func(t *testing.T) {
			w.begin()
			w.log.Pass(f1, a1, w.tree.Get("r"), cluster.StageFairShare, NoFit, qty("cpus:1"))
			damage(&w.log)
			_, err := walked(t, w, &w.log)
			require.Error(t, err)
		})
	}
}
