package sorter

import (
	"github.com/allot-go/allot/resources"
	"slices"
)

// DRF is the hierarchical dominant resource fairness sorter: Sort returns the
// active clients by ascending weighted dominant share, level by level of the
// client tree, ties broken by allocation count and then by path. The package
// documentation describes the rules in full.
//
// The order is maintained incrementally. Allocated, Unallocated, Update and
// UpdateWeight update the client's and its ancestors' figures and queue
// them; the next Sort re-files each queued node in its parent's order
// (O(log siblings)) and moves the clients of its subtree to their new place
// in the previous result. After Add, Remove, Activate or Deactivate, the
// next Sort also walks the active part of the tree (O(active clients)).
// Sort with nothing changed returns the previous result. AddAgent and
// RemoveAgent change every share, so the next Sort re-keys every node
// (O(n), or O(n log n) where the order changed).
//
// A DRF is not safe for concurrent use.
type DRF struct {
	t tree

	// sorted is the last Sort's result and leaves the leaves behind it;
	// each leaf's pos is its index.
	sorted []string
	leaves []*node
	// stale: something changed since the last Sort.
	stale bool
	// exact: sorted is the pre-order of the orders as filed, so the next
	// Sort can move the blocks of the nodes it re-files instead of walking
	// the tree. Changes of structure or activity clear it.
	exact bool

	// visit and emit are visitNode and emitNode bound once, so that
	// sorting allocates nothing.
	visit func(*node) bool
	emit  func(*node)

	// Walk's state: the caller's visit, whether to go on, and walkStep
	// bound once.
	walkVisit func(string) bool
	walkMore  bool
	walkStepF func(*node) bool
	// walkSkip holds the numbers of the clients WalkExcept steps over;
	// restBuf is its buffer for the clients it visits.
	walkSkip Bitset
	restBuf  []*node
	// walkBudget, when positive, is how many skipped clients a walk may
	// step over before its first visit; walkGaveUp says it ran out.
	walkBudget int
	walkGaveUp bool
	// Buffers for moving blocks of the cached order.
	bufS []string
	bufN []*node
}

var _ Sorter = (*DRF)(nil)

// NewDRF returns an empty DRF sorter. cfg.Seed is not used: the DRF order is
// fully determined by the calls made.
func NewDRF(cfg Config) *DRF {
	d := &DRF{t: newTree(true, cfg.FairnessExcluded)}
	d.t.bind()
	d.visit = d.visitNode
	d.emit = d.emitNode
	d.walkStepF = d.walkStep
	return d
}

// Add adds an inactive client with no allocation. If client is a prefix of
// another client's path ("a" with "a/b" present), or becomes one later, its
// own allocation competes with its children's as the virtual leaf "a/.".
// It returns ErrInvalidClient for a malformed path and ErrDuplicateClient if
// client is already present.
func (d *DRF) Add(client string) error {
	err := d.t.add(client)
	d.reshaped(err)
	return err
}

// Remove removes a client and its allocation; internal nodes left without
// clients below them disappear, and a client left without children turns
// back from a virtual leaf into a plain leaf. It returns ErrUnknownClient if
// client is not present.
func (d *DRF) Remove(client string) error {
	err := d.t.remove(client)
	d.reshaped(err)
	return err
}

// Activate makes client eligible for Sort; activating an active client does
// nothing. It returns ErrUnknownClient if client is not present.
func (d *DRF) Activate(client string) error {
	err := d.t.setActive(client, true)
	d.reshaped(err)
	return err
}

// Deactivate hides client from Sort, keeping it and its allocation: its
// allocation still counts in its ancestors' shares. It returns
// ErrUnknownClient if client is not present.
func (d *DRF) Deactivate(client string) error {
	err := d.t.setActive(client, false)
	d.reshaped(err)
	return err
}

// UpdateWeight sets the weight of the node at path, which need not exist
// yet: a share is divided by its node's weight. Weights are relative among
// siblings; the virtual leaf of a client with children always has weight 1.
// It returns ErrInvalidClient for a malformed path and ErrInvalidWeight for
// a weight that is not a finite number above zero.
func (d *DRF) UpdateWeight(path string, weight float64) error {
	err := d.t.updateWeight(path, weight)
	d.changed(err)
	return err
}

// Allocated records that r on agent was given to client, active or not. The
// allocation count of the client and of each of its ancestors goes up by
// one, even when r is empty. The agent need not have been added. The sorter
// keeps r without copying it: do not change r in place afterwards (Clone
// it first). It returns ErrUnknownClient if client is not present.
func (d *DRF) Allocated(client, agent string, r resources.Resources) error {
	err := d.t.allocated(client, agent, r)
	d.changed(err)
	return err
}

// Unallocated records that client gave back r on agent. It returns
// ErrUnknownClient if client is not present and ErrNotAllocated if client
// does not hold r on agent.
func (d *DRF) Unallocated(client, agent string, r resources.Resources) error {
	err := d.t.unallocated(client, agent, r)
	d.changed(err)
	return err
}

// Update replaces old with new in client's allocation on agent, for example
// after a reservation or the creation of a volume; the allocation count does
// not change. Like Allocated, it keeps new without copying it. It returns ErrUnknownClient if client is not present and
// ErrNotAllocated if client does not hold old on agent.
func (d *DRF) Update(client, agent string, old, new resources.Resources) error {
	err := d.t.update(client, agent, old, new)
	d.changed(err)
	return err
}

// Allocation returns client's resources per agent; nil for an unknown
// client or one that holds nothing. The caller must not modify the result,
// which is valid until the client's allocation changes.
func (d *DRF) Allocation(client string) map[string]resources.Resources {
	return d.t.allocation(client)
}

// AllocationQuantities returns the scalar quantities client holds summed
// over agents, a shared volume counted once per agent; zero for an unknown
// client.
func (d *DRF) AllocationQuantities(client string) resources.Quantities {
	return d.t.allocationQuantities(client)
}

// AddAgent sets the scalar total agent contributes to the pool shares are
// measured against, replacing any earlier total.
func (d *DRF) AddAgent(agent string, total resources.Quantities) {
	if d.t.addAgent(agent, total) {
		d.reshaped(nil)
	}
}

// RemoveAgent removes agent's total from the pool. Allocations on the agent
// are kept until unallocated. It returns ErrUnknownAgent if the agent was
// never added or was removed.
func (d *DRF) RemoveAgent(agent string) error {
	err := d.t.removeAgent(agent)
	d.reshaped(err)
	return err
}

// Sort returns the active clients, first served first: at each level of the
// tree, siblings by ascending weighted share, then allocation count, then
// path; each subtree's clients together. The caller must not modify the
// result; it is valid until the next call.
func (d *DRF) Sort() []string {
	if !d.stale {
		return d.sorted
	}
	d.stale = false
	if d.exact && !d.t.rebuild {
		d.settleMoving()
		return d.sorted
	}
	clear(d.leaves)
	d.sorted, d.leaves = d.sorted[:0], d.leaves[:0]
	// The result has one entry per active client: size it once rather
	// than let the appends grow it.
	active := int(d.t.root.activeLeaves)
	d.sorted, d.leaves = slices.Grow(d.sorted, active), slices.Grow(d.leaves, active)
	if !d.t.settle(d.emit) {
		d.t.root.order.Ascend(d.visit)
	}
	d.exact = true
	return d.sorted
}

func (d *DRF) visitNode(n *node) bool {
	if n.key.idle {
		return false // every later sibling is idle too
	}
	if n.leaf {
		d.emitNode(n)
	} else {
		n.order.Ascend(d.visit)
	}
	return true
}

// emitNode appends active leaf n to the order Sort is building.
func (d *DRF) emitNode(n *node) {
	n.pos = int32(len(d.sorted))
	d.sorted = append(d.sorted, n.client())
	d.leaves = append(d.leaves, n)
}

// settleMoving re-files the pending nodes and, for each one that changes
// place among its active siblings, moves the block of its subtree's clients
// in the cached order to its new place: O(depth · log siblings) to find the
// places and a memmove of the clients between them. Only shares and counts
// may have changed since the cached order was made.
func (d *DRF) settleMoving() {
	t := &d.t
	for i, n := range t.pending {
		t.pending[i] = nil
		n.pending = false
		k := t.keyOf(n)
		if n.dead || k == n.key {
			continue
		}
		if k.idle || n.key.idle {
			if k.idle != n.key.idle {
				panic("sorter: activity changed under an incremental sort")
			}
			t.refileAs(n, k) // not in the output
			continue
		}
		p := n.parent
		from := d.start(n)
		base, size := 0, len(d.sorted)
		if p != t.root {
			base, size = d.start(p), int(p.activeLeaves)
		}
		t.refileAs(n, k)
		length := int(n.activeLeaves)
		to := base + size - length // last among its active siblings
		if next := t.after(n); next != nil {
			to = d.start(next)
			if to > from {
				to -= length
			}
		}
		d.move(from, length, to)
	}
	t.pending = t.pending[:0]
}

// start returns the index in the cached order of the first client of n's
// subtree; n must have an active leaf.
func (d *DRF) start(n *node) int {
	for !n.leaf {
		n, _ = n.order.Min()
	}
	return int(n.pos)
}

// move moves the block of length clients at from to start at to.
func (d *DRF) move(from, length, to int) {
	if from == to {
		return
	}
	d.bufS = append(d.bufS[:0], d.sorted[from:from+length]...)
	d.bufN = append(d.bufN[:0], d.leaves[from:from+length]...)
	lo, hi := to, from+length // the block moves left over [to, from)
	if to > from {
		// The block moves right over [from+length, to+length).
		copy(d.sorted[from:], d.sorted[from+length:to+length])
		copy(d.leaves[from:], d.leaves[from+length:to+length])
		lo, hi = from, to+length
	} else {
		copy(d.sorted[to+length:], d.sorted[to:from])
		copy(d.leaves[to+length:], d.leaves[to:from])
	}
	copy(d.sorted[to:], d.bufS)
	copy(d.leaves[to:], d.bufN)
	clear(d.bufN)
	for i := lo; i < hi; i++ {
		d.leaves[i].pos = int32(i)
	}
}

// Contains reports whether client has been added and not removed.
func (d *DRF) Contains(client string) bool {
	_, ok := d.t.leafOf(client)
	return ok
}

// Count returns the number of clients, active or not.
func (d *DRF) Count() int { return d.t.clientCount() }

// changed notes a successful change of shares or counts: the next Sort
// re-files the nodes concerned and moves their clients in the cached order.
func (d *DRF) changed(err error) {
	if err == nil {
		d.stale = true
	}
}

// reshaped notes a successful change of the tree's shape, of activity or of
// the pool: the next Sort walks the tree again.
func (d *DRF) reshaped(err error) {
	if err == nil {
		d.stale = true
		d.exact = false
	}
}
