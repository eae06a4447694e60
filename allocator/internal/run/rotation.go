package run

import (
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
)

// The rotation after declines is kept by package declines (its doc says
// how it works); the record Explain keeps of it is corrected here.

// settleHeldBack corrects Explain's record of the frameworks the round
// held back on ag, once the round has ended and the agent was walked
// again: passes[first:second] are the first walk's. A framework the second
// walk passed over or offered something has that as its record, which
// comes later. One it did not reach was not held back for the round in the
// end: its role was capped in the meantime (the cap is its reason), or
// skipped for what its frameworks wait for, or the agent was taken first;
// its pass is dropped, and Explain finds those from the visits and offers.
func (e *Engine) settleHeldBack(r *runState, ag *cluster.Agent, first, second int) {
	// (The log only grows within a run: second is within it.)
	walked, later := e.explain.Passes[first:second], e.explain.Passes[second:]
	for i := range walked {
		p := &walked[i]
		if p.Reason != explain.Declined || p.Agent != ag {
			continue
		}
		if e.offeredHere(r, p.Framework, p.Node.Path) || slices.ContainsFunc(later, func(q cluster.PassRecord) bool {
			return q.Agent == ag && q.Framework == p.Framework && q.Node == p.Node
		}) {
			continue
		}
		if p.Node.CappedRun == r.id {
			p.Reason = p.Node.CappedBy
			continue
		}
		p.Reason = (explain.None)
	}
}
