package allocator

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/refusals"

	"github.com/allot-go/allot/allocator/internal/roles"

	"github.com/allot-go/allot/allocator/internal/tables"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Errors of Explain and ExplainRole.
var (
	// ErrNoRun: Explain before the first allocation run.
	ErrNoRun = errors.New("allocator: no allocation run yet")
	// ErrUnknownRole: a role the role tree does not hold.
	ErrUnknownRole = errors.New("allocator: unknown role")
)

// ExplainAgents is how many agents Explain lists per reason; the counts
// cover them all.
const ExplainAgents = 10

// Reason says why a framework (or a role) got nothing on an agent in the
// latest allocation run, as Explain reports it. The constants are in order
// of precedence, the most actionable first: what the framework can change
// itself (subscribe or activate, revive, declare a capability, loosen its
// constraints, refuse for less long), then what an operator can change
// (quota limits, other roles' guarantees, the minimum allocatable
// resources), then what only time changes (fairness, a full agent), and
// last what has nothing to do with the framework (the agent was left out of
// the run). Explain reports, per role, every reason met with its agents, and
// as the role's Reason the one of highest precedence.
type Reason uint8

const (
	// ReasonNone: nothing was passed over.
	ReasonNone Reason = iota
	// ReasonInactive: the framework is inactive, was removed, or joined
	// after the run (ReasonGroup.State says which); for a role, it has no
	// framework.
	ReasonInactive
	// ReasonSuppressed: the framework suppressed offers in the role.
	ReasonSuppressed
	// ReasonIncapable: the framework lacks a capability the agent or its
	// resources need (AgentReason.Missing says which).
	ReasonIncapable
	// ReasonConstraints: the framework's offer constraints exclude the
	// agent.
	ReasonConstraints
	// ReasonNoFit: the framework stated what it waits for in the role
	// (UpdateDemand), and none of its pending tasks fit what the agent
	// had left for it (ReasonGroup.Unfit names the shapes that fit none
	// of the agents).
	ReasonNoFit
	// ReasonFiltered: a refusal filter of the framework covered what the
	// agent had (AgentReason.Until says until when).
	ReasonFiltered
	// ReasonQuotaLimit: the role, or an ancestor, is at its quota limit.
	ReasonQuotaLimit
	// ReasonHeadroom: what was left was held back for other roles' unmet
	// quota guarantees.
	ReasonHeadroom
	// ReasonMinAllocatable: what was left was below the minimum
	// allocatable resources.
	ReasonMinAllocatable
	// ReasonFairness: another framework of the role, or another role, came
	// first in DRF order and was offered the agent.
	ReasonFairness
	// ReasonDeclined: the framework declined what the agent has, unchanged
	// since, and the frameworks that have not declined it are offered it
	// first (the rotation after declines; see Options.MesosOfferOrder).
	ReasonDeclined
	// ReasonNothingLeft: nothing on the agent was left for the role (in
	// use, or reserved for other roles).
	ReasonNothingLeft
	// ReasonAgentInactive: the run left the agent out (deactivated, not on
	// the whitelist, or over-allocated).
	ReasonAgentInactive
	numReasons
)

var reasonNames = [...]string{"none", "inactive", "suppressed", "incapable", "constraints", "no-fit", "filtered", "quota-limit", "headroom", "min-allocatable", "fairness", "declined", "nothing-left", "agent-inactive"}

// String names the reason.
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown"
}

// skipReasons are the reasons a run passes a framework over for (and
// counts in RunStats.Skips); the others are what Explain finds besides.
var skipReasons = [...]Reason{ReasonFiltered, ReasonSuppressed, ReasonQuotaLimit, ReasonHeadroom,
	ReasonMinAllocatable, ReasonIncapable, ReasonConstraints, ReasonAgentInactive, ReasonNoFit, ReasonDeclined}

// SkipReason is Reason: the reasons a run passes a framework over for are
// among those Explain gives.
//
// Deprecated: use Reason.
type SkipReason = Reason

// The reasons a run passes a framework over for, under their former names.
//
// Deprecated: use the Reason constants of the same names.
const (
	SkipFiltered       = ReasonFiltered
	SkipSuppressed     = ReasonSuppressed
	SkipQuotaLimit     = ReasonQuotaLimit
	SkipHeadroom       = ReasonHeadroom
	SkipMinAllocatable = ReasonMinAllocatable
	SkipIncapable      = ReasonIncapable
	SkipConstraints    = ReasonConstraints
	SkipAgentInactive  = ReasonAgentInactive
)

// Explanation says, for the latest allocation run, why a framework (or the
// frameworks of a role) got what they got, role by role.
type Explanation struct {
	// Framework is the framework explained; empty for ExplainRole.
	Framework string
	// Run and Time are the run's number and its clock reading.
	Run  uint64
	Time time.Time
	// Roles are sorted by path.
	Roles []RoleExplanation
	// Preemptions are the tasks the run chose to end (Options.Reclaim)
	// that concern the framework (its tasks, or those ended for it) or
	// the role (its tasks, or those ended for it), in the run's order.
	Preemptions []Preemption
}

// RoleExplanation is what happened to a framework in one of its roles (or
// to a role) on each candidate agent of the run.
type RoleExplanation struct {
	Role string
	// Agents is the number of candidate agents of the run that still
	// exist; Offered is how many of them the framework (or a framework of
	// the role) was offered.
	Agents, Offered int
	// Reason is the highest-precedence reason among Reasons, ReasonNone
	// when every agent was offered.
	Reason Reason
	// Reasons cover every agent not offered, each agent once, in order of
	// precedence.
	Reasons []ReasonGroup

	subject string
	at      time.Time
}

// ReasonGroup is one reason and the agents it kept from the framework.
type ReasonGroup struct {
	Reason Reason
	// Count is the number of agents; Agents lists the first ExplainAgents
	// of them by id, with what was found there.
	Count  int
	Agents []AgentReason

	// State, for ReasonInactive: "inactive", "removed", "not yet in a run"
	// (joined after the run), or "no framework" (a role).
	State string
	// Missing, for ReasonIncapable: the capabilities lacking, over all the
	// agents.
	Missing offer.Capabilities
	// Earliest and Until, for ReasonFiltered: the earliest and the latest
	// expiry among the filters (zero when they have all been lifted since
	// the run).
	Earliest, Until time.Time
	// QuotaRole, Limit and Consumed, for ReasonQuotaLimit: the role whose
	// limit binds (the role or an ancestor), its limit and what it
	// consumes now.
	QuotaRole string
	Limit     resources.Limits
	Consumed  resources.Quantities
	// Unmet, for ReasonHeadroom: the other roles whose guarantees are
	// unmet, and by how much, now.
	Unmet []RoleQuantities
	// Left, for ReasonMinAllocatable and ReasonNoFit: what was left on the
	// first agent.
	Left resources.Quantities
	// Unfit, for ReasonNoFit in Explain of a framework: its pending tasks
	// (what is left of its statement of demand now) that fit what was
	// left on none of the agents; empty when each fits on some agent
	// (and another pending task came first there), or nothing is pending.
	Unfit []Pending
	// Winner, WinnerRole, Share and WinnerShare, for ReasonFairness: the
	// framework most often offered the agents instead (and its role), and
	// the shares by which the sorter ordered them: the role's against the
	// winner's role's, or within a role the framework's against the
	// winner's. Shares are those at the time of Explain, -1 when the
	// sorter does not report shares. Winners is the number of different
	// winners.
	Winner, WinnerRole string
	Share, WinnerShare float64
	Winners            int
}

// AgentReason is what was found on one agent.
type AgentReason struct {
	Agent string
	// Framework is the framework the reason is about (in a role's
	// explanation, the one whose reason came first).
	Framework string
	// Until: the expiry of the refusal filter (ReasonFiltered).
	Until time.Time
	// Missing: the capabilities lacking (ReasonIncapable).
	Missing offer.Capabilities
	// Offer: what the offer would have added of the resources quota
	// governs (ReasonQuotaLimit, ReasonHeadroom), or what was left
	// (ReasonMinAllocatable, ReasonNoFit).
	Offer resources.Quantities
	// Winner and WinnerRole were offered the agent (ReasonFairness).
	Winner, WinnerRole string
}

// RoleQuantities is a role and an amount of resources.
type RoleQuantities struct {
	Role       string
	Quantities resources.Quantities
}

// Explain says why a framework got what it got in the latest allocation
// run: for each role it subscribes to, on how many of the run's candidate
// agents it was offered something and, for the others, every reason it was
// passed over, with how many agents, which ones (the first ExplainAgents)
// and the figures behind it. The reasons come from what the run recorded as
// it went, including the (agent, role) pairs it skipped because nothing
// changed since every framework of the role was passed over there (their
// reasons are kept from the run that found them), the frameworks it stepped
// over through the refusal index, and roles capped in the run or kept out
// of it since an earlier one. Figures the state still holds (filter
// expiries, quota limits and consumption, unmet guarantees, shares) are
// read when Explain is called: events since the run change them.
//
// A framework that is inactive, suppressed in a role, or joined after the
// run is reported so for every agent it was not offered; one removed since
// (among the latest removed) is reported as removed. Explain before any run
// returns ErrNoRun, for an unknown framework ErrUnknownFramework.
func (a *Allocator) Explain(frameworkID string) (Explanation, error) {
	a.ready()
	if a.explain.run == 0 {
		return Explanation{}, ErrNoRun
	}
	e := a.explainer()
	out := Explanation{Framework: frameworkID, Run: a.explain.run, Time: a.explain.now}
	for _, p := range a.explain.preemptions {
		if p.FrameworkID == frameworkID || p.ForFramework == frameworkID {
			out.Preemptions = append(out.Preemptions, p)
		}
	}
	fw, ok := a.frameworks.Lookup(frameworkID)
	if !ok {
		rm, ok := a.explain.removedOne(frameworkID)
		if !ok {
			return Explanation{}, fmt.Errorf("%w: %q", ErrUnknownFramework, frameworkID)
		}
		for _, role := range rm.roles {
			var b groupBuilder
			for _, ag := range e.agents {
				if e.offered(frameworkID, role, ag.id) {
					b.offered++
					continue
				}
				b.add(ReasonInactive, AgentReason{Agent: ag.id, Framework: frameworkID})
			}
			re := b.build(role, frameworkID, len(e.agents), a.explain.now)
			for i := range re.Reasons {
				re.Reasons[i].State = "removed"
			}
			out.Roles = append(out.Roles, re)
		}
		return out, nil
	}
	several := fw.roles.Count(tables.Subscribed) > 1
	for role := range fw.roles.All(tables.Subscribed) {
		node := a.roles.Get(role)
		subject := fw.id
		if several {
			subject = fw.id + " in role " + role
		}
		var b groupBuilder
		for _, ag := range e.agents {
			offered, reason, ar := e.why(fw, node, ag)
			if offered {
				b.offered++
				continue
			}
			b.add(reason, ar)
		}
		re := e.finish(&b, role, node, subject)
		if pending, stated := fw.pendingIn(role); stated {
			for i := range re.Reasons {
				if re.Reasons[i].Reason == ReasonNoFit {
					re.Reasons[i].Unfit = unfit(pending, b.left)
				}
			}
		}
		out.Roles = append(out.Roles, re)
	}
	return out, nil
}

// unfit returns the pending tasks of list that fit none of left.
func unfit(list []Pending, left []resources.Quantities) []Pending {
	var out []Pending
	for _, p := range list {
		if p.Count > 0 && !slices.ContainsFunc(left, func(q resources.Quantities) bool { return q.Contains(p.Resources) }) {
			out = append(out, Pending{Resources: p.Resources.Clone(), Count: p.Count})
		}
	}
	return out
}

// ExplainRole says why a role got what it got in the latest allocation
// run, as Explain does for a framework: on each candidate agent, the role
// was offered something if any of its frameworks was; otherwise the agent
// counts under the highest-precedence reason among its frameworks' (the
// most actionable), ties going to the framework first by id. A role with
// no framework is reported inactive. A role the role tree does not hold is
// ErrUnknownRole; an invalid name ErrInvalidRole.
func (a *Allocator) ExplainRole(role string) (Explanation, error) {
	a.ready()
	if err := reservation.ValidateRole(role); err != nil {
		return Explanation{}, fmt.Errorf("%w: %q", ErrInvalidRole, role)
	}
	if a.explain.run == 0 {
		return Explanation{}, ErrNoRun
	}
	node := a.roles.Get(role)
	if node == nil {
		return Explanation{}, fmt.Errorf("%w: %q", ErrUnknownRole, role)
	}
	e := a.explainer()
	out := Explanation{Run: a.explain.run, Time: a.explain.now}
	for _, p := range a.explain.preemptions {
		if p.Role == role || p.For == role {
			out.Preemptions = append(out.Preemptions, p)
		}
	}
	var fws []*framework
	for _, id := range node.Frameworks.Sorted() {
		fws = append(fws, a.frameworks.Get(id))
	}
	var b groupBuilder
	for _, ag := range e.agents {
		if len(fws) == 0 {
			b.add(ReasonInactive, AgentReason{Agent: ag.id})
			continue
		}
		best, bestAR, offered := numReasons, AgentReason{}, false
		for _, fw := range fws {
			o, reason, ar := e.why(fw, node, ag)
			if o {
				offered = true
				break
			}
			if reason < best {
				best, bestAR = reason, ar
			}
		}
		if offered {
			b.offered++
			continue
		}
		b.add(best, bestAR)
	}
	re := e.finish(&b, role, node, "role "+role)
	if len(fws) == 0 {
		for i := range re.Reasons {
			re.Reasons[i].State = "no framework"
		}
	}
	out.Roles = append(out.Roles, re)
	return out, nil
}

// explainer answers Explain from the latest run's log.
type explainer struct {
	a *Allocator
	l *explainLog
	// agents are the run's candidates that still exist, by id.
	agents   []*agent
	skipped  map[string]bool  // agent ids
	offersOn map[string][]int // agent id -> indexes in l.offers
	passes   map[passKey]int  // -> index in l.passes, the last one
	visits   map[visitKey]int // -> index in l.visits, the last one
	parked   map[string]bool
}

// passKey and visitKey find a log's records by the ids of what they name,
// so that records made before an object was removed and made again (a
// framework, an agent, a role) are found as they would be in an allocator
// restored from a snapshot.
type passKey struct {
	fw, role, ag string
	st           stage
}

type visitKey struct {
	role, ag string
	st       stage
}

func (a *Allocator) explainer() *explainer {
	l := &a.explain
	e := &explainer{
		a: a, l: l,
		skipped:  map[string]bool{},
		offersOn: map[string][]int{},
		passes:   map[passKey]int{},
		visits:   map[visitKey]int{},
		parked:   map[string]bool{},
	}
	for _, id := range l.candidates {
		if ag, ok := a.agents.Lookup(id); ok {
			e.agents = append(e.agents, ag)
		}
	}
	for _, ag := range l.skipped {
		e.skipped[ag.id] = true
	}
	for i, o := range l.offers {
		e.offersOn[o.key.agent] = append(e.offersOn[o.key.agent], i)
	}
	for i, p := range l.passes {
		if p.reason != ReasonNone { // dropped (see settleHeldBack)
			e.passes[passKey{p.fw.id, p.node.Path, p.ag.id, p.stage}] = i
		}
	}
	for i, v := range l.visits {
		e.visits[visitKey{v.node.Path, v.ag.id, v.stage}] = i
	}
	for _, role := range a.parked {
		e.parked[role] = true
	}
	a.refreshSorterTotals()
	return e
}

// offered reports whether the run offered the framework something on the
// agent in the role.
func (e *explainer) offered(fwID, role, agentID string) bool {
	for _, i := range e.offersOn[agentID] {
		if k := e.l.offers[i].key; k.framework == fwID && k.role == role {
			return true
		}
	}
	return false
}

// offeredInRole reports whether the run offered a framework of the role
// something on the agent.
func (e *explainer) offeredInRole(node *roles.Node, ag *agent) bool {
	for _, i := range e.offersOn[ag.id] {
		if e.l.offers[i].key.role == node.Path {
			return true
		}
	}
	return false
}

// why says what happened to fw in node's role on ag: offered, or the
// reason it was not and what was found.
func (e *explainer) why(fw *framework, node *roles.Node, ag *agent) (bool, Reason, AgentReason) {
	ar := AgentReason{Agent: ag.id, Framework: fw.id}
	switch {
	case e.skipped[ag.id]:
		return false, ReasonAgentInactive, ar
	case node != nil && e.offered(fw.id, node.Path, ag.id):
		return true, ReasonNone, ar
	case !fw.active, fw.joined >= e.l.run:
		return false, ReasonInactive, ar
	case node == nil:
		return false, ReasonNothingLeft, ar
	case fw.roles.Has(node.Path, tables.Suppressed):
		return false, ReasonSuppressed, ar
	case fw.waitsForNothing(node.Path):
		// Kept out of the role's sorter: nothing is pending.
		return false, ReasonNoFit, ar
	}
	reason, ar := e.found(fw, node, ag, ar)
	return false, reason, e.sharpen(fw, node, ag, &reason, ar)
}

// found is the reason the run found, or that follows from what it did.
func (e *explainer) found(fw *framework, node *roles.Node, ag *agent, ar AgentReason) (Reason, AgentReason) {
	// The fair-share stage first: it is what the run did last.
	if i, ok := e.passes[passKey{fw.id, node.Path, ag.id, stageFairShare}]; ok {
		return e.fromPass(fw, ag, e.l.passes[i], nil, ar)
	}
	if i, ok := e.visits[visitKey{node.Path, ag.id, stageFairShare}]; ok {
		return e.fromVisit(fw, node, ag, e.l.visits[i], ar)
	}
	// A role capped in the run (or parked since an earlier one) was not
	// looked at on agents that still had something for it, even where
	// one of its frameworks was offered something before the cap.
	if (node.CappedRun == e.l.run || e.parked[node.Path]) && !ag.available.AllocatableTo(node.Path).IsEmpty() {
		if Reason(node.CappedBy) == ReasonMinAllocatable {
			ar.Offer = ag.available.AllocatableTo(node.Path).Quantities()
		} else {
			ar.Offer = headroomOf(ag.available)
		}
		return Reason(node.CappedBy), ar
	}
	if e.offeredInRole(node, ag) {
		// The walk of the role made an offer there.
		return e.fromVisit(fw, node, ag, visitRecord{kind: visitWalked}, ar)
	}
	if i, ok := e.passes[passKey{fw.id, node.Path, ag.id, stageGuarantees}]; ok {
		return e.fromPass(fw, ag, e.l.passes[i], nil, ar)
	}
	if i, ok := e.visits[visitKey{node.Path, ag.id, stageGuarantees}]; ok && e.l.visits[i].kind == visitUnchanged {
		return e.fromVisit(fw, node, ag, e.l.visits[i], ar)
	}
	return e.elsewhere(fw, node, ag, ar)
}

// sharpen replaces the reason found by one of higher precedence that held
// as well: a capability the framework lacks for the whole agent (GPUs, the
// region), its offer constraints, or a refusal filter covering the agent. The run stops at the first reason it
// meets, in the order cheapest to check; Explain reports the most
// actionable.
func (e *explainer) sharpen(fw *framework, node *roles.Node, ag *agent, reason *Reason, ar AgentReason) AgentReason {
	if *reason > ReasonIncapable {
		if m := e.a.agentMissing(fw, ag); m != 0 {
			*reason = ReasonIncapable
			return AgentReason{Agent: ar.Agent, Framework: ar.Framework, Missing: m}
		}
	}
	if *reason > ReasonConstraints {
		if cs, ok := fw.info.Constraints[node.Path]; ok && !cs.admits(ag.info.Attributes) {
			*reason = ReasonConstraints
			return AgentReason{Agent: ar.Agent, Framework: ar.Framework}
		}
	}
	if *reason > ReasonFiltered {
		if until, ok := e.filterUntil(fw, node.Path, ag, resources.Resources{}, false); ok {
			*reason = ReasonFiltered
			return AgentReason{Agent: ar.Agent, Framework: ar.Framework, Until: until}
		}
	}
	return ar
}

// fromPass is the reason of a logged pass; kept is the nobody entry the
// pass comes from, if it does.
func (e *explainer) fromPass(fw *framework, ag *agent, p passRecord, kept *nobodyPasses, ar AgentReason) (Reason, AgentReason) {
	reason := p.reason
	switch reason {
	case ReasonFiltered:
		ar.Until, _ = e.filterUntil(fw, p.node.Path, ag, resources.Resources{}, true)
	case ReasonIncapable:
		ar.Missing = offer.Capabilities(p.missing)
		if ar.Missing == 0 {
			ar.Missing = e.a.agentMissing(fw, ag)
		}
	case ReasonQuotaLimit, ReasonHeadroom, ReasonMinAllocatable, ReasonNoFit:
		ar.Offer = e.l.detailOf(p, kept).Clone()
	}
	return reason, ar
}

// fromVisit is the reason of a framework that a visit of its role on the
// agent did not pass over one by one.
func (e *explainer) fromVisit(fw *framework, node *roles.Node, ag *agent, v visitRecord, ar AgentReason) (Reason, AgentReason) {
	if v.kind == visitUnfit {
		// Its walk would have passed every framework over for that (the
		// floor is only used where nothing else would come first; see
		// demandFloor).
		return ReasonNoFit, ar
	}
	if v.kind == visitUnchanged && v.cached != nil {
		for _, p := range v.cached.passes {
			if p.fw.id == fw.id {
				return e.fromPass(fw, ag, p, v.cached, ar)
			}
		}
	}
	// Stepped over through the refusal index, or not visited: a filter in
	// force at the run that covers the agent (or what was offered there)
	// says the first.
	var offered resources.Resources
	if w, ok := e.winner(fw, node, ag); ok {
		offered = e.l.offers[w].res.Unallocate()
	}
	if until, ok := e.filterUntil(fw, node.Path, ag, offered, false); ok {
		ar.Until = until
		return ReasonFiltered, ar
	}
	return e.elsewhere(fw, node, ag, ar)
}

// elsewhere is the reason of a framework the run did not look at on the
// agent: someone else was offered it first, or nothing was left there.
func (e *explainer) elsewhere(fw *framework, node *roles.Node, ag *agent, ar AgentReason) (Reason, AgentReason) {
	if w, ok := e.winner(fw, node, ag); ok {
		k := e.l.offers[w].key
		ar.Winner, ar.WinnerRole = k.framework, k.role
		return ReasonFairness, ar
	}
	return ReasonNothingLeft, ar
}

// winner returns the offer that took the agent instead of fw: the first
// made there to another framework of the role, else the first made there.
func (e *explainer) winner(fw *framework, node *roles.Node, ag *agent) (int, bool) {
	first := -1
	for _, i := range e.offersOn[ag.id] {
		k := e.l.offers[i].key
		if k.framework == fw.id && k.role == node.Path {
			continue
		}
		if k.role == node.Path {
			return i, true
		}
		if first < 0 {
			first = i
		}
	}
	return first, first >= 0
}

// filterUntil returns the expiry of a refusal filter of fw in role on ag
// that was in force at the run: with known (the run found one), the one
// covering the agent's reference or else the latest; otherwise only one
// that covers the agent's reference or the candidate offer.
func (e *explainer) filterUntil(fw *framework, role string, ag *agent, candidate resources.Resources, known bool) (time.Time, bool) {
	var latest time.Time
	found := false
	for _, f := range e.a.refusalsOn(fw, role, ag) {
		if !refusals.InForceAt(f.Expires, f.Batch, e.l.now, e.l.periodic, e.l.batches) {
			continue
		}
		if f.Covered == ag.refGen || f.Refused.Contains(ag.ref) || (!candidate.IsEmpty() && f.Refused.Contains(candidate)) {
			return f.Expires, true
		}
		if known && (!found || f.Expires.After(latest)) {
			latest, found = f.Expires, true
		}
	}
	return latest, found
}

// agentMissing returns the capabilities whose lack keeps fw from the
// whole of ag: GPUs and the region.
func (a *Allocator) agentMissing(fw *framework, ag *agent) offer.Capabilities {
	caps := fw.info.Capabilities
	var m offer.Capabilities
	if !a.opts.AllowGPUsToAll && !caps.Has(offer.GPUResources) && ag.hasGPUs {
		m |= offer.GPUResources
	}
	if a.opts.Region != "" && ag.info.Region != "" && ag.info.Region != a.opts.Region && !caps.Has(offer.RegionAware) {
		m |= offer.RegionAware
	}
	return m
}

// strippedMissing returns the capabilities, of those stripIncapable looks
// at, that caps lacks for some of res.
func strippedMissing(res resources.Resources, caps offer.Capabilities) offer.Capabilities {
	var m offer.Capabilities
	for r := range res.All() {
		if r.Shared && !caps.Has(offer.SharedResources) {
			m |= offer.SharedResources
		}
		if r.Revocable && !caps.Has(offer.RevocableResources) {
			m |= offer.RevocableResources
		}
		if r.Reservations.IsRefined() && !caps.Has(offer.ReservationRefinement) {
			m |= offer.ReservationRefinement
		}
	}
	return m
}

// groupBuilder collects the agents of one role explanation by reason.
type groupBuilder struct {
	offered int
	groups  [numReasons]ReasonGroup
	winners [numReasons]map[[2]string]int
	// left is what was left on every agent of ReasonNoFit.
	left []resources.Quantities
}

func (b *groupBuilder) add(reason Reason, ar AgentReason) {
	g := &b.groups[reason]
	g.Reason = reason
	g.Count++
	if len(g.Agents) < ExplainAgents {
		g.Agents = append(g.Agents, ar)
	}
	g.Missing |= ar.Missing
	if ar.Until.After(g.Until) {
		g.Until = ar.Until
	}
	if !ar.Until.IsZero() && (g.Earliest.IsZero() || ar.Until.Before(g.Earliest)) {
		g.Earliest = ar.Until
	}
	if (reason == ReasonMinAllocatable || reason == ReasonNoFit) && g.Count == 1 {
		g.Left = ar.Offer
	}
	if reason == ReasonNoFit {
		b.left = append(b.left, ar.Offer)
	}
	if reason == ReasonFairness {
		if b.winners[reason] == nil {
			b.winners[reason] = map[[2]string]int{}
		}
		b.winners[reason][[2]string{ar.Winner, ar.WinnerRole}]++
	}
}

// build makes the explanation of one role from the groups.
func (b *groupBuilder) build(role, subject string, agents int, at time.Time) RoleExplanation {
	re := RoleExplanation{Role: role, Agents: agents, Offered: b.offered, subject: subject, at: at}
	for i := range b.groups {
		g := b.groups[i]
		if g.Count == 0 {
			continue
		}
		if re.Reason == ReasonNone {
			re.Reason = g.Reason
		}
		if w := b.winners[i]; w != nil {
			g.Winners = len(w)
			best := 0
			for _, k := range slices.SortedFunc(func(yield func([2]string) bool) {
				for k := range w {
					if !yield(k) {
						return
					}
				}
			}, func(x, y [2]string) int { return strings.Compare(x[0]+"\x00"+x[1], y[0]+"\x00"+y[1]) }) {
				if w[k] > best {
					best, g.Winner, g.WinnerRole = w[k], k[0], k[1]
				}
			}
		}
		re.Reasons = append(re.Reasons, g)
	}
	return re
}

// finish builds a role explanation and adds the figures the state holds.
func (e *explainer) finish(b *groupBuilder, role string, node *roles.Node, subject string) RoleExplanation {
	re := b.build(role, subject, len(e.agents), e.l.now)
	for i := range re.Reasons {
		g := &re.Reasons[i]
		switch g.Reason {
		case ReasonInactive:
			g.State = "inactive"
			if fw := e.a.frameworks.Get(g.Agents[0].Framework); fw != nil && fw.active && fw.joined >= e.l.run {
				g.State = "not yet in a run"
			}
		case ReasonQuotaLimit:
			if node != nil {
				g.QuotaRole, g.Limit, g.Consumed = e.a.bindingLimit(node)
			}
		case ReasonHeadroom:
			g.Unmet = e.a.unmetGuarantees(role)
		case ReasonFairness:
			g.Share, g.WinnerShare = e.shares(role, g.Agents, g.Winner, g.WinnerRole)
		}
	}
	return re
}

// shares returns the shares by which the sorter ordered role (or, when the
// winner is of the same role, the framework) against the winner.
func (e *explainer) shares(role string, agents []AgentReason, winner, winnerRole string) (float64, float64) {
	if winnerRole != role {
		if s, ok := e.a.roleSorter.Sorter.(sorter.Sharer); ok {
			return s.ShareOf(role), s.ShareOf(winnerRole)
		}
		return -1, -1
	}
	fs := e.a.frameworkSorter(role)
	if fs == nil {
		return -1, -1
	}
	s, ok := fs.Sorter.(sorter.Sharer)
	if !ok {
		return -1, -1
	}
	fwID := ""
	for _, ar := range agents {
		if ar.Winner == winner {
			fwID = ar.Framework
			break
		}
	}
	return s.ShareOf(fwID), s.ShareOf(winner)
}

// bindingLimit returns the role among node and its ancestors whose limit
// leaves least (the nearest one at its limit in some resource), its limit
// and its consumption.
func (a *Allocator) bindingLimit(node *roles.Node) (string, resources.Limits, resources.Quantities) {
	var pick *roles.Node
	for q := range node.QuotaAncestry {
		if q.Q().Limits.IsEmpty() {
			continue
		}
		if pick == nil {
			pick = q
		}
		consumed := q.Consumed()
		for _, name := range q.Q().Limits.Names() {
			if lim, _ := q.Q().Limits.Get(name); consumed.Scalar(name) >= lim {
				return q.Path, q.Q().Limits.Clone(), consumed
			}
		}
	}
	if pick == nil {
		return "", resources.Limits{}, resources.Quantities{}
	}
	return pick.Path, pick.Q().Limits.Clone(), pick.Consumed()
}

// unmetGuarantees returns the roles other than role whose own guarantees
// are unmet, and by how much, by path.
func (a *Allocator) unmetGuarantees(role string) []RoleQuantities {
	var out []RoleQuantities
	for _, path := range a.roles.Nodes.Keys() {
		n := a.roles.Nodes.Get(path)
		if path == role || n.Q().Guarantees.IsEmpty() {
			continue
		}
		var q resources.Quantities
		n.UnmetInto(&q)
		if !q.IsEmpty() {
			out = append(out, RoleQuantities{Role: path, Quantities: q})
		}
	}
	return out
}

// String renders the explanation as sentences, one per role.
func (x Explanation) String() string {
	lines := make([]string, 0, len(x.Roles)+len(x.Preemptions))
	for _, r := range x.Roles {
		lines = append(lines, r.String())
	}
	for _, p := range x.Preemptions {
		lines = append(lines, p.String())
	}
	return strings.Join(lines, "\n")
}

// Describe renders the explanation with the agents behind each reason: a
// line per role (its sentence), then per reason the agents listed and
// what was found on each.
func (x Explanation) Describe() string {
	var b strings.Builder
	for _, r := range x.Roles {
		b.WriteString(r.String())
		b.WriteByte('\n')
		for _, g := range r.Reasons {
			fmt.Fprintf(&b, "  %s on %d:", g.Reason, g.Count)
			for _, ar := range g.Agents {
				b.WriteString(" " + ar.Agent)
				var details []string
				if x.Framework == "" && ar.Framework != "" {
					details = append(details, ar.Framework)
				}
				switch g.Reason {
				case ReasonFiltered:
					details = append(details, "until "+clockText(ar.Until, r.at))
				case ReasonIncapable:
					details = append(details, "lacks "+ar.Missing.String())
				case ReasonQuotaLimit, ReasonHeadroom:
					if !ar.Offer.IsEmpty() {
						details = append(details, "would add "+ar.Offer.String())
					}
				case ReasonMinAllocatable, ReasonNoFit:
					details = append(details, "left "+ar.Offer.String())
				case ReasonFairness:
					details = append(details, "to "+ar.Winner+" in "+ar.WinnerRole)
				}
				if len(details) > 0 {
					b.WriteString(" (" + strings.Join(details, ", ") + ")")
				}
			}
			if g.Count > len(g.Agents) {
				fmt.Fprintf(&b, " and %d more", g.Count-len(g.Agents))
			}
			b.WriteByte('\n')
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// String renders the role's explanation as a sentence: "web got nothing
// on 37 agents: 30 held back as headroom for analytics's unmet guarantee
// (cpus:12), 7 refused until 12:00:05".
func (r RoleExplanation) String() string {
	subject := r.subject
	if subject == "" {
		subject = r.Role
	}
	missed := r.Agents - r.Offered
	switch {
	case r.Agents == 0:
		return subject + " had no agent in the run"
	case missed == 0 && r.Agents == 1:
		return subject + " got an offer on the one agent"
	case missed == 0:
		return fmt.Sprintf("%s got offers on all %d agents", subject, r.Agents)
	}
	head := fmt.Sprintf("%s got nothing on %s", subject, agentsText(missed))
	if r.Offered > 0 {
		head = fmt.Sprintf("%s got offers on %s and nothing on %d", subject, agentsText(r.Offered), missed)
	}
	parts := make([]string, 0, len(r.Reasons))
	for _, g := range r.Reasons {
		parts = append(parts, g.phrase(r.Role, r.at))
	}
	return head + ": " + strings.Join(parts, ", ")
}

func agentsText(n int) string {
	if n == 1 {
		return "1 agent"
	}
	return fmt.Sprintf("%d agents", n)
}

// phrase renders one reason with its count and figures.
func (g ReasonGroup) phrase(role string, at time.Time) string {
	n := g.Count
	switch g.Reason {
	case ReasonInactive:
		switch g.State {
		case "removed":
			return fmt.Sprintf("%d as the framework was removed", n)
		case "not yet in a run":
			return fmt.Sprintf("%d as the framework joined after the run", n)
		case "no framework":
			return fmt.Sprintf("%d with no framework in the role", n)
		}
		return fmt.Sprintf("%d as the framework is inactive", n)
	case ReasonSuppressed:
		return fmt.Sprintf("%d suppressed in role %s", n, role)
	case ReasonIncapable:
		return fmt.Sprintf("%d lacking %s", n, g.Missing)
	case ReasonConstraints:
		return fmt.Sprintf("%d excluded by its offer constraints", n)
	case ReasonFiltered:
		if g.Until.IsZero() {
			return fmt.Sprintf("%d refused (the filters were lifted since)", n)
		}
		if !g.Earliest.Equal(g.Until) {
			return fmt.Sprintf("%d refused until between %s and %s", n, clockText(g.Earliest, at), clockText(g.Until, at))
		}
		return fmt.Sprintf("%d refused until %s", n, clockText(g.Until, at))
	case ReasonQuotaLimit:
		if g.QuotaRole == "" {
			return fmt.Sprintf("%d at the quota limit", n)
		}
		return fmt.Sprintf("%d at %s's quota limit (limit %s, consumed %s)", n, g.QuotaRole, g.Limit, g.Consumed)
	case ReasonHeadroom:
		switch len(g.Unmet) {
		case 0:
			return fmt.Sprintf("%d held back as headroom", n)
		case 1:
			return fmt.Sprintf("%d held back as headroom for %s's unmet guarantee (%s)", n, g.Unmet[0].Role, g.Unmet[0].Quantities)
		}
		roles := make([]string, len(g.Unmet))
		for i, u := range g.Unmet {
			roles[i] = fmt.Sprintf("%s (%s)", u.Role, u.Quantities)
		}
		return fmt.Sprintf("%d held back as headroom for the unmet guarantees of %s and %s", n, strings.Join(roles[:len(roles)-1], ", "), roles[len(roles)-1])
	case ReasonMinAllocatable:
		return fmt.Sprintf("%d below the minimum allocatable (%s left)", n, g.Left)
	case ReasonNoFit:
		switch {
		case len(g.Unfit) == 1:
			return fmt.Sprintf("%d where no pending task fits (%s fits on none)", n, g.Unfit[0].Resources)
		case len(g.Unfit) > 1:
			return fmt.Sprintf("%d where no pending task fits (%d shapes fit on none)", n, len(g.Unfit))
		}
		return fmt.Sprintf("%d where no pending task fits (%s left)", n, g.Left)
	case ReasonDeclined:
		return fmt.Sprintf("%d declined, offered to the others first", n)
	case ReasonFairness:
		to := "role " + g.WinnerRole
		if g.WinnerRole == role {
			to = g.Winner
		}
		text := fmt.Sprintf("%d lost to fairness: offered to %s", n, to)
		switch g.Winners {
		case 1:
		case 2:
			text += " and 1 other"
		default:
			text += fmt.Sprintf(" and %d others", g.Winners-1)
		}
		if g.Share >= 0 {
			mine, theirs := role, g.WinnerRole
			if g.WinnerRole == role {
				mine, theirs = g.Agents[0].Framework, g.Winner
			}
			text += fmt.Sprintf(" (shares now: %s %s, %s %s)", theirs, shareText(g.WinnerShare), mine, shareText(g.Share))
		}
		return text
	case ReasonNothingLeft:
		return fmt.Sprintf("%d with nothing left for the role", n)
	case ReasonAgentInactive:
		return fmt.Sprintf("%d with the agent inactive", n)
	}
	return fmt.Sprintf("%d %s", n, g.Reason)
}

func shareText(s float64) string { return fmt.Sprintf("%.4g", s) }

// clockText renders a time as a time of day (UTC, to the millisecond),
// with the date when it is not the day of the run.
func clockText(t, run time.Time) string {
	t, run = t.UTC(), run.UTC()
	if t.IsZero() {
		return "(lifted)"
	}
	if y, m, d := t.Date(); y == run.Year() && m == run.Month() && d == run.Day() {
		return t.Format("15:04:05.999")
	}
	return t.Format("2006-01-02 15:04:05.999")
}
