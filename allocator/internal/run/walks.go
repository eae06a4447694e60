package run

import (
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

const (
	stageGuarantees = cluster.StageGuarantees
	stageFairShare  = cluster.StageFairShare
)

// cursor is where an allocation run is while it walks the sorters: the
// agent being allocated and the role whose frameworks are being visited.
// The walk callbacks are methods bound once (see New), so walking allocates
// nothing.
type cursor struct {
	r    *runState
	ag   *cluster.Agent
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

func (e *Engine) allocateGuarantees(r *runState, ag *cluster.Agent) {
	e.cur = cursor{r: r, ag: ag}
	for {
		// As in the fair-share stage, an offer sized to a pending task
		// starts the walk again, so that a role below its guarantee gets
		// as many of its tasks as the agent holds.
		r.sized = false
		Walk(e.roleSorter.Sorter, e.visitGuaranteeRole)
		if !r.sized || ag.Available.IsEmpty() {
			break
		}
	}
	r.sized = false
	e.cur = cursor{}
}

// guaranteeRole is stage one's visit of a role on the cursor's agent.
func (e *Engine) guaranteeRole(role string) bool {
	c := &e.cur
	if c.ag.Available.IsEmpty() {
		return false
	}
	node := e.roles.Get(role)
	if node == nil {
		return true
	}
	e.roles.UnsatisfiedInto(node, &e.unsatBuf)
	c.unsatisfied = e.unsatBuf
	if c.unsatisfied.IsEmpty() {
		// Guarantees only get met within a run: hide the role from the
		// role sorter for the rest of stage one.
		if e.parksRoles() {
			_ = e.roleSorter.Deactivate(role)
			c.r.hidden = append(c.r.hidden, role)
		}
		return true
	}
	fs := node.FrameworkSorter
	if fs == nil || e.nobody(c.ag, node, fs, c.r, stageGuarantees) {
		return true
	}
	c.role, c.node, c.fs = role, node, fs
	e.walkFrameworks(fs, c.ag, role, c.r, e.visitGuaranteeFramework)
	return !c.r.sized
}

// guaranteeFramework is stage one's visit of a framework of the cursor's
// role.
func (e *Engine) guaranteeFramework(fwID string) bool {
	c := &e.cur
	if c.unsatisfied.IsEmpty() {
		return false
	}
	out, got := e.offerTo(c.r, c.ag, e.cs.Frameworks.Get(fwID), c.role, c.node, c.fs, stageGuarantees, c.unsatisfied)
	if out == exhausted {
		return false
	}
	c.unsatisfied.Subtract(got)
	return !c.r.sized
}

func (e *Engine) allocateFairShare(r *runState, ag *cluster.Agent) {
	e.cur = cursor{r: r, ag: ag}
	r.agentOffers = len(r.offers)
	first := len(e.explain.Passes)
	// heldBack counts over every walk of the agent (a walk after a sized
	// offer may skip a role whose tasks no longer fit, and hold nobody
	// back itself): the round ends if any walk held a framework back.
	r.heldBack = 0
	e.walkAgent(r, ag)
	if e.dec.EndRound(r.heldBack, ag) {
		// The frameworks the round held back are offered what is left,
		// as any others would be.
		second := len(e.explain.Passes)
		e.walkAgent(r, ag)
		e.settleHeldBack(r, ag, first, second)
	}
	e.cur = cursor{}
}

// walkAgent walks the roles on the cursor's agent in the fair-share stage.
func (e *Engine) walkAgent(r *runState, ag *cluster.Agent) {
	for {
		// An offer sized to a pending task (demand.go) stops the walk: the
		// agent's next task goes to whoever is first in DRF order now.
		r.sized = false
		Walk(e.roleSorter.Sorter, e.visitFairRole)
		if !r.sized || ag.Available.IsEmpty() {
			break
		}
	}
}

// fairRole is stage two's visit of a role on the cursor's agent.
func (e *Engine) fairRole(role string) bool {
	c := &e.cur
	if c.ag.Available.IsEmpty() {
		return false
	}
	node := e.roles.Get(role)
	if node == nil || node.FrameworkSorter == nil {
		return true
	}
	fs := node.FrameworkSorter
	if e.capped(c.r, node) {
		// Hide the role from the role sorter for the rest of the run.
		if e.parksRoles() {
			_ = e.roleSorter.Deactivate(role)
			c.r.hidden = append(c.r.hidden, role)
		}
		return true
	}
	if e.nobody(c.ag, node, fs, c.r, stageFairShare) {
		return true
	}
	if e.skipsWalks(fs) && e.fitsNoTask(c.r, c.ag, node) {
		e.explain.Unfit(c.ag, node)
		return true
	}
	c.r.stable, c.r.until = true, time.Time{}
	c.role, c.node, c.fs, c.complete, c.madeOffer = role, node, fs, true, false
	start := len(e.explain.Passes)
	e.walkFrameworks(fs, c.ag, role, c.r, e.visitFairFramework)
	if c.r.sized {
		return false
	}
	if !c.madeOffer {
		// A walk that made an offer shows in the offers.
		e.explain.Visit(c.ag, node, stageFairShare, c.r.indexed)
	}
	if c.complete && !c.madeOffer && c.r.stable && e.skipsWalks(fs) {
		e.rememberNobody(c.ag, node, c.r.until, e.explain.Since(start, c.r.indexed))
	}
	return true
}

// fairFramework is stage two's visit of a framework of the cursor's role.
func (e *Engine) fairFramework(fwID string) bool {
	c := &e.cur
	out, _ := e.offerTo(c.r, c.ag, e.cs.Frameworks.Get(fwID), c.role, c.node, c.fs, stageFairShare, resources.Quantities{})
	c.madeOffer = c.madeOffer || out == offered
	if out == exhausted || (out == offered && (c.ag.Available.IsEmpty() || c.r.sized)) {
		// Nothing left for the next framework: stop here rather than
		// visit it to find out.
		c.complete = false
		return false
	}
	return true
}

// walkFrameworks walks the frameworks of role on ag in the sorter's order.
// Frameworks whose refusal filters are known to cover everything on the
// agent are stepped over without a visit when there are enough of them and
// the sorter can (package declines keeps the index); they are counted in
// Stats.Refused.
func (e *Engine) walkFrameworks(fs *roles.TrackedSorter, ag *cluster.Agent, role string, r *runState, visit func(string) bool) {
	r.indexed = false
	if idx := ag.Refusers(role, r.now); idx != nil && e.skipsWalks(fs) {
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
	Walk(fs.Sorter, visit)
}

// nobody reports whether every framework of the role was passed over on
// the agent before, for reasons that still hold.
func (e *Engine) nobody(ag *cluster.Agent, n *roles.Node, fs *roles.TrackedSorter, r *runState, st cluster.Stage) bool {
	if !e.skipsWalks(fs) {
		return false
	}
	entry, ok := ag.Nobody.Get(n.Path)
	if !ok {
		return false
	}
	if entry.Version != ag.Version || entry.Epoch != n.Epoch || (entry.Until != refusals.NoExpiry && !r.now.Before(entry.Until.Time())) {
		ag.Nobody.Drop(n.Path)
		return false
	}
	r.stats.Unchanged++
	e.explain.Unchanged(ag, n, st, entry.Passes)
	return true
}

func (e *Engine) rememberNobody(ag *cluster.Agent, n *roles.Node, until time.Time, passes *cluster.NobodyPasses) {
	if ag.HasShared {
		// Shared volumes offered earlier in a run are hidden from later
		// frameworks only for that run.
		return
	}
	expiry, ok := refusals.ExpiryOf(until)
	if !ok {
		return // the cache could not say when the result ends
	}
	ag.Nobody.Set(n.Path, cluster.NobodyEntry{Version: ag.Version, Epoch: n.Epoch, Until: expiry, Passes: passes})
}

// passOver records that fw was passed over on ag in node's role for
// reason, with the quantities behind it (for quota, headroom and minimum
// allocatable passes; empty otherwise), for Skips and Explain. Reasons
// that can change while neither the agent nor the role's frameworks change
// (quota, headroom) make the run's verdict on the agent unstable, so it is
// not cached.
func (e *Engine) passOver(r *runState, fw *cluster.Framework, ag *cluster.Agent, node *roles.Node, st cluster.Stage, reason uint8, detail resources.Quantities) (outcome, resources.Quantities) {
	e.skip(r, fw, reason)
	if reason == explain.QuotaLimit || reason == explain.Headroom {
		r.stable = false
	}
	e.explain.Pass(fw, ag, node, st, reason, detail)
	return passed, resources.Quantities{}
}
