package quota

import (
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// BindingLimit returns the role among n and its ancestors whose quota
// limit binds for offers passed over for a limit (what each would have
// held of the quota part), nil when none of them has a limit, and whether
// it binds (false: a fallback below). enough reports whether what a limit
// leaves of offer i meets its framework's minimum allocatable resources.
//
// A limit binds where, on one of those offers, it alone (less what its
// role consumes) leaves too little, or where the other limits without it
// would have left enough: the reason says the limits keep the framework
// off, whatever the headroom does. The nearest such role is returned, one
// that binds alone first. A limit reached in a resource none of the
// offers held (gpus:0 on agents without GPUs) cuts nothing, and one that
// leaves enough does not bind, however near it is. Failing both (figures
// that moved since the run), the nearest whose limit cuts something, then
// the nearest with a limit.
func BindingLimit(n *roles.Node, offers []resources.Quantities, enough func(i int, left resources.Quantities) bool) (*roles.Node, bool) {
	var limited []*roles.Node
	for q := range n.QuotaAncestry {
		if !q.Q().Limits.IsEmpty() {
			limited = append(limited, q)
		}
	}
	if len(limited) == 0 {
		return nil, false
	}
	// cut is what the limits of the roles keep allows of an offer.
	cut := func(keep func(*roles.Node) bool, offer resources.Quantities) resources.Quantities {
		for _, q := range limited {
			if keep(q) {
				offer = q.Q().Limits.Subtract(q.Consumed()).Cap(offer)
			}
		}
		return offer
	}
	binds := func(pick *roles.Node) (alone, without, cuts bool) {
		for i, offer := range offers {
			left := cut(func(q *roles.Node) bool { return q == pick }, offer)
			if left.Equal(offer) {
				continue
			}
			cuts = true
			alone = alone || !enough(i, left)
			without = without || enough(i, cut(func(q *roles.Node) bool { return q != pick }, offer))
		}
		return alone, without, cuts
	}
	pick, rule := limited[0], 3
	for _, q := range limited {
		alone, without, cuts := binds(q)
		switch {
		case alone:
			return q, true
		case without && rule > 1:
			pick, rule = q, 1
		case cuts && rule > 2:
			pick, rule = q, 2
		}
	}
	return pick, rule == 1
}

// MeetsMinimum reports whether q holds something and contains one of the
// minimum allocatable alternatives mins (any, when there are none).
func MeetsMinimum(q resources.Quantities, mins []resources.Quantities) bool {
	// Quantities hold no zero amounts: any name is something.
	if q.IsEmpty() {
		return false
	}
	for _, m := range mins {
		if q.Contains(m) {
			return true
		}
	}
	return len(mins) == 0
}
