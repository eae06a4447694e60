package allocator

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
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
	if a.explain.Run == 0 {
		return Explanation{}, ErrNoRun
	}
	e := a.explaining()
	out := Explanation{Framework: frameworkID, Run: a.explain.Run, Time: a.explain.Now}
	for _, p := range a.preempted {
		if p.FrameworkID == frameworkID || p.ForFramework == frameworkID {
			out.Preemptions = append(out.Preemptions, p)
		}
	}
	fw, ok := a.cs.Frameworks.Lookup(frameworkID)
	if !ok {
		removedRoles, ok := a.explain.Removed(frameworkID)
		if !ok {
			return Explanation{}, fmt.Errorf("%w: %q", ErrUnknownFramework, frameworkID)
		}
		for _, role := range removedRoles {
			var b groupBuilder
			for _, ag := range e.Agents() {
				if e.Offered(frameworkID, role, ag.ID) {
					b.offered++
					continue
				}
				b.add(ReasonInactive, AgentReason{Agent: ag.ID, Framework: frameworkID})
			}
			re := b.build(role, frameworkID, len(e.Agents()), a.explain.Now)
			for i := range re.Reasons {
				re.Reasons[i].State = "removed"
			}
			out.Roles = append(out.Roles, re)
		}
		return out, nil
	}
	several := fw.Roles.Count(tables.Subscribed) > 1
	for role := range fw.Roles.All(tables.Subscribed) {
		node := a.roles.Get(role)
		subject := fw.ID
		if several {
			subject = fw.ID + " in role " + role
		}
		var b groupBuilder
		for _, ag := range e.Agents() {
			offered, reason, ar := e.why(fw, node, ag)
			if offered {
				b.offered++
				continue
			}
			b.add(reason, ar)
		}
		re := e.finish(&b, role, node, subject)
		if pending, stated := fw.PendingIn(role); stated {
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
func unfit(list []cluster.Pending, left []resources.Quantities) []Pending {
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
	if a.explain.Run == 0 {
		return Explanation{}, ErrNoRun
	}
	node := a.roles.Get(role)
	if node == nil {
		return Explanation{}, fmt.Errorf("%w: %q", ErrUnknownRole, role)
	}
	e := a.explaining()
	out := Explanation{Run: a.explain.Run, Time: a.explain.Now}
	for _, p := range a.preempted {
		if p.Role == role || p.For == role {
			out.Preemptions = append(out.Preemptions, p)
		}
	}
	var fws []*cluster.Framework
	for _, id := range node.Frameworks.Sorted() {
		fws = append(fws, a.cs.Frameworks.Get(id))
	}
	var b groupBuilder
	for _, ag := range e.Agents() {
		if len(fws) == 0 {
			b.add(ReasonInactive, AgentReason{Agent: ag.ID})
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
