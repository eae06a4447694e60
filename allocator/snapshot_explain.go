package allocator

import (
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

// writePasses writes the passes of a walk (of the run's log, or kept by a
// nobody entry).
func (s *snapshotWriter) writePasses(indexed bool, passes []passRecord, details []resources.Quantities) {
	w := &s.w
	w.Bool(indexed)
	w.Int(len(passes))
	for _, p := range passes {
		w.String(p.fw.id)
		w.String(p.node.path)
		w.String(p.ag.id)
		w.Byte(byte(p.reason))
		w.Byte(byte(p.stage))
		w.Uvarint(uint64(p.missing))
		w.Varint(int64(p.detail))
	}
	w.Int(len(details))
	for _, q := range details {
		s.q(q)
	}
}

func (s *snapshotWriter) explainLog(l *explainLog) {
	w := &s.w
	w.Uvarint(l.run)
	s.time(l.now)
	w.Bool(l.periodic)
	w.Uvarint(l.batches)
	s.strings(l.candidates)
	w.Int(len(l.skipped))
	for _, ag := range l.skipped {
		w.String(ag.id)
	}
	w.Int(len(l.offers))
	for _, o := range l.offers {
		w.String(o.key.framework)
		w.String(o.key.role)
		w.String(o.key.agent)
		s.res(o.res)
	}
	w.Int(len(l.visits))
	for _, v := range l.visits {
		w.String(v.ag.id)
		w.String(v.node.path)
		w.Byte(byte(v.kind))
		w.Byte(byte(v.stage))
		w.Bool(v.indexed)
		w.Bool(v.cached != nil)
		if v.cached != nil {
			s.writePasses(v.cached.indexed, v.cached.passes, v.cached.details)
		}
	}
	s.writePasses(false, l.passes, l.details)
	w.Int(len(l.removed))
	for _, rm := range l.removed {
		w.String(rm.id)
		s.strings(rm.roles)
		w.Uvarint(rm.run)
	}
}

// refs resolves the ids of a snapshot's explain records to the restored
// allocator's agents, frameworks and roles, or to stand-ins.
type refs struct {
	a          *Allocator
	agents     map[string]*agent
	frameworks map[string]*framework
	nodes      map[string]*roleNode
}

func newRefs(a *Allocator) *refs {
	return &refs{a: a, agents: map[string]*agent{}, frameworks: map[string]*framework{}, nodes: map[string]*roleNode{}}
}

func (x *refs) agent(id string) *agent {
	if ag, ok := x.a.agents[id]; ok {
		return ag
	}
	if ag, ok := x.agents[id]; ok {
		return ag
	}
	ag := &agent{id: id}
	x.agents[id] = ag
	return ag
}

func (x *refs) framework(id string) *framework {
	if fw, ok := x.a.frameworks[id]; ok {
		return fw
	}
	if fw, ok := x.frameworks[id]; ok {
		return fw
	}
	fw := &framework{id: id}
	x.frameworks[id] = fw
	return fw
}

func (x *refs) node(path string) *roleNode {
	if n := x.a.roles.get(path); n != nil {
		return n
	}
	if n, ok := x.nodes[path]; ok {
		return n
	}
	n := &roleNode{path: path}
	x.nodes[path] = n
	return n
}

// readPasses reads what writePasses wrote.
func (s *snapshotReader) readPasses(x *refs) *nobodyPasses {
	r := s.r
	np := &nobodyPasses{indexed: r.Bool()}
	n := s.count("passes")
	for range n {
		p := passRecord{fw: x.framework(r.String()), node: x.node(r.String()), ag: x.agent(r.String())}
		p.reason, p.stage = Reason(r.Byte()), stage(r.Byte())
		p.missing, p.detail = uint16(r.Uvarint()), int32(r.Varint())
		if r.Err() != nil {
			return np
		}
		if p.reason >= numReasons || p.stage > stageFairShare {
			s.fail("a pass for reason %d in stage %d", p.reason, p.stage)
			return np
		}
		np.passes = append(np.passes, p)
	}
	for range s.count("pass details") {
		np.details = append(np.details, s.q())
	}
	for _, p := range np.passes {
		if p.detail != 0 && !detailIn(p.detail, len(np.details)) {
			s.fail("a pass with detail %d of %d", p.detail, len(np.details))
			break
		}
	}
	return np
}

// detailIn reports whether a pass's detail (1 + an index, or -1 - an
// index) is within n details.
func detailIn(d int32, n int) bool {
	if d > 0 {
		return int(d) <= n
	}
	return int(-1-d) < n
}

// kept returns the shared empty passes for a nobody entry that kept none.
func kept(np *nobodyPasses) *nobodyPasses {
	if len(np.passes) > 0 || len(np.details) > 0 {
		return np
	}
	if np.indexed {
		return noPassesIndexed
	}
	return noPasses
}

func (s *snapshotReader) explainLog(a *Allocator, x *refs) {
	r := s.r
	l := &a.explain
	l.run = r.Uvarint()
	l.now = s.time()
	l.periodic, l.batches = r.Bool(), r.Uvarint()
	l.candidates = s.strings("run candidates")
	for range s.count("skipped agents") {
		l.skipped = append(l.skipped, x.agent(r.String()))
	}
	for range s.count("run offers") {
		key := offerKey{framework: r.String(), role: r.String(), agent: r.String()}
		res := s.res()
		if r.Err() != nil {
			return
		}
		l.offers = append(l.offers, offerRecord{key: key, res: res.Frozen(), ag: x.agent(key.agent)})
	}
	for range s.count("run visits") {
		v := visitRecord{ag: x.agent(r.String()), node: x.node(r.String())}
		v.kind, v.stage, v.indexed = visitKind(r.Byte()), stage(r.Byte()), r.Bool()
		if r.Bool() {
			v.cached = kept(s.readPasses(x))
		}
		if r.Err() != nil {
			return
		}
		if v.kind > visitUnchanged || v.stage > stageFairShare {
			s.fail("a visit of kind %d in stage %d", v.kind, v.stage)
			return
		}
		l.visits = append(l.visits, v)
	}
	np := s.readPasses(x)
	l.passes, l.details = np.passes, np.details
	for _, p := range l.passes {
		if p.detail < 0 {
			s.fail("a pass of the run's log with a kept detail")
			return
		}
	}
	for range s.count("removed frameworks") {
		l.removed = append(l.removed, removedFramework{id: r.String(), roles: s.strings("removed framework's roles"), run: r.Uvarint()})
	}
	if len(l.removed) > maxRemembered {
		s.fail("%d removed frameworks remembered, at most %d", len(l.removed), maxRemembered)
	}
	if l.run == 0 && (len(l.offers) > 0 || len(l.visits) > 0 || len(l.passes) > 0) {
		s.fail("records of run 0")
	}
}

// keptPasses writes the passes every nobody entry keeps, agent by agent
// in id order and role by role.
func (s *snapshotWriter) keptPasses(a *Allocator) {
	for _, id := range a.agentIDs {
		ag := a.agents[id]
		for _, role := range ag.nobody.roles() {
			e, _ := ag.nobody.get(role)
			if e.passes == nil {
				s.writePasses(false, nil, nil)
				continue
			}
			s.writePasses(e.passes.indexed, e.passes.passes, e.passes.details)
		}
	}
}

// keptPasses reads what keptPasses wrote into the restored nobody entries.
func (s *snapshotReader) keptPasses(a *Allocator, x *refs) {
	for _, id := range a.agentIDs {
		ag := a.agents[id]
		for _, role := range ag.nobody.roles() {
			e, _ := ag.nobody.get(role)
			e.passes = kept(s.readPasses(x))
			ag.nobody.set(role, e)
		}
	}
}
