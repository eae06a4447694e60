package allocator

import (
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// What a run keeps for Explain.
//
// A run appends to two logs, reused from run to run so that steady runs
// allocate nothing for them: one record per (agent, role) pair whose
// frameworks it walked or skipped as unchanged (a visit), and one per
// framework it passed over (a pass), with the reason the run found. Figures
// that the state still holds when Explain is asked (refusal filters and
// their expiries, quota limits and consumption, unmet guarantees, shares,
// capabilities) are not recorded: Explain works them out on demand. Only
// the quantities behind a quota, headroom or minimum-allocatable pass are
// kept, as they were at the pass.
//
// A pair skipped as unchanged keeps the passes of the walk that found
// nobody could take anything there (in its nobody entry), so it keeps its
// reasons across runs. Frameworks stepped over through the refusal index
// are not logged one by one: a visit says the index was used, and Explain
// finds their filters. Roles capped in a run, or parked across runs, carry
// why on their role node (cappedBy).

// maxPasses bounds the passes a run logs (32 bytes each). A run past it is
// one that passed frameworks over a million times; Explain then works out
// the rest from the state, as for frameworks stepped over by the index.
const maxPasses = 1 << 20

// maxRemembered bounds the removed frameworks Explain still knows.
const maxRemembered = 64

// explainLog is what the latest run did.
type explainLog struct {
	run uint64
	now time.Time
	// periodic: the run was an AllocateAll; batches the periodic runs made
	// before it (for the filters in force at it, see filterInForce).
	periodic bool
	batches  uint64
	// candidates are the run's candidate agents, sorted; skipped those of
	// them the run left out (inactive, not whitelisted, over-allocated).
	candidates []string
	skipped    []*cluster.Agent
	// offers are the run's offers in the order they were made.
	offers  []offerRecord
	visits  []visitRecord
	passes  []cluster.PassRecord
	details []resources.Quantities
	// removed are the latest frameworks removed, with their roles, oldest
	// first.
	removed []removedFramework
	// preemptions are the tasks the run chose to end (Options.Reclaim).
	preemptions []Preemption
}

type removedFramework struct {
	id    string
	roles []string
	run   uint64 // runs made before the removal
}

// visitKind is what a run did with an (agent, role) pair.
type visitKind uint8

const (
	visitWalked    visitKind = iota // the role's frameworks were walked, no offer made
	visitUnchanged                  // skipped: nobody could take anything, nothing changed
	visitUnfit                      // skipped: no pending task of the role's frameworks fits (demandFloor)
)

// visitRecord says that a run looked at a role on an agent.
type visitRecord struct {
	ag   *cluster.Agent
	node *roles.Node
	// cached is, for an unchanged pair, the nobody entry that skipped it.
	cached *cluster.NobodyPasses
	kind   visitKind
	stage  cluster.Stage
	// indexed: frameworks known to refuse the agent were stepped over.
	indexed bool
}

// begin starts the log of a run, reusing the storage of the previous one.
func (l *explainLog) begin(run uint64, now time.Time, periodic bool, batches uint64, candidates []string) {
	l.run, l.now, l.periodic, l.batches, l.candidates = run, now, periodic, batches, candidates
	clear(l.skipped)
	l.skipped = l.skipped[:0]
	clear(l.visits)
	l.visits = l.visits[:0]
	clear(l.passes)
	l.passes = l.passes[:0]
	clear(l.details)
	l.details = l.details[:0]
	clear(l.offers) // the run records its offers here again (allocate)
	l.offers = l.offers[:0]
	l.preemptions = nil
}

// pass logs that fw was passed over; detail, when not empty, is kept.
func (l *explainLog) pass(fw *cluster.Framework, ag *cluster.Agent, node *roles.Node, st cluster.Stage, reason Reason, detail resources.Quantities) {
	if len(l.passes) >= maxPasses {
		return
	}
	p := cluster.PassRecord{Framework: fw, Node: node, Agent: ag, Reason: uint8(reason), Stage: st}
	if !detail.IsEmpty() {
		l.details = append(l.details, detail)
		p.Detail = int32(len(l.details))
	}
	l.passes = append(l.passes, p)
}

// missing notes on the pass just logged the capabilities whose lack made
// it.
func (l *explainLog) missing(before int, caps offer.Capabilities) {
	if len(l.passes) > before {
		l.passes[before].Missing = uint16(caps)
	}
}

// visit logs a walk of a role's frameworks on an agent in the fair-share
// stage that made no offer (one that did shows in the offers); walks of
// the guarantee stage are not logged.
func (l *explainLog) visit(ag *cluster.Agent, node *roles.Node, st cluster.Stage, indexed bool) {
	l.grow()
	l.visits = append(l.visits, visitRecord{ag: ag, node: node, kind: visitWalked, stage: st, indexed: indexed})
}

// unfit logs an (agent, role) pair skipped through the role's demand
// floor.
func (l *explainLog) unfit(ag *cluster.Agent, node *roles.Node) {
	l.grow()
	l.visits = append(l.visits, visitRecord{ag: ag, node: node, kind: visitUnfit, stage: stageFairShare})
}

// unchanged logs an (agent, role) pair skipped through its nobody entry.
func (l *explainLog) unchanged(ag *cluster.Agent, node *roles.Node, st cluster.Stage, cached *cluster.NobodyPasses) {
	l.grow()
	l.visits = append(l.visits, visitRecord{ag: ag, node: node, kind: visitUnchanged, stage: st, cached: cached})
}

// grow makes room for a visit: runs that log any usually log about one
// per agent, so the first growth goes to that at once rather than by
// doublings. Runs where every walk makes an offer log none.
func (l *explainLog) grow() {
	if len(l.visits) < cap(l.visits) {
		return
	}
	grown := make([]visitRecord, len(l.visits), max(2*cap(l.visits), len(l.candidates), 8))
	copy(grown, l.visits)
	l.visits = grown
}

// since returns what a nobody entry keeps of the passes logged from start
// on: those of one walk, of one (agent, role) pair. Their quantities are
// copied out of the log, which the next run reuses.
func (l *explainLog) since(start int, indexed bool) *cluster.NobodyPasses {
	if start >= len(l.passes) {
		if indexed {
			return cluster.NoPassesIndexed
		}
		return cluster.NoPasses
	}
	kept := &cluster.NobodyPasses{Indexed: indexed}
	{
		kept.Passes = slices.Clone(l.passes[start:])
		for i := range kept.Passes {
			if d := kept.Passes[i].Detail; d > 0 {
				// Details of kept passes are held by index into a private
				// copy: the log's details are reused by the next run.
				kept.Passes[i].Detail = -1 - int32(len(kept.Details))
				kept.Details = append(kept.Details, l.details[d-1])
			}
		}
	}
	return kept
}

// detailOf returns the quantities behind a pass, from the log or from the
// kept passes of a nobody entry.
func (l *explainLog) detailOf(p cluster.PassRecord, kept *cluster.NobodyPasses) resources.Quantities {
	switch {
	case p.Detail > 0 && int(p.Detail) <= len(l.details):
		return l.details[p.Detail-1]
	case p.Detail < 0 && kept != nil && int(-1-p.Detail) < len(kept.Details):
		return kept.Details[-1-p.Detail]
	}
	return resources.Quantities{}
}

// forget remembers a removed framework and its roles for Explain.
func (l *explainLog) forget(fw *cluster.Framework, runs uint64) {
	if len(l.removed) == maxRemembered {
		l.removed = slices.Delete(l.removed, 0, 1)
	}
	l.removed = append(l.removed, removedFramework{id: fw.ID, roles: fw.Roles.List(tables.Subscribed), run: runs})
}

// removedFramework returns what is remembered of a removed framework.
func (l *explainLog) removedOne(id string) (removedFramework, bool) {
	for i := len(l.removed) - 1; i >= 0; i-- {
		if l.removed[i].id == id {
			return l.removed[i], true
		}
	}
	return removedFramework{}, false
}
