package allocator

import (
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// explainer answers Explain from the latest run's log.
type explainer struct {
	a *Allocator
	l *explainLog
	// agents are the run's candidates that still exist, by id.
	agents   []*cluster.Agent
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
	st           cluster.Stage
}

type visitKey struct {
	role, ag string
	st       cluster.Stage
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
		if ag, ok := a.cs.Agents.Lookup(id); ok {
			e.agents = append(e.agents, ag)
		}
	}
	for _, ag := range l.skipped {
		e.skipped[ag.ID] = true
	}
	for i, o := range l.offers {
		e.offersOn[o.key.agent] = append(e.offersOn[o.key.agent], i)
	}
	for i, p := range l.passes {
		if Reason(p.Reason) != ReasonNone { // dropped (see settleHeldBack)
			e.passes[passKey{p.Framework.ID, p.Node.Path, p.Agent.ID, p.Stage}] = i
		}
	}
	for i, v := range l.visits {
		e.visits[visitKey{v.node.Path, v.ag.ID, v.stage}] = i
	}
	for _, role := range a.parking.Parked {
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
func (e *explainer) offeredInRole(node *roles.Node, ag *cluster.Agent) bool {
	for _, i := range e.offersOn[ag.ID] {
		if e.l.offers[i].key.role == node.Path {
			return true
		}
	}
	return false
}

// why says what happened to fw in node's role on ag: offered, or the
// reason it was not and what was found.
func (e *explainer) why(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent) (bool, Reason, AgentReason) {
	ar := AgentReason{Agent: ag.ID, Framework: fw.ID}
	switch {
	case e.skipped[ag.ID]:
		return false, ReasonAgentInactive, ar
	case node != nil && e.offered(fw.ID, node.Path, ag.ID):
		return true, ReasonNone, ar
	case !fw.Active, fw.Joined >= e.l.run:
		return false, ReasonInactive, ar
	case node == nil:
		return false, ReasonNothingLeft, ar
	case fw.Roles.Has(node.Path, tables.Suppressed):
		return false, ReasonSuppressed, ar
	case fw.WaitsForNothing(node.Path):
		// Kept out of the role's sorter: nothing is pending.
		return false, ReasonNoFit, ar
	}
	reason, ar := e.found(fw, node, ag, ar)
	return false, reason, e.sharpen(fw, node, ag, &reason, ar)
}

// found is the reason the run found, or that follows from what it did.
func (e *explainer) found(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent, ar AgentReason) (Reason, AgentReason) {
	// The fair-share stage first: it is what the run did last.
	if i, ok := e.passes[passKey{fw.ID, node.Path, ag.ID, stageFairShare}]; ok {
		return e.fromPass(fw, ag, e.l.passes[i], nil, ar)
	}
	if i, ok := e.visits[visitKey{node.Path, ag.ID, stageFairShare}]; ok {
		return e.fromVisit(fw, node, ag, e.l.visits[i], ar)
	}
	// A role capped in the run (or parked since an earlier one) was not
	// looked at on agents that still had something for it, even where
	// one of its frameworks was offered something before the cap.
	if (node.CappedRun == e.l.run || e.parked[node.Path]) && !ag.Available.AllocatableTo(node.Path).IsEmpty() {
		if Reason(node.CappedBy) == ReasonMinAllocatable {
			ar.Offer = ag.Available.AllocatableTo(node.Path).Quantities()
		} else {
			ar.Offer = cluster.HeadroomOf(ag.Available)
		}
		return Reason(node.CappedBy), ar
	}
	if e.offeredInRole(node, ag) {
		// The walk of the role made an offer there.
		return e.fromVisit(fw, node, ag, visitRecord{kind: visitWalked}, ar)
	}
	if i, ok := e.passes[passKey{fw.ID, node.Path, ag.ID, stageGuarantees}]; ok {
		return e.fromPass(fw, ag, e.l.passes[i], nil, ar)
	}
	if i, ok := e.visits[visitKey{node.Path, ag.ID, stageGuarantees}]; ok && e.l.visits[i].kind == visitUnchanged {
		return e.fromVisit(fw, node, ag, e.l.visits[i], ar)
	}
	return e.elsewhere(fw, node, ag, ar)
}

// sharpen replaces the reason found by one of higher precedence that held
// as well: a capability the framework lacks for the whole agent (GPUs, the
// region), its offer constraints, or a refusal filter covering the agent. The run stops at the first reason it
// meets, in the order cheapest to check; Explain reports the most
// actionable.
func (e *explainer) sharpen(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent, reason *Reason, ar AgentReason) AgentReason {
	if *reason > ReasonIncapable {
		if m := e.a.agentMissing(fw, ag); m != 0 {
			*reason = ReasonIncapable
			return AgentReason{Agent: ar.Agent, Framework: ar.Framework, Missing: m}
		}
	}
	if *reason > ReasonConstraints {
		if cs, ok := fw.Info.Constraints[node.Path]; ok && !cs.Admits(ag.Info.Attributes) {
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
func (e *explainer) fromPass(fw *cluster.Framework, ag *cluster.Agent, p cluster.PassRecord, kept *cluster.NobodyPasses, ar AgentReason) (Reason, AgentReason) {
	reason := Reason(p.Reason)
	switch reason {
	case ReasonFiltered:
		ar.Until, _ = e.filterUntil(fw, p.Node.Path, ag, resources.Resources{}, true)
	case ReasonIncapable:
		ar.Missing = offer.Capabilities(p.Missing)
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
func (e *explainer) fromVisit(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent, v visitRecord, ar AgentReason) (Reason, AgentReason) {
	if v.kind == visitUnfit {
		// Its walk would have passed every framework over for that (the
		// floor is only used where nothing else would come first; see
		// demandFloor).
		return ReasonNoFit, ar
	}
	if v.kind == visitUnchanged && v.cached != nil {
		for _, p := range v.cached.Passes {
			if p.Framework.ID == fw.ID {
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
func (e *explainer) elsewhere(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent, ar AgentReason) (Reason, AgentReason) {
	if w, ok := e.winner(fw, node, ag); ok {
		k := e.l.offers[w].key
		ar.Winner, ar.WinnerRole = k.framework, k.role
		return ReasonFairness, ar
	}
	return ReasonNothingLeft, ar
}

// winner returns the offer that took the agent instead of fw: the first
// made there to another framework of the role, else the first made there.
func (e *explainer) winner(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent) (int, bool) {
	first := -1
	for _, i := range e.offersOn[ag.ID] {
		k := e.l.offers[i].key
		if k.framework == fw.ID && k.role == node.Path {
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
func (e *explainer) filterUntil(fw *cluster.Framework, role string, ag *cluster.Agent, candidate resources.Resources, known bool) (time.Time, bool) {
	var latest time.Time
	found := false
	for _, f := range e.a.dec.RefusalsOn(fw, role, ag) {
		if !refusals.InForceAt(f.Expires, f.Batch, e.l.now, e.l.periodic, e.l.batches) {
			continue
		}
		if f.Covered == ag.RefGen || f.Refused.Contains(ag.Ref) || (!candidate.IsEmpty() && f.Refused.Contains(candidate)) {
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
func (a *Allocator) agentMissing(fw *cluster.Framework, ag *cluster.Agent) offer.Capabilities {
	caps := fw.Info.Capabilities
	var m offer.Capabilities
	if !a.opts.AllowGPUsToAll && !caps.Has(offer.GPUResources) && ag.HasGPUs {
		m |= offer.GPUResources
	}
	if a.opts.Region != "" && ag.Info.Region != "" && ag.Info.Region != a.opts.Region && !caps.Has(offer.RegionAware) {
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
			if fw := e.a.cs.Frameworks.Get(g.Agents[0].Framework); fw != nil && fw.Active && fw.Joined >= e.l.run {
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
