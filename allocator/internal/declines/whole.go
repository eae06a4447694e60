package declines

import (
	"math"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
)

// SinceAnchor returns t as nanoseconds after the anchor, which the first
// call sets to t; false when that does not give t back exactly.
func (b *Book) SinceAnchor(t time.Time) (int64, bool) {
	if !b.anchored {
		b.anchor, b.anchored = t, true
	}
	d := t.Sub(b.anchor)
	if d == math.MaxInt64 || d == math.MinInt64 || !b.anchor.Add(d).Equal(t) {
		return 0, false
	}
	return int64(d), true
}

// RefusalOf returns w as the ordinary filter it stands for on ag.
func (b *Book) RefusalOf(w refusals.WholeRefusal, ag *cluster.Agent) refusals.Refusal {
	return refusals.Refusal{Refused: ag.Ref, Expires: b.anchor.Add(time.Duration(w.Expires)), Batch: w.Batch, Covered: w.Covered}
}

// storeWhole keeps f, a refusal of ag's whole reference, compactly when it
// would be the only filter of fw in role on ag; false when it must join a
// list instead.
func (b *Book) storeWhole(fw *cluster.Framework, role string, ag *cluster.Agent, f refusals.Refusal) bool {
	if b.CacheFree || len(fw.Filters.On(role, ag.ID)) > 0 {
		return false
	}
	if _, ok := fw.Whole.On(role, int(ag.Num)); ok {
		return false
	}
	expires, ok := b.SinceAnchor(f.Expires)
	if !ok {
		return false
	}
	fw.Whole.Put(role, int(ag.Num), refusals.WholeRefusal{Expires: expires, Batch: f.Batch, Covered: f.Covered}, len(b.Cluster.AgentsByNum))
	ag.WholeRefused++
	return true
}

// unpackWhole turns every compact filter on ag into an ordinary one
// refusing ag's reference as it is: called before the reference changes.
func (b *Book) unpackWhole(ag *cluster.Agent) {
	if ag.WholeRefused == 0 {
		return
	}
	for num := range ag.Filtered.FilteredAll() {
		if fw := b.RefusersByNum.At(num); fw != nil {
			for role := range fw.Whole {
				b.unpackWholeOf(fw, role, ag)
			}
		}
	}
}

// unpackWholeOf turns fw's compact filter in role on ag, if there is one,
// into an ordinary one.
func (b *Book) unpackWholeOf(fw *cluster.Framework, role string, ag *cluster.Agent) {
	if w, ok := fw.Whole.On(role, int(ag.Num)); ok {
		dropWhole(fw, role, ag)
		fw.Filters.Add(role, ag.ID, b.RefusalOf(w, ag))
	}
}

// dropWholeOn removes every compact filter of fw on ag, calling gone for
// each.
func (b *Book) dropWholeOn(fw *cluster.Framework, ag *cluster.Agent, gone func(role string, f refusals.Refusal)) {
	for role, s := range fw.Whole {
		if w, ok := s.Get(int(ag.Num)); ok {
			gone(role, b.RefusalOf(w, ag))
			dropWhole(fw, role, ag)
		}
	}
}

// RefusalsOn returns fw's filters in role on ag, the compact one as an
// ordinary one: for reports, not for runs.
func (b *Book) RefusalsOn(fw *cluster.Framework, role string, ag *cluster.Agent) []refusals.Refusal {
	if w, ok := fw.Whole.On(role, int(ag.Num)); ok {
		return []refusals.Refusal{b.RefusalOf(w, ag)}
	}
	return fw.Filters.On(role, ag.ID)
}

// RefusalsOf returns all of fw's filters as lists, by role and agent id,
// the compact ones as ordinary ones: for reports and snapshots, not for
// runs. With no compact filter it is fw.filters itself.
func (b *Book) RefusalsOf(fw *cluster.Framework) refusals.Filters {
	if len(fw.Whole) == 0 {
		return fw.Filters
	}
	all := refusals.Filters{}
	for role, byAgent := range fw.Filters {
		for agentID, list := range byAgent {
			for _, f := range list {
				all.Add(role, agentID, f)
			}
		}
	}
	for role, s := range fw.Whole {
		for num, w := range s.All() {
			ag := b.Cluster.AgentsByNum.At(num)
			all.Add(role, ag.ID, b.RefusalOf(w, ag))
		}
	}
	return all
}

// forgetWhole drops fw's compact filters in role (every role when role is
// ""), and their entries in the agents' indexes.
func (b *Book) forgetWhole(fw *cluster.Framework, role string) {
	for r, s := range fw.Whole {
		if role != "" && r != role {
			continue
		}
		i, indexed := b.sorterNum(r, fw.ID)
		delete(fw.Whole, r)
		for num, w := range s.All() {
			ag := b.Cluster.AgentsByNum.At(num)
			ag.WholeRefused--
			if indexed {
				if idx, _ := ag.Refusals.Get(r); idx != nil {
					idx.Skip.Clear(i)
				}
			}
			if b.OnFilter != nil {
				f := b.RefusalOf(w, ag)
				b.OnFilter(fw, r, f.Expires, f.Batch, -1)
			}
			b.unfiltered(fw, ag)
		}
	}
}

// dropWhole removes fw's compact filter in role on ag, which is there, and
// counts it off the agent.
func dropWhole(fw *cluster.Framework, role string, ag *cluster.Agent) {
	fw.Whole.Drop(role, int(ag.Num))
	ag.WholeRefused--
}
