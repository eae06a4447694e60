package allocator

import (
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Allocate runs one allocation over the agents that need it: every agent
// after a framework-wide trigger (a framework added or activated, offers
// revived), else the agents named by agent events since the last run. Events
// between runs accumulate into one batch. While paused it makes no offers
// and keeps the triggers.
func (a *Allocator) Allocate() Result {
	res, _, _ := a.step(Entry{Event: EventAllocate})
	return res
}

// allocateTriggered is Allocate's handler (see events.go).
func (a *Allocator) allocateTriggered() Result {
	if a.paused {
		return Result{}
	}
	var candidates []string
	var all []*cluster.Agent
	if a.pendingAll {
		all = a.cs.AgentList
	} else {
		candidates = a.pending.Keys()
	}
	a.pendingAll = false
	a.pending.Clear()
	return a.allocate(candidates, all)
}

// AllocateAll runs one allocation over every agent, as the periodic batch
// does.
func (a *Allocator) AllocateAll() Result {
	res, _, _ := a.step(Entry{Event: EventAllocateAll})
	return res
}

// allocateAll is AllocateAll's handler (see events.go).
func (a *Allocator) allocateAll() Result {
	a.allWantRun()
	a.periodic = true
	defer func() { a.periodic = false }()
	return a.allocateTriggered()
}

// run holds the state of one allocation run.
type run struct {
	id  uint64
	now time.Time
	// periodic: an AllocateAll (see filterInForce).
	periodic bool
	offers   []explain.Offer
	// stage1 indexes the offers of stage one, which stage two may add to.
	stage1 map[explain.OfferKey]int
	// agentOffers is where the fair-share stage's offers on the agent it
	// is at begin in offers (see record).
	agentOffers   int
	offeredShared map[string]resources.Resources
	stats         *RunStats
	// requiredHeadroom: the unmet guarantees of all roles, as each
	// subtree needs them (roles.Tree.RequiredHeadroom); needFall holds
	// how much an offer of stage one lowers it.
	requiredHeadroom, needFall resources.Quantities
	// quota: some role has a guarantee or a limit.
	quota bool
	// hidden lists the roles deactivated in the role sorter for the rest of
	// the stage: in stage one those without unmet guarantees, in stage two
	// the capped ones.
	hidden []string
	// names are the scalar resource names of the cluster.
	names []string
	// stable and until collect, while a role's frameworks are visited on
	// one agent, whether every pass-over reason stays true while nothing
	// changes, and until when the refusal filters involved last.
	stable bool
	until  time.Time
	// indexed: the current walk stepped over frameworks through the
	// refusal index.
	indexed bool
	// heldBack counts the frameworks the fair-share stage's last walk of
	// the agent it is at held back for the agent's round of declines
	// (rotation.go); sized says an offer was sized to a pending task
	// (demand.go), after which the agent's walk starts again.
	heldBack int
	sized    bool
	// floors are the roles' demand floors in this run (demandFloor);
	// demand says whether some framework states demand, once looked up.
	floors map[*roles.Node]floorEntry
	demand demandKnown
}

// outcome is what offerTo did.
type outcome uint8

const (
	offered   outcome = iota // made an offer
	passed                   // passed the framework over (reason recorded)
	exhausted                // nothing left on the agent for the role
)

// allocate runs an allocation over the candidate agents (sorted ids); all,
// when not nil, holds them, in the same order.
func (a *Allocator) allocate(candidates []string, all []*cluster.Agent) Result {
	var started time.Duration
	if a.obs != nil && a.obs.watch != nil {
		started = a.obs.watch()
	}
	a.runs++
	r := &run{
		id:       a.runs,
		now:      a.opts.Clock(),
		periodic: a.periodic,
		stats:    &RunStats{Run: a.runs, Periodic: a.periodic},
	}
	a.explain.Begin(r.id, r.now, r.periodic, a.dec.Batches, candidates)
	// The offer records and the candidate agents go in storage kept from
	// run to run.
	r.offers = a.explain.Offers
	n := len(candidates)
	if all != nil {
		n = len(all)
	}
	if cap(a.runAgents) < n {
		a.runAgents = make([]*cluster.Agent, 0, n)
	}
	agents := a.runAgents[:0]
	defer func() {
		clear(agents)
		a.runAgents = agents[:0]
	}()
	var maintained []*cluster.Agent // agents with a maintenance window
	if all != nil {
		// A run over every agent: their ids, which the explain log keeps
		// until the next run (which refills the same storage), are listed
		// as the agents are read.
		a.candidateIDs = slices.Grow(a.candidateIDs[:0], n)
	}
	for rank := range n {
		var ag *cluster.Agent
		if all != nil {
			ag = all[rank]
			a.candidateIDs = append(a.candidateIDs, ag.ID)
		} else if ag = a.cs.Agents.Get(candidates[rank]); ag == nil {
			continue
		}
		if ag.Info.Unavailability != nil {
			maintained = append(maintained, ag)
		}
		if int(ag.Num) >= len(a.runRanks) {
			a.runRanks = append(a.runRanks, make([]int32, len(a.cs.AgentsByNum)-len(a.runRanks))...)
		}
		a.runRanks[ag.Num] = int32(rank)
		skip := !ag.Active || ag.OverAllocated || !a.whitelisted(ag)
		if skip && len(ag.Holds()) > 0 {
			// The run leaves the agent out, but its expired holds end all
			// the same (holds.go), which may end its over-allocation.
			a.releaseExpiredHolds(r, ag)
			skip = !ag.Active || ag.OverAllocated || !a.whitelisted(ag)
		}
		if skip {
			r.stats.SkippedAgents++
			r.stats.Skips[ReasonAgentInactive]++
			a.explain.Skipped = append(a.explain.Skipped, ag)
			continue
		}
		agents = append(agents, ag)
	}
	if all != nil {
		a.explain.Candidates = a.candidateIDs
	}
	r.stats.Agents = len(agents)
	if cap(r.offers) < len(agents) {
		// A run offers each agent about once: room for that at once, not
		// grown offer by offer.
		r.offers = make([]explain.Offer, 0, len(agents))
	}
	a.countSuppressed(r)
	a.books.RefreshSorterTotals()
	a.offerHolds(r, agents)
	if _, stable := a.roleSorter.Sorter.(sorter.Stable); stable {
		// A walk over an agent with nothing available offers nothing and,
		// with a role sorter whose walks change nothing, changes nothing:
		// such agents are left out of the shuffles and the walks, with or
		// without caches (Options.CacheFree), so both draw the same
		// numbers. A busy cluster's run then costs what changed.
		agents = slices.DeleteFunc(agents, func(ag *cluster.Agent) bool { return ag.Available.IsEmpty() })
	}

	guarantees := false
	for n := range a.roles.Nodes.All() {
		if !n.Q().IsZero() {
			r.quota = true
			guarantees = guarantees || !n.Q().Guarantees.IsEmpty()
		}
	}
	if r.quota {
		r.requiredHeadroom = a.roles.RequiredHeadroom()
		r.names = a.cs.Totals.Names()
	}
	if r.quota && len(agents) > 0 && a.parksRoles() {
		a.parkCapped(r)
	} else {
		// Without quota (or agents) nothing caps a role: roles parked by
		// an earlier run take part in this one.
		a.parking.Unpark(a.roleSorter)
	}
	a.rng.Shuffle(len(agents), func(i, j int) { agents[i], agents[j] = agents[j], agents[i] })
	if guarantees {
		if r.stage1 == nil {
			r.stage1 = map[explain.OfferKey]int{}
		}
		before := len(r.offers)
		for i, ag := range agents {
			cluster.PrefetchAhead(agents, i)
			a.allocateGuarantees(r, ag)
		}
		for _, role := range r.hidden {
			_ = a.roleSorter.Activate(role)
		}
		r.hidden = r.hidden[:0]
		if len(r.offers) > before && len(a.parking.Parked) > 0 {
			r.stats.Capped -= a.parking.Reconsider(a.roleSorter, a.roles, a.stillCapped(r))
		}
	}
	a.rng.Shuffle(len(agents), func(i, j int) { agents[i], agents[j] = agents[j], agents[i] })
	for i, ag := range agents {
		cluster.PrefetchAhead(agents, i)
		a.allocateFairShare(r, ag)
	}
	// Offers of stage two to roles whose guarantees are unmet lower the
	// headroom held for them, which may uncap roles parked with the
	// headroom the run started with: the next run looks at them again.
	if r.quota && !r.requiredHeadroom.IsEmpty() {
		a.roles.RequiredHeadroomInto(&a.roles.RequiredBuf)
		if !a.roles.RequiredBuf.Equal(r.requiredHeadroom) {
			a.parking.Uncapped()
		}
	}
	// Roles capped during the run stay parked with those capped from its
	// start, unless a guarantee is unmet in their ancestry.
	for _, role := range r.hidden {
		if node := a.roles.Get(role); node != nil && a.roles.UnsatisfiedGuarantees(node).IsEmpty() {
			a.parking.Add(role)
			continue
		}
		_ = a.roleSorter.Activate(role)
	}

	preemptions, withdrawn := a.reclaim(r)
	a.preempted = preemptions
	res := Result{Stats: *r.stats, Preemptions: preemptions, Withdrawn: withdrawn}
	a.explain.Offers = r.offers
	res.Offers = a.groupOffers(r.offers) // and notes them outstanding
	res.InverseOffers = a.inverseOffers(maintained, r)
	if r.periodic {
		a.dec.Batches++
	}
	res.Stats.Offers = len(res.Offers)
	res.Stats.InverseOffers = len(res.InverseOffers)
	a.last = res.Stats
	if a.obs != nil {
		a.observeRun(res, started)
	}
	return res
}

func (a *Allocator) whitelisted(ag *cluster.Agent) bool {
	if a.whitelist == nil {
		return true
	}
	_, ok := a.whitelist[ag.Info.Hostname]
	return ok
}

func (a *Allocator) countSuppressed(r *run) {
	for fw := range a.cs.Frameworks.All() {
		if !fw.Active {
			continue
		}
		for range fw.Roles.Count(tables.Suppressed) {
			a.skip(r, fw, ReasonSuppressed)
		}
	}
}

func (a *Allocator) skip(r *run, fw *cluster.Framework, reason Reason) {
	if fw.SkipsRun != r.id {
		fw.Skips = [numReasons]int32{}
		fw.SkipsRun = r.id
	}
	fw.Skips[reason]++
	r.stats.Skips[reason]++
}

// inverseOffers makes the run's inverse offers: for each candidate agent
// under maintenance, every active framework holding resources there that
// has no outstanding inverse offer and no inverse-offer filter in force.
func (a *Allocator) inverseOffers(maintained []*cluster.Agent, r *run) []offer.InverseOffer {
	var out []offer.InverseOffer
	for _, ag := range maintained {
		id := ag.ID
		for _, fwID := range ag.FrameworkIDs() {
			fw := a.cs.Frameworks.Get(fwID)
			if fw == nil || !fw.Active {
				continue
			}
			if st := ag.Inverse()[fwID]; st != nil && st.Outstanding {
				continue
			}
			if f, ok := fw.InverseFilters[id]; ok {
				if a.dec.FilterInForce(f.Expires, f.Batch, r.now, r.periodic) {
					continue
				}
				if !a.dec.FilterAlive(f.Expires, f.Batch, r.now) {
					delete(fw.InverseFilters, id)
				}
			}
			ag.InverseState(fwID).Outstanding = true
			out = append(out, offer.InverseOffer{
				ID: a.inverseOfferIDs.Next(), FrameworkID: fwID, AgentID: id,
				Unavailability: *ag.Info.Unavailability,
			})
		}
	}
	return out
}
