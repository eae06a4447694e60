package declines

import (
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// FilterInForce reports whether a filter expiring at expires, made when
// batch periodic runs had been made, applies to a run at now (periodic:
// AllocateAll's).
func (b *Book) FilterInForce(expires time.Time, batch uint64, now time.Time, periodic bool) bool {
	return refusals.InForceAt(expires, batch, now, periodic, b.Batches)
}

// FilterAlive reports whether such a filter may still apply to a run at
// now or later: one before its expiry, or, at its expiry, the first
// periodic run since it was made.
func (b *Book) FilterAlive(expires time.Time, batch uint64, now time.Time) bool {
	return now.Before(expires) || (now.Equal(expires) && batch == b.Batches)
}

// RefuseDuration turns a requested refusal into the filter's lifetime: a
// negative request means the default, a year at most, and at least one
// allocation interval so the filter outlives the next batch.
func (b *Book) RefuseDuration(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return 0
	case d < 0:
		d = DefaultRefuse
	case d > MaxRefuse:
		d = MaxRefuse
	}
	return max(d, b.AllocationInterval)
}

// AddRefusal records fw's refusal of res (tagged with allocation roles) on
// ag, which has just been given back at now.
func (b *Book) AddRefusal(fw *cluster.Framework, ag *cluster.Agent, res resources.Resources, d time.Duration, now time.Time) {
	d = b.RefuseDuration(d)
	if d == 0 {
		return
	}
	expires := now.Add(d)
	for _, role := range res.AllocationRoles() {
		f := refusals.Refusal{Refused: res.AllocatedTo(role).Unallocate(), Expires: expires, Batch: b.Batches}
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
			b.unpackWhole(ag)
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
		b.checkCoverage(fw, ag, role, &f)
		ag.Filtered.SetFiltered(b.FilterNum(fw))
		if !whole || !b.storeWhole(fw, role, ag, f) {
			b.unpackWholeOf(fw, role, ag)
			fw.Filters.Add(role, ag.ID, f)
		}
		if b.OnFilter != nil {
			b.OnFilter(fw, role, expires, f.Batch, 1)
		}
	}
}

// checkCoverage finds out whether f covers ag's reference and, if it does,
// records it in f and in ag's index for role.
func (b *Book) checkCoverage(fw *cluster.Framework, ag *cluster.Agent, role string, f *refusals.Refusal) {
	if f.Covered == ag.RefGen || !f.Refused.Contains(ag.Ref) {
		return
	}
	f.Covered = ag.RefGen
	i, ok := b.sorterNum(role, fw.ID)
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
func (b *Book) sorterNum(role, fwID string) (int, bool) {
	n := b.Roles.Get(role)
	if n == nil || n.FrameworkSorter == nil {
		return 0, false
	}
	indexed, ok := n.FrameworkSorter.Sorter.(sorter.Indexed)
	if !ok {
		return 0, false
	}
	return indexed.Index(fwID)
}

// AvailableGrew keeps ag.available within ag.ref after available grew:
// when it no longer fits, the reference becomes available and a new
// generation starts, in which no filter is known to cover yet.
func (b *Book) AvailableGrew(ag *cluster.Agent) {
	if ag.Ref.Contains(ag.Available) {
		return
	}
	b.unpackWhole(ag)
	ag.RefIsAvailable()
	ag.RefGen++
}

// IsFiltered reports whether a refusal of fw covers the candidate offer,
// and until when that refusal lasts. A filter is in force up to and
// including the instant of its expiry, so that a run at exactly that
// instant still applies it (see the tie rules in the package doc). Expired
// filters are dropped here. withinRef says the candidate is within the
// agent's reference (it comes from what is available): only then does a
// filter known to cover the reference cover it without a look.
func (b *Book) IsFiltered(fw *cluster.Framework, role string, ag *cluster.Agent, candidate resources.Resources, withinRef bool, now time.Time, periodic bool) (bool, time.Time) {
	if fw.Num != 0 && !ag.Filtered.Filtered(fw.Num) && !b.CacheFree {
		return false, time.Time{}
	}
	list := fw.Filters.On(role, ag.ID)
	if len(list) == 0 {
		w, ok := fw.Whole.On(role, int(ag.Num))
		if !ok {
			return false, time.Time{}
		}
		return b.isFilteredWhole(fw, role, ag, w, candidate, withinRef, now, periodic)
	}
	filtered, until := false, time.Time{}
	kept := list[:0]
	for _, f := range list {
		if b.filterGone(fw, role, &f, now) {
			continue
		}
		if !filtered && b.filterCovers(fw, role, ag, &f, candidate, withinRef, now, periodic) {
			filtered, until = true, f.Expires
		}
		kept = append(kept, f)
	}
	fw.Filters.Keep(role, ag.ID, list, kept)
	if len(kept) == 0 {
		b.unfiltered(fw, ag)
	}
	return filtered, until
}

// isFilteredWhole is IsFiltered for fw's compact filter w in role on ag.
func (b *Book) isFilteredWhole(fw *cluster.Framework, role string, ag *cluster.Agent, w refusals.WholeRefusal, candidate resources.Resources, withinRef bool, now time.Time, periodic bool) (bool, time.Time) {
	f := b.RefusalOf(w, ag)
	if b.filterGone(fw, role, &f, now) {
		dropWhole(fw, role, ag)
		b.unfiltered(fw, ag)
		return false, time.Time{}
	}
	filtered := b.filterCovers(fw, role, ag, &f, candidate, withinRef, now, periodic)
	if f.Covered != w.Covered {
		w.Covered = f.Covered
		fw.Whole.Put(role, int(ag.Num), w, len(b.Cluster.AgentsByNum))
	}
	if !filtered {
		return false, time.Time{}
	}
	return true, f.Expires
}

// filterGone reports whether f, a filter of fw in role, can no longer
// apply to a run at now or later, and is to be dropped.
func (b *Book) filterGone(fw *cluster.Framework, role string, f *refusals.Refusal, now time.Time) bool {
	if b.FilterAlive(f.Expires, f.Batch, now) {
		return false
	}
	if b.OnFilter != nil {
		b.OnFilter(fw, role, f.Expires, f.Batch, -1)
	}
	return true
}

// filterCovers reports whether f, a filter of fw in role on ag, applies to
// candidate in a run at now; when it does, what it covers is recorded in f and
// ag's index. withinRef is IsFiltered's.
func (b *Book) filterCovers(fw *cluster.Framework, role string, ag *cluster.Agent, f *refusals.Refusal, candidate resources.Resources, withinRef bool, now time.Time, periodic bool) bool {
	if !b.FilterInForce(f.Expires, f.Batch, now, periodic) || !((withinRef && f.Covered == ag.RefGen && !b.CacheFree) || f.Refused.Contains(candidate)) {
		return false
	}
	b.checkCoverage(fw, ag, role, f)
	return true
}

// ClearRefusalBits clears fw's bit in the agents' refusal indexes of role,
// before fw leaves the role's framework sorter: the indexes know fw by its
// number there, which the sorter may give to a framework added later, and
// that framework must not inherit fw's refusals. fw's filters stay (a
// framework that declines in a role it has left keeps its filter there);
// should it come back, its filters are found by IsFiltered, as any filter
// not yet in an index is.
func (b *Book) ClearRefusalBits(fw *cluster.Framework, role string) {
	i, ok := b.sorterNum(role, fw.ID)
	if !ok {
		return
	}
	clearOn := func(ag *cluster.Agent) {
		if idx, _ := ag.Refusals.Get(role); idx != nil {
			idx.Skip.Clear(i)
		}
	}
	for agentID := range fw.Filters[role] {
		if ag := b.Cluster.Agents.Get(agentID); ag != nil {
			clearOn(ag)
		}
	}
	if s, ok := fw.Whole[role]; ok {
		for num := range s.All() {
			clearOn(b.Cluster.AgentsByNum.At(num))
		}
	}
}

// ForgetFilters drops fw's filters in role (every role when role is ""),
// and their entries in the agents' indexes.
func (b *Book) ForgetFilters(fw *cluster.Framework, role string) {
	b.forgetWhole(fw, role)
	for r, byAgent := range fw.Filters {
		if role != "" && r != role {
			continue
		}
		if i, ok := b.sorterNum(r, fw.ID); ok {
			for agentID := range byAgent {
				if ag := b.Cluster.Agents.Get(agentID); ag != nil {
					if idx, _ := ag.Refusals.Get(r); idx != nil {
						idx.Skip.Clear(i)
					}
				}
			}
		}
		if b.OnFilter != nil {
			for _, list := range byAgent {
				for _, f := range list {
					b.OnFilter(fw, r, f.Expires, f.Batch, -1)
				}
			}
		}
		delete(fw.Filters, r)
		for agentID := range byAgent {
			if ag := b.Cluster.Agents.Get(agentID); ag != nil {
				b.unfiltered(fw, ag)
			}
		}
	}
}

// ForgetAgentFilters drops every framework's filters for the agent, and the
// agent's indexes.
func (b *Book) ForgetAgentFilters(ag *cluster.Agent) {
	for fw := range b.Cluster.Frameworks.All() {
		gone := func(role string, f refusals.Refusal) {
			if b.OnFilter != nil {
				b.OnFilter(fw, role, f.Expires, f.Batch, -1)
			}
		}
		fw.Filters.DropAgent(ag.ID, gone)
		b.dropWholeOn(fw, ag, gone)
		delete(fw.InverseFilters, ag.ID)
	}
	ag.Refusals = tables.ByRole[*refusals.Index]{}
	ag.Filtered = nil
}
