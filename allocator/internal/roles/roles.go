package roles

import (
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Node is one role of the role tree. The tree holds every role that has
// frameworks, reservations, allocations, quota or a weight, and their
// ancestors. Aggregates are hierarchical: a node's figures include its
// descendants', so a child's consumption counts against every ancestor.
type Node struct {
	Path   string
	Parent *Node
	// Children are sorted by path, so that runs walk them in order
	// without sorting a map's keys (the headroom for guarantees is summed
	// over the root's children every run with quota).
	Children []*Node

	// Frameworks tracked under the role: subscribed, or still holding
	// resources allocated to it; fs is the role's framework sorter, which
	// holds them, nil while there are none.
	Frameworks      tables.FrameworkSet
	FrameworkSorter *TrackedSorter
	// Quota is the role's quota; nil when it has none (most roles), so
	// that a node is 192 bytes, not 224 (read it through q).
	Quota *Quota

	// Reserved: scalar reservations (by current reservation role) on all
	// agents, in the subtree, offered or not.
	Reserved resources.Quantities
	// AllocatedUnreserved: unreserved, non-revocable scalars offered or
	// allocated to frameworks under the subtree (by allocation role).
	AllocatedUnreserved resources.Quantities
	// AllocatedReserved: scalar reservations (by reservation role) in the
	// subtree that are offered or allocated.
	AllocatedReserved resources.Quantities

	// Epoch changes whenever the role's frameworks change in a way that can
	// turn a framework that was passed over into one that is not: one
	// added, activated, revived, its filters cleared or its info updated.
	// Epochs come from the tree's counter, so a role that leaves the tree
	// and comes back never has an epoch it had before.
	Epoch uint64
	// CappedRun is the run in which the role was found unable to take any
	// more resources anywhere (see Allocator.capped), and cappedBy why: a
	// quota limit (ReasonQuotaLimit), the headroom held for others
	// (ReasonHeadroom), or nothing scalar free at all (ReasonMinAllocatable).
	CappedRun uint64
	CappedBy  uint8 // a Reason of package allocator
}

type Tree struct {
	Root  *Node
	Nodes Nodes
	// Weights holds the non-default weights by role path; a weighted role
	// stays in the tree.
	Weights map[string]float64
	// Epochs is the last epoch handed out (newEpoch).
	Epochs uint64
	// unmetBuf, needBufs (a pair a depth), requiredBuf, limitsBuf and
	// leftBuf hold quota figures worked out on the hot path (quota.go).
	unmetBuf, RequiredBuf resources.Quantities
	needBufs              []*[2]resources.Quantities
	limitsBuf, leftBuf    resources.Limits
}

// Q returns the role's quota, the zero Quota when it has none; the result
// must not be changed (set a quota with setQuota).
func (n *Node) Q() *Quota {
	if n.Quota == nil {
		return &NoQuota
	}
	return n.Quota
}

// NoQuota is the quota of a role without one; never changed.
var NoQuota Quota

// SetQuota sets the role's quota, none when q is zero.
func (n *Node) SetQuota(q Quota) {
	if q.IsZero() {
		n.Quota = nil
		return
	}
	n.Quota = &q
}

// NewEpoch returns an epoch no node has had.
func (t *Tree) NewEpoch() uint64 {
	t.Epochs++
	return t.Epochs
}

func NewTree() *Tree {
	root := &Node{}
	return &Tree{Root: root, Weights: map[string]float64{}}
}

func (t *Tree) Get(path string) *Node { return t.Nodes.Get(path) }

// Ensure returns the node of path, creating it and its ancestors.
func (t *Tree) Ensure(path string) *Node {
	if n := t.Nodes.Get(path); n != nil {
		return n
	}
	parent := t.Root
	if p, ok := reservation.Parent(path); ok {
		parent = t.Ensure(p)
	}
	n := &Node{Path: path, Parent: parent, Epoch: t.NewEpoch()}
	i, _ := slices.BinarySearchFunc(parent.Children, path, ByPath)
	parent.Children = slices.Insert(parent.Children, i, n)
	t.Nodes.Put(n)
	return n
}

// ByPath orders a node against a path, for searches of children.
func ByPath(n *Node, path string) int { return strings.Compare(n.Path, path) }

// Prune drops path and then its ancestors while they hold nothing.
func (t *Tree) Prune(path string) {
	n := t.Nodes.Get(path)
	for n != nil && n != t.Root {
		if len(n.Children) > 0 || n.Frameworks.Len() > 0 || n.FrameworkSorter != nil || !n.Q().IsZero() ||
			!n.Reserved.IsEmpty() || !n.AllocatedUnreserved.IsEmpty() || !n.AllocatedReserved.IsEmpty() {
			return
		}
		if _, ok := t.Weights[n.Path]; ok {
			return
		}
		if i, ok := slices.BinarySearchFunc(n.Parent.Children, n.Path, ByPath); ok {
			n.Parent.Children = slices.Delete(n.Parent.Children, i, i+1)
		}
		t.Nodes.Delete(n.Path)
		n = n.Parent
	}
}

// Adjust adds by to q, or subtracts it (saturating at zero).
func Adjust(q *resources.Quantities, by resources.Quantities, add bool) {
	if add {
		q.Add(by)
	} else {
		q.Subtract(by)
	}
}

// track adds q to (or removes it from) one subtree figure of the node of
// path and of every ancestor. A leaf's figures are its own; a node with
// children is never pruned, so no node keeps its own part apart.
func (t *Tree) track(path string, q resources.Quantities, add bool, subtree func(*Node) *resources.Quantities) {
	if q.IsEmpty() {
		return
	}
	t.trackAt(t.Ensure(path), q, add, subtree)
}

// trackAt is track with the node at hand.
func (t *Tree) trackAt(n *Node, q resources.Quantities, add bool, subtree func(*Node) *resources.Quantities) {
	if q.IsEmpty() {
		return
	}
	for ; n != t.Root; n = n.Parent {
		Adjust(subtree(n), q, add)
	}
}

// TrackReserved adds (or removes) reservations whose current role is path.
func (t *Tree) TrackReserved(path string, q resources.Quantities, add bool) {
	t.track(path, q, add, func(n *Node) *resources.Quantities { return &n.Reserved })
	if !add {
		t.Prune(path)
	}
}

// TrackAllocatedReserved adds (or removes) offered or allocated
// reservations whose current role is path.
func (t *Tree) TrackAllocatedReserved(path string, q resources.Quantities, add bool) {
	t.track(path, q, add,
		func(n *Node) *resources.Quantities { return &n.AllocatedReserved })
}

// TrackAllocatedUnreserved adds (or removes) unreserved non-revocable
// scalars offered or allocated to frameworks under role path.
func (t *Tree) TrackAllocatedUnreserved(path string, q resources.Quantities, add bool) {
	t.track(path, q, add, allocatedUnreserved)
}

// TrackAllocatedUnreservedAt is trackAllocatedUnreserved with the role's
// node at hand: an offer has it, and spares the lookup.
func (t *Tree) TrackAllocatedUnreservedAt(n *Node, q resources.Quantities, add bool) {
	t.trackAt(n, q, add, allocatedUnreserved)
}

func allocatedUnreserved(n *Node) *resources.Quantities { return &n.AllocatedUnreserved }

// Consumed returns what counts against a role's quota: every reservation in
// its subtree, offered or not, plus the unreserved non-revocable scalars
// offered or allocated in its subtree.
func (n *Node) Consumed() resources.Quantities {
	return n.Reserved.Plus(n.AllocatedUnreserved)
}

// QuotaAncestry yields n and its ancestors that have quota, nearest first.
func (n *Node) QuotaAncestry(yield func(*Node) bool) {
	for ; n != nil && n.Path != ""; n = n.Parent {
		if !n.Q().IsZero() && !yield(n) {
			return
		}
	}
}

// TrackedSorter is a sorter and the version of the cluster totals it knows.
type TrackedSorter struct {
	sorter.Sorter
	TotalsVersion uint64
	Salt          uint64 // the sorter was made with sorterConfig(salt)
}

// Quota is a role's quota: package allocator's Quota, field for field.
type Quota struct {
	Guarantees resources.Quantities
	Limits     resources.Limits
}

// IsZero reports whether the quota guarantees and limits nothing.
func (q Quota) IsZero() bool { return q.Guarantees.IsEmpty() && q.Limits.IsEmpty() }

// Nodes holds a role tree's nodes by path (the root's, "", is not
// among them).
type Nodes = tables.Table[Node, byNodePath]

// byNodePath keys a role-tree node by its path.
type byNodePath struct{}

func (byNodePath) Of(n *Node) string { return n.Path }
