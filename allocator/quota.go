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

// unmet returns a role's unmet guarantees, including what its subtree still
// needs for descendants' guarantees: need(r) = max(guarantees(r) −
// consumed(r), Σ need(children)).
func (t *roleTree) unmet(n *roleNode) resources.Quantities {
	var children resources.Quantities
	for _, c := range n.children {
		children.Add(t.unmet(c))
	}
	if n.q().Guarantees.IsEmpty() {
		return children
	}
	var own resources.Quantities
	n.unmetInto(&own)
	own.Max(children)
	return own
}

// requiredHeadroom is the sum of the unmet guarantees of the top-level
// roles' subtrees.
func (t *roleTree) requiredHeadroom() resources.Quantities {
	var q resources.Quantities
	t.requiredHeadroomInto(&q)
	return q
}

// requiredHeadroomInto is requiredHeadroom into out's storage. A top-level
// role without children (the usual one) adds its unmet guarantees through
// the tree's needBuf, so that a run over thousands of roles with quota
// does not allocate for each of them twice a run; a subtree's figure
// needs its children's first (unmet).
func (t *roleTree) requiredHeadroomInto(out *resources.Quantities) {
	out.Reset()
	for _, c := range t.root.children {
		switch {
		case len(c.children) > 0:
			out.Add(t.unmet(c))
		case !c.q().Guarantees.IsEmpty():
			c.unmetInto(&t.needBuf)
			out.Add(t.needBuf)
		}
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
