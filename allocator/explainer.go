package allocator

import (
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// explaining is an explainer of the latest run (package explain) and the
// allocator whose state gives the figures Explain adds.
type explaining struct {
	*explain.Explainer
	a *Allocator
}

// explaining returns an explainer of the latest run, with the sorters'
// totals brought up to date for the shares it reports.
func (a *Allocator) explaining() explaining {
	a.books.RefreshSorterTotals()
	return explaining{explain.New(&a.explain, &a.cs, &a.dec, a.parking.Parked, a.engine.AgentMissing), a}
}

// why is explain's Why in the allocator's types.
func (e explaining) why(fw *cluster.Framework, node *roles.Node, ag *cluster.Agent) (bool, Reason, AgentReason) {
	offered, reason, found := e.Why(fw, node, ag)
	return offered, Reason(reason), AgentReason(found)
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
func (e explaining) finish(b *groupBuilder, role string, node *roles.Node, subject string) RoleExplanation {
	re := b.build(role, subject, len(e.Agents()), e.a.explain.Now)
	for i := range re.Reasons {
		g := &re.Reasons[i]
		switch g.Reason {
		case ReasonInactive:
			g.State = "inactive"
			if fw := e.a.cs.Frameworks.Get(g.Agents[0].Framework); fw != nil && fw.Active && fw.Joined >= e.a.explain.Run {
				g.State = "not yet in a run"
			}
		case ReasonQuotaLimit:
			if node != nil {
				g.QuotaRole, g.Limit, g.Consumed = e.a.bindingLimit(node, role, g.Agents)
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
func (e explaining) shares(role string, agents []AgentReason, winner, winnerRole string) (float64, float64) {
	if winnerRole != role {
		if s, ok := e.a.roleSorter.Sorter.(sorter.Sharer); ok {
			return s.ShareOf(role), s.ShareOf(winnerRole)
		}
		return -1, -1
	}
	fs := e.a.books.FrameworkSorter(role)
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
// binds for the agents of a quota-limit reason (quota.BindingLimit), its
// limit and its consumption: first on the agents that still have
// something free for the role (what a user asks about), then on all.
// What a limit leaves is judged with the rest of the offer, which no cut
// touches (the framework's share of the reservations and the like, now).
func (a *Allocator) bindingLimit(node *roles.Node, role string, agents []AgentReason) (string, resources.Limits, resources.Quantities) {
	var offers, freeNow []resources.Quantities
	var onAll, onFree []int // offer i's agent in agents
	rests := make([]resources.Quantities, len(agents))
	for i, ar := range agents {
		offers, onAll = append(offers, ar.Offer), append(onAll, i)
		ag := a.cs.Agents.Get(ar.Agent)
		if ag == nil {
			continue
		}
		free := ag.Available.NonShared().AllocatableTo(role)
		if free.IsEmpty() {
			continue
		}
		freeNow, onFree = append(freeNow, ar.Offer), append(onFree, i)
		if fw := a.cs.Frameworks.Get(ar.Framework); fw != nil {
			_, rest := run.StripIncapable(free, fw.Info.Capabilities).QuotaPart()
			rests[i] = rest.Quantities()
		}
	}
	enough := func(of []int) func(int, resources.Quantities) bool {
		return func(i int, left resources.Quantities) bool {
			mins := a.opts.MinAllocatable
			if fw := a.cs.Frameworks.Get(agents[of[i]].Framework); fw != nil {
				if own, ok := fw.Info.MinAllocatable[role]; ok {
					mins = own
				}
			}
			return quota.MeetsMinimum(left.Plus(rests[of[i]]), mins)
		}
	}
	q, binds := quota.BindingLimit(node, freeNow, enough(onFree))
	if !binds {
		q, _ = quota.BindingLimit(node, offers, enough(onAll))
	}
	if q == nil {
		return "", resources.Limits{}, resources.Quantities{}
	}
	return q.Path, q.Q().Limits.Clone(), q.Consumed()
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
