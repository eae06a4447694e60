package allocator

import (
	"math"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
)

// Compact refusal filters.
//
// Most refusals decline everything the agent had: what they refused is the
// agent's reference (ag.ref, see filters.go), whose storage they share. In
// a busy cluster they are nearly all of the filters, and there are many (in
// Mesos's DeclineOffers loop every framework ends up refusing every agent),
// so they are kept compactly: per framework, role and agent number, an
// expiry, a batch and a generation, with no pointer for the collector to
// follow and no string key. The resources they refused are not stored: they
// are the agent's reference, as long as it stays; before the reference
// changes (narrowed by a new refusal, or grown with what is available) the
// agent's compact filters are unpacked into ordinary ones that keep the old
// reference (unpackWhole). A role and agent have either one compact filter
// or a list of ordinary ones: a second filter there unpacks the first.
//
// A cache-free allocator keeps every filter in lists, so that the oracle
// compares this storage with the plain one.

// sinceAnchor returns t as nanoseconds after the anchor, which the first
// call sets to t; false when that does not give t back exactly.
func (a *Allocator) sinceAnchor(t time.Time) (int64, bool) {
	if !a.anchored {
		a.anchor, a.anchored = t, true
	}
	d := t.Sub(a.anchor)
	if d == math.MaxInt64 || d == math.MinInt64 || !a.anchor.Add(d).Equal(t) {
		return 0, false
	}
	return int64(d), true
}

// refusalOf returns w as the ordinary filter it stands for on ag.
func (a *Allocator) refusalOf(w refusals.WholeRefusal, ag *cluster.Agent) refusals.Refusal {
	return refusals.Refusal{Refused: ag.Ref, Expires: a.anchor.Add(time.Duration(w.Expires)), Batch: w.Batch, Covered: w.Covered}
}

// storeWhole keeps f, a refusal of ag's whole reference, compactly when it
// would be the only filter of fw in role on ag; false when it must join a
// list instead.
func (a *Allocator) storeWhole(fw *cluster.Framework, role string, ag *cluster.Agent, f refusals.Refusal) bool {
	if a.opts.CacheFree || len(fw.Filters.On(role, ag.ID)) > 0 {
		return false
	}
	if _, ok := fw.Whole.On(role, int(ag.Num)); ok {
		return false
	}
	expires, ok := a.sinceAnchor(f.Expires)
	if !ok {
		return false
	}
	fw.Whole.Put(role, int(ag.Num), refusals.WholeRefusal{Expires: expires, Batch: f.Batch, Covered: f.Covered}, len(a.cs.AgentsByNum))
	ag.WholeRefused++
	return true
}

// unpackWhole turns every compact filter on ag into an ordinary one
// refusing ag's reference as it is: called before the reference changes.
func (a *Allocator) unpackWhole(ag *cluster.Agent) {
	if ag.WholeRefused == 0 {
		return
	}
	for num := range ag.Filtered.FilteredAll() {
		if fw := a.refusersByNum.At(num); fw != nil {
			for role := range fw.Whole {
				a.unpackWholeOf(fw, role, ag)
			}
		}
	}
}

// unpackWholeOf turns fw's compact filter in role on ag, if there is one,
// into an ordinary one.
func (a *Allocator) unpackWholeOf(fw *cluster.Framework, role string, ag *cluster.Agent) {
	if w, ok := fw.Whole.On(role, int(ag.Num)); ok {
		dropWhole(fw, role, ag)
		fw.Filters.Add(role, ag.ID, a.refusalOf(w, ag))
	}
}

// dropWhole removes fw's compact filter in role on ag, which is there, and
// counts it off the agent.
func dropWhole(fw *cluster.Framework, role string, ag *cluster.Agent) {
	fw.Whole.Drop(role, int(ag.Num))
	ag.WholeRefused--
}

// dropWholeOn removes every compact filter of fw on ag, calling gone for
// each.
func (a *Allocator) dropWholeOn(fw *cluster.Framework, ag *cluster.Agent, gone func(role string, f refusals.Refusal)) {
	for role, s := range fw.Whole {
		if w, ok := s.Get(int(ag.Num)); ok {
			gone(role, a.refusalOf(w, ag))
			dropWhole(fw, role, ag)
		}
	}
}

// refusalsOn returns fw's filters in role on ag, the compact one as an
// ordinary one: for reports, not for runs.
func (a *Allocator) refusalsOn(fw *cluster.Framework, role string, ag *cluster.Agent) []refusals.Refusal {
	if w, ok := fw.Whole.On(role, int(ag.Num)); ok {
		return []refusals.Refusal{a.refusalOf(w, ag)}
	}
	return fw.Filters.On(role, ag.ID)
}

// refusalsOf returns all of fw's filters as lists, by role and agent id,
// the compact ones as ordinary ones: for reports and snapshots, not for
// runs. With no compact filter it is fw.filters itself.
func (a *Allocator) refusalsOf(fw *cluster.Framework) refusals.Filters {
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
			ag := a.cs.AgentsByNum.At(num)
			all.Add(role, ag.ID, a.refusalOf(w, ag))
		}
	}
	return all
}

// forgetWhole drops fw's compact filters in role (every role when role is
// ""), and their entries in the agents' indexes.
func (a *Allocator) forgetWhole(fw *cluster.Framework, role string) {
	for r, s := range fw.Whole {
		if role != "" && r != role {
			continue
		}
		i, indexed := a.sorterNum(r, fw.ID)
		delete(fw.Whole, r)
		for num, w := range s.All() {
			ag := a.cs.AgentsByNum.At(num)
			ag.WholeRefused--
			if indexed {
				if idx, _ := ag.Refusals.Get(r); idx != nil {
					idx.Skip.Clear(i)
				}
			}
			if a.obs != nil {
				f := a.refusalOf(w, ag)
				a.observeFilter(fw, r, f.Expires, f.Batch, -1)
			}
			a.unfiltered(fw, ag)
		}
	}
}
