package explain

import (
	"fmt"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/codec"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// What a snapshot keeps for Explain: the latest run's log, and the passes
// each nobody entry keeps, so that a restored allocator explains the latest
// run, and the runs after, as the saved one does.
//
// Records name agents, frameworks and roles by id. An id that the state no
// longer holds (a framework removed since the run, say) is read back as a
// stand-in that carries only the id: the explainer finds records by id, as
// the saved allocator does (see passKey).
//
//	explain log  run time periodic batches candidates skipped-agents
//	             offers (framework role agent resources){count}
//	             visits (agent role kind stage indexed passes){count}
//	             passes removed-frameworks (id roles run){count}
//	passes       indexed (framework role agent reason stage missing
//	             detail){count} details (quantities){count}
//	kept passes  the passes of every nobody entry, agents by id, roles in
//	             order

// Walker walks what a snapshot keeps for Explain, in both directions
// (package codec); a reader's Walker also resolves the records' ids and
// checks what it read.
type Walker struct {
	cs   *cluster.State
	tree *roles.Tree
	// refs resolves, for a reader, the ids in the records (see refs).
	refs *refs
	// logIndexed is what a reader read for whether the passes of the
	// run's log were stepped over through an index, which they never are.
	logIndexed bool
	// kept are the passes a reader read for the nobody entries, to be
	// checked.
	kept []keptPasses
}

// NewWalker returns a walker of the explain records of the state cs and
// the role tree tree (restored, for a reader, before the records are read).
func NewWalker(cs *cluster.State, tree *roles.Tree) *Walker {
	return &Walker{cs: cs, tree: tree}
}

// Log walks the latest run's log; tail walks what the caller keeps of the
// run at the log's end.
func (w *Walker) Log(c *codec.Codec, l *Log, tail func()) {
	c.Uvarint(&l.Run)
	c.Time(&l.Now)
	c.Bool(&l.Periodic)
	c.Uvarint(&l.Batches)
	codec.WalkStrings(c, &l.Candidates, "run candidates")
	codec.WalkList(c, &l.Skipped, "skipped agents", func(ag **cluster.Agent) { w.agentRef(c, ag) })
	codec.WalkList(c, &l.Offers, "run offers", func(o *Offer) {
		c.String(&o.Key.Framework)
		c.String(&o.Key.Role)
		c.String(&o.Key.Agent)
		c.Resources(&o.Res)
	})
	codec.WalkList(c, &l.visits, "run visits", func(v *visitRecord) {
		w.agentRef(c, &v.ag)
		w.nodeRef(c, &v.node)
		codec.WalkByte(c, &v.kind)
		codec.WalkByte(c, &v.stage)
		c.Bool(&v.indexed)
		codec.WalkOptional(c, &v.cached, func(np *cluster.NobodyPasses) { w.passesFields(c, np) })
	})
	// The log's passes are those of no index: the flag is always false.
	w.logIndexed = false
	w.passFields(c, &w.logIndexed, &l.Passes, &l.details)
	codec.WalkList(c, &l.removed, "removed frameworks", func(rm *removedFramework) {
		c.String(&rm.id)
		codec.WalkStrings(c, &rm.roles, "removed framework's roles")
		c.Uvarint(&rm.run)
	})
	tail()
}

// Kept walks the passes every nobody entry keeps, agent by agent in id
// order and role by role. An entry that keeps none is saved as one that
// kept nothing.
func (w *Walker) Kept(c *codec.Codec) {
	for _, ag := range w.cs.AgentList {
		id := ag.ID
		for _, role := range ag.Nobody.Roles() {
			e, _ := ag.Nobody.Get(role)
			np := e.Passes
			switch {
			case c.Reading():
				np = &cluster.NobodyPasses{}
			case np == nil:
				np = cluster.NoPasses
			}
			w.passesFields(c, np)
			if c.Reading() {
				e.Passes = kept(np)
				ag.Nobody.Set(role, e)
				w.kept = append(w.kept, keptPasses{agent: id, role: role, passes: np})
			}
		}
	}
}

// keptPasses are the passes a nobody entry keeps, for a reader's check.
type keptPasses struct {
	agent, role string
	passes      *cluster.NobodyPasses
}

// passesFields walks the passes of a walk kept with a nobody entry or a
// visit.
func (w *Walker) passesFields(c *codec.Codec, np *cluster.NobodyPasses) {
	w.passFields(c, &np.Indexed, &np.Passes, &np.Details)
}

// passFields walks the passes of a walk (of the run's log, or kept): whether
// frameworks were stepped over through the refusal index, the passes, and
// the quantities behind them.
func (w *Walker) passFields(c *codec.Codec, indexed *bool, passes *[]cluster.PassRecord, details *[]resources.Quantities) {
	c.Bool(indexed)
	codec.WalkList(c, passes, "passes", func(p *cluster.PassRecord) {
		w.frameworkRef(c, &p.Framework)
		w.nodeRef(c, &p.Node)
		w.agentRef(c, &p.Agent)
		codec.WalkByte(c, &p.Reason)
		codec.WalkByte(c, &p.Stage)
		codec.WalkUvarint(c, &p.Missing)
		codec.WalkVarint(c, &p.Detail)
	})
	codec.WalkList(c, details, "pass details", c.Quantities)
}

// agentRef, frameworkRef and nodeRef walk a record's reference by id; a
// reader resolves it (see refs).

func (w *Walker) agentRef(c *codec.Codec, ag **cluster.Agent) {
	var id string
	if *ag != nil {
		id = (*ag).ID
	}
	c.String(&id)
	if c.Reading() {
		*ag = w.resolver().agent(id)
	}
}

func (w *Walker) frameworkRef(c *codec.Codec, fw **cluster.Framework) {
	var id string
	if *fw != nil {
		id = (*fw).ID
	}
	c.String(&id)
	if c.Reading() {
		*fw = w.resolver().framework(id)
	}
}

func (w *Walker) nodeRef(c *codec.Codec, n **roles.Node) {
	var path string
	if *n != nil {
		path = (*n).Path
	}
	c.String(&path)
	if c.Reading() {
		*n = w.resolver().node(path)
	}
}

// resolver returns the reader's refs, made on first use: the explain
// records come after the agents, frameworks and roles they name.
func (w *Walker) resolver() *refs {
	if w.refs == nil {
		w.refs = newRefs(w.cs, w.tree)
	}
	return w.refs
}

// refs resolves the ids of a snapshot's explain records to the restored
// allocator's agents, frameworks and roles, or to stand-ins.
type refs struct {
	cs         *cluster.State
	tree       *roles.Tree
	agents     map[string]*cluster.Agent
	frameworks map[string]*cluster.Framework
	nodes      map[string]*roles.Node
}

func newRefs(cs *cluster.State, tree *roles.Tree) *refs {
	return &refs{cs: cs, tree: tree, agents: map[string]*cluster.Agent{}, frameworks: map[string]*cluster.Framework{}, nodes: map[string]*roles.Node{}}
}

func (x *refs) agent(id string) *cluster.Agent {
	if ag, ok := x.cs.Agents.Lookup(id); ok {
		return ag
	}
	if ag, ok := x.agents[id]; ok {
		return ag
	}
	ag := &cluster.Agent{ID: id}
	x.agents[id] = ag
	return ag
}

func (x *refs) framework(id string) *cluster.Framework {
	if fw, ok := x.cs.Frameworks.Lookup(id); ok {
		return fw
	}
	if fw, ok := x.frameworks[id]; ok {
		return fw
	}
	fw := &cluster.Framework{ID: id}
	x.frameworks[id] = fw
	return fw
}

func (x *refs) node(path string) *roles.Node {
	if n := x.tree.Get(path); n != nil {
		return n
	}
	if n, ok := x.nodes[path]; ok {
		return n
	}
	n := &roles.Node{Path: path}
	x.nodes[path] = n
	return n
}

// kept returns the shared empty passes for a nobody entry that kept none.
func kept(np *cluster.NobodyPasses) *cluster.NobodyPasses {
	if len(np.Passes) > 0 || len(np.Details) > 0 {
		return np
	}
	if np.Indexed {
		return cluster.NoPassesIndexed
	}
	return cluster.NoPasses
}

// Check checks what a reader read into l: records in bounds, details that
// exist, no records of a run that never was.
func (w *Walker) Check(l *Log) error {
	for _, v := range l.visits {
		if v.kind > visitUnfit || v.stage > cluster.StageFairShare {
			return fmt.Errorf("a visit of kind %d in stage %d", v.kind, v.stage)
		}
		if v.cached != nil {
			if err := checkPasses(v.cached.Passes, len(v.cached.Details), true); err != nil {
				return err
			}
		}
	}
	if w.logIndexed {
		return fmt.Errorf("the run's log has passes stepped over through an index")
	}
	if err := checkPasses(l.Passes, len(l.details), false); err != nil {
		return err
	}
	if len(l.removed) > maxRemembered {
		return fmt.Errorf("%d removed frameworks remembered, at most %d", len(l.removed), maxRemembered)
	}
	if l.Run == 0 && (len(l.Offers) > 0 || len(l.visits) > 0 || len(l.Passes) > 0) {
		return fmt.Errorf("records of run 0")
	}
	for _, k := range w.kept {
		if err := checkPasses(k.passes.Passes, len(k.passes.Details), true); err != nil {
			return fmt.Errorf("agent %q, role %q: %w", k.agent, k.role, err)
		}
	}
	return nil
}

// checkPasses checks passes and the details they point to (n of them):
// kept passes (of a nobody entry) point into their own copy, with
// negative details; the log's into the log's, with positive ones.
func checkPasses(passes []cluster.PassRecord, n int, kept bool) error {
	for _, p := range passes {
		if p.Reason >= NumReasons || p.Stage > cluster.StageFairShare {
			return fmt.Errorf("a pass for reason %d in stage %d", p.Reason, p.Stage)
		}
		if p.Detail != 0 && (!detailIn(p.Detail, n) || (p.Detail > 0) == kept) {
			return fmt.Errorf("a pass with detail %d of %d", p.Detail, n)
		}
	}
	return nil
}

// detailIn reports whether a pass's detail (1 + an index, or -1 - an
// index) is within n details.
func detailIn(d int32, n int) bool {
	if d > 0 {
		return int(d) <= n
	}
	return int(-1-d) < n
}

// Derive works out what l's records hold besides what was saved: each
// offer's agent, its resources frozen, and the shared empty passes of
// visits that kept none.
func (w *Walker) Derive(l *Log) {
	for i := range l.Offers {
		o := &l.Offers[i]
		o.Res = o.Res.Frozen()
		o.Ag = w.resolver().agent(o.Key.Agent)
	}
	for i := range l.visits {
		if v := &l.visits[i]; v.cached != nil {
			v.cached = kept(v.cached)
		}
	}
}
