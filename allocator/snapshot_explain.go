package allocator

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

// explainLogFields walks the latest run's log.
func (sn *snapState) explainLogFields(c *codec.Codec, l *explainLog) {
	c.Uvarint(&l.run)
	c.Time(&l.now)
	c.Bool(&l.periodic)
	c.Uvarint(&l.batches)
	codec.WalkStrings(c, &l.candidates, "run candidates")
	codec.WalkList(c, &l.skipped, "skipped agents", func(ag **cluster.Agent) { sn.agentRef(c, ag) })
	codec.WalkList(c, &l.offers, "run offers", func(o *offerRecord) {
		c.String(&o.key.framework)
		c.String(&o.key.role)
		c.String(&o.key.agent)
		c.Resources(&o.res)
	})
	codec.WalkList(c, &l.visits, "run visits", func(v *visitRecord) {
		sn.agentRef(c, &v.ag)
		sn.nodeRef(c, &v.node)
		codec.WalkByte(c, &v.kind)
		codec.WalkByte(c, &v.stage)
		c.Bool(&v.indexed)
		codec.WalkOptional(c, &v.cached, func(np *cluster.NobodyPasses) { sn.passesFields(c, np) })
	})
	// The log's passes are those of no index: the flag is always false.
	sn.logIndexed = false
	sn.passFields(c, &sn.logIndexed, &l.passes, &l.details)
	codec.WalkList(c, &l.removed, "removed frameworks", func(rm *removedFramework) {
		c.String(&rm.id)
		codec.WalkStrings(c, &rm.roles, "removed framework's roles")
		c.Uvarint(&rm.run)
	})
	codec.WalkList(c, &l.preemptions, "run preemptions", func(p *Preemption) {
		c.String(&p.FrameworkID)
		c.String(&p.TaskID)
		c.String(&p.AgentID)
		c.String(&p.Role)
		c.String(&p.For)
		c.String(&p.ForFramework)
		c.String(&p.HeldIn)
		codec.WalkByte(c, &p.Reason)
		c.Quantities(&p.Frees)
		for i := range 2 {
			c.Float64(&p.ForShare[i])
			c.Float64(&p.RoleShare[i])
		}
	})
}

// keptPassesFields walks the passes every nobody entry keeps, agent by
// agent in id order and role by role. An entry that keeps none is saved
// as one that kept nothing.
func (sn *snapState) keptPassesFields(c *codec.Codec) {
	a := sn.a
	for _, ag := range a.cs.AgentList {
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
			sn.passesFields(c, np)
			if c.Reading() {
				e.Passes = kept(np)
				ag.Nobody.Set(role, e)
				sn.kept = append(sn.kept, keptPasses{agent: id, role: role, passes: np})
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
func (sn *snapState) passesFields(c *codec.Codec, np *cluster.NobodyPasses) {
	sn.passFields(c, &np.Indexed, &np.Passes, &np.Details)
}

// passFields walks the passes of a walk (of the run's log, or kept): whether
// frameworks were stepped over through the refusal index, the passes, and
// the quantities behind them.
func (sn *snapState) passFields(c *codec.Codec, indexed *bool, passes *[]cluster.PassRecord, details *[]resources.Quantities) {
	c.Bool(indexed)
	codec.WalkList(c, passes, "passes", func(p *cluster.PassRecord) {
		sn.frameworkRef(c, &p.Framework)
		sn.nodeRef(c, &p.Node)
		sn.agentRef(c, &p.Agent)
		codec.WalkByte(c, &p.Reason)
		codec.WalkByte(c, &p.Stage)
		codec.WalkUvarint(c, &p.Missing)
		codec.WalkVarint(c, &p.Detail)
	})
	codec.WalkList(c, details, "pass details", c.Quantities)
}

// agentRef, frameworkRef and nodeRef walk a record's reference by id; a
// reader resolves it (see refs).

func (sn *snapState) agentRef(c *codec.Codec, ag **cluster.Agent) {
	var id string
	if *ag != nil {
		id = (*ag).ID
	}
	c.String(&id)
	if c.Reading() {
		*ag = sn.resolver().agent(id)
	}
}

func (sn *snapState) frameworkRef(c *codec.Codec, fw **cluster.Framework) {
	var id string
	if *fw != nil {
		id = (*fw).ID
	}
	c.String(&id)
	if c.Reading() {
		*fw = sn.resolver().framework(id)
	}
}

func (sn *snapState) nodeRef(c *codec.Codec, n **roles.Node) {
	var path string
	if *n != nil {
		path = (*n).Path
	}
	c.String(&path)
	if c.Reading() {
		*n = sn.resolver().node(path)
	}
}

// resolver returns the reader's refs, made on first use: the explain
// records come after the agents, frameworks and roles they name.
func (sn *snapState) resolver() *refs {
	if sn.refs == nil {
		sn.refs = newRefs(sn.a)
	}
	return sn.refs
}

// refs resolves the ids of a snapshot's explain records to the restored
// allocator's agents, frameworks and roles, or to stand-ins.
type refs struct {
	a          *Allocator
	agents     map[string]*cluster.Agent
	frameworks map[string]*cluster.Framework
	nodes      map[string]*roles.Node
}

func newRefs(a *Allocator) *refs {
	return &refs{a: a, agents: map[string]*cluster.Agent{}, frameworks: map[string]*cluster.Framework{}, nodes: map[string]*roles.Node{}}
}

func (x *refs) agent(id string) *cluster.Agent {
	if ag, ok := x.a.cs.Agents.Lookup(id); ok {
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
	if fw, ok := x.a.cs.Frameworks.Lookup(id); ok {
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
	if n := x.a.roles.Get(path); n != nil {
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

// checkExplain checks what a reader read for Explain: records in bounds,
// details that exist, no records of a run that never was.
func (sn *snapState) checkExplain() error {
	l := &sn.a.explain
	for _, v := range l.visits {
		if v.kind > visitUnfit || v.stage > stageFairShare {
			return fmt.Errorf("a visit of kind %d in stage %d", v.kind, v.stage)
		}
		if v.cached != nil {
			if err := checkPasses(v.cached.Passes, len(v.cached.Details)); err != nil {
				return err
			}
		}
	}
	if sn.logIndexed {
		return fmt.Errorf("the run's log has passes stepped over through an index")
	}
	if err := checkPasses(l.passes, len(l.details)); err != nil {
		return err
	}
	for _, p := range l.passes {
		if p.Detail < 0 {
			return fmt.Errorf("a pass of the run's log with a kept detail")
		}
	}
	if len(l.removed) > maxRemembered {
		return fmt.Errorf("%d removed frameworks remembered, at most %d", len(l.removed), maxRemembered)
	}
	if l.run == 0 && (len(l.offers) > 0 || len(l.visits) > 0 || len(l.passes) > 0) {
		return fmt.Errorf("records of run 0")
	}
	for _, k := range sn.kept {
		if err := checkPasses(k.passes.Passes, len(k.passes.Details)); err != nil {
			return fmt.Errorf("agent %q, role %q: %w", k.agent, k.role, err)
		}
	}
	return nil
}

// checkPasses checks passes and the details they point to (n of them).
func checkPasses(passes []cluster.PassRecord, n int) error {
	for _, p := range passes {
		if Reason(p.Reason) >= numReasons || p.Stage > stageFairShare {
			return fmt.Errorf("a pass for reason %d in stage %d", p.Reason, p.Stage)
		}
		if p.Detail != 0 && !detailIn(p.Detail, n) {
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

// deriveExplain works out what the log's records hold besides what was
// saved: each offer's agent, its resources frozen, and the shared empty
// passes of visits that kept none.
func (sn *snapState) deriveExplain() {
	l := &sn.a.explain
	for i := range l.offers {
		o := &l.offers[i]
		o.res = o.res.Frozen()
		o.ag = sn.resolver().agent(o.key.agent)
	}
	for i := range l.visits {
		if v := &l.visits[i]; v.cached != nil {
			v.cached = kept(v.cached)
		}
	}
}
