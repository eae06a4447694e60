package roles

import "github.com/allot-go/allot/resources"

// Quota arithmetic over the role tree: what guarantees are still unmet,
// what headroom they need held back, and what limits leave a role. It
// reads the tree's aggregates (reserved and allocated per subtree) and
// keeps only buffers of its own.

// UnmetInto sets out to the role's own unmet guarantees, guarantees −
// consumed, reusing out's storage.
func (n *Node) UnmetInto(out *resources.Quantities) {
	out.Reset()
	out.Add(n.Q().Guarantees)
	out.Subtract(n.Reserved)
	out.Subtract(n.AllocatedUnreserved)
}

// need returns a role's unmet guarantees, including what its subtree still
// needs for descendants' guarantees: need(r) = max(guarantees(r) −
// consumed(r), Σ need(children)). The figure is in the tree's buffers for
// depth, valid until the next call at that depth, so that a run over
// thousands of roles with quota, which works it out twice, allocates once
// the buffers have grown.
func (t *Tree) need(n *Node, depth int) *resources.Quantities {
	for len(t.needBufs) <= depth {
		t.needBufs = append(t.needBufs, new([2]resources.Quantities))
	}
	sum, own := &t.needBufs[depth][0], &t.needBufs[depth][1]
	sum.Reset()
	for _, c := range n.Children {
		sum.Add(*t.need(c, depth+1))
	}
	if n.Q().Guarantees.IsEmpty() {
		return sum
	}
	n.UnmetInto(own)
	own.Max(*sum)
	return own
}

// RequiredHeadroom is the sum of the unmet guarantees of the top-level
// roles' subtrees.
func (t *Tree) RequiredHeadroom() resources.Quantities {
	var q resources.Quantities
	t.RequiredHeadroomInto(&q)
	return q
}

// RequiredHeadroomInto is requiredHeadroom into out's storage.
func (t *Tree) RequiredHeadroomInto(out *resources.Quantities) {
	out.Reset()
	for _, c := range t.Root.Children {
		out.Add(*t.need(c, 0))
	}
}

// UnsatisfiedGuarantees is what a role may still receive as guarantee: the
// largest unmet guarantee among the role and its ancestors, since an
// ancestor's guarantee covers its whole subtree.
func (t *Tree) UnsatisfiedGuarantees(n *Node) resources.Quantities {
	var out resources.Quantities
	t.UnsatisfiedInto(n, &out)
	return out
}

// UnsatisfiedInto is unsatisfiedGuarantees into out's storage.
func (t *Tree) UnsatisfiedInto(n *Node, out *resources.Quantities) {
	out.Reset()
	for q := range n.QuotaAncestry {
		if q.Q().Guarantees.IsEmpty() {
			continue
		}
		q.UnmetInto(&t.unmetBuf)
		out.Max(t.unmetBuf)
	}
}

// LimitHeadroom is how much more unreserved, non-revocable scalar resources
// the role may take before it or an ancestor reaches its limit; limited is
// false when no limit applies. The result is valid until the next call.
func (t *Tree) LimitHeadroom(n *Node) (resources.Limits, bool) {
	out := &t.limitsBuf
	limited := false
	for q := range n.QuotaAncestry {
		if q.Q().Limits.IsEmpty() {
			continue
		}
		if !limited {
			out.CopyFrom(q.Q().Limits)
			out.SubtractInPlace(q.Reserved)
			out.SubtractInPlace(q.AllocatedUnreserved)
			limited = true
			continue
		}
		t.leftBuf.CopyFrom(q.Q().Limits)
		t.leftBuf.SubtractInPlace(q.Reserved)
		t.leftBuf.SubtractInPlace(q.AllocatedUnreserved)
		out.Lower(t.leftBuf)
	}
	return *out, limited
}

// NeedFallInto sets out to how much the required headroom falls when n's
// subtree consumes add more unreserved non-revocable scalars: the need of
// n's top-level role before, less its need after. Only that subtree's
// need changes, and it falls by add only where the guarantee add counts
// against is the one that decides the need; where a descendant's larger
// need decides it (a guarantee on a and on a/b, add given to a/c), it
// falls by less, or not at all. The tree is as it was on return.
func (t *Tree) NeedFallInto(n *Node, add resources.Quantities, out *resources.Quantities) {
	out.Reset()
	if n == t.Root || add.IsEmpty() {
		return
	}
	top := n
	for top.Parent != t.Root {
		top = top.Parent
	}
	out.Add(*t.need(top, 0))
	t.trackAt(n, add, true, allocatedUnreserved)
	out.Subtract(*t.need(top, 0))
	t.trackAt(n, add, false, allocatedUnreserved)
}
