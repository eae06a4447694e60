package quota

import (
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// Cause is why a role is capped, kept in its node (roles.Node.CappedBy)
// for Explain. Its values are those of package allocator's Reason for the
// same cause, which that package checks when it compiles.
type Cause = uint8

// The causes of a cap.
const (
	// ByLimit: the role, or an ancestor, is at its quota limit.
	ByLimit Cause = 7
	// ByHeadroom: what is free is held back for other roles' unmet
	// guarantees.
	ByHeadroom Cause = 8
	// ByMinAllocatable: what agents have left is below every minimum
	// allocatable alternative.
	ByMinAllocatable Cause = 9
)

// CapOf is why a role found capped is: its limit when byLimit, else the
// headroom held for others when any is required, else that nothing free
// is enough to offer. A cap by ByMinAllocatable is no reason to count the
// role's frameworks as passed over (an agent with nothing left is not).
func CapOf(byLimit bool, requiredHeadroom resources.Quantities) Cause {
	switch {
	case byLimit:
		return ByLimit
	case !requiredHeadroom.IsEmpty():
		return ByHeadroom
	default:
		return ByMinAllocatable
	}
}

// CappedNow reports whether the role at n can take nothing more anywhere
// in a run whose required headroom is requiredHeadroom and whose cluster
// has the scalar names names: no scalar resource of the cluster is left to
// it under its (and its ancestors') limits and the headroom held for
// others, no reservation of its top-level subtree is unallocated, no agent
// has revocable or shared resources, and every minimum allocatable
// alternative (minAllocatable, or one of its frameworks' own) needs some
// scalar. byLimit says whether a quota limit is why (limitBinds).
func CappedNow(cs *cluster.State, tree *roles.Tree, n *roles.Node, requiredHeadroom resources.Quantities, names []string, minAllocatable []resources.Quantities) (capped, byLimit bool) {
	top := n
	for top.Parent != tree.Root {
		top = top.Parent
	}
	// Reservations of the subtree all allocated, by the sums: an agent
	// that holds more than its total can make the sums say so while
	// another has some free, so the sums are trusted only without one.
	if !top.AllocatedReserved.Contains(top.Reserved) || cs.RevocableOrSharedAgents > 0 || cs.OverAllocatedAgents > 0 {
		return false, false
	}
	// What the role may take of unreserved scalars is at most what is free
	// beyond the headroom held for others, and at most what its limits
	// leave. (With no unmet guarantee anywhere, that is what is free.)
	// (The spare headroom is worked out per name: this runs for every role
	// the run looks at, and a vector would be a copy each time.)
	for _, name := range names {
		left := spareOf(cs, requiredHeadroom, name)
		if room, ok := roomOf(n, name); ok {
			left = min(left, room)
		}
		if left > 0 {
			return false, false
		}
	}
	if len(minAllocatable) == 0 {
		return false, false
	}
	for _, alt := range minAllocatable {
		if !slices.ContainsFunc(alt.Names(), func(name string) bool { return cs.Totals.Scalar(name) > 0 }) {
			return false, false
		}
	}
	if n.Frameworks.Any(func(fwID string) bool {
		_, ok := cs.Frameworks.Get(fwID).Info.MinAllocatable[n.Path]
		return ok
	}) {
		return false, false
	}
	return true, limitBinds(cs, n, requiredHeadroom, minAllocatable)
}

// CauseNow is why the role at n, one CappedNow finds capped, is capped
// now: CapOf of whether its limits bind (limitBinds).
func CauseNow(cs *cluster.State, n *roles.Node, requiredHeadroom resources.Quantities, minAllocatable []resources.Quantities) Cause {
	return CapOf(limitBinds(cs, n, requiredHeadroom, minAllocatable), requiredHeadroom)
}

// limitBinds reports whether a quota limit is why the capped role at n
// can take nothing: its limits alone leave it less than every minimum
// allocatable alternative (they are enough to keep it off), or the
// headroom alone would leave it one (they are needed to). Where neither
// holds, the limits keep only what the headroom held for others keeps as
// well, or what no alternative needs: lifting them would give the role
// nothing, and the cap is the headroom's (or, with none held, nothing free
// is enough to offer). Both are worked out over the cluster's sums, as
// the cap is.
func limitBinds(cs *cluster.State, n *roles.Node, requiredHeadroom resources.Quantities, alternatives []resources.Quantities) bool {
	limitsKeep, headroomKeeps := true, true
	for _, alt := range alternatives {
		byLimits, byHeadroom := false, false
		for name, want := range alt.All() {
			if spareOf(cs, requiredHeadroom, name) < want {
				byHeadroom = true
			}
			if room, ok := roomOf(n, name); ok && room < want {
				byLimits = true
			}
		}
		limitsKeep = limitsKeep && byLimits
		headroomKeeps = headroomKeeps && byHeadroom
	}
	return limitsKeep || !headroomKeeps
}

// spareOf is the free headroom of name beyond what others' unmet
// guarantees need.
func spareOf(cs *cluster.State, requiredHeadroom resources.Quantities, name string) resources.Scalar {
	return max(cs.FreeHeadroom.Scalar(name)-requiredHeadroom.Scalar(name), 0)
}

// roomOf is how much more of name the limits of the role at n and its
// ancestors leave it, and false when none limits name.
func roomOf(n *roles.Node, name string) (resources.Scalar, bool) {
	var room resources.Scalar
	limited := false
	for q := range n.QuotaAncestry {
		if lim, ok := q.Q().Limits.Get(name); ok {
			left := max(lim-q.Consumed().Scalar(name), 0)
			if limited {
				left = min(left, room)
			}
			room, limited = left, true
		}
	}
	return room, limited
}
