package explain

import (
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// maxPasses bounds the passes a run logs (32 bytes each). A run past it is
// one that passed frameworks over a million times; Explain then works out
// the rest from the state, as for frameworks stepped over by the index.
const maxPasses = 1 << 20

// maxRemembered bounds the removed frameworks Explain still knows.
const maxRemembered = 64

// Log is what the latest run did.
type Log struct {
	Run uint64
	Now time.Time
	// Periodic: the run was a periodic one (AllocateAll); Batches the
	// periodic runs made before it (for the filters in force at it).
	Periodic bool
	Batches  uint64
	// Candidates are the run's candidate agents, sorted; Skipped those of
	// them the run left out (inactive, not whitelisted, over-allocated).
	Candidates []string
	Skipped    []*cluster.Agent
	// Offers are the run's offers in the order they were made: the run
	// makes them here.
	Offers []Offer
	visits []visitRecord
	// Passes are the frameworks passed over, in the order they were (the
	// run corrects those it held back for the rotation after declines).
	Passes  []cluster.PassRecord
	details []resources.Quantities
	// removed are the latest frameworks removed, with their roles, oldest
	// first.
	removed []removedFramework
}

// OfferKey identifies one offer of a run.
type OfferKey struct{ Framework, Role, Agent string }

// Offer is an offer a run made: to whom, what, on which agent.
type Offer struct {
	Key OfferKey
	Res resources.Resources
	Ag  *cluster.Agent
	// Rank is the agent's rank among the run's candidates, read while the
	// agent is at hand: grouping the run's offers would otherwise reach
	// every agent again to sort them.
	Rank int
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

// Begin starts the log of a run, reusing the storage of the previous one.
func (l *Log) Begin(run uint64, now time.Time, periodic bool, batches uint64, candidates []string) {
	l.Run, l.Now, l.Periodic, l.Batches, l.Candidates = run, now, periodic, batches, candidates
	clear(l.Skipped)
	l.Skipped = l.Skipped[:0]
	clear(l.visits)
	l.visits = l.visits[:0]
	clear(l.Passes)
	l.Passes = l.Passes[:0]
	clear(l.details)
	l.details = l.details[:0]
	clear(l.Offers) // the run makes its offers here again
	l.Offers = l.Offers[:0]
}

// Pass logs that fw was passed over; detail, when not empty, is kept.
func (l *Log) Pass(fw *cluster.Framework, ag *cluster.Agent, node *roles.Node, st cluster.Stage, reason uint8, detail resources.Quantities) {
	if len(l.Passes) >= maxPasses {
		return
	}
	p := cluster.PassRecord{Framework: fw, Node: node, Agent: ag, Reason: reason, Stage: st}
	if !detail.IsEmpty() {
		l.details = append(l.details, detail)
		p.Detail = int32(len(l.details))
	}
	l.Passes = append(l.Passes, p)
}

// Missing notes on the pass just logged the capabilities whose lack made
// it.
func (l *Log) Missing(before int, caps offer.Capabilities) {
	if len(l.Passes) > before {
		l.Passes[before].Missing = uint16(caps)
	}
}

// Visit logs a walk of a role's frameworks on an agent in the fair-share
// stage that made no offer (one that did shows in the offers); walks of
// the guarantee stage are not logged.
func (l *Log) Visit(ag *cluster.Agent, node *roles.Node, st cluster.Stage, indexed bool) {
	l.grow()
	l.visits = append(l.visits, visitRecord{ag: ag, node: node, kind: visitWalked, stage: st, indexed: indexed})
}

// Unfit logs an (agent, role) pair skipped through the role's demand
// floor.
func (l *Log) Unfit(ag *cluster.Agent, node *roles.Node) {
	l.grow()
	l.visits = append(l.visits, visitRecord{ag: ag, node: node, kind: visitUnfit, stage: cluster.StageFairShare})
}

// Unchanged logs an (agent, role) pair skipped through its nobody entry.
func (l *Log) Unchanged(ag *cluster.Agent, node *roles.Node, st cluster.Stage, cached *cluster.NobodyPasses) {
	l.grow()
	l.visits = append(l.visits, visitRecord{ag: ag, node: node, kind: visitUnchanged, stage: st, cached: cached})
}

// grow makes room for a visit: runs that log any usually log about one
// per agent, so the first growth goes to that at once rather than by
// doublings. Runs where every walk makes an offer log none.
func (l *Log) grow() {
	if len(l.visits) < cap(l.visits) {
		return
	}
	grown := make([]visitRecord, len(l.visits), max(2*cap(l.visits), len(l.Candidates), 8))
	copy(grown, l.visits)
	l.visits = grown
}

// Since returns what a nobody entry keeps of the passes logged from start
// on: those of one walk, of one (agent, role) pair. Their quantities are
// copied out of the log, which the next run reuses.
func (l *Log) Since(start int, indexed bool) *cluster.NobodyPasses {
	if start >= len(l.Passes) {
		if indexed {
			return cluster.NoPassesIndexed
		}
		return cluster.NoPasses
	}
	kept := &cluster.NobodyPasses{Indexed: indexed}
	{
		kept.Passes = slices.Clone(l.Passes[start:])
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
func (l *Log) detailOf(p cluster.PassRecord, kept *cluster.NobodyPasses) resources.Quantities {
	switch {
	case p.Detail > 0 && int(p.Detail) <= len(l.details):
		return l.details[p.Detail-1]
	case p.Detail < 0 && kept != nil && int(-1-p.Detail) < len(kept.Details):
		return kept.Details[-1-p.Detail]
	}
	return resources.Quantities{}
}

// Forget remembers a removed framework and its roles for Explain.
func (l *Log) Forget(fw *cluster.Framework, runs uint64) {
	if len(l.removed) == maxRemembered {
		l.removed = slices.Delete(l.removed, 0, 1)
	}
	l.removed = append(l.removed, removedFramework{id: fw.ID, roles: fw.Roles.List(tables.Subscribed), run: runs})
}

// Removed returns the roles of a removed framework it remembers.
func (l *Log) Removed(id string) ([]string, bool) {
	for i := len(l.removed) - 1; i >= 0; i-- {
		if l.removed[i].id == id {
			return l.removed[i].roles, true
		}
	}
	return nil, false
}
