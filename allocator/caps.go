package allocator

import (
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/roles"
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
	capped, byLimit := quota.CappedNow(&a.cs, a.roles, n, r.requiredHeadroom, r.names, a.opts.MinAllocatable)
	if !capped || n.CappedRun == r.id {
		return capped
	}
	r.stats.Capped++
	// The role's frameworks are passed over for its limit, or for the
	// headroom held for others; when neither holds anything back (nothing
	// scalar free anywhere is enough to offer), the cluster simply has
	// nothing free for the role, which is no reason to count against it
	// (as an agent with nothing left is not).
	reason := Reason(quota.CapOf(byLimit, r.requiredHeadroom))
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

// parkCapped keeps out of the role sorter the roles that can take nothing
// more in run r (see capped, and quota.Parking).
func (a *Allocator) parkCapped(r *run) {
	if a.parking.Current() && a.parking.ReasonsHold(a.roles, !r.requiredHeadroom.IsEmpty()) {
		r.stats.Capped += len(a.parking.Parked)
		return
	}
	a.parking.Park(a.roleSorter, a.roles, a.books.RolesWithSorters(), func(n *roles.Node) bool { return a.capped(r, n) })
}

// stillCapped is quota.CappedNow for run r.
func (a *Allocator) stillCapped(r *run) func(*roles.Node) bool {
	return func(n *roles.Node) bool {
		capped, _ := quota.CappedNow(&a.cs, a.roles, n, r.requiredHeadroom, r.names, a.opts.MinAllocatable)
		return capped
	}
}

// The causes of a cap are Explain's reasons for them.
const (
	_ = uint(quota.ByLimit-uint8(ReasonQuotaLimit)) + uint(uint8(ReasonQuotaLimit)-quota.ByLimit)
	_ = uint(quota.ByHeadroom-uint8(ReasonHeadroom)) + uint(uint8(ReasonHeadroom)-quota.ByHeadroom)
	_ = uint(quota.ByMinAllocatable-uint8(ReasonMinAllocatable)) + uint(uint8(ReasonMinAllocatable)-quota.ByMinAllocatable)
)
