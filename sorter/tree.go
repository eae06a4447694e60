package sorter

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/google/btree"

	"github.com/allot-go/allot/resources"
)

// virtualName is the path component of the virtual leaf that stands for a
// client which also has children.
const virtualName = "."

// nodeFreeList recycles the btree nodes of every sorter's orders: a sorter
// per role, most of them small, need not each keep a free list of its own.
// A FreeListG is safe for concurrent use.
var nodeFreeList = btree.NewFreeListG[*node](btree.DefaultFreeListSize)

// btreeDegree is the degree of the per-node child orders. Sibling sets are
// small or flat-and-wide (a thousand frameworks in one role); 16 keeps the
// trees shallow without making each node's linear search expensive.
const btreeDegree = 16

// key is what a node is filed under in its parent's order. It is a snapshot:
// the live figures (activeLeaves, total, count, weight) may have moved on
// while the node waits in tree.pending, and the btree can only find the node
// by the key it was inserted with.
type key struct {
	share float64 // weighted dominant share
	count uint64  // allocation count
	// tie orders siblings of equal share and count before their names do
	// (see tieOf); it lives in what was the struct's padding.
	tie  uint32
	idle bool // no active leaf in the subtree: sorts after every active sibling
}

// tieOf is the part of name that orders it among its siblings before the
// names themselves are compared: the four bytes after the prefix every name
// in the tree shares (from), as a big-endian number, zeros past the name's
// end. A smaller tie means a smaller name (the names share their first from
// bytes, and a name that ends early is a prefix of the other); equal ties
// leave it to the names. Siblings often tie on share and count (a role's
// frameworks before their first offers, or refused alike), and their names
// (framework ids such as "<uuid>-0007") often differ only in their last
// characters: comparing four bytes held in the key spares reading the
// names and comparing them from the start.
func tieOf(name string, from int) uint32 {
	var b [4]byte
	copy(b[:], name[min(from, len(name)):])
	return binary.BigEndian.Uint32(b[:])
}

// node is a tree node: a client (leaf), a virtual leaf "." standing for a
// client that also has children, or an internal node for a path prefix.
//
// The fields a sort reads and writes for every node come first (through
// path), so that re-keying a level after a change of the pool, which
// makes every share stale, reads the first two or three cache lines of each
// child rather than four spread over the node. active, activeLeaves and
// parent sit together: Activate and Allocated walk up the tree changing
// the figures next to parent. Counts and numbers bounded by the number of
// clients are 32 bits, and a leaf's client is worked out from its path
// (client), so that a node is 208 bytes, a size class below 240: every
// client of every sorter has one.
type node struct {
	name   string  // path component; "." for a virtual leaf; "" for the root
	count  uint64  // Allocated calls for this node or a descendant
	weight float64 // weight of this node's path (1 unless set)

	leaf    bool
	active  bool // leaves only: eligible for Sort
	dead    bool // removed from the tree
	pending bool // queued in tree.pending: key may be stale
	// activeLeaves counts the active leaves in the subtree (a leaf counts
	// itself).
	activeLeaves int32
	parent       *node

	key   key // the key this node is filed under in parent.order
	total resources.Quantities
	pos   int32 // active leaves: index in the DRF sorter's cached order
	// index is a leaf's number (see Indexed): dense, kept while the client
	// is present.
	index int32
	path  string // full path; "a/." for the virtual leaf of client a

	// held lists the client's allocation, one holding per agent (leaves
	// only); view is Allocation's map of it, built on demand.
	held []*agent
	view map[string]resources.Resources
	// charged is what Charge added to a leaf, beyond its holdings.
	charged resources.Quantities
	// shared holds, per agent, the shared resources allocated anywhere in
	// the subtree, with their copy counts; nil while there are none. A shared
	// volume counts once per node per agent however many copies it holds.
	shared map[string]resources.Resources

	kids  nodeMap[byName]      // internal nodes only: children by name
	order *btree.BTreeG[*node] // internal nodes only: children in order
}

// client returns the client a leaf stands for: its path, or its parent's
// for the virtual leaf "." of a client that also has children.
func (n *node) client() string {
	if n.name == virtualName {
		return n.parent.path
	}
	return n.path
}

// lessNode orders siblings: subtrees with an active leaf first, then by
// ascending weighted share, allocation count and name. Siblings share their
// parent's path, so the name order is the path order.
func lessNode(a, b *node) bool {
	if c := compareKeys(&a.key, &b.key); c != 0 {
		return c < 0
	}
	return a.name < b.name
}

// compareNodes is lessNode as a three-way comparison, for slices.SortFunc:
// one pass over the keys instead of the two that lessNode both ways takes.
func compareNodes(a, b *node) int {
	if c := compareKeys(&a.key, &b.key); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}

// compareKeys is the order of keys, names apart: -1, 0 or +1 as x comes
// before y, ties with it, or comes after. It is the one place the order is
// written: lessNode (the B-tree's comparison), compareNodes and the scan of
// leafKeys (leastExcept) all use it.
func compareKeys(x, y *key) int {
	switch {
	case x.idle != y.idle:
		if x.idle {
			return 1
		}
		return -1
	case x.share < y.share:
		return -1
	case x.share > y.share:
		return 1
	case x.count < y.count:
		return -1
	case x.count > y.count:
		return 1
	case x.tie < y.tie:
		return -1
	case x.tie > y.tie:
		return 1
	}
	return 0
}

// tree is the client hierarchy with allocation bookkeeping, shared by the
// DRF and random sorters. With fair set, it also keeps every internal node's
// children ordered by weighted share (the DRF order); without, children are
// kept in name order only.
type tree struct {
	fair     bool
	excluded resources.NameSet

	root *node // keeps activeLeaves only, not allocation figures
	// deep holds the leaves of the clients whose path has a "/", by
	// client; the others are found through the root (see clients.go).
	deep nodeMap[byClient]
	// byIndex holds each leaf at its number; free lists numbers to reuse.
	byIndex []*node
	free    []int
	// leafKeys holds the key of each of the root's leaves at its number
	// (idle for a free number), kept with every change of such a leaf's
	// key: a scan that compares many leaves (WalkExcept's, in a flat tree
	// where most clients are skipped) reads one dense slice rather than
	// every leaf. The entries of deeper leaves are not kept.
	leafKeys []key
	weights  map[string]float64 // path -> weight, for weights other than 1
	// allowances holds, by path, what a node may hold before it counts in
	// its share (see Allowances); allowed is shareOf's scratch.
	allowances map[string]resources.Quantities
	allowed    resources.Quantities
	agents     agentIndex           // agents with a total or a holding
	total      resources.Quantities // sum of the agents' totals
	nodes      int                  // nodes below the root
	scratch    resources.Quantities // see load
	// tieFrom is how many leading bytes every name given in the tree so
	// far shares (with tieRef, the first of them): the keys' ties are read
	// after them (see tieOf). It only shrinks, and when it does every
	// node's tie is worked out again.
	tieFrom int
	tieRef  string

	// pending lists the nodes whose key may be stale, each once. When too
	// many are pending, or every share changed (the pool total did),
	// rebuild is set instead and every order is rebuilt from scratch.
	pending []*node
	rebuild bool
	// kidBuf is refile's scratch, and collect (bound once, so that
	// iterating allocates nothing) appends to it.
	kidBuf  []*node
	collect func(*node) bool

	// after's iteration state, kept here so that the iteration allocates
	// nothing.
	succOf, succ *node
	findSucc     func(*node) bool
}

func newTree(fair bool, excluded resources.NameSet) tree {
	t := tree{
		fair:     fair,
		excluded: excluded,
	}
	t.root = t.newInternal("", "", nil)
	return t
}

// bind finishes a tree in its final place: the iteration callbacks are
// bound to its address.
func (t *tree) bind() {
	t.findSucc = t.findSuccessor
	t.collect = t.collectKid
}

func (t *tree) newInternal(name, path string, parent *node) *node {
	return &node{
		name:   name,
		path:   path,
		parent: parent,
		weight: t.weightOf(path),
		order:  btree.NewWithFreeListG(btreeDegree, lessNode, nodeFreeList),
	}
}

func (t *tree) weightOf(path string) float64 {
	if w, ok := t.weights[path]; ok {
		return w
	}
	return 1
}

// validPath reports whether p is a usable client or weight path: not empty,
// no empty component, no "." component.
func validPath(p string) bool {
	if p == "" {
		return false
	}
	for rest := p; ; {
		c, more, found := strings.Cut(rest, "/")
		if c == "" || c == virtualName {
			return false
		}
		if !found {
			return true
		}
		rest = more
	}
}

// shareOf returns n's weighted dominant share, computed from the integer
// quantities: equal allocations give bit-identical shares.
func (t *tree) shareOf(n *node) (float64, string) {
	total := n.total
	if len(t.allowances) != 0 {
		if allow, ok := t.allowances[n.path]; ok {
			t.allowed.Reset()
			t.allowed.Add(n.total)
			t.allowed.Subtract(allow)
			total = t.allowed
		}
	}
	s, dom := total.DominantShare(t.total, t.excluded)
	if n.weight != 1 {
		s /= n.weight // x / 1 is x: most nodes skip a division
	}
	return s, dom
}

func (t *tree) keyOf(n *node) key {
	if !t.fair {
		return key{tie: n.key.tie}
	}
	s, _ := t.shareOf(n)
	return key{idle: n.activeLeaves == 0, share: s, count: n.count, tie: n.key.tie}
}

// named gives n, just named and not yet filed, its tie. A name that shares
// fewer leading bytes with the others than they do among themselves moves
// every node's tie first, all in one step, so that siblings' ties always
// count from the same byte.
func (t *tree) named(n *node) {
	if t.tieRef == "" {
		t.tieRef, t.tieFrom = n.name, len(n.name)
	}
	if p := commonPrefix(n.name, t.tieRef); p < t.tieFrom {
		t.tieFrom = p
		t.retie(t.root)
	}
	n.key.tie = tieOf(n.name, t.tieFrom)
}

// retie works out again the ties of the nodes filed below n. Every order
// stays valid: ties agree with the names however many bytes they skip, so
// siblings of equal share and count keep their order by name.
func (t *tree) retie(n *node) {
	if n.order == nil {
		return
	}
	n.order.Ascend(func(c *node) bool {
		k := c.key
		k.tie = tieOf(c.name, t.tieFrom)
		t.setKey(c, k)
		t.retie(c)
		return true
	})
}

// commonPrefix returns how many leading bytes a and b share.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// setKey gives n the key k, and a numbered leaf's mirror in leafKeys. Only
// the root's leaves are mirrored: the mirror is read only while every leaf
// is one (WalkExcept's flat trees), and a leaf never changes its depth.
func (t *tree) setKey(n *node, k key) {
	n.key = k
	if n.leaf && n.parent == t.root && int(n.index) < len(t.byIndex) && t.byIndex[n.index] == n {
		t.leafKeys[n.index] = k
	}
}

// place files leaf at its number, with its key's mirror.
func (t *tree) place(leaf *node) {
	t.byIndex[leaf.index] = leaf
	t.leafKeys[leaf.index] = leaf.key
}

// file inserts n into its parent's order under a fresh key.
func (t *tree) file(n *node) {
	t.setKey(n, t.keyOf(n))
	if _, dup := n.parent.order.ReplaceOrInsert(n); dup {
		panic(fmt.Sprintf("sorter: node %q filed twice", n.path))
	}
}

// unfile removes n from its parent's order.
func (t *tree) unfile(n *node) {
	// The node re-filed most often is the one a walk has just given an
	// allocation to, the first of its order: taking the minimum compares
	// no keys.
	order := n.parent.order
	if first, ok := order.Min(); ok && first == n {
		order.DeleteMin()
		return
	}
	if _, ok := order.Delete(n); !ok {
		panic(fmt.Sprintf("sorter: node %q missing from its parent's order", n.path))
	}
}

// touch queues n and its ancestors for re-filing: their shares, counts or
// activity changed.
func (t *tree) touch(n *node) {
	if !t.fair || t.rebuild {
		return
	}
	for ; n.parent != nil; n = n.parent {
		if n.pending {
			continue
		}
		if len(t.pending) >= t.nodes/4+8 {
			// Many nodes changed: one rebuild is cheaper than re-filing
			// each of them.
			t.markRebuild()
			return
		}
		n.pending = true
		t.pending = append(t.pending, n)
	}
}

func (t *tree) markRebuild() {
	if !t.fair {
		return
	}
	t.rebuild = true
	for _, n := range t.pending {
		n.pending = false
	}
	clear(t.pending)
	t.pending = t.pending[:0]
}

// settle brings every order up to date with the live figures. When that
// takes re-keying the whole tree and emit is not nil, it also calls emit
// for every active leaf in Sort's order, as the rebuild visits them anyway,
// and reports true.
func (t *tree) settle(emit func(*node)) (emitted bool) {
	if t.rebuild {
		t.rebuild = false
		t.refile(t.root, emit)
		return emit != nil
	}
	for i, n := range t.pending {
		t.pending[i] = nil
		n.pending = false
		if !n.dead {
			if k := t.keyOf(n); k != n.key {
				t.refileAs(n, k)
			}
		}
	}
	t.pending = t.pending[:0]
	return false
}

// refileAs moves n in its parent's order to key k.
func (t *tree) refileAs(n *node, k key) {
	t.unfile(n)
	t.setKey(n, k)
	if _, dup := n.parent.order.ReplaceOrInsert(n); dup {
		panic(fmt.Sprintf("sorter: node %q filed twice", n.path))
	}
}

// after returns the active sibling that follows n in its parent's order, or
// nil.
func (t *tree) after(n *node) *node {
	t.succOf, t.succ = n, nil
	n.parent.order.AscendGreaterOrEqual(n, t.findSucc)
	t.succOf = nil
	if t.succ != nil && t.succ.key.idle {
		return nil
	}
	return t.succ
}

func (t *tree) findSuccessor(c *node) bool {
	if c == t.succOf {
		return true
	}
	t.succ = c
	return false
}

// refile re-keys n's children from their live figures and brings n's
// order up to date, then does the same below each internal child, in the
// new order; with emit set, it calls emit for each active leaf below n in
// Sort's order. When the children's order under their fresh keys is the one
// they are filed in (a change of the pool often scales shares without
// reordering them), the keys are updated in place; otherwise the children
// are sorted and the order is refilled.
func (t *tree) refile(n *node, emit func(*node)) {
	start := len(t.kidBuf)
	t.kidBuf = slices.Grow(t.kidBuf, n.kids.len())
	n.order.Ascend(t.collect)
	kids := t.kidBuf[start:]
	inOrder := true
	for i, c := range kids {
		// Changing the keys in place keeps the order valid while they stay
		// in order; if they do not, the order is refilled below.
		t.setKey(c, t.keyOf(c))
		if i > 0 && !lessNode(kids[i-1], c) {
			inOrder = false
		}
	}
	if !inOrder {
		slices.SortFunc(kids, compareNodes)
		n.order.Clear(true)
		for _, c := range kids {
			n.order.ReplaceOrInsert(c)
		}
	}
	for _, c := range kids {
		switch {
		case c.leaf:
			if emit != nil && !c.key.idle {
				emit(c)
			}
		case c.key.idle:
			t.refile(c, nil)
		default:
			// The call appends beyond kids, perhaps into a new buffer:
			// kids itself stays as it is.
			t.refile(c, emit)
		}
	}
	clear(t.kidBuf[start:])
	t.kidBuf = t.kidBuf[:start]
}

func (t *tree) collectKid(c *node) bool {
	t.kidBuf = append(t.kidBuf, c)
	return true
}

// find returns the node at path: a client's leaf, an internal node, or with
// a trailing "/." the virtual leaf of a client that has children.
func (t *tree) find(path string) *node {
	if path == "" {
		return nil
	}
	n := t.root
	for rest := path; ; {
		c, more, found := strings.Cut(rest, "/")
		if n.leaf {
			return nil
		}
		n = n.kids.get(c)
		if n == nil {
			return nil
		}
		if !found {
			return n
		}
		rest = more
	}
}

// load sets t.scratch to the scalar quantities of r's non-shared part and
// returns r's shared part. It allocates nothing in the steady state.
func (t *tree) load(r resources.Resources) resources.Resources {
	t.scratch.Reset()
	if !r.HasShared() {
		r.AddQuantitiesTo(&t.scratch)
		return resources.Resources{}
	}
	sh := r.Shared()
	r.NonShared().AddQuantitiesTo(&t.scratch)
	return sh
}

// addTo adds an allocation on agent to n's figures: t.scratch holds the
// scalar quantities of its non-shared part (see load), sh is its shared part.
func (t *tree) addTo(n *node, agent string, sh resources.Resources) {
	n.total.Add(t.scratch)
	if sh.IsEmpty() {
		return
	}
	if n.shared == nil {
		n.shared = make(map[string]resources.Resources)
	}
	old := n.shared[agent]
	before := old.Quantities()
	now := old.Plus(sh)
	n.shared[agent] = now
	n.total.Add(now.Quantities().Minus(before))
}

// subtract removes an allocation on agent from n's figures, with t.scratch
// and sh as for addTo. The shared part's quantities leave the total only with
// the last copy.
func (t *tree) subtract(n *node, agent string, sh resources.Resources) {
	n.total.Subtract(t.scratch)
	if sh.IsEmpty() {
		return
	}
	old := n.shared[agent]
	before := old.Quantities()
	now := old.Minus(sh)
	if now.IsEmpty() {
		delete(n.shared, agent)
	} else {
		n.shared[agent] = now
	}
	n.total.Subtract(before.Minus(now.Quantities()))
}

// number gives leaf a number: one freed by a removed client, or the next.
func (t *tree) number(leaf *node) {
	if n := len(t.free); n > 0 {
		leaf.index = int32(t.free[n-1])
		t.free = t.free[:n-1]
	} else {
		leaf.index = int32(len(t.byIndex))
		t.byIndex = append(t.byIndex, nil)
		t.leafKeys = append(t.leafKeys, key{})
	}
	t.place(leaf)
}
