package allocator

import "github.com/allot-go/allot/resources"

// Quota arithmetic over the role tree: what guarantees are still unmet,
// what headroom they need held back, and what limits leave a role. It
// reads the tree's aggregates (reserved and allocated per subtree) and
// keeps only buffers of its own.

// unmetInto sets out to the role's own unmet guarantees, guarantees −
// consumed, reusing out's storage.
func (n *roleNode) unmetInto(out *resources.Quantities) {
	out.Reset()
	out.Add(n.q().Guarantees)
	out.Subtract(n.reserved)
	out.Subtract(n.allocatedUnreserved)
}

// need returns a role's unmet guarantees, including what its subtree still
// needs for descendants' guarantees: need(r) = max(guarantees(r) −
// consumed(r), Σ need(children)). The figure is in the tree's buffers for
// depth, valid until the next call at that depth, so that a run over
// thousands of roles with quota, which works it out twice, allocates once
// the buffers have grown.
func (t *roleTree) need(n *roleNode, depth int) *resources.Quantities {
	for len(t.needBufs) <= depth {
		t.needBufs = append(t.needBufs, new([2]resources.Quantities))
	}
	sum, own := &t.needBufs[depth][0], &t.needBufs[depth][1]
	sum.Reset()
	for _, c := range n.children {
		sum.Add(*t.need(c, depth+1))
	}
	if n.q().Guarantees.IsEmpty() {
		return sum
	}
	n.unmetInto(own)
	own.Max(*sum)
	return own
}

// requiredHeadroom is the sum of the unmet guarantees of the top-level
// roles' subtrees.
func (t *roleTree) requiredHeadroom() resources.Quantities {
	var q resources.Quantities
	t.requiredHeadroomInto(&q)
	return q
}

// requiredHeadroomInto is requiredHeadroom into out's storage.
func (t *roleTree) requiredHeadroomInto(out *resources.Quantities) {
	out.Reset()
	for _, c := range t.root.children {
		out.Add(*t.need(c, 0))
	}
}

// unsatisfiedGuarantees is what a role may still receive as guarantee: the
// largest unmet guarantee among the role and its ancestors, since an
// ancestor's guarantee covers its whole subtree.
func (t *roleTree) unsatisfiedGuarantees(n *roleNode) resources.Quantities {
	var out resources.Quantities
	t.unsatisfiedInto(n, &out)
	return out
}

// unsatisfiedInto is unsatisfiedGuarantees into out's storage.
func (t *roleTree) unsatisfiedInto(n *roleNode, out *resources.Quantities) {
	out.Reset()
	for q := range n.quotaAncestry {
		if q.q().Guarantees.IsEmpty() {
			continue
		}
		q.unmetInto(&t.unmetBuf)
		out.Max(t.unmetBuf)
	}
}

// limitHeadroom is how much more unreserved, non-revocable scalar resources
// the role may take before it or an ancestor reaches its limit; limited is
// false when no limit applies. The result is valid until the next call.
func (t *roleTree) limitHeadroom(n *roleNode) (resources.Limits, bool) {
	out := &t.limitsBuf
	limited := false
	for q := range n.quotaAncestry {
		if q.q().Limits.IsEmpty() {
			continue
		}
		if !limited {
			out.CopyFrom(q.q().Limits)
			out.SubtractInPlace(q.reserved)
			out.SubtractInPlace(q.allocatedUnreserved)
			limited = true
			continue
		}
		t.leftBuf.CopyFrom(q.q().Limits)
		t.leftBuf.SubtractInPlace(q.reserved)
		t.leftBuf.SubtractInPlace(q.allocatedUnreserved)
		out.Lower(t.leftBuf)
	}
	return *out, limited
}
