package explain

import (
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Explainer answers why from the latest run's log and the state.
type Explainer struct {
	l  *Log
	cs *cluster.State
	// dec are the refusal filters; missing returns the capabilities whose
	// lack keeps a framework from the whole of an agent.
	dec     *declines.Book
	missing func(*cluster.Framework, *cluster.Agent) offer.Capabilities
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

// New returns an explainer of the run l logged, in the state cs with the
// refusal filters dec, the roles parked (kept out of the role sorter as
// capped), and missing, the capabilities whose lack keeps a framework from
// the whole of an agent.
func New(l *Log, cs *cluster.State, dec *declines.Book, parked []string, missing func(*cluster.Framework, *cluster.Agent) offer.Capabilities) *Explainer {
	e := &Explainer{
		l: l, cs: cs, dec: dec, missing: missing,
		skipped:  map[string]bool{},
		offersOn: map[string][]int{},
		passes:   map[passKey]int{},
		visits:   map[visitKey]int{},
		parked:   map[string]bool{},
	}
	for _, id := range l.Candidates {
		if ag, ok := cs.Agents.Lookup(id); ok {
			e.agents = append(e.agents, ag)
		}
	}
	for _, ag := range l.Skipped {
		e.skipped[ag.ID] = true
	}
	for i, o := range l.Offers {
		e.offersOn[o.Key.Agent] = append(e.offersOn[o.Key.Agent], i)
	}
	for i, p := range l.Passes {
		if p.Reason != None { // dropped (held back by a round that ended)
			e.passes[passKey{p.Framework.ID, p.Node.Path, p.Agent.ID, p.Stage}] = i
		}
	}
	for i, v := range l.visits {
		e.visits[visitKey{v.node.Path, v.ag.ID, v.stage}] = i
	}
	for _, role := range parked {
		e.parked[role] = true
	}
	return e
}

// Agents are the run's candidates that still exist.
func (e *Explainer) Agents() []*cluster.Agent { return e.agents }

// Offered reports whether the run offered the framework something on the
// agent in the role.
func (e *Explainer) Offered(fwID, role, agentID string) bool {
	for _, i := range e.offersOn[agentID] {
		if k := e.l.Offers[i].Key; k.Framework == fwID && k.Role == role {
			return true
		}
	}
	return false
}

// offeredInRole reports whether the run offered a framework of the role
// something on the agent.
func (e *Explainer) offeredInRole(node *roles.Node, ag *cluster.Agent) bool {
	for _, i := range e.offersOn[ag.ID] {
		if e.l.Offers[i].Key.Role == node.Path {
			return true
		}
	}
	return false
}

// Why says what happened to fw in node's role on ag: offered, or the
// reason it was not and what was found.
func (e *Explainer) Why(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent) (bool, uint8, Found) {
	ar := Found{Agent: ag.ID, Framework: fw.ID}
	switch {
	case e.skipped[ag.ID]:
		return false, AgentInactive, ar
	case node != nil && e.Offered(fw.ID, node.Path, ag.ID):
		return true, None, ar
	case !fw.Active, fw.Joined >= e.l.Run:
		return false, Inactive, ar
	case node == nil:
		return false, NothingLeft, ar
	case fw.Roles.Has(node.Path, tables.Suppressed):
		return false, Suppressed, ar
	case fw.WaitsForNothing(node.Path):
		// Kept out of the role's sorter: nothing is pending.
		return false, NoFit, ar
	}
	reason, ar := e.found(fw, node, ag, ar)
	return false, reason, e.sharpen(fw, node, ag, &reason, ar)
}

// found is the reason the run found, or that follows from what it did.
func (e *Explainer) found(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent, ar Found) (uint8, Found) {
	// The fair-share stage first: it is what the run did last.
	if i, ok := e.passes[passKey{fw.ID, node.Path, ag.ID, cluster.StageFairShare}]; ok {
		return e.fromPass(fw, ag, e.l.Passes[i], nil, ar)
	}
	if i, ok := e.visits[visitKey{node.Path, ag.ID, cluster.StageFairShare}]; ok {
		return e.fromVisit(fw, node, ag, e.l.visits[i], ar)
	}
	// A role capped in the run (or parked since an earlier one) was not
	// looked at on agents that still had something for it, even where
	// one of its frameworks was offered something before the cap.
	if e.capped(node) {
		if left := ag.Available.AllocatableTo(node.Path); !left.IsEmpty() {
			return cappedOn(node, left, ar)
		}
	}
	if e.offeredInRole(node, ag) {
		// The walk of the role made an offer there.
		return e.fromVisit(fw, node, ag, visitRecord{kind: visitWalked}, ar)
	}
	if i, ok := e.passes[passKey{fw.ID, node.Path, ag.ID, cluster.StageGuarantees}]; ok {
		return e.fromPass(fw, ag, e.l.Passes[i], nil, ar)
	}
	if i, ok := e.visits[visitKey{node.Path, ag.ID, cluster.StageGuarantees}]; ok && e.l.visits[i].kind == visitUnchanged {
		return e.fromVisit(fw, node, ag, e.l.visits[i], ar)
	}
	return e.elsewhere(fw, node, ag, ar)
}

// cappedOn is the reason a role capped in the run (or parked) was not
// looked at on an agent where left is still free for it. The cap is about
// the whole cluster: every unreserved scalar is kept from the role by its
// limits or by the headroom held for others, and nothing else is free for
// it (no reservation of its top-level subtree, nothing revocable or
// shared). On one agent it is the reason only where it keeps something the
// agent has from the role:
//
//   - with no unreserved scalar left there, nothing was cut: what is left
//     (ports) is below the minimum allocatable resources, every
//     alternative of which needs a scalar (or the role would not be
//     capped);
//   - where the role or an ancestor is at a limit in every resource the
//     agent has, the limits keep all of it (whatever the headroom does);
//   - where it is at a limit in none of them, each was kept by the
//     headroom: a resource the limits left room for at the cap was cut to
//     nothing by the headroom, and the limits' room then was at least what
//     it is now;
//   - otherwise both keep something, and the cap's cause over the whole
//     cluster says which is why.
func cappedOn(node *roles.Node, left resources.Resources, ar Found) (uint8, Found) {
	quota := cluster.HeadroomOf(left)
	if node.CappedBy == MinAllocatable || quota.IsEmpty() {
		ar.Offer = left.Quantities()
		return MinAllocatable, ar
	}
	ar.Offer = quota
	limited := 0
	for name := range quota.All() {
		if atLimit(node, name) {
			limited++
		}
	}
	switch limited {
	case quota.Len():
		return QuotaLimit, ar
	case 0:
		return Headroom, ar
	}
	return node.CappedBy, ar
}

// atLimit reports whether the role at n or an ancestor consumes at least
// its limit of name.
func atLimit(n *roles.Node, name string) bool {
	for p := range n.QuotaAncestry {
		if lim, ok := p.Q().Limits.Get(name); ok && p.Consumed().Scalar(name) >= lim {
			return true
		}
	}
	return false
}

// sharpen replaces the reason found by one of higher precedence that held
// as well: a capability the framework lacks for the whole agent (GPUs, the
// region), its offer constraints, or a refusal filter covering the agent. The run stops at the first reason it
// meets, in the order cheapest to check; Explain reports the most
// actionable.
func (e *Explainer) sharpen(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent, reason *uint8, ar Found) Found {
	if *reason > Incapable {
		if m := e.missing(fw, ag); m != 0 {
			*reason = Incapable
			return Found{Agent: ar.Agent, Framework: ar.Framework, Missing: m}
		}
	}
	if *reason > Constraints {
		if cs, ok := fw.Info.Constraints[node.Path]; ok && !cs.Admits(ag.Info.Attributes) {
			*reason = Constraints
			return Found{Agent: ar.Agent, Framework: ar.Framework}
		}
	}
	if *reason > Filtered {
		if until, ok := e.filterUntil(fw, node.Path, ag, resources.Resources{}, false); ok {
			*reason = Filtered
			return Found{Agent: ar.Agent, Framework: ar.Framework, Until: until}
		}
	}
	return ar
}

// fromPass is the reason of a logged pass; kept is the nobody entry the
// pass comes from, if it does.
func (e *Explainer) fromPass(fw *cluster.Framework, ag *cluster.Agent, p cluster.PassRecord, kept *cluster.NobodyPasses, ar Found) (uint8, Found) {
	reason := p.Reason
	switch reason {
	case Filtered:
		ar.Until, _ = e.filterUntil(fw, p.Node.Path, ag, resources.Resources{}, true)
	case Incapable:
		ar.Missing = offer.Capabilities(p.Missing)
		if ar.Missing == 0 {
			ar.Missing = e.missing(fw, ag)
		}
	case QuotaLimit, Headroom, MinAllocatable, NoFit:
		if p.Detail == 0 && reason != NoFit && reason == p.Node.CappedBy && e.capped(p.Node) {
			// A framework the rotation after declines held back on the
			// agent, whose role was capped before the walk came back to
			// it: the pass was settled to the cap, with no quantities of
			// its own.
			if left := ag.Available.AllocatableTo(p.Node.Path); !left.IsEmpty() {
				return cappedOn(p.Node, left, ar)
			}
		}
		ar.Offer = e.l.detailOf(p, kept).Clone()
	}
	return reason, ar
}

// capped reports whether the role was capped in the run, or parked since
// an earlier one.
func (e *Explainer) capped(node *roles.Node) bool {
	return node.CappedRun == e.l.Run || e.parked[node.Path]
}

// fromVisit is the reason of a framework that a visit of its role on the
// agent did not pass over one by one.
func (e *Explainer) fromVisit(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent, v visitRecord, ar Found) (uint8, Found) {
	if v.kind == visitUnfit {
		// Its walk would have passed every framework over for that (the
		// floor is only used where nothing else would come first; see
		// demandFloor).
		return NoFit, ar
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
		offered = e.l.Offers[w].Res.Unallocate()
	}
	if until, ok := e.filterUntil(fw, node.Path, ag, offered, false); ok {
		ar.Until = until
		return Filtered, ar
	}
	return e.elsewhere(fw, node, ag, ar)
}

// elsewhere is the reason of a framework the run did not look at on the
// agent: someone else was offered it first, or nothing was left there.
func (e *Explainer) elsewhere(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent, ar Found) (uint8, Found) {
	if w, ok := e.winner(fw, node, ag); ok {
		k := e.l.Offers[w].Key
		ar.Winner, ar.WinnerRole = k.Framework, k.Role
		return Fairness, ar
	}
	return NothingLeft, ar
}

// winner returns the offer that took the agent instead of fw: the first
// made there to another framework of the role, else the first made there.
func (e *Explainer) winner(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent) (int, bool) {
	first := -1
	for _, i := range e.offersOn[ag.ID] {
		k := e.l.Offers[i].Key
		if k.Framework == fw.ID && k.Role == node.Path {
			continue
		}
		if k.Role == node.Path {
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
func (e *Explainer) filterUntil(fw *cluster.Framework, role string, ag *cluster.Agent, candidate resources.Resources, known bool) (time.Time, bool) {
	var latest time.Time
	found := false
	for _, f := range e.dec.RefusalsOn(fw, role, ag) {
		if !refusals.InForceAt(f.Expires, f.Batch, e.l.Now, e.l.Periodic, e.l.Batches) {
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
