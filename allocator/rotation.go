package allocator

import (
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// The rotation after declines.
//
// Mesos offers an agent's leftover to the first framework in DRF order
// that no refusal filter of its own excludes. A framework with a low share
// that cannot use the leftover declines it, with a filter of a few seconds;
// once enough such frameworks decline in turn (refuse time over the
// allocation interval), one of them is always unfiltered and first, and a
// framework further down that could use the leftover is never offered it,
// however long the cluster idles (Marathon's --decline_offer_duration,
// SPARK-13001 and the Jenkins plugin's ten-minute declines all work
// around this on the framework's side).
//
// Here each agent keeps the round of frameworks that declined what it has
// (RecoverResources of offered resources is a decline, with or without a
// filter). A framework in the round is passed over on the agent
// (ReasonDeclined) while others that have not declined may be offered
// it; only when a run has walked every framework on the agent and
// something is still left does the round end: it is emptied, and the
// agent is walked again, so that the frameworks it held back are offered
// what is left in DRF order (task by task, for those that state demand;
// a pass-over is then counted in RunStats once a walk). So a
// framework that declined an agent's resources is offered them again only
// after every other framework that may be offered them has been offered
// them since, and a framework that can use an agent's leftover is offered
// it within as many runs as there are frameworks eligible for the agent.
//
// The round holds while the agent's resources are unchanged: whenever its
// available resources grow other than by a decline, or its info changes
// (when its version grows), a new, empty round starts. The round is a bit
// a framework beside its filter bit (frameworkBits), which a run reads
// anyway. A framework leaves every round when it revives (in any role),
// is deactivated or removed. The round counts a
// framework once, whatever role it declined in, and applies in the
// fair-share stage only: the guarantees stage offers what roles are owed
// regardless. Options.MesosOfferOrder turns the rotation off.

// noteDecline puts fw in ag's round after it declined resources there.
func (a *Allocator) noteDecline(fw *cluster.Framework, ag *cluster.Agent) {
	if !a.opts.MesosOfferOrder {
		ag.Filtered.SetDeclined(a.filterNum(fw))
	}
}

// heldBack reports whether fw is in ag's round: it declined what the
// agent has, and others are offered it first.
func (a *Allocator) heldBack(fw *cluster.Framework, ag *cluster.Agent) bool {
	return fw.Num != 0 && ag.Filtered.Declined(fw.Num)
}

// agentChanged starts a new round on ag, whose available resources grew
// or whose info changed, unless a decline is what changed them.
func (a *Allocator) agentChanged(ag *cluster.Agent) {
	if !a.declining {
		ag.Filtered.ClearRound()
	}
}

// leaveRounds takes fw out of every agent's round.
func (a *Allocator) leaveRounds(fw *cluster.Framework) {
	if fw.Num == 0 {
		return
	}
	for _, ag := range a.cs.AgentList {
		ag.Filtered.ClearDeclined(fw.Num)
	}
}

// endRound is called when the fair-share stage has walked every role on
// the agent: if it held frameworks back for the agent's round and
// something is still left, the round ends (it is emptied) and endRound
// says so: the stage then walks the agent again, and offers what is left
// in DRF order to whoever can take it, the frameworks held back included.
func (a *Allocator) endRound(r *run, ag *cluster.Agent) bool {
	if r.heldBack == 0 || ag.Available.IsEmpty() {
		return false
	}
	ag.Filtered.ClearRound()
	return true
}

// settleHeldBack corrects Explain's record of the frameworks the round
// held back on ag, once the round has ended and the agent was walked
// again: passes[first:second] are the first walk's. A framework the second
// walk passed over or offered something has that as its record, which
// comes later. One it did not reach was not held back for the round in the
// end: its role was capped in the meantime (the cap is its reason), or
// skipped for what its frameworks wait for, or the agent was taken first;
// its pass is dropped, and Explain finds those from the visits and offers.
func (a *Allocator) settleHeldBack(r *run, ag *cluster.Agent, first, second int) {
	passes := a.explain.passes
	for i := first; i < second && i < len(passes); i++ {
		p := &passes[i]
		if Reason(p.Reason) != ReasonDeclined || p.Agent != ag {
			continue
		}
		if a.offeredHere(r, p.Framework, p.Node.Path) || slices.ContainsFunc(passes[second:], func(q cluster.PassRecord) bool {
			return q.Agent == ag && q.Framework == p.Framework && q.Node == p.Node
		}) {
			continue
		}
		if p.Node.CappedRun == r.id {
			p.Reason = p.Node.CappedBy
			continue
		}
		p.Reason = uint8(ReasonNone)
	}
}

// roundMembers returns the ids of the frameworks in ag's round, for a
// snapshot.
func (a *Allocator) roundMembers(ag *cluster.Agent) []string {
	var out []string
	for num := range ag.Filtered.DeclinedAll() {
		if fw := a.refusersByNum.At(num); fw != nil {
			out = append(out, fw.ID)
		}
	}
	slices.Sort(out)
	return out
}

// decline is RecoverResources's handler: the resources come back, as
// recover gives them, and the framework joins the agent's round.
func (a *Allocator) decline(fwID, agentID string, res resources.Resources, filter *Filter) error {
	fw, ag, err := a.cs.FrameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	a.declining = true
	err = a.recover(fwID, agentID, res, filter, false)
	a.declining = false
	if err != nil || res.IsEmpty() {
		return err
	}
	a.noteDecline(fw, ag)
	return nil
}
