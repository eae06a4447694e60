package allocator

import (
	"math"
	"time"
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

// wholeRefusals are a framework's compact refusal filters, by role (and,
// in a wholeSet, by agent number). A role's set is never empty: the last
// filter gone takes it.
type wholeRefusals map[string]*wholeSet

// wholeRefusal is a refusal of the whole reference of its agent.
type wholeRefusal struct {
	// expires is the expiry in nanoseconds after Allocator.anchor.
	expires        int64
	batch, covered uint64 // as refusal's
}

// on returns the compact filter in role on the agent numbered num.
func (ws wholeRefusals) on(role string, num int) (wholeRefusal, bool) {
	if s := ws[role]; s != nil {
		return s.get(num)
	}
	return wholeRefusal{}, false
}

// put stores w in role for the agent numbered num; numbers is as
// wholeSet.put's.
func (ws *wholeRefusals) put(role string, num int, w wholeRefusal, numbers int) {
	s := (*ws)[role]
	if s == nil {
		if *ws == nil {
			*ws = wholeRefusals{}
		}
		s = &wholeSet{}
		(*ws)[role] = s
	}
	s.put(num, w, numbers)
}

// drop removes the filter in role for the agent numbered num, reporting
// whether there was one.
func (ws wholeRefusals) drop(role string, num int) bool {
	s := ws[role]
	if s == nil || !s.drop(num) {
		return false
	}
	if s.len() == 0 {
		delete(ws, role)
	}
	return true
}

// anyOn reports whether some compact filter, in any role, is on the agent
// numbered num.
func (ws wholeRefusals) anyOn(num int) bool {
	for _, s := range ws {
		if _, ok := s.get(num); ok {
			return true
		}
	}
	return false
}

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
func (a *Allocator) refusalOf(w wholeRefusal, ag *agent) refusal {
	return refusal{refused: ag.ref, expires: a.anchor.Add(time.Duration(w.expires)), batch: w.batch, covered: w.covered}
}

// storeWhole keeps f, a refusal of ag's whole reference, compactly when it
// would be the only filter of fw in role on ag; false when it must join a
// list instead.
func (a *Allocator) storeWhole(fw *framework, role string, ag *agent, f refusal) bool {
	if a.opts.CacheFree || len(fw.filters.on(role, ag.id)) > 0 {
		return false
	}
	if _, ok := fw.whole.on(role, int(ag.num)); ok {
		return false
	}
	expires, ok := a.sinceAnchor(f.expires)
	if !ok {
		return false
	}
	fw.whole.put(role, int(ag.num), wholeRefusal{expires: expires, batch: f.batch, covered: f.covered}, len(a.agentsByNum))
	ag.wholeRefused++
	return true
}

// unpackWhole turns every compact filter on ag into an ordinary one
// refusing ag's reference as it is: called before the reference changes.
func (a *Allocator) unpackWhole(ag *agent) {
	if ag.wholeRefused == 0 {
		return
	}
	for num := range ag.filtered.filteredAll() {
		if fw := a.refusersByNum.At(num); fw != nil {
			for role := range fw.whole {
				a.unpackWholeOf(fw, role, ag)
			}
		}
	}
}

// unpackWholeOf turns fw's compact filter in role on ag, if there is one,
// into an ordinary one.
func (a *Allocator) unpackWholeOf(fw *framework, role string, ag *agent) {
	if w, ok := fw.whole.on(role, int(ag.num)); ok {
		dropWhole(fw, role, ag)
		fw.filters.add(role, ag.id, a.refusalOf(w, ag))
	}
}

// dropWhole removes fw's compact filter in role on ag, which is there, and
// counts it off the agent.
func dropWhole(fw *framework, role string, ag *agent) {
	fw.whole.drop(role, int(ag.num))
	ag.wholeRefused--
}

// dropWholeOn removes every compact filter of fw on ag, calling gone for
// each.
func (a *Allocator) dropWholeOn(fw *framework, ag *agent, gone func(role string, f refusal)) {
	for role, s := range fw.whole {
		if w, ok := s.get(int(ag.num)); ok {
			gone(role, a.refusalOf(w, ag))
			dropWhole(fw, role, ag)
		}
	}
}

// refusalsOn returns fw's filters in role on ag, the compact one as an
// ordinary one: for reports, not for runs.
func (a *Allocator) refusalsOn(fw *framework, role string, ag *agent) []refusal {
	if w, ok := fw.whole.on(role, int(ag.num)); ok {
		return []refusal{a.refusalOf(w, ag)}
	}
	return fw.filters.on(role, ag.id)
}

// refusalsOf returns all of fw's filters as lists, by role and agent id,
// the compact ones as ordinary ones: for reports and snapshots, not for
// runs. With no compact filter it is fw.filters itself.
func (a *Allocator) refusalsOf(fw *framework) refusalFilters {
	if len(fw.whole) == 0 {
		return fw.filters
	}
	all := refusalFilters{}
	for role, byAgent := range fw.filters {
		for agentID, list := range byAgent {
			for _, f := range list {
				all.add(role, agentID, f)
			}
		}
	}
	for role, s := range fw.whole {
		for num, w := range s.all() {
			ag := a.agentsByNum.At(num)
			all.add(role, ag.id, a.refusalOf(w, ag))
		}
	}
	return all
}

// forgetWhole drops fw's compact filters in role (every role when role is
// ""), and their entries in the agents' indexes.
func (a *Allocator) forgetWhole(fw *framework, role string) {
	for r, s := range fw.whole {
		if role != "" && r != role {
			continue
		}
		i, indexed := a.sorterNum(r, fw.id)
		delete(fw.whole, r)
		for num, w := range s.all() {
			ag := a.agentsByNum.At(num)
			ag.wholeRefused--
			if indexed {
				if idx, _ := ag.refusals.Get(r); idx != nil {
					idx.skip.Clear(i)
				}
			}
			if a.obs != nil {
				f := a.refusalOf(w, ag)
				a.observeFilter(fw, r, f.expires, f.batch, -1)
			}
			a.unfiltered(fw, ag)
		}
	}
}
