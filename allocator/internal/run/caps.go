package run

import (
	"github.com/allot-go/allot/allocator/internal/explain"
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
func (e *Engine) capped(r *runState, n *roles.Node) bool {
	if !r.quota {
		return false
	}
	if n.CappedRun == r.id && !e.opts.CacheFree {
		return true
	}
	capped, byLimit := quota.CappedNow(e.cs, e.roles, n, r.requiredHeadroom, r.names, e.opts.MinAllocatable)
	if !capped || n.CappedRun == r.id {
		return capped
	}
	r.stats.Capped++
	// The role's frameworks are passed over for its limit, or for the
	// headroom held for others; when neither holds anything back (nothing
	// scalar free anywhere is enough to offer), the cluster simply has
	// nothing free for the role, which is no reason to count against it
	// (as an agent with nothing left is not).
	reason := (quota.CapOf(byLimit, r.requiredHeadroom))
	if reason != explain.MinAllocatable {
		for _, fwID := range n.Frameworks.Sorted() {
			if fw := e.cs.Frameworks.Get(fwID); fw.Active {
				e.skip(r, fw, reason)
			}
		}
	}
	n.CappedRun, n.CappedBy = r.id, reason
	return true
}

// parkCapped keeps out of the role sorter the roles that can take nothing
// more in run r (see capped, and quota.Parking).
func (e *Engine) parkCapped(r *runState) {
	causeNow := func(n *roles.Node) quota.Cause {
		return quota.CauseNow(e.cs, n, r.requiredHeadroom, e.opts.MinAllocatable)
	}
	if e.parking.Current() && e.parking.ReasonsHold(e.roles, e.cs.FreeHeadroom, r.requiredHeadroom, causeNow) {
		r.stats.Capped += len(e.parking.Parked)
		return
	}
	e.parking.Park(e.roleSorter, e.roles, e.books.RolesWithSorters(), func(n *roles.Node) bool { return e.capped(r, n) })
	e.parking.Found(e.cs.FreeHeadroom, r.requiredHeadroom)
}

// stillCapped is quota.CappedNow for run r.
func (e *Engine) stillCapped(r *runState) func(*roles.Node) bool {
	return func(n *roles.Node) bool {
		capped, _ := quota.CappedNow(e.cs, e.roles, n, r.requiredHeadroom, r.names, e.opts.MinAllocatable)
		return capped
	}
}

// The causes of a cap are Explain's reasons for them.
const (
	_ = uint(quota.ByLimit-explain.QuotaLimit) + uint(explain.QuotaLimit-quota.ByLimit)
	_ = uint(quota.ByHeadroom-explain.Headroom) + uint(explain.Headroom-quota.ByHeadroom)
	_ = uint(quota.ByMinAllocatable-explain.MinAllocatable) + uint(explain.MinAllocatable-quota.ByMinAllocatable)
)
