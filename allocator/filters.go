package allocator

import (
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Refusal filters and the index that makes refused pairs cheap.
//
// A framework that declines an offer with a filter is not offered, on that
// agent and in that role, anything the refused resources contain, until the
// filter expires. Checking that costs a Contains of the candidate offer per
// filter; in a busy cluster most frameworks have refused most agents, so a
// run would pay it for nearly every (framework, agent) pair it visits.
//
// Two things keep that cost off the common path:
//
//   - Every agent keeps a reference ref that its available resources never
//     exceed: every candidate offer on the agent is within it. A filter
//     whose refused resources contain ref covers every candidate, and stays
//     so while ref stays; refGen changes only when available grows past
//     ref, which then becomes the new available. So a filter is checked
//     against the reference once per generation (covered), and is then
//     known to filter without a Contains. Offers made and declined whole
//     leave available within ref: in Mesos's DeclineOffers loop the
//     generation never changes.
//   - Per agent and role, an index holds the frameworks whose filters are
//     known to cover (by the sorter's numbers, sorter.Indexed): runs walk
//     the framework sorter past them without visiting them (WalkExcept).
//     The index is valid for one generation and until the earliest expiry
//     of the filters in it; after that it is rebuilt as frameworks are
//     visited.

// When a filter applies.
//
// A filter made at D for a refusal of R expires at T = D + max(R,
// AllocationInterval) (refuseDuration), as in Mesos (MESOS-4302), so that
// it outlives at least one periodic batch. It applies to every run before
// T; at T itself only to a periodic run (AllocateAll) that is the first
// since the filter was made. That is the order of Mesos's timers: the
// filter's expiry and a batch due at the same instant run in the order
// they were armed, and the batch timer was armed first exactly when no
// batch has run since the filter was made. So Mesos's OfferFilter holds (a
// 2 s filter with a 1 s interval applies to the batch at D + 1 s, not to
// the batch at D + 2 s, the second since), and so does
// SmallOfferFilterTimeout (a 1 s filter made right after a batch, with a
// 60 s interval, applies to the next batch, at D + 60 s = T). Inverse-offer
// filters follow the same rule.

// filterInForce reports whether a filter expiring at expires, made when
// batch periodic runs had been made, applies to run r.
func (a *Allocator) filterInForce(expires time.Time, batch uint64, r *run) bool {
	return refusals.InForceAt(expires, batch, r.now, r.periodic, a.batches)
}

// filterAlive reports whether such a filter may still apply to a run at
// now or later: one before its expiry, or, at its expiry, the first
// periodic run since it was made.
func (a *Allocator) filterAlive(expires time.Time, batch uint64, now time.Time) bool {
	return now.Before(expires) || (now.Equal(expires) && batch == a.batches)
}

// refuseDuration turns a requested refusal into the filter's lifetime: a
// negative request means the default, a year at most, and at least one
// allocation interval so the filter outlives the next batch.
func (a *Allocator) refuseDuration(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return 0
	case d < 0:
		d = DefaultRefuse
	case d > MaxRefuse:
		d = MaxRefuse
	}
	return max(d, a.opts.AllocationInterval)
}

// addRefusal records fw's refusal of res (tagged with allocation roles) on
// ag, which has just been given back.
func (a *Allocator) addRefusal(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, d time.Duration) {
	d = a.refuseDuration(d)
	if d == 0 {
		return
	}
	expires := a.opts.Clock().Add(d)
	for _, role := range res.AllocationRoles() {
		f := refusals.Refusal{Refused: res.AllocatedTo(role).Unallocate(), Expires: expires, Batch: a.batches}
		whole := false
		switch {
		case f.Refused.Equal(ag.Ref):
			// The usual decline of everything the agent had: share the
			// reference's storage rather than keep a copy per filter.
			f.Refused, whole = ag.Ref, true
		case !f.Refused.Contains(ag.Ref) && f.Refused.Contains(ag.Available):
			// The refusal covers what the agent has now, not its
			// reference: narrow the reference, which keeps every filter
			// that covered the wider one covering.
			a.unpackWhole(ag)
			if f.Refused.Equal(ag.Available) {
				// It refused all the agent has: that becomes the
				// reference, in available's storage, and the refusal
				// one of the whole reference.
				ag.RefIsAvailable()
				f.Refused, whole = ag.Ref, true
			} else {
				ag.RefIsAvailable()
			}
		}
		a.checkCoverage(fw, ag, role, &f)
		ag.Filtered.SetFiltered(a.filterNum(fw))
		if !whole || !a.storeWhole(fw, role, ag, f) {
			a.unpackWholeOf(fw, role, ag)
			fw.Filters.Add(role, ag.ID, f)
		}
		if a.obs != nil {
			a.observeFilter(fw, role, expires, f.Batch, 1)
		}
	}
}

// checkCoverage finds out whether f covers ag's reference and, if it does,
// records it in f and in ag's index for role.
func (a *Allocator) checkCoverage(fw *cluster.Framework, ag *cluster.Agent, role string, f *refusals.Refusal) {
	if f.Covered == ag.RefGen || !f.Refused.Contains(ag.Ref) {
		return
	}
	f.Covered = ag.RefGen
	i, ok := a.sorterNum(role, fw.ID)
	if !ok {
		return
	}
	idx, _ := ag.Refusals.Get(role)
	if idx == nil {
		idx = &refusals.Index{}
		ag.Refusals.Set(role, idx)
	}
	idx.Mark(i, ag.RefGen, f.Expires)
}

// sorterNum returns the framework's number in the role's framework
// sorter, which the refusal indexes are kept by; false when the sorter
// does not number its clients (sorter.Indexed) or does not know it.
func (a *Allocator) sorterNum(role, fwID string) (int, bool) {
	s := a.frameworkSorter(role)
	if s == nil {
		return 0, false
	}
	indexed, ok := s.Sorter.(sorter.Indexed)
	if !ok {
		return 0, false
	}
	return indexed.Index(fwID)
}

// availableGrew keeps ag.available within ag.ref after available grew:
// when it no longer fits, the reference becomes available and a new
// generation starts, in which no filter is known to cover yet.
func (a *Allocator) availableGrew(ag *cluster.Agent) {
	if ag.Ref.Contains(ag.Available) {
		return
	}
	a.unpackWhole(ag)
	ag.RefIsAvailable()
	ag.RefGen++
}

// isFiltered reports whether a refusal of fw covers the candidate offer,
// and until when that refusal lasts. A filter is in force up to and
// including the instant of its expiry, so that a run at exactly that
// instant still applies it (see the tie rules in the package doc). Expired
// filters are dropped here. withinRef says the candidate is within the
// agent's reference (it comes from what is available): only then does a
// filter known to cover the reference cover it without a look.
func (a *Allocator) isFiltered(fw *cluster.Framework, role string, ag *cluster.Agent, candidate resources.Resources, withinRef bool, r *run) (bool, time.Time) {
	if fw.Num != 0 && !ag.Filtered.Filtered(fw.Num) && !a.opts.CacheFree {
		return false, time.Time{}
	}
	list := fw.Filters.On(role, ag.ID)
	if len(list) == 0 {
		w, ok := fw.Whole.On(role, int(ag.Num))
		if !ok {
			return false, time.Time{}
		}
		return a.isFilteredWhole(fw, role, ag, w, candidate, withinRef, r)
	}
	filtered, until := false, time.Time{}
	kept := list[:0]
	for _, f := range list {
		if a.filterGone(fw, role, &f, r.now) {
			continue
		}
		if !filtered && a.filterCovers(fw, role, ag, &f, candidate, withinRef, r) {
			filtered, until = true, f.Expires
		}
		kept = append(kept, f)
	}
	fw.Filters.Keep(role, ag.ID, list, kept)
	if len(kept) == 0 {
		a.unfiltered(fw, ag)
	}
	return filtered, until
}

// isFilteredWhole is isFiltered for fw's compact filter w in role on ag.
func (a *Allocator) isFilteredWhole(fw *cluster.Framework, role string, ag *cluster.Agent, w refusals.WholeRefusal, candidate resources.Resources, withinRef bool, r *run) (bool, time.Time) {
	f := a.refusalOf(w, ag)
	if a.filterGone(fw, role, &f, r.now) {
		dropWhole(fw, role, ag)
		a.unfiltered(fw, ag)
		return false, time.Time{}
	}
	filtered := a.filterCovers(fw, role, ag, &f, candidate, withinRef, r)
	if f.Covered != w.Covered {
		w.Covered = f.Covered
		fw.Whole.Put(role, int(ag.Num), w, len(a.cs.AgentsByNum))
	}
	if !filtered {
		return false, time.Time{}
	}
	return true, f.Expires
}

// filterGone reports whether f, a filter of fw in role, can no longer
// apply to a run at now or later, and is to be dropped.
func (a *Allocator) filterGone(fw *cluster.Framework, role string, f *refusals.Refusal, now time.Time) bool {
	if a.filterAlive(f.Expires, f.Batch, now) {
		return false
	}
	if a.obs != nil {
		a.observeFilter(fw, role, f.Expires, f.Batch, -1)
	}
	return true
}

// filterCovers reports whether f, a filter of fw in role on ag, applies to
// candidate in run r; when it does, what it covers is recorded in f and
// ag's index. withinRef is isFiltered's.
func (a *Allocator) filterCovers(fw *cluster.Framework, role string, ag *cluster.Agent, f *refusals.Refusal, candidate resources.Resources, withinRef bool, r *run) bool {
	if !a.filterInForce(f.Expires, f.Batch, r) || !((withinRef && f.Covered == ag.RefGen && !a.opts.CacheFree) || f.Refused.Contains(candidate)) {
		return false
	}
	a.checkCoverage(fw, ag, role, f)
	return true
}

// clearRefusalBits clears fw's bit in the agents' refusal indexes of role,
// before fw leaves the role's framework sorter: the indexes know fw by its
// number there, which the sorter may give to a framework added later, and
// that framework must not inherit fw's refusals. fw's filters stay (a
// framework that declines in a role it has left keeps its filter there);
// should it come back, its filters are found by isFiltered, as any filter
// not yet in an index is.
func (a *Allocator) clearRefusalBits(fw *cluster.Framework, role string) {
	i, ok := a.sorterNum(role, fw.ID)
	if !ok {
		return
	}
	clearOn := func(ag *cluster.Agent) {
		if idx, _ := ag.Refusals.Get(role); idx != nil {
			idx.Skip.Clear(i)
		}
	}
	for agentID := range fw.Filters[role] {
		if ag := a.cs.Agents.Get(agentID); ag != nil {
			clearOn(ag)
		}
	}
	if s, ok := fw.Whole[role]; ok {
		for num := range s.All() {
			clearOn(a.cs.AgentsByNum.At(num))
		}
	}
}

// forgetFilters drops fw's filters in role (every role when role is ""),
// and their entries in the agents' indexes.
func (a *Allocator) forgetFilters(fw *cluster.Framework, role string) {
	a.forgetWhole(fw, role)
	for r, byAgent := range fw.Filters {
		if role != "" && r != role {
			continue
		}
		if i, ok := a.sorterNum(r, fw.ID); ok {
			for agentID := range byAgent {
				if ag := a.cs.Agents.Get(agentID); ag != nil {
					if idx, _ := ag.Refusals.Get(r); idx != nil {
						idx.Skip.Clear(i)
					}
				}
			}
		}
		if a.obs != nil {
			for _, list := range byAgent {
				for _, f := range list {
					a.observeFilter(fw, r, f.Expires, f.Batch, -1)
				}
			}
		}
		delete(fw.Filters, r)
		for agentID := range byAgent {
			if ag := a.cs.Agents.Get(agentID); ag != nil {
				a.unfiltered(fw, ag)
			}
		}
	}
}

// Which frameworks have filters on an agent. A framework that refuses
// gets a number (filterNum), and each agent a bit set of the numbers of the
// frameworks with a filter on it, in any role, so that isFiltered answers
// "no filter here" with one bit test. A bit is cleared only when the last
// of the framework's filters on the agent goes; numbers are reused only
// after that has happened everywhere (removeFramework forgets its
// filters first). A cache-free allocator keeps the bits but does not
// trust them.

// filterNum returns fw's number, handing one out (and setting its bits on
// every agent it already has filters on: after a restore, the snapshot's
// filters) the first time.
func (a *Allocator) filterNum(fw *cluster.Framework) int {
	if fw.Num != 0 {
		return fw.Num
	}
	fw.Num = a.filterNums.Take()
	a.refusersByNum.Set(fw.Num, fw)
	fw.Filters.Each(func(_, agentID string, _ *refusals.Refusal) {
		if ag := a.cs.Agents.Get(agentID); ag != nil {
			ag.Filtered.SetFiltered(fw.Num)
		}
	})
	return fw.Num
}

// unfiltered clears fw's bit on ag unless fw still has a filter there in
// some role.
func (a *Allocator) unfiltered(fw *cluster.Framework, ag *cluster.Agent) {
	if fw.Num != 0 && !fw.Filters.AnyOn(ag.ID) && !fw.Whole.AnyOn(int(ag.Num)) {
		ag.Filtered.ClearFiltered(fw.Num)
	}
}

// releaseNum gives a removed framework's number back, once its filters
// are forgotten.
func (a *Allocator) releaseNum(fw *cluster.Framework) {
	if fw.Num == 0 {
		return
	}
	a.refusersByNum.Set(fw.Num, nil)
	a.filterNums.Give(fw.Num)
	fw.Num = 0
}

// forgetAgentFilters drops every framework's filters for the agent, and the
// agent's indexes.
func (a *Allocator) forgetAgentFilters(ag *cluster.Agent) {
	for fw := range a.cs.Frameworks.All() {
		gone := func(role string, f refusals.Refusal) {
			if a.obs != nil {
				a.observeFilter(fw, role, f.Expires, f.Batch, -1)
			}
		}
		fw.Filters.DropAgent(ag.ID, gone)
		a.dropWholeOn(fw, ag, gone)
		delete(fw.InverseFilters, ag.ID)
	}
	ag.Refusals = tables.ByRole[*refusals.Index]{}
	ag.Filtered = nil
}
