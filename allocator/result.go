package allocator

import (
	"iter"
	"slices"
	"strings"

	"github.com/allot-go/allot/offer"
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
	// (Options.Reclaim), in the order chosen: guarantees first, sub-roles
	// before their parents, then fair shares by role path.
	Preemptions []Preemption
	// Withdrawn are tasks earlier runs chose to end whose need went (the
	// pending task they made room for was offered elsewhere or is no
	// longer stated, an agent was added where it fits, the guarantee
	// changed): a host that has not ended them yet should not; one that
	// has gives back what they free to the pool, not to a hold.
	Withdrawn []Preemption
	Stats     RunStats
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
