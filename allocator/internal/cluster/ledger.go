package cluster

import (
	"cmp"
	"slices"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Ledger is every framework's tasks in launch order, for reclaim, which
// prefers the youngest tasks as victims. Each task is also in its
// framework's table (Framework.Tasks); the ledger holds exactly those, in
// the order of their Seq, once Live has compacted it.
type Ledger struct {
	Cluster *State
	// TaskSeq is the seq of the latest task launched.
	TaskSeq uint64
	// ledger is every framework's tasks in launch order, ended ones
	// included until ended says it is worth compacting (Live); built
	// is false until the first use after a restore.
	ledger []*Task
	built  bool
	ended  int
}

// NewLedger returns an empty ledger of the tasks of cs's frameworks.
func NewLedger(cs *State) Ledger { return Ledger{Cluster: cs, built: true} }

// DropOn forgets the framework's tasks on an agent (the agent was
// removed: its tasks are gone with it).
func (lg *Ledger) DropOn(fw *Framework, agentID string) {
	for _, t := range fw.Tasks {
		if t.Agent == agentID {
			lg.Forget(fw, t)
		}
	}
}

// Forget takes t out of fw's ledger. The ledger drops its ended tasks
// once they are more than half of it, here only: a host that never
// reclaims (and so never asks for Live) keeps no more than twice its live
// tasks. Only Forget ends tasks, so Live never finds more than half of
// the ledger ended.
func (lg *Ledger) Forget(fw *Framework, t *Task) {
	delete(fw.Tasks, t.ID)
	t.Ended = true
	lg.ended++
	if lg.ended > len(lg.ledger)/2 {
		lg.compact()
	}
}

// compact drops the ended tasks from the ledger.
func (lg *Ledger) compact() {
	lg.ledger = slices.DeleteFunc(lg.ledger, func(t *Task) bool { return t.Ended })
	lg.ended = 0
}

// Live returns the tasks of every framework, in launch order. It is kept as tasks are launched and compacted when more than
// half of it has ended; an allocator restored from a snapshot builds it
// at its first use (its count of live tasks tells).
func (lg *Ledger) Live() []*Task {
	live := 0
	for fw := range lg.Cluster.Frameworks.All() {
		live += len(fw.Tasks)
	}
	if !lg.built || live != len(lg.ledger)-lg.ended {
		// Built anew where tasks came another way (a restored snapshot).
		lg.ledger = lg.ledger[:0]
		for fw := range lg.Cluster.Frameworks.All() {
			for _, t := range fw.Tasks {
				t.Framework = fw
				lg.ledger = append(lg.ledger, t)
			}
		}
		slices.SortFunc(lg.ledger, func(x, y *Task) int { return cmp.Compare(x.Seq, y.Seq) })
		lg.built, lg.ended = true, 0
	}
	return lg.ledger
}

// Record adds the tasks of the launches among ops, applied on ag in
// role, to the framework's ledger.
func (lg *Ledger) Record(fw *Framework, agentID, role string, ops []offer.Operation) {
	var seen resources.Resources // shared volumes owned by a task of this call
	for _, op := range ops {
		l, ok := LaunchOf(op)
		if !ok {
			continue
		}
		for _, t := range l.Tasks {
			uses := t.Resources.Clone()
			owns := uses.NonShared()
			for r := range uses.Shared().All() {
				if seen.Copies(r) == 0 {
					_ = owns.AddResource(r)
					_ = seen.AddResource(r)
				}
			}
			if fw.Tasks == nil {
				fw.Tasks = map[string]*Task{}
			}
			lg.TaskSeq++
			nt := &Task{ID: t.ID, Agent: agentID, Role: role, Uses: uses, Owns: owns, Seq: lg.TaskSeq, Framework: fw}
			fw.Tasks[t.ID] = nt
			if lg.built {
				lg.ledger = append(lg.ledger, nt)
			}
		}
	}
}

// LaunchOf returns op as a launch, whether given by value or by pointer;
// false for any other operation.
func LaunchOf(op offer.Operation) (offer.Launch, bool) {
	switch l := op.(type) {
	case offer.Launch:
		return l, true
	case *offer.Launch:
		if l != nil {
			return *l, true
		}
	}
	return offer.Launch{}, false
}
