package allocator

import (
	"slices"

	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// capped reports whether a role can take nothing more anywhere in this
// run: no scalar resource of the cluster is left to it under its (and its
// ancestors') limits and the headroom held for others, no reservation of
// its top-level subtree is unallocated, no agent has revocable or shared
// resources, and every minimum allocatable alternative needs some scalar.
// Within a run consumption and spare headroom only move one way, so a
// capped role stays capped until the run ends. Its active frameworks are
// counted as passed over once, for the limit or the headroom.
func (a *Allocator) capped(r *run, n *roles.Node) bool {
	if !r.quota {
		return false
	}
	if n.CappedRun == r.id && !a.opts.CacheFree {
		return true
	}
	capped, byLimit := a.cappedNow(n, r.requiredHeadroom, r.names)
	if !capped || n.CappedRun == r.id {
		return capped
	}
	r.stats.Capped++
	// The role's frameworks are passed over for its limit, or for the
	// headroom held for others; when neither holds anything back, the
	// cluster simply has nothing free for the role, which is no reason to
	// count against it (as an agent with nothing left is not).
	reason := ReasonQuotaLimit
	switch {
	case byLimit:
	case !r.requiredHeadroom.IsEmpty():
		reason = ReasonHeadroom
	default:
		// Nothing scalar is free anywhere: what agents still have is
		// below every minimum allocatable alternative.
		reason = ReasonMinAllocatable
	}
	if reason != ReasonMinAllocatable {
		for _, fwID := range n.Frameworks.Sorted() {
			if fw := a.cs.Frameworks.Get(fwID); fw.Active {
				a.skip(r, fw, reason)
			}
		}
	}
	n.CappedRun, n.CappedBy = r.id, uint8(reason)
	return true
}

// cappedNow is capped's test, with the run's required headroom and the
// cluster's scalar names: whether the role can take nothing more, and
// whether a quota limit is why.
func (a *Allocator) cappedNow(n *roles.Node, requiredHeadroom resources.Quantities, names []string) (capped, byLimit bool) {
	top := n
	for top.Parent != a.roles.Root {
		top = top.Parent
	}
	// Reservations of the subtree all allocated, by the sums: an agent
	// that holds more than its total can make the sums say so while
	// another has some free, so the sums are trusted only without one.
	if !top.AllocatedReserved.Contains(top.Reserved) || a.cs.RevocableOrSharedAgents > 0 || a.cs.OverAllocatedAgents > 0 {
		return false, false
	}
	// What the role may take of unreserved scalars is at most what is free
	// beyond the headroom held for others, and at most what its limits
	// leave. (With no unmet guarantee anywhere, that is what is free.)
	// (The spare headroom is worked out per name: this runs for every role
	// the run looks at, and a vector would be a copy each time.)
	const headroom = true
	for _, name := range names {
		left, limited := max(a.cs.FreeHeadroom.Scalar(name)-requiredHeadroom.Scalar(name), 0), headroom
		for q := range n.QuotaAncestry {
			if lim, ok := q.Q().Limits.Get(name); ok {
				left2 := max(lim-q.Consumed().Scalar(name), 0)
				if !limited || left2 < left {
					left, limited = left2, true
				}
				byLimit = byLimit || left2 == 0
			}
		}
		if !limited || left > 0 {
			return false, false
		}
	}
	if len(a.opts.MinAllocatable) == 0 {
		return false, false
	}
	for _, alt := range a.opts.MinAllocatable {
		if !slices.ContainsFunc(alt.Names(), func(name string) bool { return a.cs.Totals.Scalar(name) > 0 }) {
			return false, false
		}
	}
	if n.Frameworks.Any(func(fwID string) bool {
		_, ok := a.cs.Frameworks.Get(fwID).Info.MinAllocatable[n.Path]
		return ok
	}) {
		return false, false
	}
	return true, byLimit
}

// parkCapped keeps out of the role sorter the roles that can take nothing
// more (see capped), unless a guarantee is unmet in their ancestry:
// guaranteed resources are not held back as headroom. Such roles stay out
// across runs, parked, until something that could uncap a role happens
// (capEpoch: resources given back, totals, reservations, quota or a role's
// frameworks changed); then every parked role is looked at again.
func (a *Allocator) parkCapped(r *run) {
	if a.parkedEpoch == a.capEpoch && a.parkedReasonsHold(r) {
		r.stats.Capped += len(a.parked)
		return
	}
	a.unpark()
	a.parkedEpoch = a.capEpoch
	for _, role := range a.rolesWithSorters() {
		if node := a.roles.Get(role); a.roles.UnsatisfiedGuarantees(node).IsEmpty() && a.capped(r, node) {
			_ = a.roleSorter.Deactivate(role)
			a.parked = append(a.parked, role)
		}
	}
}

// parkedReasonsHold reports whether the reasons the parked roles were
// capped for still hold in run r. A role parked while headroom was held
// for unmet guarantees was capped for the headroom; once none is held (an
// offer met the last unmet guarantee), the same cap has another reason:
// nothing free it could be offered. And the other way round. The cap
// stands either way, but Explain would give the old reason: the roles are
// then looked at again, and their reasons found anew.
func (a *Allocator) parkedReasonsHold(r *run) bool {
	held := !r.requiredHeadroom.IsEmpty()
	for _, role := range a.parked {
		n := a.roles.Get(role)
		if n == nil {
			continue
		}
		if (Reason(n.CappedBy) == ReasonHeadroom && !held) || (Reason(n.CappedBy) == ReasonMinAllocatable && held) {
			return false
		}
	}
	return true
}

// reconsiderParked lets back into the role sorter the parked roles that
// stage one's offers uncapped. Those offers lower the headroom held for
// unmet guarantees by what they count towards them, which is more than
// they take from the free pool when they hand out reservations, so a role
// parked at the start of the run may have room again.
func (a *Allocator) reconsiderParked(r *run) {
	kept := a.parked[:0]
	for _, role := range a.parked {
		if n := a.roles.Get(role); n != nil {
			if capped, _ := a.cappedNow(n, r.requiredHeadroom, r.names); !capped {
				_ = a.roleSorter.Activate(role)
				n.CappedRun = 0
				r.stats.Capped--
				continue
			}
		}
		kept = append(kept, role)
	}
	clear(a.parked[len(kept):])
	a.parked = kept
}

// unpark lets every parked role back into the role sorter.
func (a *Allocator) unpark() {
	for _, role := range a.parked {
		if a.roleSorter.Contains(role) {
			_ = a.roleSorter.Activate(role)
		}
	}
	clear(a.parked)
	a.parked = a.parked[:0]
	a.parkedEpoch = a.capEpoch - 1
}

// uncapped notes an event that could let a capped role take more again.
func (a *Allocator) uncapped() { a.capEpoch++ }
