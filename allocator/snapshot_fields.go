package allocator

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// snapState is what a walk of a whole snapshot works on: the allocator,
// and the parts a reader holds back until the rest is read.
type snapState struct {
	// a is the saved allocator, or the one being restored (made once the
	// options are read).
	a *Allocator
	// opts are the options saved; a reader makes the allocator from them
	// and with.
	opts Options
	with RestoreOptions
	// holds are the agents' holds, agent by agent: a reader attaches them
	// once the agents and frameworks are known.
	holds []savedHold
	// nodes are the role tree's nodes by path: a reader puts them in the
	// tree once they are checked (placeRoles).
	nodes *roleNodes
	// pending are the ids of the agents waiting for a run: a reader puts
	// the agents in the allocator's table once they are read (resolve).
	pending []string
	// sorters are the framework sorters by role: a writer takes them from
	// the role tree's nodes, a reader puts them there once the frameworks
	// are read (resolve).
	sorters map[string]*trackedSorter
	// late sets, for a reader, the numbers that working out the derived
	// state again would move (see lateUvarint).
	late []func()
	// logIndexed is what a reader read for whether the passes of the
	// run's log were stepped over through an index, which they never are.
	logIndexed bool
	// refs resolves, for a reader, the ids in explain records (see
	// refs).
	refs *refs
	// kept are the passes a reader read for the nobody entries, to be
	// checked.
	kept []keptPasses
	// rounds are the agents' rounds of declines (the ids of the
	// frameworks in them) and demand the frameworks' statements of
	// demand: a reader attaches them once the rest is rebuilt
	// (placeFairness).
	rounds map[string][]string
	demand map[string]map[string][]Pending
}

// savedHold is a hold and the agent it is on.
type savedHold struct {
	agent string
	h     hold
}

// snapStateOf returns what a writer walks for a.
func snapStateOf(a *Allocator) *snapState {
	sn := &snapState{a: a, opts: a.opts, nodes: &a.roles.nodes}
	for _, ag := range a.agentList {
		for _, h := range ag.holds() {
			sn.holds = append(sn.holds, savedHold{agent: ag.id, h: h})
		}
	}
	return sn
}

// walk walks a whole snapshot, part by part in the order of the format
// (see Snapshot). A reader's steps between the parts make the allocator
// once the options are read, and put the role tree's nodes in place
// before the records that name them.
func (sn *snapState) walk(c *snapCodec) {
	c.raw(snapshotMagic)
	version := uint64(SnapshotVersion)
	c.uvarint(&version) // Restore checked it
	optionsFields(c, &sn.opts)
	if !c.step(sn.start) {
		return
	}
	a := sn.a
	if err := c.binary(a.pcg, "random source", ""); err != nil {
		if c.reading() {
			c.failf("random source: %v", err)
		} else {
			c.fail(err)
		}
	}
	sn.counterFields(c)
	sn.triggerFields(c)
	runStatsFields(c, &a.last)
	walkStrings(c, &a.parked, "parked roles")
	walkList(c, &sn.holds, "holds", func(sh *savedHold) {
		c.string(&sh.agent)
		holdFields(c, &sh.h)
	})
	sn.roleFields(c)
	if !c.step(sn.placeRoles) {
		return
	}
	var ids []string
	if !c.reading() {
		ids = make([]string, len(a.agentList))
		for i, ag := range a.agentList {
			ids[i] = ag.id
		}
	}
	walkKeyed(c, ids, "agents", "agent", func(id string) {
		c.item("agent", id, func() { agentFields(c, sn.agent(id)) })
	})
	walkTable(c, &a.frameworks, "frameworks", "framework", func(id string, fw *framework) *framework {
		if fw == nil {
			fw = &framework{id: id}
		}
		c.item("framework", id, func() { frameworkFields(c, sn, fw) })
		return fw
	})
	sn.sorterFields(c)
	sn.explainLogFields(c, &a.explain)
	sn.keptPassesFields(c)
	reclaimFields(c, a)
	sn.fairnessFields(c)
}

// reclaimFields walks reclaim's state: the tasks chosen to end that have
// not ended (by framework and task id), and the run that last chose tasks
// for each role.
func reclaimFields(c *snapCodec, a *Allocator) {
	refs := slices.SortedFunc(maps.Keys(a.preempting), compareTaskRefs)
	var prev *taskRef
	walkList(c, &refs, "chosen tasks", func(ref *taskRef) {
		defer func() { prev = ref }()
		p := a.preempting[*ref]
		if p == nil {
			p = &pendingPreemption{}
		}
		c.string(&ref.framework)
		c.string(&ref.task)
		c.string(&p.forRole)
		c.string(&p.forFramework)
		c.string(&p.heldIn)
		walkByte(c, &p.reason)
		c.quantities(&p.frees)
		c.time(&p.until)
		if c.reading() {
			if prev != nil && compareTaskRefs(*prev, *ref) >= 0 {
				c.failf("chosen tasks out of order at %q of %q", ref.task, ref.framework)
			}
			a.preempting[*ref] = p
		}
	})
	walkMap(c, &a.tookAt, "roles chosen for", "role chosen for", func(_ string, run uint64) uint64 {
		c.uvarint(&run)
		return run
	})
}

// optionsFields walks the options that are not functions.
func optionsFields(c *snapCodec, o *Options) {
	c.varint(&o.Seed)
	walkStrings(c, &o.FairnessExcludedResources, "fairness exclusions")
	// Whether the minimum allocatable resources are unset, then the
	// alternatives: none set is no minimum. The options in force are never
	// unset (New sets the defaults), and a snapshot that says they are
	// would not save back to itself.
	unset := o.MinAllocatable == nil
	c.bool(&unset)
	if unset && c.reading() {
		c.failf("minimum allocatable resources saved as unset")
	}
	walkList(c, &o.MinAllocatable, "minimum allocatable alternatives", c.quantities)
	if !unset && o.MinAllocatable == nil {
		o.MinAllocatable = []resources.Quantities{}
	}
	c.duration(&o.AllocationInterval)
	c.bool(&o.AllowGPUsToAll)
	c.float64(&o.OfferShare)
	c.string(&o.Region)
	c.bool(&o.ChargeBeyondAllowance)
	c.bool(&o.ReservedFirst)
	walkByte(c, &o.Reclaim)
	c.duration(&o.ReclaimTimeout)
}

// counterFields walks the counters: runs, offer ids, inverse-offer ids,
// the totals version, the cap and parked epochs, the periodic runs.
func (sn *snapState) counterFields(c *snapCodec) {
	a := sn.a
	sn.lateUvarint(c, &a.runs)
	idsFields(c, &a.offerIDs)
	idsFields(c, &a.inverseOfferIDs)
	sn.lateUvarint(c, &a.totalsVersion)
	sn.lateUvarint(c, &a.capEpoch)
	sn.lateUvarint(c, &a.parkedEpoch)
	c.uvarint(&a.batches)
	c.uvarint(&a.taskSeq)
}

// lateUvarint walks a number that working out the derived state again
// moves: a reader sets it once that is done.
func (sn *snapState) lateUvarint(c *snapCodec, v *uint64) {
	if !c.reading() {
		c.uvarint(v)
		return
	}
	var saved uint64
	c.uvarint(&saved)
	sn.late = append(sn.late, func() { *v = saved })
}

// idsFields walks an id source: the last number it handed out.
func idsFields(c *snapCodec, ids *offer.IDs) {
	last := ids.Last()
	c.uvarint(&last)
	if c.reading() {
		*ids = offer.IDsFrom(ids.Prefix, last)
	}
}

// triggerFields walks what sets off the next run, and what it may look
// at: the pause, the agents waiting for a run, the whitelist.
func (sn *snapState) triggerFields(c *snapCodec) {
	a := sn.a
	c.bool(&a.paused)
	c.bool(&a.pendingAll)
	if !c.reading() {
		sn.pending = a.pending.keys()
	}
	walkKeys(c, &sn.pending, "pending agents")
	listed := a.whitelist != nil
	c.bool(&listed)
	if listed && a.whitelist == nil {
		a.whitelist = map[string]struct{}{}
	}
	walkSet(c, &a.whitelist, "whitelist")
}

// runStatsFields walks the last run's statistics.
func runStatsFields(c *snapCodec, st *RunStats) {
	c.uvarint(&st.Run)
	c.int(&st.Agents, "count")
	c.int(&st.SkippedAgents, "count")
	c.int(&st.Offers, "count")
	c.int(&st.InverseOffers, "count")
	for i := range st.Skips {
		c.int(&st.Skips[i], "count")
	}
	c.int(&st.Unchanged, "count")
	c.int(&st.Refused, "count")
	c.int(&st.Capped, "count")
	c.bool(&st.Periodic)
}

// holdFields walks a hold (its agent is walked before it).
func holdFields(c *snapCodec, h *hold) {
	c.string(&h.framework)
	c.resources(&h.res)
	c.time(&h.until)
}

// roleFields walks the role tree: the weights, then the nodes.
func (sn *snapState) roleFields(c *snapCodec) {
	walkMap(c, &sn.a.roles.weights, "weights", "weight of role", func(_ string, w float64) float64 {
		c.float64(&w)
		return w
	})
	walkTable(c, sn.nodes, "roles", "role", func(path string, n *roleNode) *roleNode {
		if n == nil {
			n = &roleNode{path: path}
		}
		c.uvarint(&n.epoch)
		c.uvarint(&n.cappedRun)
		walkByte(c, &n.cappedBy)
		quota := *n.q()
		c.quantities(&quota.Guarantees)
		c.limits(&quota.Limits)
		if c.reading() {
			n.setQuota(quota)
		}
		return n
	})
}

// agent returns the agent a walk walks for id: a writer's, or a new one
// for a reader.
func (sn *snapState) agent(id string) *agent {
	a := sn.a
	if ag := a.agents.Get(id); ag != nil {
		return ag
	}
	ag := &agent{id: id}
	a.numberAgent(ag)
	a.agents.Put(ag)
	a.agentList = append(a.agentList, ag)
	return ag
}

// agentFields walks an agent (its id is walked before it).
func agentFields(c *snapCodec, ag *agent) {
	agentInfoFields(c, &ag.info)
	c.bool(&ag.active)
	c.resources(&ag.total)
	c.resources(&ag.available)
	c.resources(&ag.ref)
	c.uvarint(&ag.refGen)
	c.uvarint(&ag.version)
	for _, held := range []*perFramework{&ag.offered, &ag.allocated} {
		walkPerFramework(c, held, "holdings", "holding of framework")
	}
	// The rare fields are walked through copies, so that saving an agent
	// without them makes none (agentRare).
	unclaimed := ag.unclaimed()
	walkMap(c, &unclaimed, "holdings", "holding of framework", func(_ string, res resources.Resources) resources.Resources {
		c.resources(&res)
		return res
	})
	if len(unclaimed) > 0 || ag.rare != nil {
		ag.more().unclaimed = unclaimed
	}
	walkByRole(c, &ag.refusals, "refusal indexes", "refusal index", "refusal index of role", func(idx *refusalIndex) *refusalIndex {
		if idx == nil {
			idx = &refusalIndex{}
		}
		c.uvarint(&idx.gen)
		c.time(&idx.until)
		walkList(c, &idx.skip, "bitset words", c.uvarint)
		return idx
	})
	walkByRole(c, &ag.nobody, "cache entries", "cache entry", "cache entry of role", func(e nobodyEntry) nobodyEntry {
		c.uvarint(&e.version)
		c.uvarint(&e.epoch)
		until := e.until.time()
		c.time(&until)
		if c.reading() {
			var ok bool
			if e.until, ok = expiryOf(until); !ok {
				c.failf("cache entry's expiry %v out of range", until)
			}
		}
		return e
	})
	inverse := ag.inverse()
	walkMap(c, &inverse, "inverse-offer states", "inverse-offer state of framework", func(_ string, st *inverseState) *inverseState {
		if st == nil {
			st = &inverseState{}
		}
		c.bool(&st.outstanding)
		walkByte(c, &st.status)
		return st
	})
	if len(inverse) > 0 || ag.rare != nil {
		ag.more().inverse = inverse
	}
	walkList(c, &ag.outstanding, "outstanding offers", func(o *outstandingOffer) {
		c.string(&o.id)
		c.string(&o.framework)
		c.string(&o.role)
		c.resources(&o.res)
	})
}

// agentInfoFields walks what the host said of an agent.
func agentInfoFields(c *snapCodec, info *AgentInfo) {
	c.string(&info.Hostname)
	walkMap(c, &info.Attributes, "attributes", "attribute", func(_ string, v string) string {
		c.string(&v)
		return v
	})
	c.string(&info.Region)
	walkUvarint(c, &info.Capabilities)
	walkOptional(c, &info.Unavailability, func(u *offer.Unavailability) {
		c.time(&u.Start)
		c.duration(&u.Duration)
	})
}

// frameworkFields walks a framework (its id is walked before it).
func frameworkFields(c *snapCodec, sn *snapState, fw *framework) {
	frameworkInfoFields(c, &fw.info)
	c.bool(&fw.active)
	// The roles it subscribes to are its info's (rebuild).
	suppressedRoles, trackedRoles := fw.roles.list(suppressed), fw.roles.list(tracked)
	walkKeys(c, &suppressedRoles, "suppressed roles")
	walkKeys(c, &trackedRoles, "tracked roles")
	if c.reading() {
		fw.roles.markOnly(suppressed, suppressedRoles)
		fw.roles.markOnly(tracked, trackedRoles)
	}
	// Compact filters are written as the ordinary ones they stand for, and
	// read back as such.
	filters := &fw.filters
	if !c.reading() {
		all := sn.a.refusalsOf(fw)
		filters = &all
	}
	walkMap(c, (*map[string]map[string][]refusal)(filters), "filter roles", "filters of role", func(_ string, byAgent map[string][]refusal) map[string][]refusal {
		walkMap(c, &byAgent, "filter agents", "filters on agent", func(_ string, list []refusal) []refusal {
			walkList(c, &list, "filters", func(f *refusal) {
				c.resources(&f.refused)
				c.time(&f.expires)
				c.uvarint(&f.covered)
				c.uvarint(&f.batch)
			})
			return list
		})
		return byAgent
	})
	walkMap(c, &fw.inverseFilters, "inverse-offer filters", "inverse-offer filter on agent", func(_ string, f inverseFilter) inverseFilter {
		c.time(&f.expires)
		c.uvarint(&f.batch)
		return f
	})
	walkMap(c, &fw.tasks, "tasks", "task", func(id string, t *task) *task {
		if t == nil {
			t = &task{id: id}
		}
		c.string(&t.agent)
		c.string(&t.role)
		c.resources(&t.uses)
		c.resources(&t.owns)
		c.uvarint(&t.seq)
		t.fw = fw
		return t
	})
	for i := range fw.skips {
		n := int(fw.skips[i])
		c.int(&n, "skips") // at most math.MaxInt32 when read
		fw.skips[i] = int32(n)
	}
	c.uvarint(&fw.skipsRun)
	c.uvarint(&fw.joined)
}

// frameworkInfoFields walks what the host said of a framework.
func frameworkInfoFields(c *snapCodec, info *FrameworkInfo) {
	walkStrings(c, &info.Roles, "roles")
	c.string(&info.Principal)
	walkUvarint(c, &info.Capabilities)
	walkStrings(c, &info.SuppressedRoles, "suppressed roles")
	walkMap(c, &info.MinAllocatable, "minimum allocatable roles", "minimum allocatable of role", func(_ string, alts []resources.Quantities) []resources.Quantities {
		walkList(c, &alts, "minimum allocatable alternatives", c.quantities)
		if alts == nil {
			// A role's entry, even with no alternative, is an override.
			alts = []resources.Quantities{}
		}
		return alts
	})
	walkMap(c, &info.Constraints, "constraint roles", "constraints of role", func(_ string, cs Constraints) Constraints {
		walkList(c, &cs, "constraint groups", func(g *ConstraintGroup) {
			walkList(c, g, "constraints", func(ac *AttributeConstraint) {
				c.string(&ac.Attribute)
				walkByte(c, &ac.Op)
				c.string(&ac.Value)
			})
		})
		return cs
	})
}

// sorterFields walks the sorters: the role sorter, then the framework
// sorter of each role with the salt it was made with. A reader's are
// made by the host's factories.
func (sn *snapState) sorterFields(c *snapCodec) {
	a := sn.a
	c.part("role sorter", func() { trackedSorterFields(c, a.roleSorter, "role sorter", "") })
	if !c.reading() {
		sn.sorters = map[string]*trackedSorter{}
		for n := range a.roles.nodes.All() {
			path := n.path
			if n.fs != nil {
				sn.sorters[path] = n.fs
			}
		}
	}
	walkMap(c, &sn.sorters, "framework sorters", "framework sorter of role", func(role string, fs *trackedSorter) *trackedSorter {
		c.item("framework sorter of role", role, func() {
			var salt uint64
			if fs != nil {
				salt = fs.salt
			}
			c.uvarint(&salt)
			if fs == nil && c.err() == nil {
				fs = &trackedSorter{Sorter: a.opts.FrameworkSorter(a.sorterConfig(salt)), salt: salt}
			}
			if fs != nil {
				trackedSorterFields(c, fs, "framework sorter of role", role)
			}
		})
		return fs
	})
}

// sorterType names a sorter's type in a snapshot. A sorter.LazyDRF saves
// and restores the DRF sorter's state, byte for byte, so it is named as
// one: a snapshot of either restores into the other (the cache-free
// copies of allocatortest use the DRF sorter where the allocator uses the
// lazy one).
func sorterType(s sorter.Sorter) string {
	if _, lazy := s.(*sorter.LazyDRF); lazy {
		return fmt.Sprintf("%T", (*sorter.DRF)(nil))
	}
	return fmt.Sprintf("%T", s)
}

// trackedSorterFields walks a sorter: the type of sorter it is, the totals
// version it was last told, and its own state (sorter.Snapshotter). A
// reader's sorter, made by the host's factory, must be of the saved type.
// kind and id name it.
func trackedSorterFields(c *snapCodec, ts *trackedSorter, kind, id string) {
	made := sorterType(ts.Sorter)
	typ := made
	c.string(&typ)
	c.uvarint(&ts.totalsVersion)
	if c.err() != nil {
		return
	}
	if typ != made {
		c.fail(fmt.Errorf("%w: saved a %s, the factory made a %s", ErrSnapshotSorter, typ, made))
		return
	}
	sn, ok := ts.Sorter.(sorter.Snapshotter)
	if !ok {
		c.fail(fmt.Errorf("%w: %T does not implement sorter.Snapshotter", ErrSnapshotSorter, ts.Sorter))
		return
	}
	if err := c.binary(sn, kind, id); err != nil {
		if c.reading() {
			// The saved state does not read back: the snapshot is
			// damaged, not the host's sorter.
			c.fail(fmt.Errorf("%w: %w", ErrInvalidSnapshot, err))
			return
		}
		c.fail(fmt.Errorf("%w: %T: %w", ErrSnapshotSorter, ts.Sorter, err))
	}
}

// fairnessFields walks the options of the rotation after declines and of
// demand (last, so that version 4 is version 3 with this part added), each
// agent's round of declines (the frameworks in it, by id) and each
// framework's statements of demand, role by role, with what is left of
// each count.
func (sn *snapState) fairnessFields(c *snapCodec) {
	a := sn.a
	c.bool(&a.opts.MesosOfferOrder)
	c.bool(&a.opts.WholeOffers)
	if !c.reading() {
		for _, ag := range a.agentList {
			if ids := a.roundMembers(ag); len(ids) > 0 {
				if sn.rounds == nil {
					sn.rounds = map[string][]string{}
				}
				sn.rounds[ag.id] = ids
			}
		}
		for fw := range a.frameworks.All() {
			if fw.demand != nil {
				if sn.demand == nil {
					sn.demand = map[string]map[string][]Pending{}
				}
				sn.demand[fw.id] = fw.demand
			}
		}
	}
	walkMap(c, &sn.rounds, "rounds of declines", "agent", func(_ string, ids []string) []string {
		walkKeys(c, &ids, "frameworks that declined")
		return ids
	})
	walkMap(c, &sn.demand, "frameworks stating demand", "framework", func(_ string, byRole map[string][]Pending) map[string][]Pending {
		walkMap(c, &byRole, "roles with demand", "role", func(_ string, list []Pending) []Pending {
			walkList(c, &list, "pending tasks", func(p *Pending) {
				c.quantities(&p.Resources)
				c.int(&p.Count, "pending count")
			})
			return list
		})
		return byRole
	})
}
