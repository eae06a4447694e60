package allocator

import (
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// SkipReason says why a framework was passed over for an agent in a run.
type SkipReason uint8

const (
	// SkipFiltered: a refusal filter covered the offer.
	SkipFiltered SkipReason = iota
	// SkipSuppressed: the framework suppressed offers in the role (counted
	// once per run and role).
	SkipSuppressed
	// SkipQuotaLimit: the role (or an ancestor) is at its quota limit.
	SkipQuotaLimit
	// SkipHeadroom: what was left had to be held back for other roles'
	// unmet quota guarantees.
	SkipHeadroom
	// SkipMinAllocatable: the offer would have been below the minimum
	// allocatable resources.
	SkipMinAllocatable
	// SkipIncapable: the framework lacks a capability the agent or its
	// resources need (GPUs, region, shared, revocable, refinement).
	SkipIncapable
	// SkipConstraints: the framework's offer constraints exclude the agent.
	SkipConstraints
	// SkipAgentInactive: the agent was deactivated, not whitelisted, or
	// over-allocated. It is counted once per skipped agent for the whole
	// run, not per framework, so that such agents cost nothing per
	// framework.
	SkipAgentInactive
	numSkipReasons
)

var skipNames = [...]string{"filtered", "suppressed", "quota-limit", "headroom", "min-allocatable", "incapable", "constraints", "agent-inactive"}

// String names the reason.
func (r SkipReason) String() string {
	if int(r) < len(skipNames) {
		return skipNames[r]
	}
	return "unknown"
}

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
	// Skips counts, per reason, how often a framework was passed over.
	Skips [numSkipReasons]int
}

// Result is what one allocation run offers.
type Result struct {
	// Offers are sorted by framework, then role, then agent; a framework
	// gets at most one offer per role and agent in a run.
	Offers        []offer.Offer
	InverseOffers []offer.InverseOffer
	Stats         RunStats
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
	if a.paused {
		return Result{}
	}
	var candidates []string
	if a.pendingAll {
		candidates = slices.Clone(a.agentIDs)
	} else {
		candidates = sortedKeys(a.pending)
	}
	a.pendingAll = false
	clear(a.pending)
	return a.allocate(candidates)
}

// AllocateAll runs one allocation over every agent, as the periodic batch
// does.
func (a *Allocator) AllocateAll() Result {
	a.pendingAll = true
	return a.Allocate()
}

// offerKey identifies one offer of a run.
type offerKey struct{ framework, role, agent string }

// run holds the state of one allocation run.
type run struct {
	now           time.Time
	offers        map[offerKey]*resources.Resources
	order         []offerKey
	offeredShared map[string]resources.Resources
	stats         *RunStats
	// requiredHeadroom: the unmet guarantees of all roles.
	requiredHeadroom resources.Quantities
}

func (a *Allocator) allocate(candidates []string) Result {
	a.runs++
	r := &run{
		now:           a.opts.Clock(),
		offers:        map[offerKey]*resources.Resources{},
		offeredShared: map[string]resources.Resources{},
		stats:         &RunStats{Run: a.runs},
	}
	agents := make([]*agent, 0, len(candidates))
	for _, id := range candidates {
		ag, ok := a.agents[id]
		if !ok {
			continue
		}
		if !ag.active || ag.overAllocated || !a.whitelisted(ag) {
			r.stats.SkippedAgents++
			r.stats.Skips[SkipAgentInactive]++
			continue
		}
		agents = append(agents, ag)
	}
	r.stats.Agents = len(agents)
	a.countSuppressed(r)
	a.refreshSorterTotals()

	r.requiredHeadroom = a.requiredHeadroom()
	a.rng.Shuffle(len(agents), func(i, j int) { agents[i], agents[j] = agents[j], agents[i] })
	if a.hasGuarantees() {
		for _, ag := range agents {
			a.allocateGuarantees(r, ag)
		}
	}
	a.rng.Shuffle(len(agents), func(i, j int) { agents[i], agents[j] = agents[j], agents[i] })
	for _, ag := range agents {
		a.allocateFairShare(r, ag)
	}

	res := Result{Stats: *r.stats}
	keys := slices.Clone(r.order)
	slices.SortFunc(keys, func(x, y offerKey) int {
		if c := strings.Compare(x.framework, y.framework); c != 0 {
			return c
		}
		if c := strings.Compare(x.role, y.role); c != 0 {
			return c
		}
		return strings.Compare(x.agent, y.agent)
	})
	for _, k := range keys {
		res.Offers = append(res.Offers, offer.Offer{
			ID: a.offerIDs.Next(), FrameworkID: k.framework, AgentID: k.agent, Role: k.role,
			Resources: *r.offers[k],
		})
	}
	res.InverseOffers = a.inverseOffers(candidates, r.now)
	res.Stats.Offers = len(res.Offers)
	res.Stats.InverseOffers = len(res.InverseOffers)
	a.last = res.Stats
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
// per change.
func (a *Allocator) refreshSorterTotals() {
	refresh := func(s *trackedSorter) {
		if s.totalsVersion != a.totalsVersion {
			s.AddAgent(poolAgent, a.totals.Clone())
			s.totalsVersion = a.totalsVersion
		}
	}
	refresh(a.roleSorter)
	for _, s := range a.frameworkSorters {
		refresh(s)
	}
}

func (a *Allocator) countSuppressed(r *run) {
	for _, fw := range a.frameworks {
		if !fw.active {
			continue
		}
		for range fw.suppressed {
			a.skip(r, fw, SkipSuppressed)
		}
	}
}

func (a *Allocator) skip(r *run, fw *framework, reason SkipReason) {
	if fw.skipsRun != r.stats.Run {
		fw.skips = [numSkipReasons]int{}
		fw.skipsRun = r.stats.Run
	}
	fw.skips[reason]++
	r.stats.Skips[reason]++
}

func (a *Allocator) hasGuarantees() bool {
	for _, n := range a.roles.nodes {
		if !n.quota.Guarantees.IsEmpty() {
			return true
		}
	}
	return false
}

// unmet returns a role's unmet guarantees, including what its subtree still
// needs for descendants' guarantees: need(r) = max(guarantees(r) −
// consumed(r), Σ need(children)).
func (a *Allocator) unmet(n *roleNode) resources.Quantities {
	var children resources.Quantities
	for _, c := range n.children {
		children.Add(a.unmet(c))
	}
	if n.quota.Guarantees.IsEmpty() {
		return children
	}
	own := n.quota.Guarantees.Minus(n.consumed())
	return maxQuantities(own, children)
}

func maxQuantities(a, b resources.Quantities) resources.Quantities {
	out := a.Clone()
	for name, v := range b.All() {
		if out.Scalar(name) < v {
			out.SetScalar(name, v)
		}
	}
	return out
}

// requiredHeadroom is the sum of the unmet guarantees of the top-level
// roles' subtrees.
func (a *Allocator) requiredHeadroom() resources.Quantities {
	var q resources.Quantities
	for _, path := range sortedKeys(a.roles.root.children) {
		q.Add(a.unmet(a.roles.root.children[path]))
	}
	return q
}

// unsatisfiedGuarantees is what a role may still receive as guarantee: the
// largest unmet guarantee among the role and its ancestors, since an
// ancestor's guarantee covers its whole subtree.
func (a *Allocator) unsatisfiedGuarantees(n *roleNode) resources.Quantities {
	var out resources.Quantities
	for q := range n.quotaAncestry {
		if q.quota.Guarantees.IsEmpty() {
			continue
		}
		out = maxQuantities(out, q.quota.Guarantees.Minus(q.consumed()))
	}
	return out
}

// limitHeadroom is how much more unreserved, non-revocable scalar resources
// the role may take before it or an ancestor reaches its limit; limited is
// false when no limit applies.
func (a *Allocator) limitHeadroom(n *roleNode) (resources.Limits, bool) {
	var out resources.Limits
	limited := false
	for q := range n.quotaAncestry {
		if q.quota.Limits.IsEmpty() {
			continue
		}
		left := q.quota.Limits.Subtract(q.consumed())
		if !limited {
			out, limited = left, true
			continue
		}
		for _, name := range left.Names() {
			v, _ := left.Get(name)
			if cur, ok := out.Get(name); !ok || v < cur {
				out.Set(name, v)
			}
		}
	}
	return out, limited
}

// stage is one of the two stages of a run.
type stage int

const (
	stageGuarantees stage = iota
	stageFairShare
)

func (a *Allocator) allocateGuarantees(r *run, ag *agent) {
	for _, role := range slices.Clone(a.roleSorter.Sort()) {
		if ag.available.IsEmpty() {
			return
		}
		node := a.roles.get(role)
		if node == nil {
			continue
		}
		unsatisfied := a.unsatisfiedGuarantees(node)
		if unsatisfied.IsEmpty() {
			continue
		}
		fs := a.frameworkSorters[role]
		if fs == nil {
			continue
		}
		for _, fwID := range slices.Clone(fs.Sort()) {
			if unsatisfied.IsEmpty() {
				break
			}
			got, more := a.offerTo(r, ag, a.frameworks[fwID], role, node, stageGuarantees, unsatisfied)
			if !more {
				break
			}
			unsatisfied.Subtract(got)
		}
	}
}

func (a *Allocator) allocateFairShare(r *run, ag *agent) {
	for _, role := range slices.Clone(a.roleSorter.Sort()) {
		if ag.available.IsEmpty() {
			return
		}
		node := a.roles.get(role)
		fs := a.frameworkSorters[role]
		if node == nil || fs == nil {
			continue
		}
		for _, fwID := range slices.Clone(fs.Sort()) {
			if _, more := a.offerTo(r, ag, a.frameworks[fwID], role, node, stageFairShare, resources.Quantities{}); !more {
				break
			}
		}
	}
}

// offerTo makes fw an offer on ag in role if it can take one, and returns
// the unreserved non-revocable quantities offered, and whether the agent has
// anything left for the role (false stops the role's framework loop).
func (a *Allocator) offerTo(r *run, ag *agent, fw *framework, role string, node *roleNode, st stage, unsatisfied resources.Quantities) (resources.Quantities, bool) {
	if fw == nil {
		return resources.Quantities{}, true
	}
	if cs, ok := fw.info.Constraints[role]; ok && !cs.admits(ag.info.Attributes) {
		a.skip(r, fw, SkipConstraints)
		return resources.Quantities{}, true
	}
	available := ag.available.AllocatableTo(role)
	if shared, ok := r.offeredShared[ag.id]; ok {
		available = available.Minus(shared)
	}
	if available.IsEmpty() {
		return resources.Quantities{}, false
	}
	if !a.allocatable(available, role, fw) {
		a.skip(r, fw, SkipMinAllocatable)
		return resources.Quantities{}, true
	}
	if !a.capableOfAgent(fw, ag) {
		a.skip(r, fw, SkipIncapable)
		return resources.Quantities{}, true
	}
	available = stripIncapable(available, fw.info.Capabilities)
	if available.IsEmpty() {
		a.skip(r, fw, SkipIncapable)
		return resources.Quantities{}, true
	}

	// Split into what quota governs (unreserved, non-revocable scalars) and
	// the rest (reservations, non-scalars, revocable).
	quotaPart := available.Filter(func(x resources.Resource) bool {
		return x.Type == resources.ScalarType && !x.IsReserved() && !x.Revocable
	})
	rest := available.Filter(func(x resources.Resource) bool {
		return x.Type != resources.ScalarType || x.IsReserved() || x.Revocable
	})

	var toOffer, guaranteed resources.Resources
	if st == stageGuarantees {
		guaranteed = quotaPart.Shrink(unsatisfied, a.rng)
		if guaranteed.IsEmpty() {
			return resources.Quantities{}, true
		}
		// Stage one offers only the role's own reservations; ancestors'
		// reservations wait for the fair-share stage.
		rest = rest.Filter(func(x resources.Resource) bool { return !x.IsReserved() || x.Role() == role })
		toOffer = guaranteed.Plus(rest)
		quotaPart = quotaPart.Minus(guaranteed)
	} else {
		toOffer = rest
	}

	additional := quotaPart
	cutByLimit, cutByHeadroom := false, false
	if limits, ok := a.limitHeadroom(node); ok {
		if st == stageGuarantees {
			limits = limits.Subtract(guaranteed.Quantities())
		}
		before := additional.Quantities()
		additional = additional.ShrinkToLimits(limits, a.rng)
		cutByLimit = !additional.Quantities().Equal(before)
	}
	if !r.requiredHeadroom.IsEmpty() {
		// The guaranteed part lowers free and required headroom alike, so
		// the spare is what it was before this offer.
		spare := a.freeHeadroom.Minus(r.requiredHeadroom)
		before := additional.Quantities()
		additional = additional.Shrink(spare, a.rng)
		cutByHeadroom = !additional.Quantities().Equal(before)
	}
	toOffer.Add(additional)

	if !a.allocatable(toOffer, role, fw) {
		switch {
		case cutByLimit:
			a.skip(r, fw, SkipQuotaLimit)
		case cutByHeadroom:
			a.skip(r, fw, SkipHeadroom)
		default:
			a.skip(r, fw, SkipMinAllocatable)
		}
		return resources.Quantities{}, true
	}
	if a.isFiltered(fw, role, ag.id, toOffer, r.now) {
		a.skip(r, fw, SkipFiltered)
		return resources.Quantities{}, true
	}

	offered := toOffer.Allocate(role)
	key := offerKey{fw.id, role, ag.id}
	if prev, ok := r.offers[key]; ok {
		prev.Add(offered)
	} else {
		c := offered.Clone()
		r.offers[key] = &c
		r.order = append(r.order, key)
	}
	if shared := toOffer.Shared(); !shared.IsEmpty() {
		s := r.offeredShared[ag.id]
		s.Add(shared)
		r.offeredShared[ag.id] = s
	}
	given := guaranteed.Plus(additional).Quantities()
	if st == stageGuarantees {
		r.requiredHeadroom.Subtract(guaranteed.Quantities())
	}
	a.trackAllocation(fw, ag, offered, false)
	return given, true
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
	if !a.opts.AllowGPUsToAll && !caps.Has(offer.GPUResources) && ag.total.Quantities().Scalar("gpus") > 0 {
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
func (a *Allocator) inverseOffers(candidates []string, now time.Time) []offer.InverseOffer {
	var out []offer.InverseOffer
	for _, id := range candidates {
		ag, ok := a.agents[id]
		if !ok || ag.info.Unavailability == nil {
			continue
		}
		for _, fwID := range ag.frameworkIDs() {
			fw := a.frameworks[fwID]
			if fw == nil || !fw.active {
				continue
			}
			if st := ag.inverse[fwID]; st != nil && st.outstanding {
				continue
			}
			if exp, ok := fw.inverseFilters[id]; ok {
				if now.Before(exp) {
					continue
				}
				delete(fw.inverseFilters, id)
			}
			st := ag.inverse[fwID]
			if st == nil {
				st = &inverseState{}
				ag.inverse[fwID] = st
			}
			st.outstanding = true
			out = append(out, offer.InverseOffer{
				ID: a.inverseOfferIDs.Next(), FrameworkID: fwID, AgentID: id,
				Unavailability: *ag.info.Unavailability,
			})
		}
	}
	return out
}
