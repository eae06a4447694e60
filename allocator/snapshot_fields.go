package allocator

import (
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/codec"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
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
	nodes *roles.Nodes
	// pending are the ids of the agents waiting for a run: a reader puts
	// the agents in the allocator's table once they are read (resolve).
	pending []string
	// sorters are the framework sorters by role: a writer takes them from
	// the role tree's nodes, a reader puts them there once the frameworks
	// are read (resolve).
	sorters map[string]*roles.TrackedSorter
	// late sets, for a reader, the numbers that working out the derived
	// state again would move (see lateUvarint).
	late []func()
	// explain walks the records kept for Explain, made once the agents,
	// frameworks and roles are.
	explain *explain.Walker
	// rounds are the agents' rounds of declines (the ids of the
	// frameworks in them) and demand the frameworks' statements of
	// demand: a reader attaches them once the rest is rebuilt
	// (placeFairness).
	rounds map[string][]string
	demand map[string]map[string][]cluster.Pending
}

// savedHold is a hold and the agent it is on.
type savedHold struct {
	agent string
	h     cluster.Hold
}

// snapStateOf returns what a writer walks for a.
func snapStateOf(a *Allocator) *snapState {
	sn := &snapState{a: a, opts: a.opts, nodes: &a.roles.Nodes}
	for _, ag := range a.cs.AgentList {
		for _, h := range ag.Holds() {
			sn.holds = append(sn.holds, savedHold{agent: ag.ID, h: h})
		}
	}
	return sn
}

// walk walks a whole snapshot, part by part in the order of the format
// (see Snapshot). A reader's steps between the parts make the allocator
// once the options are read, and put the role tree's nodes in place
// before the records that name them.
func (sn *snapState) walk(c *codec.Codec) {
	c.Raw(snapshotMagic)
	version := uint64(SnapshotVersion)
	c.Uvarint(&version) // Restore checked it
	optionsFields(c, &sn.opts)
	if !c.Step(sn.start) {
		return
	}
	a := sn.a
	if err := c.Binary(a.pcg, "random source", ""); err != nil {
		if c.Reading() {
			c.Failf("random source: %v", err)
		} else {
			c.Fail(err)
		}
	}
	sn.counterFields(c)
	sn.triggerFields(c)
	runStatsFields(c, &a.last)
	codec.WalkStrings(c, &a.parking.Parked, "parked roles")
	codec.WalkList(c, &sn.holds, "holds", func(sh *savedHold) {
		c.String(&sh.agent)
		cluster.WalkHold(c, &sh.h)
	})
	sn.roleFields(c)
	if !c.Step(sn.placeRoles) {
		return
	}
	var ids []string
	if !c.Reading() {
		ids = make([]string, len(a.cs.AgentList))
		for i, ag := range a.cs.AgentList {
			ids[i] = ag.ID
		}
	}
	codec.WalkKeyed(c, ids, "agents", "agent", func(id string) {
		c.Item("agent", id, func() { cluster.WalkAgent(c, sn.agent(id)) })
	})
	codec.WalkTable(c, &a.cs.Frameworks, "frameworks", "framework", func(id string, fw *cluster.Framework) *cluster.Framework {
		if fw == nil {
			fw = &cluster.Framework{ID: id}
		}
		c.Item("framework", id, func() { cluster.WalkFramework(c, fw, a.dec.RefusalsOf) })
		return fw
	})
	sn.sorterFields(c)
	sn.explain = explain.NewWalker(&a.cs, a.roles)
	sn.explain.Log(c, &a.explain, func() { preemptionsFields(c, &a.preempted) })
	sn.explain.Kept(c)
	a.reclaims.Walk(c)
	sn.fairnessFields(c)
}

// optionsFields walks the options that are not functions.
func optionsFields(c *codec.Codec, o *Options) {
	c.Varint(&o.Seed)
	codec.WalkStrings(c, &o.FairnessExcludedResources, "fairness exclusions")
	// Whether the minimum allocatable resources are unset, then the
	// alternatives: none set is no minimum. The options in force are never
	// unset (New sets the defaults), and a snapshot that says they are
	// would not save back to itself.
	unset := o.MinAllocatable == nil
	c.Bool(&unset)
	if unset && c.Reading() {
		c.Failf("minimum allocatable resources saved as unset")
	}
	codec.WalkList(c, &o.MinAllocatable, "minimum allocatable alternatives", c.Quantities)
	if !unset && o.MinAllocatable == nil {
		o.MinAllocatable = []resources.Quantities{}
	}
	c.Duration(&o.AllocationInterval)
	c.Bool(&o.AllowGPUsToAll)
	c.Float64(&o.OfferShare)
	c.String(&o.Region)
	c.Bool(&o.ChargeBeyondAllowance)
	c.Bool(&o.ReservedFirst)
	codec.WalkByte(c, &o.Reclaim)
	c.Duration(&o.ReclaimTimeout)
}

// counterFields walks the counters: runs, offer ids, inverse-offer ids,
// the totals version, the cap and parked epochs, the periodic runs.
func (sn *snapState) counterFields(c *codec.Codec) {
	a := sn.a
	sn.lateUvarint(c, &a.engine.Runs)
	idsFields(c, &a.engine.OfferIDs)
	idsFields(c, &a.engine.InverseOfferIDs)
	sn.lateUvarint(c, &a.cs.TotalsVersion)
	sn.lateUvarint(c, &a.parking.CapEpoch)
	sn.lateUvarint(c, &a.parking.ParkedEpoch)
	c.Uvarint(&a.dec.Batches)
	c.Uvarint(&a.tasks.TaskSeq)
}

// lateUvarint walks a number that working out the derived state again
// moves: a reader sets it once that is done.
func (sn *snapState) lateUvarint(c *codec.Codec, v *uint64) {
	if !c.Reading() {
		c.Uvarint(v)
		return
	}
	var saved uint64
	c.Uvarint(&saved)
	sn.late = append(sn.late, func() { *v = saved })
}

// idsFields walks an id source: the last number it handed out.
func idsFields(c *codec.Codec, ids *offer.IDs) {
	last := ids.Last()
	c.Uvarint(&last)
	if c.Reading() {
		*ids = offer.IDsFrom(ids.Prefix, last)
	}
}

// triggerFields walks what sets off the next run, and what it may look
// at: the pause, the agents waiting for a run, the whitelist.
func (sn *snapState) triggerFields(c *codec.Codec) {
	a := sn.a
	c.Bool(&a.paused)
	c.Bool(&a.engine.PendingAll)
	if !c.Reading() {
		sn.pending = a.engine.Pending.Keys()
	}
	codec.WalkKeys(c, &sn.pending, "pending agents")
	listed := a.engine.Whitelist != nil
	c.Bool(&listed)
	if listed && a.engine.Whitelist == nil {
		a.engine.Whitelist = map[string]struct{}{}
	}
	codec.WalkSet(c, &a.engine.Whitelist, "whitelist")
}

// runStatsFields walks the last run's statistics.
func runStatsFields(c *codec.Codec, st *RunStats) {
	c.Uvarint(&st.Run)
	c.Int(&st.Agents, "count")
	c.Int(&st.SkippedAgents, "count")
	c.Int(&st.Offers, "count")
	c.Int(&st.InverseOffers, "count")
	for i := range st.Skips {
		c.Int(&st.Skips[i], "count")
	}
	c.Int(&st.Unchanged, "count")
	c.Int(&st.Refused, "count")
	c.Int(&st.Capped, "count")
	c.Bool(&st.Periodic)
}

// roleFields walks the role tree: the weights, then the nodes.
func (sn *snapState) roleFields(c *codec.Codec) {
	codec.WalkMap(c, &sn.a.roles.Weights, "weights", "weight of role", func(_ string, w float64) float64 {
		c.Float64(&w)
		return w
	})
	codec.WalkTable(c, sn.nodes, "roles", "role", func(path string, n *roles.Node) *roles.Node {
		if n == nil {
			n = &roles.Node{Path: path}
		}
		c.Uvarint(&n.Epoch)
		c.Uvarint(&n.CappedRun)
		codec.WalkByte(c, &n.CappedBy)
		quota := *n.Q()
		c.Quantities(&quota.Guarantees)
		c.Limits(&quota.Limits)
		if c.Reading() {
			n.SetQuota(quota)
		}
		return n
	})
}

// agent returns the agent a walk walks for id: a writer's, or a new one
// for a reader.
func (sn *snapState) agent(id string) *cluster.Agent {
	a := sn.a
	if ag := a.cs.Agents.Get(id); ag != nil {
		return ag
	}
	ag := &cluster.Agent{ID: id}
	a.cs.NumberAgent(ag)
	a.cs.Agents.Put(ag)
	a.cs.AgentList = append(a.cs.AgentList, ag)
	return ag
}

// sorterFields walks the sorters (books.WalkSorters); a reader's are
// made by the host's factories.
func (sn *snapState) sorterFields(c *codec.Codec) {
	a := sn.a
	if !c.Reading() {
		sn.sorters = a.books.FrameworkSorters()
	}
	a.books.WalkSorters(c, &sn.sorters, func(salt uint64) *roles.TrackedSorter {
		return &roles.TrackedSorter{Sorter: a.opts.FrameworkSorter(a.sorterConfig(salt)), Salt: salt}
	})
}

// fairnessFields walks the options of the rotation after declines and of
// demand (last, so that version 4 is version 3 with this part added), each
// agent's round of declines (the frameworks in it, by id) and each
// framework's statements of demand, role by role, with what is left of
// each count.
func (sn *snapState) fairnessFields(c *codec.Codec) {
	a := sn.a
	c.Bool(&a.opts.MesosOfferOrder)
	c.Bool(&a.opts.WholeOffers)
	if !c.Reading() {
		for _, ag := range a.cs.AgentList {
			if ids := a.dec.RoundMembers(ag); len(ids) > 0 {
				if sn.rounds == nil {
					sn.rounds = map[string][]string{}
				}
				sn.rounds[ag.ID] = ids
			}
		}
		for fw := range a.cs.Frameworks.All() {
			if fw.Demand != nil {
				if sn.demand == nil {
					sn.demand = map[string]map[string][]cluster.Pending{}
				}
				sn.demand[fw.ID] = fw.Demand
			}
		}
	}
	codec.WalkMap(c, &sn.rounds, "rounds of declines", "agent", func(_ string, ids []string) []string {
		codec.WalkKeys(c, &ids, "frameworks that declined")
		return ids
	})
	codec.WalkMap(c, &sn.demand, "frameworks stating demand", "framework", func(_ string, byRole map[string][]cluster.Pending) map[string][]cluster.Pending {
		codec.WalkMap(c, &byRole, "roles with demand", "role", func(_ string, list []cluster.Pending) []cluster.Pending {
			codec.WalkList(c, &list, "pending tasks", func(p *cluster.Pending) {
				c.Quantities(&p.Resources)
				c.Int(&p.Count, "pending count")
			})
			return list
		})
		return byRole
	})
}

// preemptionsFields walks the tasks the latest run chose to end, at the
// end of its log.
func preemptionsFields(c *codec.Codec, preempted *[]Preemption) {
	codec.WalkList(c, preempted, "run preemptions", func(p *Preemption) {
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
