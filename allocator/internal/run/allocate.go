package run

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

// runState holds the state of one allocation run.
type runState struct {
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
	stats         *Stats
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
func (e *Engine) allocate(candidates []string, all []*cluster.Agent, periodic bool) Result {
	e.Runs++
	r := &runState{
		id:       e.Runs,
		now:      e.opts.Clock(),
		periodic: periodic,
		stats:    &Stats{Run: e.Runs, Periodic: periodic},
	}
	e.explain.Begin(r.id, r.now, r.periodic, e.dec.Batches, candidates)
	// The offer records and the candidate agents go in storage kept from
	// run to run.
	r.offers = e.explain.Offers
	n := len(candidates)
	if all != nil {
		n = len(all)
	}
	if cap(e.runAgents) < n {
		e.runAgents = make([]*cluster.Agent, 0, n)
	}
	agents := e.runAgents[:0]
	defer func() {
		clear(agents)
		e.runAgents = agents[:0]
	}()
	var maintained []*cluster.Agent // agents with a maintenance window
	if all != nil {
		// A run over every agent: their ids, which the explain log keeps
		// until the next run (which refills the same storage), are listed
		// as the agents are read.
		e.candidateIDs = slices.Grow(e.candidateIDs[:0], n)
	}
	for rank := range n {
		var ag *cluster.Agent
		if all != nil {
			ag = all[rank]
			e.candidateIDs = append(e.candidateIDs, ag.ID)
		} else if ag = e.cs.Agents.Get(candidates[rank]); ag == nil {
			continue
		}
		if ag.Info.Unavailability != nil {
			maintained = append(maintained, ag)
		}
		if int(ag.Num) >= len(e.runRanks) {
			e.runRanks = append(e.runRanks, make([]int32, len(e.cs.AgentsByNum)-len(e.runRanks))...)
		}
		e.runRanks[ag.Num] = int32(rank)
		skip := !ag.Active || ag.OverAllocated || !e.whitelisted(ag)
		if skip && len(ag.Holds()) > 0 {
			// The run leaves the agent out, but its expired holds end all
			// the same (holds.go), which may end its over-allocation.
			e.releaseExpiredHolds(r, ag)
			skip = !ag.Active || ag.OverAllocated || !e.whitelisted(ag)
		}
		if skip {
			r.stats.SkippedAgents++
			r.stats.Skips[explain.AgentInactive]++
			e.explain.Skipped = append(e.explain.Skipped, ag)
			continue
		}
		agents = append(agents, ag)
	}
	if all != nil {
		e.explain.Candidates = e.candidateIDs
	}
	r.stats.Agents = len(agents)
	if cap(r.offers) < len(agents) {
		// A run offers each agent about once: room for that at once, not
		// grown offer by offer.
		r.offers = make([]explain.Offer, 0, len(agents))
	}
	e.countSuppressed(r)
	e.books.RefreshSorterTotals()
	e.offerHolds(r, agents)
	if _, stable := e.roleSorter.Sorter.(sorter.Stable); stable {
		// A walk over an agent with nothing available offers nothing and,
		// with a role sorter whose walks change nothing, changes nothing:
		// such agents are left out of the shuffles and the walks, with or
		// without caches (Options.CacheFree), so both draw the same
		// numbers. A busy cluster's run then costs what changed.
		agents = slices.DeleteFunc(agents, func(ag *cluster.Agent) bool { return ag.Available.IsEmpty() })
	}

	guarantees := false
	for n := range e.roles.Nodes.All() {
		if !n.Q().IsZero() {
			r.quota = true
			guarantees = guarantees || !n.Q().Guarantees.IsEmpty()
		}
	}
	if r.quota {
		r.requiredHeadroom = e.roles.RequiredHeadroom()
		r.names = e.cs.Totals.Names()
	}
	if r.quota && len(agents) > 0 && e.parksRoles() {
		e.parkCapped(r)
	} else {
		// Without quota (or agents) nothing caps a role: roles parked by
		// an earlier run take part in this one.
		e.parking.Unpark(e.roleSorter)
	}
	e.rng.Shuffle(len(agents), func(i, j int) { agents[i], agents[j] = agents[j], agents[i] })
	if guarantees {
		if r.stage1 == nil {
			r.stage1 = map[explain.OfferKey]int{}
		}
		before := len(r.offers)
		for i, ag := range agents {
			cluster.PrefetchAhead(agents, i)
			e.allocateGuarantees(r, ag)
		}
		for _, role := range r.hidden {
			_ = e.roleSorter.Activate(role)
		}
		r.hidden = r.hidden[:0]
		if len(r.offers) > before && len(e.parking.Parked) > 0 {
			r.stats.Capped -= e.parking.Reconsider(e.roleSorter, e.roles, e.stillCapped(r))
		}
	}
	e.rng.Shuffle(len(agents), func(i, j int) { agents[i], agents[j] = agents[j], agents[i] })
	for i, ag := range agents {
		cluster.PrefetchAhead(agents, i)
		e.allocateFairShare(r, ag)
	}
	// Offers of stage two to roles whose guarantees are unmet lower the
	// headroom held for them, which may uncap roles parked with the
	// headroom the run started with: the next run looks at them again.
	if r.quota && !r.requiredHeadroom.IsEmpty() {
		e.roles.RequiredHeadroomInto(&e.roles.RequiredBuf)
		if !e.roles.RequiredBuf.Equal(r.requiredHeadroom) {
			e.parking.Uncapped()
		}
	}
	// Roles capped during the run stay parked with those capped from its
	// start, unless a guarantee is unmet in their ancestry.
	for _, role := range r.hidden {
		if node := e.roles.Get(role); node != nil && e.roles.UnsatisfiedGuarantees(node).IsEmpty() {
			e.parking.Add(role)
			continue
		}
		_ = e.roleSorter.Activate(role)
	}

	chosen, withdrawn := e.chooseVictims(r)
	res := Result{Stats: *r.stats, Chosen: chosen, Withdrawn: withdrawn}
	e.explain.Offers = r.offers
	res.Offers = e.groupOffers(r.offers) // and notes them outstanding
	res.InverseOffers = e.inverseOffers(maintained, r)
	if r.periodic {
		e.dec.Batches++
	}
	res.Stats.Offers = len(res.Offers)
	res.Stats.InverseOffers = len(res.InverseOffers)
	return res
}

func (e *Engine) whitelisted(ag *cluster.Agent) bool {
	if e.Whitelist == nil {
		return true
	}
	_, ok := e.Whitelist[ag.Info.Hostname]
	return ok
}

func (e *Engine) countSuppressed(r *runState) {
	for fw := range e.cs.Frameworks.All() {
		if !fw.Active {
			continue
		}
		for range fw.Roles.Count(tables.Suppressed) {
			e.skip(r, fw, explain.Suppressed)
		}
	}
}

func (e *Engine) skip(r *runState, fw *cluster.Framework, reason uint8) {
	if fw.SkipsRun != r.id {
		fw.Skips = [cluster.NumReasons]int32{}
		fw.SkipsRun = r.id
	}
	fw.Skips[reason]++
	r.stats.Skips[reason]++
}

// inverseOffers makes the run's inverse offers: for each candidate agent
// under maintenance, every active framework holding resources there that
// has no outstanding inverse offer and no inverse-offer filter in force.
func (e *Engine) inverseOffers(maintained []*cluster.Agent, r *runState) []offer.InverseOffer {
	var out []offer.InverseOffer
	for _, ag := range maintained {
		id := ag.ID
		for _, fwID := range ag.FrameworkIDs() {
			fw := e.cs.Frameworks.Get(fwID)
			if fw == nil || !fw.Active {
				continue
			}
			if st := ag.Inverse()[fwID]; st != nil && st.Outstanding {
				continue
			}
			if f, ok := fw.InverseFilters[id]; ok {
				if e.dec.FilterInForce(f.Expires, f.Batch, r.now, r.periodic) {
					continue
				}
				if !e.dec.FilterAlive(f.Expires, f.Batch, r.now) {
					delete(fw.InverseFilters, id)
				}
			}
			ag.InverseState(fwID).Outstanding = true
			out = append(out, offer.InverseOffer{
				ID: e.InverseOfferIDs.Next(), FrameworkID: fwID, AgentID: id,
				Unavailability: *ag.Info.Unavailability,
			})
		}
	}
	return out
}
