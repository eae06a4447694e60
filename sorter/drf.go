package sorter

import (
	"github.com/allot-go/allot/resources"
)

// DRF is the hierarchical dominant resource fairness sorter: Sort returns the
// active clients by ascending weighted dominant share, level by level of the
// client tree, ties broken by allocation count and then by path. The package
// documentation describes the rules in full.
//
// The order is maintained incrementally: Allocated, Unallocated, Update,
// Activate, Deactivate and UpdateWeight queue the changed node and its
// ancestors, and the next Sort re-files each of them in its parent's order
// (O(depth · log siblings) per node) and walks the active part of the tree
// once. Sort with nothing changed returns the previous result. AddAgent and
// RemoveAgent change every share, so the next Sort rebuilds every order.
//
// A DRF is not safe for concurrent use.
type DRF struct {
	t      tree
	sorted []string
	valid  bool // sorted is up to date
	visit  func(*node) bool
}

var _ Sorter = (*DRF)(nil)

// NewDRF returns an empty DRF sorter. cfg.Seed is not used: the DRF order is
// fully determined by the calls made.
func NewDRF(cfg Config) *DRF {
	d := &DRF{t: newTree(true, cfg.FairnessExcluded)}
	d.visit = d.visitNode
	return d
}

// Add adds an inactive client with no allocation. If client is a prefix of
// another client's path ("a" with "a/b" present), or becomes one later, its
// own allocation competes with its children's as the virtual leaf "a/.".
// It returns ErrInvalidClient for a malformed path and ErrDuplicateClient if
// client is already present.
func (d *DRF) Add(client string) error {
	err := d.t.add(client)
	d.changed(err)
	return err
}

// Remove removes a client and its allocation; internal nodes left without
// clients below them disappear, and a client left without children turns
// back from a virtual leaf into a plain leaf. It returns ErrUnknownClient if
// client is not present.
func (d *DRF) Remove(client string) error {
	err := d.t.remove(client)
	d.changed(err)
	return err
}

// Activate makes client eligible for Sort; activating an active client does
// nothing. It returns ErrUnknownClient if client is not present.
func (d *DRF) Activate(client string) error {
	err := d.t.setActive(client, true)
	d.changed(err)
	return err
}

// Deactivate hides client from Sort, keeping it and its allocation: its
// allocation still counts in its ancestors' shares. It returns
// ErrUnknownClient if client is not present.
func (d *DRF) Deactivate(client string) error {
	err := d.t.setActive(client, false)
	d.changed(err)
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
// one, even when r is empty. The agent need not have been added. It returns
// ErrUnknownClient if client is not present.
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
// not change. It returns ErrUnknownClient if client is not present and
// ErrNotAllocated if client does not hold old on agent.
func (d *DRF) Update(client, agent string, old, new resources.Resources) error {
	err := d.t.update(client, agent, old, new)
	d.changed(err)
	return err
}

// Allocation returns client's resources per agent, nil for an unknown
// client. The caller must not modify the result, which changes with later
// calls.
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
		d.valid = false
	}
}

// RemoveAgent removes agent's total from the pool. Allocations on the agent
// are kept until unallocated. It returns ErrUnknownAgent if the agent was
// never added or was removed.
func (d *DRF) RemoveAgent(agent string) error {
	err := d.t.removeAgent(agent)
	d.changed(err)
	return err
}

// Sort returns the active clients, first served first: at each level of the
// tree, siblings by ascending weighted share, then allocation count, then
// path; each subtree's clients together. The caller must not modify the
// result; it is valid until the next call.
func (d *DRF) Sort() []string {
	if !d.valid {
		d.t.settle()
		d.sorted = d.sorted[:0]
		d.t.root.order.Ascend(d.visit)
		d.valid = true
	}
	return d.sorted
}

func (d *DRF) visitNode(n *node) bool {
	if n.key.idle {
		return false // every later sibling is idle too
	}
	if n.leaf {
		d.sorted = append(d.sorted, n.client)
	} else {
		n.order.Ascend(d.visit)
	}
	return true
}

// Contains reports whether client has been added and not removed.
func (d *DRF) Contains(client string) bool {
	_, ok := d.t.clients[client]
	return ok
}

// Count returns the number of clients, active or not.
func (d *DRF) Count() int { return len(d.t.clients) }

// changed invalidates the cached order after a successful change.
func (d *DRF) changed(err error) {
	if err == nil {
		d.valid = false
	}
}
