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
	"github.com/allot-go/allot/allocator/internal/refusals"
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

// TestWhoTookTheAgent: a framework the run did not look at on an agent
// lost it to the first offer there to another framework of its role, else
// to the first offer there (its own in another role too); an offer there
// in another role does not hide what the guarantee stage found for it.
func TestWhoTookTheAgent(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1, f2, g1, h1 := w.framework("f1", "r"), w.framework("f2", "r"), w.framework("g1", "s"), w.framework("h1", "t")
	f1.Roles.Mark("s", tables.Subscribed|tables.Tracked)
	w.tree.Get("s").Frameworks.Add("f1")

	w.begin()
	w.offer(g1, "s", a1)
	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, Fairness, reason)
	require.Equal(t, Found{Agent: "a1", Framework: "f1", Winner: "g1", WinnerRole: "s"}, found, "the only offer there")
	w.offer(h1, "t", a1)
	_, _, found = w.why(f1, "r", a1)
	require.Equal(t, "g1", found.Winner, "the first offer there, of two in other roles")

	w.offer(f2, "r", a1)
	_, reason, found = w.why(f1, "r", a1)
	require.Equal(t, Fairness, reason)
	require.Equal(t, "f2", found.Winner, "an offer to its own role comes first")
	require.Equal(t, "r", found.WinnerRole)

	w.begin()
	w.offer(f1, "s", a1)
	_, reason, found = w.why(f1, "r", a1)
	require.Equal(t, Fairness, reason)
	require.Equal(t, Found{Agent: "a1", Framework: "f1", Winner: "f1", WinnerRole: "s"}, found, "f1 took it in s")

	w.begin()
	w.offer(g1, "s", a1)
	w.log.Pass(f1, a1, w.tree.Get("r"), cluster.StageGuarantees, QuotaLimit, qty("cpus:1"))
	_, reason, found = w.why(f1, "r", a1)
	require.Equal(t, QuotaLimit, reason, "r was not walked on a1 in the fair-share stage")
	require.Equal(t, qty("cpus:1"), found.Offer)
}

// TestACappedRolesOffer: a role capped in the run is told what it could
// have been offered: for a cap by headroom, the unreserved resources the
// headroom is about; for a cap by minimum allocatable, everything
// allocatable to the role.
func TestACappedRolesOffer(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4;cpus(r):1")
	f1 := w.framework("f1", "r")
	w.begin()
	node := w.tree.Get("r")
	node.CappedRun, node.CappedBy = 1, Headroom
	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, Headroom, reason)
	require.Equal(t, qty("cpus:4"), found.Offer)
	node.CappedBy = MinAllocatable
	_, reason, found = w.why(f1, "r", a1)
	require.Equal(t, MinAllocatable, reason)
	require.Equal(t, qty("cpus:5"), found.Offer)

	// A role parked since an earlier run is capped as well.
	node.CappedRun = 0
	e := New(&w.log, w.cs, w.dec, []string{"r"}, func(*cluster.Framework, *cluster.Agent) offer.Capabilities { return 0 })
	_, reason, _ = e.Why(f1, node, a1)
	require.Equal(t, MinAllocatable, reason)
}

// TestACappedRolesReasonOnEachAgent: a cap is about the whole cluster;
// on one agent it is the reason only where it keeps something the agent
// has from the role. With no unreserved scalar left there, what is left
// (ports) is below the minimum allocatable resources; where every resource
// the agent has is at a limit, the limit keeps it; where none is, the
// headroom does.
func TestACappedRolesReasonOnEachAgent(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4;mem:1024;ports:[31000-31009]")
	a2 := w.agent("a2", "mem:1024;ports:[31000-31009]")
	a3 := w.agent("a3", "ports:[31000-31009]")
	f1 := w.framework("f1", "r")
	node := w.tree.Get("r")
	node.SetQuota(roles.Quota{Limits: resources.MustParseLimits("cpus:2")})
	w.tree.TrackAllocatedUnreserved("r", qty("cpus:2"), true)
	w.begin()
	node.CappedRun, node.CappedBy = 1, QuotaLimit

	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, QuotaLimit, reason, "r is at its cpus limit, and a1 has cpus")
	require.Equal(t, qty("cpus:4;mem:1024"), found.Offer)
	_, reason, found = w.why(f1, "r", a2)
	require.Equal(t, Headroom, reason, "a2 has only mem, which r's limit leaves it")
	require.Equal(t, qty("mem:1024"), found.Offer)
	_, reason, found = w.why(f1, "r", a3)
	require.Equal(t, MinAllocatable, reason, "a3 has only ports left: no cut took anything there")
	require.True(t, found.Offer.IsEmpty())

	node.CappedBy = Headroom
	_, reason, _ = w.why(f1, "r", a1)
	require.Equal(t, Headroom, reason)
	_, reason, _ = w.why(f1, "r", a3)
	require.Equal(t, MinAllocatable, reason)

	// At its mem limit, with cpus:2 of room: the cpus a4 has, more than
	// the room, were cut to nothing by the headroom, not by the limit.
	node.SetQuota(roles.Quota{Limits: resources.MustParseLimits("cpus:4;mem:512")})
	w.tree.TrackAllocatedUnreserved("r", qty("mem:512"), true)
	node.CappedBy = QuotaLimit
	a4 := w.agent("a4", "cpus:4")
	_, reason, _ = w.why(f1, "r", a4)
	require.Equal(t, Headroom, reason, "a4 has only cpus, which r's limit leaves room for")
	_, reason, _ = w.why(f1, "r", a1)
	require.Equal(t, QuotaLimit, reason, "a1 has mem, at r's limit, and cpus: the cap's cause decides")
	node.CappedBy = Headroom
	_, reason, _ = w.why(f1, "r", a1)
	require.Equal(t, Headroom, reason)

	// A cap for the headroom, on an agent with only what r is at its
	// limit of: the limit keeps all of it.
	a5 := w.agent("a5", "mem:256")
	_, reason, found = w.why(f1, "r", a5)
	require.Equal(t, QuotaLimit, reason, "a5 has only mem, at r's limit")
	require.Equal(t, qty("mem:256"), found.Offer)
}

// TestAHeldBackPassSettledToACap: a framework the rotation after declines
// held back, whose role was capped before the walk came back to it, has a
// pass settled to the cap with no quantities of its own: it reads as the
// cap on that agent, with what the agent has.
func TestAHeldBackPassSettledToACap(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4;mem:1024")
	a2 := w.agent("a2", "ports:[31000-31009]")
	f1 := w.framework("f1", "r")
	node := w.tree.Get("r")
	w.begin()
	node.CappedRun, node.CappedBy = 1, Headroom
	w.log.Pass(f1, a1, node, cluster.StageFairShare, Headroom, resources.Quantities{})
	w.log.Pass(f1, a2, node, cluster.StageFairShare, Headroom, resources.Quantities{})
	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, Headroom, reason)
	require.Equal(t, qty("cpus:4;mem:1024"), found.Offer)
	_, reason, _ = w.why(f1, "r", a2)
	require.Equal(t, MinAllocatable, reason)

	// A pass of the walk keeps its own quantities.
	w.begin()
	w.log.Pass(f1, a1, node, cluster.StageFairShare, Headroom, qty("cpus:1"))
	_, reason, found = w.why(f1, "r", a1)
	require.Equal(t, Headroom, reason)
	require.Equal(t, qty("cpus:1"), found.Offer)
}

// TestAPairUnchangedInTheGuaranteeStage: a pair the guarantee stage
// skipped as unchanged keeps the passes of the walk that found nobody
// could take anything there, with their quantities; a pair it walked
// keeps nothing.
func TestAPairUnchangedInTheGuaranteeStage(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	node := w.tree.Get("r")
	w.begin()
	w.log.Pass(f1, a1, node, cluster.StageGuarantees, QuotaLimit, qty("cpus:2"))
	kept := w.log.Since(0, false)

	w.begin()
	w.log.Unchanged(a1, node, cluster.StageGuarantees, kept)
	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, QuotaLimit, reason)
	require.Equal(t, qty("cpus:2"), found.Offer)

	w.begin()
	w.log.Visit(a1, node, cluster.StageGuarantees, false)
	_, reason, _ = w.why(f1, "r", a1)
	require.Equal(t, NothingLeft, reason)
}

// TestTheMostActionableReason: a capability the framework lacks, its
// constraints, and a refusal filter covering the agent are reported over
// what the run met first when they rank before it; a reason that ranks
// before them stays; the capabilities a pass found missing are those
// reported.
func TestTheMostActionableReason(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	node := w.tree.Get("r")

	// The run found f1 lacks GPUResources; it lacks RegionAware for the
	// whole agent as well.
	w.begin()
	w.missing["f1"] = offer.RegionAware
	before := len(w.log.Passes)
	w.log.Pass(f1, a1, node, cluster.StageFairShare, Incapable, resources.Quantities{})
	w.log.Missing(before, offer.GPUResources)
	w.log.Missing(len(w.log.Passes), offer.HierarchicalRole) // no pass since: nothing noted
	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, Incapable, reason)
	require.Equal(t, offer.GPUResources, found.Missing, "what the run found")

	// A pass that noted no capability: those lacking for the whole agent.
	w.begin()
	w.log.Pass(f1, a1, node, cluster.StageFairShare, Incapable, resources.Quantities{})
	_, _, found = w.why(f1, "r", a1)
	require.Equal(t, offer.RegionAware, found.Missing)
	delete(w.missing, "f1")

	// Constraints a1 does not meet come before the lack of fit.
	w.begin()
	w.log.Pass(f1, a1, node, cluster.StageFairShare, NoFit, qty("cpus:1"))
	f1.Info.Constraints = map[string]cluster.Constraints{"r": {{{Attribute: "zone", Op: cluster.OpExists}}}}
	_, reason, found = w.why(f1, "r", a1)
	require.Equal(t, Constraints, reason)
	require.Equal(t, Found{Agent: "a1", Framework: "f1"}, found)
	f1.Info.Constraints = nil

	// A filter covering the agent comes before its quota limit, not
	// before the lack of fit.
	w.dec.AddRefusal(f1, a1, a1.Available.Allocate("r"), time.Minute, t0.Add(-time.Second))
	_, reason, _ = w.why(f1, "r", a1)
	require.Equal(t, NoFit, reason, "no fit ranks before a filter")
	w.begin()
	w.log.Pass(f1, a1, node, cluster.StageFairShare, QuotaLimit, qty("cpus:1"))
	_, reason, found = w.why(f1, "r", a1)
	require.Equal(t, Filtered, reason)
	require.Equal(t, Found{Agent: "a1", Framework: "f1", Until: t0.Add(time.Minute - time.Second)}, found)
}

// TestAFilterOfPartOfTheAgent: a filter of part of what the agent has
// does not explain why a framework stepped over through the index got
// nothing there.
func TestAFilterOfPartOfTheAgent(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	w.dec.AddRefusal(f1, a1, resources.MustParse("cpus:1", "*").Allocate("r"), time.Minute, t0.Add(-time.Second))
	w.begin()
	w.log.Visit(a1, w.tree.Get("r"), cluster.StageFairShare, true)
	_, reason, _ := w.why(f1, "r", a1)
	require.Equal(t, NothingLeft, reason)
}

// TestWhyInAGoneRole: a framework asked about in a role that has no node
// any more got nothing left there.
func TestWhyInAGoneRole(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	w.begin()
	e := New(&w.log, w.cs, w.dec, nil, func(*cluster.Framework, *cluster.Agent) offer.Capabilities { return 0 })
	offered, reason, _ := e.Why(f1, nil, a1)
	require.False(t, offered)
	require.Equal(t, NothingLeft, reason)
}

// TestPassesAreBounded: a run logs at most maxPasses passes.
func TestPassesAreBounded(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	w.begin()
	w.log.Passes = make([]cluster.PassRecord, maxPasses-1, maxPasses)
	node := w.tree.Get("r")
	w.log.Pass(f1, a1, node, cluster.StageFairShare, NoFit, resources.Quantities{})
	w.log.Pass(f1, a1, node, cluster.StageFairShare, NoFit, resources.Quantities{})
	require.Len(t, w.log.Passes, maxPasses)
}

// TestSinceKeepsEveryDetail: a nobody entry keeps every pass of its walk,
// each with its own quantities or none.
func TestSinceKeepsEveryDetail(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1, f2, f3 := w.framework("f1", "r"), w.framework("f2", "r"), w.framework("f3", "r")
	node := w.tree.Get("r")
	w.begin()
	w.log.Pass(f1, a1, node, cluster.StageFairShare, NoFit, qty("cpus:3"))
	w.log.Pass(f2, a1, node, cluster.StageFairShare, Fairness, resources.Quantities{})
	w.log.Pass(f3, a1, node, cluster.StageFairShare, QuotaLimit, qty("cpus:1"))
	kept := w.log.Since(0, false)

	w.begin()
	w.log.Unchanged(a1, node, cluster.StageFairShare, kept)
	for fw, want := range map[*cluster.Framework]string{f1: "cpus:3", f3: "cpus:1"} {
		_, _, found := w.why(fw, "r", a1)
		require.Equal(t, qty(want), found.Offer, fw.ID)
	}
	_, reason, found := w.why(f2, "r", a1)
	require.Equal(t, Fairness, reason)
	require.True(t, found.Offer.IsEmpty())
}

// TestSteadyRunsAllocateNothing: a run that logs what the one before it
// did reuses its storage.
func TestSteadyRunsAllocateNothing(t *testing.T) {
	w := newWorld(t)
	var agents []*cluster.Agent
	for i := range 20 {
		agents = append(agents, w.agent(fmt.Sprintf("a%02d", i), "cpus:4"))
	}
	f1 := w.framework("f1", "r")
	node := w.tree.Get("r")
	detail := qty("cpus:1")
	var ids []string
	for _, ag := range agents {
		ids = append(ids, ag.ID)
	}
	run := func() {
		w.log.Begin(1, t0, false, 0, ids)
		for _, ag := range agents {
			w.log.Visit(ag, node, cluster.StageFairShare, false)
			w.log.Pass(f1, ag, node, cluster.StageFairShare, NoFit, detail)
		}
	}
	run()
	require.Zero(t, testing.AllocsPerRun(10, run))
}

// TestWalkerResolvesRoles: passes read back name the restored tree's
// role nodes, and a role the tree lacks by a stand-in of its path.
func TestWalkerResolvesRoles(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	w.begin()
	w.log.Pass(f1, a1, w.tree.Get("r"), cluster.StageFairShare, NoFit, qty("cpus:1"))
	w.log.Pass(f1, a1, &roles.Node{Path: "gone"}, cluster.StageFairShare, NoFit, resources.Quantities{})
	back, err := walked(t, w, &w.log)
	require.NoError(t, err)
	require.Same(t, w.tree.Get("r"), back.Passes[0].Node)
	require.Same(t, f1, back.Passes[0].Framework)
	require.Equal(t, "gone", back.Passes[1].Node.Path)
	require.Nil(t, w.tree.Get("gone"), "a stand-in is not added to the tree")
}

// TestWalkerKeepsUnchangedVisits: a visit skipped as unchanged is read back
// with the passes it kept and their quantities; one that kept none is read
// back as the shared empty entry, indexed or not.
func TestWalkerKeepsUnchangedVisits(t *testing.T) {
	w := newWorld(t)
	a1, a2, a3 := w.agent("a1", "cpus:4"), w.agent("a2", "cpus:4"), w.agent("a3", "cpus:4")
	f1 := w.framework("f1", "r")
	node := w.tree.Get("r")
	w.begin()
	w.log.Pass(f1, a1, node, cluster.StageFairShare, QuotaLimit, qty("cpus:2"))
	kept := w.log.Since(0, false)
	w.begin()
	w.log.Unchanged(a1, node, cluster.StageFairShare, kept)
	w.log.Unchanged(a2, node, cluster.StageFairShare, cluster.NoPasses)
	w.log.Unchanged(a3, node, cluster.StageFairShare, cluster.NoPassesIndexed)

	back, err := walked(t, w, &w.log)
	require.NoError(t, err)
	require.Equal(t, kept.Details, back.visits[0].cached.Details)
	require.Same(t, f1, back.visits[0].cached.Passes[0].Framework)
	require.Same(t, cluster.NoPasses, back.visits[1].cached)
	require.Same(t, cluster.NoPassesIndexed, back.visits[2].cached)
	e := New(back, w.cs, w.dec, nil, func(*cluster.Framework, *cluster.Agent) offer.Capabilities { return 0 })
	_, reason, found := e.Why(f1, node, a1)
	require.Equal(t, QuotaLimit, reason)
	require.Equal(t, qty("cpus:2"), found.Offer)
}

// TestWalkerAcceptsWhatARunLogs: every record a run can make reads back
// without complaint: a visit of each kind, a pass with and without
// quantities, as many removed frameworks as are remembered, and the
// empty log of an allocator that never ran.
func TestWalkerAcceptsWhatARunLogs(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	node := w.tree.Get("r")
	w.begin()
	w.log.Visit(a1, node, cluster.StageFairShare, false)
	w.log.Unfit(a1, node)
	w.log.Unchanged(a1, node, cluster.StageGuarantees, cluster.NoPasses)
	w.log.Pass(f1, a1, node, cluster.StageFairShare, Fairness, resources.Quantities{})
	w.log.Pass(f1, a1, node, cluster.StageFairShare, NoFit, qty("cpus:1"))
	for i := range maxRemembered {
		w.log.Forget(&cluster.Framework{ID: fmt.Sprintf("gone%d", i)}, 1)
	}
	_, err := walked(t, w, &w.log)
	require.NoError(t, err)

	var never Log
	_, err = walked(t, w, &never)
	require.NoError(t, err, "a log of run 0 with no records")
}

// TestWalkerRefusesRecordsOfRunZero: an offer, a visit or a pass of run 0
// (before any run) is refused.
func TestWalkerRefusesRecordsOfRunZero(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	node := w.tree.Get("r")
	records := map[string]func(l *Log){
		"an offer": func(l *Log) {
			l.Offers = append(l.Offers, Offer{Key: OfferKey{"f1", "r", "a1"}, Res: a1.Available.Allocate("r")})
		},
		"a visit": func(l *Log) { l.Visit(a1, node, cluster.StageFairShare, false) },
		"a pass":  func(l *Log) { l.Pass(f1, a1, node, cluster.StageFairShare, NoFit, resources.Quantities{}) },
	}
	for name, record := range records {
		t.Run(name, func(t *testing.T) {
			var l Log
			record(&l)
			_, err := walked(t, w, &l)
			require.Error(t, err)
		})
	}
}

// TestWalkerChecksKeptDetails: a kept pass must point at one of the
// quantities its walk kept.
func TestWalkerChecksKeptDetails(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	node := w.tree.Get("r")
	for detail, ok := range map[int32]bool{-1: true, -2: false, 2: false} {
		t.Run(fmt.Sprint(detail), func(t *testing.T) {
			kept := &cluster.NobodyPasses{
				Passes:  []cluster.PassRecord{{Framework: f1, Node: node, Agent: a1, Reason: QuotaLimit, Stage: cluster.StageFairShare, Detail: detail}},
				Details: []resources.Quantities{qty("cpus:1")},
			}
			w.begin()
			w.log.Unchanged(a1, node, cluster.StageFairShare, kept)
			_, err := walked(t, w, &w.log)
			if ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}

// keptWalked writes the passes the agents' nobody entries keep and reads
// them back over the same world, and returns the reader's check.
func keptWalked(t *testing.T, w *world) error {
	c := codec.NewWriter(0)
	NewWalker(w.cs, w.tree).Kept(c)
	require.NoError(t, c.Err())
	r := codec.NewReader(c.Out.B)
	rw := NewWalker(w.cs, w.tree)
	rw.Kept(r)
	require.NoError(t, r.Err())
	return rw.Check(&Log{})
}

// TestWalkerKeepsNobodyEntriesPasses: the passes each nobody entry keeps
// are read back, those of an entry that keeps none as the shared empty
// entry, and a reader refuses a kept pass that points past its details.
func TestWalkerKeepsNobodyEntriesPasses(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r")
	w.tree.Ensure("s")
	node := w.tree.Get("r")
	pass := cluster.PassRecord{Framework: f1, Node: node, Agent: a1, Reason: QuotaLimit, Stage: cluster.StageFairShare, Detail: -1}
	a1.Nobody.Set("r", cluster.NobodyEntry{Passes: &cluster.NobodyPasses{Passes: []cluster.PassRecord{pass}, Details: []resources.Quantities{qty("cpus:2")}}})
	a1.Nobody.Set("s", cluster.NobodyEntry{})
	require.NoError(t, keptWalked(t, w))
	r, _ := a1.Nobody.Get("r")
	require.Equal(t, []resources.Quantities{qty("cpus:2")}, r.Passes.Details)
	require.Same(t, f1, r.Passes.Passes[0].Framework)
	s, _ := a1.Nobody.Get("s")
	require.Same(t, cluster.NoPasses, s.Passes)

	pass.Detail = -2
	a1.Nobody.Set("r", cluster.NobodyEntry{Passes: &cluster.NobodyPasses{Passes: []cluster.PassRecord{pass}, Details: []resources.Quantities{qty("cpus:2")}}})
	require.Error(t, keptWalked(t, w))

	// A kept pass points into its entry's own details (negative); one that
	// points into the log's (positive) would explain with the quantities
	// of another run.
	pass.Detail = 1
	a1.Nobody.Set("r", cluster.NobodyEntry{Passes: &cluster.NobodyPasses{Passes: []cluster.PassRecord{pass}, Details: []resources.Quantities{qty("cpus:2")}}})
	require.Error(t, keptWalked(t, w))
}

// TestAFilterOfWhatWasOfferedThere: a framework stepped over through the
// index, on an agent where another framework of its role was offered part
// of what it has, is told the first filter in force that covers the agent
// or that part; a later filter that covers the whole agent does not
// replace the one found.
func TestAFilterOfWhatWasOfferedThere(t *testing.T) {
	w := newWorld(t)
	a1 := w.agent("a1", "cpus:4")
	f1, f2 := w.framework("f1", "r"), w.framework("f2", "r")
	f1.Filters.Add("r", "a1", refusals.Refusal{Refused: resources.MustParse("cpus:2", "*"), Expires: t0.Add(time.Minute)})
	f1.Filters.Add("r", "a1", refusals.Refusal{Refused: resources.MustParse("cpus:4", "*"), Expires: t0.Add(2 * time.Minute)})
	w.begin()
	w.log.Visit(a1, w.tree.Get("r"), cluster.StageFairShare, true)
	w.log.Offers = append(w.log.Offers, Offer{Key: OfferKey{Framework: "f2", Role: "r", Agent: "a1"}, Res: resources.MustParse("cpus:1", "*").Allocate("r"), Ag: a1})
	_, reason, found := w.why(f1, "r", a1)
	require.Equal(t, Filtered, reason)
	require.Equal(t, Found{Agent: "a1", Framework: "f1", Until: t0.Add(time.Minute)}, found, "the filter of cpus:2 covers the cpus:1 offered to f2")
	_, reason, found = w.why(f2, "r", a1)
	require.Equal(t, None, reason)
	require.Zero(t, found.Until)
}

// TestTheFirstVisitMakesRoomForEveryCandidate: a log's first visit makes
// room for one per candidate agent at once, so a run that visits each
// candidate once allocates for its visits once.
func TestTheFirstVisitMakesRoomForEveryCandidate(t *testing.T) {
	w := newWorld(t)
	var agents []*cluster.Agent
	var ids []string
	for i := range 20 {
		agents = append(agents, w.agent(fmt.Sprintf("a%02d", i), "cpus:4"))
		ids = append(ids, agents[i].ID)
	}
	w.framework("f1", "r")
	node := w.tree.Get("r")
	var l *Log
	run := func() {
		l = &Log{}
		l.Begin(1, t0, false, 0, ids)
		for _, ag := range agents {
			l.Visit(ag, node, cluster.StageFairShare, false)
		}
	}
	require.Equal(t, float64(2), testing.AllocsPerRun(10, run), "the log and its visits")
	require.Len(t, l.visits, len(agents))
}
