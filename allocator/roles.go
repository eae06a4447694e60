package allocator

import (
	"slices"
	"strings"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// roleNode is one role of the role tree. The tree holds every role that has
// frameworks, reservations, allocations, quota or a weight, and their
// ancestors. Aggregates are hierarchical: a node's figures include its
// descendants', so a child's consumption counts against every ancestor.
type roleNode struct {
	path   string
	parent *roleNode
	// children are sorted by path, so that runs walk them in order
	// without sorting a map's keys (the headroom for guarantees is summed
	// over the root's children every run with quota).
	children []*roleNode

	// frameworks tracked under the role: subscribed, or still holding
	// resources allocated to it; fs is the role's framework sorter, which
	// holds them, nil while there are none.
	frameworks frameworkSet
	fs         *trackedSorter
	// quota is the role's quota; nil when it has none (most roles), so
	// that a node is 192 bytes, not 224 (read it through q).
	quota *Quota

	// reserved: scalar reservations (by current reservation role) on all
	// agents, in the subtree, offered or not.
	reserved resources.Quantities
	// allocatedUnreserved: unreserved, non-revocable scalars offered or
	// allocated to frameworks under the subtree (by allocation role).
	allocatedUnreserved resources.Quantities
	// allocatedReserved: scalar reservations (by reservation role) in the
	// subtree that are offered or allocated.
	allocatedReserved resources.Quantities

	// epoch changes whenever the role's frameworks change in a way that can
	// turn a framework that was passed over into one that is not: one
	// added, activated, revived, its filters cleared or its info updated.
	// Epochs come from the tree's counter, so a role that leaves the tree
	// and comes back never has an epoch it had before.
	epoch uint64
	// cappedRun is the run in which the role was found unable to take any
	// more resources anywhere (see Allocator.capped), and cappedBy why: a
	// quota limit (ReasonQuotaLimit), the headroom held for others
	// (ReasonHeadroom), or nothing scalar free at all (ReasonMinAllocatable).
	cappedRun uint64
	cappedBy  Reason
}

type roleTree struct {
	root  *roleNode
	nodes roleNodes
	// weights holds the non-default weights by role path; a weighted role
	// stays in the tree.
	weights map[string]float64
	// epochs is the last epoch handed out (newEpoch).
	epochs uint64
	// unmetBuf, needBufs (a pair a depth), requiredBuf, limitsBuf and
	// leftBuf hold quota figures worked out on the hot path (quota.go).
	unmetBuf, requiredBuf resources.Quantities
	needBufs              []*[2]resources.Quantities
	limitsBuf, leftBuf    resources.Limits
}

// q returns the role's quota, the zero Quota when it has none; the result
// must not be changed (set a quota with setQuota).
func (n *roleNode) q() *Quota {
	if n.quota == nil {
		return &noQuota
	}
	return n.quota
}

// noQuota is the quota of a role without one; never changed.
var noQuota Quota

// setQuota sets the role's quota, none when q is zero.
func (n *roleNode) setQuota(q Quota) {
	if q.IsZero() {
		n.quota = nil
		return
	}
	n.quota = &q
}

// newEpoch returns an epoch no node has had.
func (t *roleTree) newEpoch() uint64 {
	t.epochs++
	return t.epochs
}

func newRoleTree() *roleTree {
	root := &roleNode{}
	return &roleTree{root: root, weights: map[string]float64{}}
}

func (t *roleTree) get(path string) *roleNode { return t.nodes.Get(path) }

// ensure returns the node of path, creating it and its ancestors.
func (t *roleTree) ensure(path string) *roleNode {
	if n := t.nodes.Get(path); n != nil {
		return n
	}
	parent := t.root
	if p, ok := reservation.Parent(path); ok {
		parent = t.ensure(p)
	}
	n := &roleNode{path: path, parent: parent, epoch: t.newEpoch()}
	i, _ := slices.BinarySearchFunc(parent.children, path, byPath)
	parent.children = slices.Insert(parent.children, i, n)
	t.nodes.Put(n)
	return n
}

// byPath orders a node against a path, for searches of children.
func byPath(n *roleNode, path string) int { return strings.Compare(n.path, path) }

// prune drops path and then its ancestors while they hold nothing.
func (t *roleTree) prune(path string) {
	n := t.nodes.Get(path)
	for n != nil && n != t.root {
		if len(n.children) > 0 || n.frameworks.len() > 0 || n.fs != nil || !n.q().IsZero() ||
			!n.reserved.IsEmpty() || !n.allocatedUnreserved.IsEmpty() || !n.allocatedReserved.IsEmpty() {
			return
		}
		if _, ok := t.weights[n.path]; ok {
			return
		}
		if i, ok := slices.BinarySearchFunc(n.parent.children, n.path, byPath); ok {
			n.parent.children = slices.Delete(n.parent.children, i, i+1)
		}
		t.nodes.Delete(n.path)
		n = n.parent
	}
}

// adjust adds by to q, or subtracts it (saturating at zero).
func adjust(q *resources.Quantities, by resources.Quantities, add bool) {
	if add {
		q.Add(by)
	} else {
		q.Subtract(by)
	}
}

// track adds q to (or removes it from) one subtree figure of the node of
// path and of every ancestor. A leaf's figures are its own; a node with
// children is never pruned, so no node keeps its own part apart.
func (t *roleTree) track(path string, q resources.Quantities, add bool, subtree func(*roleNode) *resources.Quantities) {
	if q.IsEmpty() {
		return
	}
	t.trackAt(t.ensure(path), q, add, subtree)
}

// trackAt is track with the node at hand.
func (t *roleTree) trackAt(n *roleNode, q resources.Quantities, add bool, subtree func(*roleNode) *resources.Quantities) {
	if q.IsEmpty() {
		return
	}
	for ; n != t.root; n = n.parent {
		adjust(subtree(n), q, add)
	}
}

// trackReserved adds (or removes) reservations whose current role is path.
func (t *roleTree) trackReserved(path string, q resources.Quantities, add bool) {
	t.track(path, q, add, func(n *roleNode) *resources.Quantities { return &n.reserved })
	if !add {
		t.prune(path)
	}
}

// trackAllocatedReserved adds (or removes) offered or allocated
// reservations whose current role is path.
func (t *roleTree) trackAllocatedReserved(path string, q resources.Quantities, add bool) {
	t.track(path, q, add,
		func(n *roleNode) *resources.Quantities { return &n.allocatedReserved })
}

// trackAllocatedUnreserved adds (or removes) unreserved non-revocable
// scalars offered or allocated to frameworks under role path.
func (t *roleTree) trackAllocatedUnreserved(path string, q resources.Quantities, add bool) {
	t.track(path, q, add, allocatedUnreserved)
}

// trackAllocatedUnreservedAt is trackAllocatedUnreserved with the role's
// node at hand: an offer has it, and spares the lookup.
func (t *roleTree) trackAllocatedUnreservedAt(n *roleNode, q resources.Quantities, add bool) {
	t.trackAt(n, q, add, allocatedUnreserved)
}

func allocatedUnreserved(n *roleNode) *resources.Quantities { return &n.allocatedUnreserved }

// consumed returns what counts against a role's quota: every reservation in
// its subtree, offered or not, plus the unreserved non-revocable scalars
// offered or allocated in its subtree.
func (n *roleNode) consumed() resources.Quantities {
	return n.reserved.Plus(n.allocatedUnreserved)
}

// quotaAncestry yields n and its ancestors that have quota, nearest first.
func (n *roleNode) quotaAncestry(yield func(*roleNode) bool) {
	for ; n != nil && n.path != ""; n = n.parent {
		if !n.q().IsZero() && !yield(n) {
			return
		}
	}
}
