package allocator

import (
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/refusals"

	"github.com/allot-go/allot/allocator/internal/roles"

	"github.com/allot-go/allot/allocator/internal/tables"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// RunStats describes one allocation run.
type RunStats struct {
	// Run counts allocation runs, starting at 1.
	Run uint64
	// Agents is the number of candidate agents visited.
	Agents int
	// SkippedAgents were candidates that were inactive, not whitelisted or
	// over-allocated.
	SkippedAgents int
	Offers        int
	InverseOffers int
	// Skips counts, per reason, how often a framework was passed over:
	// the reasons a run finds (filtered, suppressed, quota-limit,
	// headroom, min-allocatable, incapable, constraints, agent-inactive);
	// the others stay zero.
	Skips [numReasons]int
	// Unchanged counts (agent, role) pairs skipped without looking at the
	// role's frameworks, because every one of them was passed over there
	// before and nothing that could change that has happened since, or
	// because every framework that could be offered something there states
	// demand and no pending task of theirs fits what the agent has.
	Unchanged int
	// Refused counts frameworks stepped over without a visit because their
	// refusal filters were known to cover everything on the agent: each
	// time a role's frameworks were walked on an agent with at least a few
	// such frameworks, their number. They are not in Skips.
	Refused int
	// Capped counts roles found unable to take anything more in the run
	// (quota limits or headroom, with no reservation or revocable resource
	// left for them); they are not visited again in the run.
	Capped int
	// Periodic: the run was an AllocateAll, the periodic batch (which a
	// refusal filter at its expiry instant may still apply to; see the
	// tie rules in the package doc).
	Periodic bool
}

// PassedOver yields, for each reason a run passes a framework over for,
// how often this run did, in a stable order (Skips holds the same, indexed
// by reason; the other reasons are what Explain finds besides).
func (s RunStats) PassedOver() iter.Seq2[Reason, int] {
	return func(yield func(Reason, int) bool) {
		for _, r := range skipReasons {
			if !yield(r, s.Skips[r]) {
				return
			}
		}
	}
}

// Result is what one allocation run offers.
type Result struct {
	// Offers are sorted by framework, then role, then agent; a framework
	// gets at most one offer per role and agent in a run.
	Offers        []offer.Offer
	InverseOffers []offer.InverseOffer
	// Preemptions are the tasks the run chose to end for other roles
	// (Options.Reclaim), in the order chosen: guarantees first, by role
	// path.
	Preemptions []Preemption
	Stats       RunStats
}

// OffersTo returns the offers made to one framework, in the run's order
// (by role, then agent): what a host hands to that framework, or to
// offer/placement, which places one framework's tasks at a time.
func (r Result) OffersTo(fwID string) []offer.Offer {
	i, _ := slices.BinarySearchFunc(r.Offers, fwID, func(o offer.Offer, id string) int { return strings.Compare(o.FrameworkID, id) })
	j := i
	for j < len(r.Offers) && r.Offers[j].FrameworkID == fwID {
		j++
	}
	return r.Offers[i:j:j]
}

// ByFramework groups the offers by framework and role.
func (r Result) ByFramework() map[string]map[string][]offer.Offer {
	out := map[string]map[string][]offer.Offer{}
	for _, o := range r.Offers {
		if out[o.FrameworkID] == nil {
			out[o.FrameworkID] = map[string][]offer.Offer{}
		}
		out[o.FrameworkID][o.Role] = append(out[o.FrameworkID][o.Role], o)
	}
	return out
}

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
	var all []*agent
	if a.pendingAll {
		all = a.agentList
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

// offerKey identifies one offer of a run.
type offerKey struct{ framework, role, agent string }

// run holds the state of one allocation run.
type run struct {
	id  uint64
	now time.Time
	// periodic: an AllocateAll (see filterInForce).
	periodic bool
	offers   []offerRecord
	// stage1 indexes the offers of stage one, which stage two may add to.
	stage1 map[offerKey]int
	// agentOffers is where the fair-share stage's offers on the agent it
	// is at begin in offers (see record).
	agentOffers   int
	offeredShared map[string]resources.Resources
	stats         *RunStats
	// requiredHeadroom: the unmet guarantees of all roles.
	requiredHeadroom resources.Quantities
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

type offerRecord struct {
	key offerKey
	res resources.Resources
	ag  *agent
	// rank is ag's rank, read while the agent is at hand: grouping the
	// run's offers would otherwise reach every agent again to sort them.
	rank int
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
func (a *Allocator) allocate(candidates []string, all []*agent) Result {
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
	a.explain.begin(r.id, r.now, r.periodic, a.batches, candidates)
	// The offer records and the candidate agents go in storage kept from
	// run to run.
	r.offers = a.explain.offers
	n := len(candidates)
	if all != nil {
		n = len(all)
	}
	if cap(a.runAgents) < n {
		a.runAgents = make([]*agent, 0, n)
	}
	agents := a.runAgents[:0]
	defer func() {
		clear(agents)
		a.runAgents = agents[:0]
	}()
	var maintained []*agent // agents with a maintenance window
	if all != nil {
		// A run over every agent: their ids, which the explain log keeps
		// until the next run (which refills the same storage), are listed
		// as the agents are read.
		a.candidateIDs = slices.Grow(a.candidateIDs[:0], n)
	}
	for rank := range n {
		var ag *agent
		if all != nil {
			ag = all[rank]
			a.candidateIDs = append(a.candidateIDs, ag.id)
		} else if ag = a.agents.Get(candidates[rank]); ag == nil {
			continue
		}
		if ag.info.Unavailability != nil {
			maintained = append(maintained, ag)
		}
		if int(ag.num) >= len(a.runRanks) {
			a.runRanks = append(a.runRanks, make([]int32, len(a.agentsByNum)-len(a.runRanks))...)
		}
		a.runRanks[ag.num] = int32(rank)
		if !ag.active || ag.overAllocated || !a.whitelisted(ag) {
			r.stats.SkippedAgents++
			r.stats.Skips[ReasonAgentInactive]++
			a.explain.skipped = append(a.explain.skipped, ag)
			continue
		}
		agents = append(agents, ag)
	}
	if all != nil {
		a.explain.candidates = a.candidateIDs
	}
	r.stats.Agents = len(agents)
	if cap(r.offers) < len(agents) {
		// A run offers each agent about once: room for that at once, not
		// grown offer by offer.
		r.offers = make([]offerRecord, 0, len(agents))
	}
	a.countSuppressed(r)
	a.refreshSorterTotals()
	a.offerHolds(r, agents)
	if _, stable := a.roleSorter.Sorter.(sorter.Stable); stable {
		// A walk over an agent with nothing available offers nothing and,
		// with a role sorter whose walks change nothing, changes nothing:
		// such agents are left out of the shuffles and the walks, with or
		// without caches (Options.CacheFree), so both draw the same
		// numbers. A busy cluster's run then costs what changed.
		agents = slices.DeleteFunc(agents, func(ag *agent) bool { return ag.available.IsEmpty() })
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
		r.names = a.totals.Names()
	}
	if r.quota && len(agents) > 0 && a.parksRoles() {
		a.parkCapped(r)
	} else {
		// Without quota (or agents) nothing caps a role: roles parked by
		// an earlier run take part in this one.
		a.unpark()
	}
	a.rng.Shuffle(len(agents), func(i, j int) { agents[i], agents[j] = agents[j], agents[i] })
	if guarantees {
		if r.stage1 == nil {
			r.stage1 = map[offerKey]int{}
		}
		before := len(r.offers)
		for i, ag := range agents {
			prefetchAhead(agents, i)
			a.allocateGuarantees(r, ag)
		}
		for _, role := range r.hidden {
			_ = a.roleSorter.Activate(role)
		}
		r.hidden = r.hidden[:0]
		if len(r.offers) > before && len(a.parked) > 0 {
			a.reconsiderParked(r)
		}
	}
	a.rng.Shuffle(len(agents), func(i, j int) { agents[i], agents[j] = agents[j], agents[i] })
	for i, ag := range agents {
		prefetchAhead(agents, i)
		a.allocateFairShare(r, ag)
	}
	// Offers of stage two to roles whose guarantees are unmet lower the
	// headroom held for them, which may uncap roles parked with the
	// headroom the run started with: the next run looks at them again.
	if r.quota && !r.requiredHeadroom.IsEmpty() {
		a.roles.RequiredHeadroomInto(&a.roles.RequiredBuf)
		if !a.roles.RequiredBuf.Equal(r.requiredHeadroom) {
			a.uncapped()
		}
	}
	// Roles capped during the run stay parked with those capped from its
	// start, unless a guarantee is unmet in their ancestry.
	for _, role := range r.hidden {
		if node := a.roles.Get(role); node != nil && a.roles.UnsatisfiedGuarantees(node).IsEmpty() {
			a.parked = append(a.parked, role)
			continue
		}
		_ = a.roleSorter.Activate(role)
	}

	preemptions := a.reclaim(r)
	a.explain.preemptions = preemptions
	res := Result{Stats: *r.stats, Preemptions: preemptions}
	a.explain.offers = r.offers
	res.Offers = a.groupOffers(r.offers) // and notes them outstanding
	res.InverseOffers = a.inverseOffers(maintained, r)
	if r.periodic {
		a.batches++
	}
	res.Stats.Offers = len(res.Offers)
	res.Stats.InverseOffers = len(res.InverseOffers)
	a.last = res.Stats
	if a.obs != nil {
		a.observeRun(res, started)
	}
	return res
}

func (a *Allocator) whitelisted(ag *agent) bool {
	if a.whitelist == nil {
		return true
	}
	_, ok := a.whitelist[ag.info.Hostname]
	return ok
}

// refreshSorterTotals tells every sorter the current cluster totals, once
// per change. The sorters may keep what they are given (see
// sorter.Sorter.AddAgent) and the totals change in place: they share one
// copy of them, made once per change.
func (a *Allocator) refreshSorterTotals() {
	var total resources.Quantities
	copied := false
	refresh := func(s *roles.TrackedSorter) {
		if s.TotalsVersion == a.totalsVersion {
			return
		}
		if !copied {
			total, copied = a.totals.Clone(), true
		}
		s.AddAgent(poolAgent, total)
		s.TotalsVersion = a.totalsVersion
	}
	refresh(a.roleSorter)
	for n := range a.roles.Nodes.All() {
		if n.FrameworkSorter != nil {
			refresh(n.FrameworkSorter)
		}
	}
}

func (a *Allocator) countSuppressed(r *run) {
	for fw := range a.frameworks.All() {
		if !fw.active {
			continue
		}
		for range fw.roles.Count(tables.Suppressed) {
			a.skip(r, fw, ReasonSuppressed)
		}
	}
}

func (a *Allocator) skip(r *run, fw *framework, reason Reason) {
	if fw.skipsRun != r.id {
		fw.skips = [numReasons]int32{}
		fw.skipsRun = r.id
	}
	fw.skips[reason]++
	r.stats.Skips[reason]++
}

// capped reports whether a role can take nothing more anywhere in this
// run: no scalar resource of the cluster is left to it under its (and its
// ancestors') limits and the headroom held for others, no reservation of
// its top-level subtree is unallocated, no agent has revocable or shared
// resources, and every minimum allocatable alternative needs some scalar.
// Within a run consumption and spare headroom only move one way, so a
// capped role stays capped until the run ends. Its active frameworks are
// counted as passed over once, for the limit or the headroom.
func (a *Allocator) capped(r *run, n *roles.Node) bool {
	if !r.quota {
		return false
	}
	if n.CappedRun == r.id && !a.opts.CacheFree {
		return true
	}
	capped, byLimit := a.cappedNow(n, r.requiredHeadroom, r.names)
	if !capped || n.CappedRun == r.id {
		return capped
	}
	r.stats.Capped++
	// The role's frameworks are passed over for its limit, or for the
	// headroom held for others; when neither holds anything back, the
	// cluster simply has nothing free for the role, which is no reason to
	// count against it (as an agent with nothing left is not).
	reason := ReasonQuotaLimit
	switch {
	case byLimit:
	case !r.requiredHeadroom.IsEmpty():
		reason = ReasonHeadroom
	default:
		// Nothing scalar is free anywhere: what agents still have is
		// below every minimum allocatable alternative.
		reason = ReasonMinAllocatable
	}
	if reason != ReasonMinAllocatable {
		for _, fwID := range n.Frameworks.Sorted() {
			if fw := a.frameworks.Get(fwID); fw.active {
				a.skip(r, fw, reason)
			}
		}
	}
	n.CappedRun, n.CappedBy = r.id, uint8(reason)
	return true
}

// cappedNow is capped's test, with the run's required headroom and the
// cluster's scalar names: whether the role can take nothing more, and
// whether a quota limit is why.
func (a *Allocator) cappedNow(n *roles.Node, requiredHeadroom resources.Quantities, names []string) (capped, byLimit bool) {
	top := n
	for top.Parent != a.roles.Root {
		top = top.Parent
	}
	if !top.AllocatedReserved.Contains(top.Reserved) || a.revocableOrSharedAgents > 0 {
		return false, false
	}
	// What the role may take of unreserved scalars is at most what is free
	// beyond the headroom held for others, and at most what its limits
	// leave. (With no unmet guarantee anywhere, that is what is free.)
	// (The spare headroom is worked out per name: this runs for every role
	// the run looks at, and a vector would be a copy each time.)
	const headroom = true
	for _, name := range names {
		left, limited := max(a.freeHeadroom.Scalar(name)-requiredHeadroom.Scalar(name), 0), headroom
		for q := range n.QuotaAncestry {
			if lim, ok := q.Q().Limits.Get(name); ok {
				left2 := max(lim-q.Consumed().Scalar(name), 0)
				if !limited || left2 < left {
					left, limited = left2, true
				}
				byLimit = byLimit || left2 == 0
			}
		}
		if !limited || left > 0 {
			return false, false
		}
	}
	if len(a.opts.MinAllocatable) == 0 {
		return false, false
	}
	for _, alt := range a.opts.MinAllocatable {
		if !slices.ContainsFunc(alt.Names(), func(name string) bool { return a.totals.Scalar(name) > 0 }) {
			return false, false
		}
	}
	if n.Frameworks.Any(func(fwID string) bool {
		_, ok := a.frameworks.Get(fwID).info.MinAllocatable[n.Path]
		return ok
	}) {
		return false, false
	}
	return true, byLimit
}

// parkCapped keeps out of the role sorter the roles that can take nothing
// more (see capped), unless a guarantee is unmet in their ancestry:
// guaranteed resources are not held back as headroom. Such roles stay out
// across runs, parked, until something that could uncap a role happens
// (capEpoch: resources given back, totals, reservations, quota or a role's
// frameworks changed); then every parked role is looked at again.
func (a *Allocator) parkCapped(r *run) {
	if a.parkedEpoch == a.capEpoch && a.parkedReasonsHold(r) {
		r.stats.Capped += len(a.parked)
		return
	}
	a.unpark()
	a.parkedEpoch = a.capEpoch
	for _, role := range a.rolesWithSorters() {
		if node := a.roles.Get(role); a.roles.UnsatisfiedGuarantees(node).IsEmpty() && a.capped(r, node) {
			_ = a.roleSorter.Deactivate(role)
			a.parked = append(a.parked, role)
		}
	}
}

// parkedReasonsHold reports whether the reasons the parked roles were
// capped for still hold in run r. A role parked while headroom was held
// for unmet guarantees was capped for the headroom; once none is held (an
// offer met the last unmet guarantee), the same cap has another reason:
// nothing free it could be offered. And the other way round. The cap
// stands either way, but Explain would give the old reason: the roles are
// then looked at again, and their reasons found anew.
func (a *Allocator) parkedReasonsHold(r *run) bool {
	held := !r.requiredHeadroom.IsEmpty()
	for _, role := range a.parked {
		n := a.roles.Get(role)
		if n == nil {
			continue
		}
		if (Reason(n.CappedBy) == ReasonHeadroom && !held) || (Reason(n.CappedBy) == ReasonMinAllocatable && held) {
			return false
		}
	}
	return true
}

// reconsiderParked lets back into the role sorter the parked roles that
// stage one's offers uncapped. Those offers lower the headroom held for
// unmet guarantees by what they count towards them, which is more than
// they take from the free pool when they hand out reservations, so a role
// parked at the start of the run may have room again.
func (a *Allocator) reconsiderParked(r *run) {
	kept := a.parked[:0]
	for _, role := range a.parked {
		if n := a.roles.Get(role); n != nil {
			if capped, _ := a.cappedNow(n, r.requiredHeadroom, r.names); !capped {
				_ = a.roleSorter.Activate(role)
				n.CappedRun = 0
				r.stats.Capped--
				continue
			}
		}
		kept = append(kept, role)
	}
	clear(a.parked[len(kept):])
	a.parked = kept
}

// unpark lets every parked role back into the role sorter.
func (a *Allocator) unpark() {
	for _, role := range a.parked {
		if a.roleSorter.Contains(role) {
			_ = a.roleSorter.Activate(role)
		}
	}
	clear(a.parked)
	a.parked = a.parked[:0]
	a.parkedEpoch = a.capEpoch - 1
}

// uncapped notes an event that could let a capped role take more again.
func (a *Allocator) uncapped() { a.capEpoch++ }

// stage is one of the two stages of a run.
type stage uint8

const (
	stageGuarantees stage = iota
	stageFairShare
)

// walk visits s's clients in order until visit returns false: with
// sorter.Walker when s implements it (a run usually stops at the first
// client that takes the agent), else through Sort. Changes made to s during
// the walk (allocations, deactivations) apply from the next walk on, as
// they would from the next Sort.
func walk(s sorter.Sorter, visit func(string) bool) {
	if w, ok := s.(sorter.Walker); ok {
		w.Walk(visit)
		return
	}
	for _, client := range s.Sort() {
		if !visit(client) {
			return
		}
	}
}

// cursor is where an allocation run is while it walks the sorters: the
// agent being allocated and the role whose frameworks are being visited.
// The walk callbacks are methods bound once (see New), so walking allocates
// nothing.
type cursor struct {
	r    *run
	ag   *agent
	role string
	// node and fs are the role's node and framework sorter, looked up once
	// for the walk of its frameworks.
	node        *roles.Node
	fs          *roles.TrackedSorter
	unsatisfied resources.Quantities
	// complete: every framework of the role was visited; madeOffer: one of
	// them was offered something.
	complete, madeOffer bool
}

func (a *Allocator) allocateGuarantees(r *run, ag *agent) {
	a.cur = cursor{r: r, ag: ag}
	for {
		// As in the fair-share stage, an offer sized to a pending task
		// starts the walk again, so that a role below its guarantee gets
		// as many of its tasks as the agent holds.
		r.sized = false
		walk(a.roleSorter.Sorter, a.visitGuaranteeRole)
		if !r.sized || ag.available.IsEmpty() {
			break
		}
	}
	r.sized = false
	a.cur = cursor{}
}

// guaranteeRole is stage one's visit of a role on the cursor's agent.
func (a *Allocator) guaranteeRole(role string) bool {
	c := &a.cur
	if c.ag.available.IsEmpty() {
		return false
	}
	node := a.roles.Get(role)
	if node == nil {
		return true
	}
	a.roles.UnsatisfiedInto(node, &a.unsatBuf)
	c.unsatisfied = a.unsatBuf
	if c.unsatisfied.IsEmpty() {
		// Guarantees only get met within a run: hide the role from the
		// role sorter for the rest of stage one.
		if a.parksRoles() {
			_ = a.roleSorter.Deactivate(role)
			c.r.hidden = append(c.r.hidden, role)
		}
		return true
	}
	fs := node.FrameworkSorter
	if fs == nil || a.nobody(c.ag, node, fs, c.r, stageGuarantees) {
		return true
	}
	c.role, c.node, c.fs = role, node, fs
	a.walkFrameworks(fs, c.ag, role, c.r, a.visitGuaranteeFramework)
	return !c.r.sized
}

// guaranteeFramework is stage one's visit of a framework of the cursor's
// role.
func (a *Allocator) guaranteeFramework(fwID string) bool {
	c := &a.cur
	if c.unsatisfied.IsEmpty() {
		return false
	}
	out, got := a.offerTo(c.r, c.ag, a.frameworks.Get(fwID), c.role, c.node, c.fs, stageGuarantees, c.unsatisfied)
	if out == exhausted {
		return false
	}
	c.unsatisfied.Subtract(got)
	return !c.r.sized
}

func (a *Allocator) allocateFairShare(r *run, ag *agent) {
	a.cur = cursor{r: r, ag: ag}
	r.agentOffers = len(r.offers)
	first := len(a.explain.passes)
	a.walkAgent(r, ag)
	if a.endRound(r, ag) {
		// The frameworks the round held back are offered what is left,
		// as any others would be.
		second := len(a.explain.passes)
		a.walkAgent(r, ag)
		a.settleHeldBack(r, ag, first, second)
	}
	a.cur = cursor{}
}

// walkAgent walks the roles on the cursor's agent in the fair-share stage.
func (a *Allocator) walkAgent(r *run, ag *agent) {
	for {
		// An offer sized to a pending task (demand.go) stops the walk: the
		// agent's next task goes to whoever is first in DRF order now.
		r.sized = false
		r.heldBack = 0
		walk(a.roleSorter.Sorter, a.visitFairRole)
		if !r.sized || ag.available.IsEmpty() {
			break
		}
	}
}

// fairRole is stage two's visit of a role on the cursor's agent.
func (a *Allocator) fairRole(role string) bool {
	c := &a.cur
	if c.ag.available.IsEmpty() {
		return false
	}
	node := a.roles.Get(role)
	if node == nil || node.FrameworkSorter == nil {
		return true
	}
	fs := node.FrameworkSorter
	if a.capped(c.r, node) {
		// Hide the role from the role sorter for the rest of the run.
		if a.parksRoles() {
			_ = a.roleSorter.Deactivate(role)
			c.r.hidden = append(c.r.hidden, role)
		}
		return true
	}
	if a.nobody(c.ag, node, fs, c.r, stageFairShare) {
		return true
	}
	if a.skipsWalks(fs) && a.fitsNoTask(c.r, c.ag, node) {
		a.explain.unfit(c.ag, node)
		return true
	}
	c.r.stable, c.r.until = true, time.Time{}
	c.role, c.node, c.fs, c.complete, c.madeOffer = role, node, fs, true, false
	start := len(a.explain.passes)
	a.walkFrameworks(fs, c.ag, role, c.r, a.visitFairFramework)
	if c.r.sized {
		return false
	}
	if !c.madeOffer {
		// A walk that made an offer shows in the offers.
		a.explain.visit(c.ag, node, stageFairShare, c.r.indexed)
	}
	if c.complete && !c.madeOffer && c.r.stable && a.skipsWalks(fs) {
		a.rememberNobody(c.ag, node, c.r.until, a.explain.since(start, c.r.indexed))
	}
	return true
}

// fairFramework is stage two's visit of a framework of the cursor's role.
func (a *Allocator) fairFramework(fwID string) bool {
	c := &a.cur
	out, _ := a.offerTo(c.r, c.ag, a.frameworks.Get(fwID), c.role, c.node, c.fs, stageFairShare, resources.Quantities{})
	if out == exhausted || (out == offered && (c.ag.available.IsEmpty() || c.r.sized)) {
		// Nothing left for the next framework: stop here rather than
		// visit it to find out.
		c.madeOffer = c.madeOffer || out == offered
		c.complete = false
		return false
	}
	c.madeOffer = c.madeOffer || out == offered
	return true
}

// walkFrameworks walks the frameworks of role on ag in the sorter's order.
// Frameworks whose refusal filters are known to cover everything on the
// agent are stepped over without a visit when there are enough of them and
// the sorter can (see filters.go); they are counted in RunStats.Refused.
func (a *Allocator) walkFrameworks(fs *roles.TrackedSorter, ag *agent, role string, r *run, visit func(string) bool) {
	r.indexed = false
	if idx := ag.refusers(role, r.now); idx != nil && a.skipsWalks(fs) {
		if indexed, ok := fs.Sorter.(sorter.Indexed); ok {
			if n := idx.Skip.Count(); n >= refusals.IndexAbove {
				r.stats.Refused += n
				r.indexed = true
				if r.until.IsZero() || idx.Until.Before(r.until) {
					r.until = idx.Until
				}
				indexed.WalkExcept(idx.Skip, visit)
				return
			}
		}
	}
	walk(fs.Sorter, visit)
}

// nobody reports whether every framework of the role was passed over on
// the agent before, for reasons that still hold.
func (a *Allocator) nobody(ag *agent, n *roles.Node, fs *roles.TrackedSorter, r *run, st stage) bool {
	if !a.skipsWalks(fs) {
		return false
	}
	e, ok := ag.nobody.Get(n.Path)
	if !ok {
		return false
	}
	if e.version != ag.version || e.epoch != n.Epoch || (e.until != refusals.NoExpiry && !r.now.Before(e.until.Time())) {
		ag.nobody.Drop(n.Path)
		return false
	}
	r.stats.Unchanged++
	a.explain.unchanged(ag, n, st, e.passes)
	return true
}

func (a *Allocator) rememberNobody(ag *agent, n *roles.Node, until time.Time, passes *nobodyPasses) {
	if ag.hasShared {
		// Shared volumes offered earlier in a run are hidden from later
		// frameworks only for that run.
		return
	}
	e, ok := refusals.ExpiryOf(until)
	if !ok {
		return // the cache could not say when the result ends
	}
	ag.nobody.Set(n.Path, nobodyEntry{version: ag.version, epoch: n.Epoch, until: e, passes: passes})
}

// passOver records that fw was passed over on ag in node's role for
// reason, with the quantities behind it (for quota, headroom and minimum
// allocatable passes; empty otherwise), for Skips and Explain. Reasons
// that can change while neither the agent nor the role's frameworks change
// (quota, headroom) make the run's verdict on the agent unstable, so it is
// not cached.
func (a *Allocator) passOver(r *run, fw *framework, ag *agent, node *roles.Node, st stage, reason Reason, detail resources.Quantities) (outcome, resources.Quantities) {
	a.skip(r, fw, reason)
	if reason == ReasonQuotaLimit || reason == ReasonHeadroom {
		r.stable = false
	}
	a.explain.pass(fw, ag, node, st, reason, detail)
	return passed, resources.Quantities{}
}

// offerTo makes fw an offer on ag in role (its node and framework sorter
// fs) if it can take one. It returns what it did and, for an offer, the
// unreserved non-revocable quantities offered.
func (a *Allocator) offerTo(r *run, ag *agent, fw *framework, role string, node *roles.Node, fs *roles.TrackedSorter, st stage, unsatisfied resources.Quantities) (outcome, resources.Quantities) {
	if fw == nil {
		return passed, resources.Quantities{}
	}
	if st == stageFairShare && len(r.offers) > r.agentOffers && a.offeredHere(r, fw, role) {
		// A walk after an offer sized to a pending task (demand.go) meets
		// frameworks offered something here already: only one whose
		// offers are sized to its tasks may be offered more, in the same
		// offer; the others had what the stage gives them here.
		if _, stated := fw.pendingIn(role); !stated || a.opts.WholeOffers {
			r.stable = false // no pass of its own: not a verdict to keep
			return passed, resources.Quantities{}
		}
	}
	if fw.info.Constraints != nil {
		if cs, ok := fw.info.Constraints[role]; ok && !cs.admits(ag.info.Attributes) {
			return a.passOver(r, fw, ag, node, st, ReasonConstraints, resources.Quantities{})
		}
	}
	// available is read-only below: on the common path it is the agent's
	// own value.
	available := ag.available
	// whole: available is still all of the agent's available resources.
	whole := true
	if ag.hasReserved {
		available, whole = available.AllocatableTo(role), false
	}
	if shared, ok := r.offeredShared[ag.id]; ok {
		available, whole = available.Minus(shared), false
	}
	if available.IsEmpty() {
		return exhausted, resources.Quantities{}
	}
	if !a.allocatable(available, role, fw) {
		return a.passOver(r, fw, ag, node, st, ReasonMinAllocatable, available.Quantities())
	}
	if !a.capableOfAgent(fw, ag) {
		at := len(a.explain.passes)
		out, q := a.passOver(r, fw, ag, node, st, ReasonIncapable, resources.Quantities{})
		a.explain.missing(at, a.agentMissing(fw, ag))
		return out, q
	}
	if ag.hasShared || ag.hasRevocable || ag.hasRefined {
		before := available
		available, whole = stripIncapable(available, fw.info.Capabilities), false
		if available.IsEmpty() {
			at := len(a.explain.passes)
			out, q := a.passOver(r, fw, ag, node, st, ReasonIncapable, resources.Quantities{})
			a.explain.missing(at, strippedMissing(before, fw.info.Capabilities))
			return out, q
		}
	}

	toOffer := available
	// uncut is what quota governs of the offer before any cut.
	var guaranteed, additional, uncut resources.Resources
	// guaranteedQ and gotQ are, in stage one, what the offer counts
	// towards the role's guarantees and what it holds of quota's part.
	var guaranteedQ, gotQ resources.Quantities
	cutByLimit, cutByHeadroom, cutByShare := false, false, false
	limits, limited := resources.Limits{}, false
	if r.quota {
		limits, limited = a.roles.LimitHeadroom(node)
	}
	split := st == stageFairShare && a.opts.OfferShare > 0 && a.opts.OfferShare < 1
	if st == stageGuarantees || limited || !r.requiredHeadroom.IsEmpty() || split {
		// Split into what quota governs (unreserved, non-revocable scalars)
		// and the rest (reservations, non-scalars, revocable).
		cut := a.cutOrder(r, st, ag.id, fw.id, role)
		quotaPart, rest := available.QuotaPart()
		uncut = quotaPart
		if st == stageGuarantees {
			// Guarantees never take the role or an ancestor past a limit.
			if limited {
				unsatisfied = limits.Cap(unsatisfied)
			}
			guaranteed = quotaPart.Shrink(unsatisfied, cut)
			if guaranteed.IsEmpty() {
				return passed, resources.Quantities{}
			}
			guaranteedQ = guaranteed.Quantities()
			// Stage one offers only the role's own reservations; ancestors'
			// reservations wait for the fair-share stage.
			rest = rest.Filter(func(x resources.Resource) bool { return !x.IsReserved() || x.Role() == role })
			quotaPart = quotaPart.Minus(guaranteed)
			rest.Add(guaranteed)
		}
		additional = quotaPart
		if limited {
			if st == stageGuarantees {
				limits = limits.Subtract(guaranteed.Quantities())
			}
			before := additional.Len()
			additional = additional.ShrinkToLimits(limits, cut)
			cutByLimit = !additional.Equal(quotaPart) || additional.Len() != before
		}
		if !r.requiredHeadroom.IsEmpty() {
			// The guaranteed part lowers free and required headroom alike,
			// so the spare is what it was before this offer.
			spare := a.freeHeadroom.Minus(r.requiredHeadroom)
			capped := additional.Shrink(spare, cut)
			cutByHeadroom = !capped.Equal(additional)
			additional = capped
		}
		if split {
			before := additional
			additional = additional.ShrinkToLimits(a.offerShareOf(ag), cut)
			cutByShare = additional.Len() != before.Len() || !additional.Equal(before)
		}
		rest.Add(additional)
		toOffer, whole = rest, false
		if st == stageGuarantees {
			gotQ = guaranteed.Plus(additional).Quantities()
		}
	}

	if !a.allocatable(toOffer, role, fw) {
		switch {
		case cutByLimit:
			return a.passOver(r, fw, ag, node, st, ReasonQuotaLimit, uncut.Quantities())
		case cutByHeadroom:
			return a.passOver(r, fw, ag, node, st, ReasonHeadroom, uncut.Quantities())
		}
		if cutByShare {
			// Below the minimum after a cut to the offer share, drawn for
			// this run: the verdict on the agent is not kept.
			r.stable = false
		}
		return a.passOver(r, fw, ag, node, st, ReasonMinAllocatable, toOffer.Quantities())
	}
	// sizedFor is the pending task the offer is sized for (demand.go), -1
	// when it is not sized.
	sizedFor := -1
	if pending, stated := fw.pendingIn(role); stated {
		i := pendingFit(pending, toOffer)
		if i < 0 {
			if cutByLimit || cutByHeadroom || cutByShare {
				// Cut down: what is left may grow without the agent
				// changing (see the filtered case below).
				r.stable = false
			}
			return a.passOver(r, fw, ag, node, st, ReasonNoFit, toOffer.Quantities())
		}
		if !a.opts.WholeOffers {
			// A disk that does not split (a MOUNT disk, a volume) may hold
			// the task whole but not be cut to it: the offer is then not
			// sized.
			// Nor is one that would fall below the minimum allocatable
			// resources: the whole leftover is offered instead.
			if sized := toOffer.Shrink(pending[i].Resources, nil); sized.ContainsQuantities(pending[i].Resources) && a.allocatable(sized, role, fw) {
				toOffer, whole, sizedFor = sized, false, i
				if st == stageGuarantees {
					quota, _ := sized.QuotaPart()
					q := quota.Quantities()
					guaranteedQ, gotQ = guaranteedQ.Min(q), q
				}
			}
		}
	}
	if filtered, until := a.isFiltered(fw, role, ag, toOffer, true, r); filtered {
		if r.until.IsZero() || until.Before(r.until) {
			r.until = until
		}
		if cutByLimit || cutByHeadroom || cutByShare || sizedFor >= 0 {
			// The filter covers an offer cut down, to a limit or the
			// headroom (which events elsewhere, quota or other roles'
			// consumption, can widen), to an offer share (in an order
			// drawn for this run), or to the first pending task that fits
			// (which, on a smaller leftover, may be another task the
			// filter does not cover): the verdict on the agent is not
			// kept.
			r.stable = false
		}
		return a.passOver(r, fw, ag, node, st, ReasonFiltered, resources.Quantities{})
	}
	if st == stageFairShare && !a.opts.MesosOfferOrder && a.heldBack(fw, ag) {
		// The round after declines (rotation.go): the others first. The
		// round ends in this run if nobody else takes the agent, so the
		// verdict is not kept.
		r.stable = false
		r.heldBack++
		return a.passOver(r, fw, ag, node, st, ReasonDeclined, resources.Quantities{})
	}

	offeredRes := toOffer.Allocate(role).Frozen()
	a.record(r, ag, offerKey{fw.id, role, ag.id}, offeredRes, st == stageGuarantees, st == stageFairShare && sizedFor >= 0)
	if ag.hasShared {
		if shared := toOffer.Shared(); !shared.IsEmpty() {
			if r.offeredShared == nil {
				r.offeredShared = map[string]resources.Resources{}
			}
			s := r.offeredShared[ag.id]
			s.Add(shared)
			r.offeredShared[ag.id] = s
		}
	}
	if st == stageGuarantees {
		r.requiredHeadroom.Subtract(guaranteedQ)
	}
	if sizedFor >= 0 {
		r.sized = true
	}
	if fw.demand != nil {
		// Before trackOffer, which may change toOffer's storage.
		a.consumeDemand(fw, role, toOffer, sizedFor)
	}
	a.trackOffer(fw, ag, role, node, fs, offeredRes, toOffer, whole)
	if st == stageGuarantees {
		return offered, gotQ
	}
	return offered, resources.Quantities{}
}

// offerShareOf is the most of each unreserved, non-revocable scalar of ag
// one offer may hold under Options.OfferShare.
func (a *Allocator) offerShareOf(ag *agent) resources.Limits {
	var l resources.Limits
	for name, v := range headroomOf(ag.total).All() {
		l.Set(name, resources.Scalar(float64(v)*a.opts.OfferShare))
	}
	return l
}

// record adds an offer to the run. An offer to the same framework, role
// and agent as one of stage one joins it (stage is the stage's offers, and
// holds'), and so does one sized to a pending task (sized) with the
// agent's earlier sized offers: those were made while the fair-share stage
// was at the agent, so they are among the run's last offers, from
// r.agentOffers on.
func (a *Allocator) record(r *run, ag *agent, key offerKey, res resources.Resources, stage, sized bool) {
	join := func(i int) {
		merged := r.offers[i].res.Clone()
		merged.Add(res)
		r.offers[i].res = merged.Frozen()
	}
	if r.stage1 != nil {
		if i, ok := r.stage1[key]; ok {
			join(i)
			return
		}
		if stage {
			r.stage1[key] = len(r.offers)
		}
	}
	if sized || !stage {
		for i := r.agentOffers; i < len(r.offers); i++ {
			if r.offers[i].key == key {
				join(i)
				return
			}
		}
	}
	r.offers = append(r.offers, offerRecord{key: key, res: res, ag: ag, rank: int(a.runRanks[ag.num])})
}

// trackOffer is trackAllocation for one offer of a run: offered is tagged
// with role (its node and framework sorter fs), plain is the same without
// the tag, and whole says it is all of the agent's available resources.
func (a *Allocator) trackOffer(fw *framework, ag *agent, role string, node *roles.Node, fs *roles.TrackedSorter, offered, plain resources.Resources, whole bool) {
	// offered is frozen: the host, the agent's records and the sorters
	// share it, and none changes it in place.
	if held := ag.offered.Get(fw.id); held.IsEmpty() {
		ag.offered.Set(fw.id, offered)
	} else {
		ag.offered.Set(fw.id, held.Plus(offered))
	}
	// plain may share storage with ag.available: use it before available
	// changes in place.
	counted := a.trackHeldAt(node, role, plain, true)
	// On an agent without reservations or revocable resources every scalar
	// offered is what trackHeld has just counted, and its headroom is the
	// available quantities: an offer of all of them takes that much from
	// the free headroom, without reading the agent's part of it again.
	unreservedOnly := !ag.hasReserved && !ag.hasRevocable
	allHeadroom := whole && unreservedOnly
	if allHeadroom {
		a.freeHeadroom.Subtract(counted)
		ag.headroom.Reset()
	}
	if whole {
		ag.available = resources.Resources{}
	} else {
		ag.available.Subtract(plain.NonShared())
	}
	partHeadroom := !allHeadroom && unreservedOnly && !ag.hasShared
	if partHeadroom {
		// Part of what the agent has (an offer sized to a pending task,
		// or cut): what trackHeld counted is what leaves its headroom,
		// as for a whole offer, without summing what is left again.
		ag.headroom.Subtract(counted)
		a.freeHeadroom.Subtract(counted)
	}
	if unreservedOnly && !ag.hasShared {
		// Nothing shared either: the sorters' charge is what trackHeld
		// counted, without reading the offer's resources again.
		a.ch.loadQuantities(counted)
	} else {
		a.ch.load(offered)
	}
	if a.obs != nil {
		a.observeHeld(fw, role, a.ch.q, resources.Quantities{}, true)
	}
	sorterAllocated(a.roleSorter.Sorter, role, ag.id, offered, &a.ch)
	sorterAllocated(fs.Sorter, fw.id, ag.id, offered, &a.ch)
	if !allHeadroom && !partHeadroom {
		a.refreshHeadroom(ag)
	}
}

// allocatable reports whether res meets the minimum allocatable resources of
// fw in role (or the global ones).
func (a *Allocator) allocatable(res resources.Resources, role string, fw *framework) bool {
	if res.IsEmpty() {
		return false
	}
	mins, ok := fw.info.MinAllocatable[role]
	if !ok {
		mins = a.opts.MinAllocatable
	}
	if len(mins) == 0 {
		return true
	}
	for _, q := range mins {
		if res.ContainsQuantities(q) {
			return true
		}
	}
	return false
}

// capableOfAgent reports whether fw may be offered anything of ag: agents
// with GPUs go only to GPU-capable frameworks (unless Options allow all),
// and agents outside the master's region only to region-aware ones.
func (a *Allocator) capableOfAgent(fw *framework, ag *agent) bool {
	caps := fw.info.Capabilities
	if !a.opts.AllowGPUsToAll && !caps.Has(offer.GPUResources) && ag.hasGPUs {
		return false
	}
	if a.opts.Region != "" && ag.info.Region != "" && ag.info.Region != a.opts.Region && !caps.Has(offer.RegionAware) {
		return false
	}
	return true
}

// stripIncapable drops what the framework cannot handle: shared volumes
// without SHARED_RESOURCES, revocable resources without
// REVOCABLE_RESOURCES, refined reservations without RESERVATION_REFINEMENT.
func stripIncapable(res resources.Resources, caps offer.Capabilities) resources.Resources {
	shared, revocable, refined := caps.Has(offer.SharedResources), caps.Has(offer.RevocableResources), caps.Has(offer.ReservationRefinement)
	if shared && revocable && refined {
		return res
	}
	return res.Filter(func(x resources.Resource) bool {
		return (shared || !x.Shared) && (revocable || !x.Revocable) && (refined || !x.Reservations.IsRefined())
	})
}

// inverseOffers makes the run's inverse offers: for each candidate agent
// under maintenance, every active framework holding resources there that
// has no outstanding inverse offer and no inverse-offer filter in force.
func (a *Allocator) inverseOffers(maintained []*agent, r *run) []offer.InverseOffer {
	var out []offer.InverseOffer
	for _, ag := range maintained {
		id := ag.id
		for _, fwID := range ag.frameworkIDs() {
			fw := a.frameworks.Get(fwID)
			if fw == nil || !fw.active {
				continue
			}
			if st := ag.inverse()[fwID]; st != nil && st.outstanding {
				continue
			}
			if f, ok := fw.inverseFilters[id]; ok {
				if a.filterInForce(f.Expires, f.Batch, r) {
					continue
				}
				if !a.filterAlive(f.Expires, f.Batch, r.now) {
					delete(fw.inverseFilters, id)
				}
			}
			ag.inverseState(fwID).outstanding = true
			out = append(out, offer.InverseOffer{
				ID: a.inverseOfferIDs.Next(), FrameworkID: fwID, AgentID: id,
				Unavailability: *ag.info.Unavailability,
			})
		}
	}
	return out
}
