package sorter

import (
	"fmt"
	"slices"

	"github.com/allot-go/allot/resources"
)

// LazyDRF is the DRF sorter for hosts that keep many sorters of one client
// each, as the allocator keeps a framework sorter per role and most roles
// have one framework. While it has at most one client, charged with
// quantities only (Charger), it keeps that client's figures in a few
// fields instead of a tree: about 0.2 KB where a DRF sorter of one client
// takes 1.2 KB. The first call that needs more (a second client, an
// allocation on an agent, a weight, an allowance) builds the DRF sorter
// the calls so far would have made, and from then on it is that sorter;
// a restored snapshot goes into the fields when they can hold it. Calls
// about a client it does not have fail without building, and rare queries (Describe, Shares, snapshots,
// the share of a path that is not the client) ask a DRF sorter built for
// the call and dropped.
//
// Its answers are the DRF sorter's in every respect: orders, numbers,
// shares, errors and snapshots byte for byte, so a snapshot of either
// restores into the other.
type LazyDRF struct {
	cfg Config
	// d is the DRF sorter once built; nil while the fields below stand
	// for it.
	d *DRF

	// The one client, while d is nil: its path, whether it is present and
	// active, what it was charged and how many allocations it counted.
	// numbered: a client was added (and maybe removed), so the tree's
	// numbers have one slot, free while no client is present. (The flags
	// sit together: the record is 144 bytes, a size class below 160.)
	client                    string
	present, active, numbered bool
	charged                   resources.Quantities
	count                     uint64
	// agents are the added agents' totals in the order they were added
	// (the pool is their sum, see pool: an allocator's sorters have one).
	agents []savedQuantities
	// order is Sort's result.
	order []string
}

var (
	_ Sorter      = (*LazyDRF)(nil)
	_ Charger     = (*LazyDRF)(nil)
	_ Indexed     = (*LazyDRF)(nil)
	_ Stable      = (*LazyDRF)(nil)
	_ Sharer      = (*LazyDRF)(nil)
	_ Snapshotter = (*LazyDRF)(nil)
	_ Allowances  = (*LazyDRF)(nil)
)

// NewLazyDRF returns an empty LazyDRF sorter.
func NewLazyDRF(cfg Config) *LazyDRF { return &LazyDRF{cfg: cfg} }

// replay returns the DRF sorter the calls so far would have made.
func (l *LazyDRF) replay() *DRF {
	d := NewDRF(l.cfg)
	for _, a := range l.agents {
		d.AddAgent(a.key, a.q)
	}
	if !l.numbered {
		return d
	}
	if !l.present {
		// The client that held the one number left: the number is free.
		const gone = "gone"
		_ = d.Add(gone)
		_ = d.Remove(gone)
		return d
	}
	_ = d.Add(l.client)
	if l.active {
		_ = d.Activate(l.client)
	}
	_ = d.Charge(l.client, l.charged, false)
	d.t.setCount(l.client, l.count)
	d.changed(nil)
	return d
}

// built returns the DRF sorter, building it first if need be.
func (l *LazyDRF) built() *DRF {
	if l.d == nil {
		l.d = l.replay()
		l.client, l.charged, l.agents, l.order = "", resources.Quantities{}, nil, nil
	}
	return l.d
}

// view returns the DRF sorter if built, or a replay that is dropped after
// the call: for the queries that are rare enough to pay for one.
func (l *LazyDRF) view() *DRF {
	if l.d != nil {
		return l.d
	}
	return l.replay()
}

// unknownClient is the tree's error for a client it does not have: a
// call about another client than the one fails without building the tree.
func unknownClient(client string) error {
	return fmt.Errorf("%w %q", ErrUnknownClient, client)
}

// is reports whether the sorter has not been built and client is its one
// client.
func (l *LazyDRF) is(client string) bool {
	return l.d == nil && l.present && client == l.client
}

// Add adds an inactive client with no allocation (see DRF.Add).
func (l *LazyDRF) Add(client string) error {
	if l.d != nil {
		return l.d.Add(client)
	}
	if err := ValidatePath(client); err != nil {
		return err
	}
	if l.present {
		if client == l.client {
			return fmt.Errorf("%w %q", ErrDuplicateClient, client)
		}
		return l.built().Add(client)
	}
	l.client, l.present, l.active, l.count, l.numbered = client, true, false, 0, true
	l.charged.Reset()
	return nil
}

// Remove removes a client and its allocation (see DRF.Remove).
func (l *LazyDRF) Remove(client string) error {
	if l.d != nil {
		return l.d.Remove(client)
	}
	if !l.is(client) {
		return unknownClient(client)
	}
	l.client, l.present, l.active, l.count = "", false, false, 0
	l.charged = resources.Quantities{}
	l.order = l.order[:0]
	return nil
}

// Activate makes client eligible for Sort (see DRF.Activate).
func (l *LazyDRF) Activate(client string) error {
	if l.d != nil {
		return l.d.Activate(client)
	}
	return l.setActive(client, true)
}

// Deactivate hides client from Sort (see DRF.Deactivate).
func (l *LazyDRF) Deactivate(client string) error {
	if l.d != nil {
		return l.d.Deactivate(client)
	}
	return l.setActive(client, false)
}

// setActive sets the one client's activity, before the tree is built.
func (l *LazyDRF) setActive(client string, active bool) error {
	if !l.is(client) {
		return unknownClient(client)
	}
	l.active = active
	return nil
}

// UpdateWeight sets the weight of the node at path (see DRF.UpdateWeight).
func (l *LazyDRF) UpdateWeight(path string, weight float64) error {
	return l.built().UpdateWeight(path, weight)
}

// SetAllowance sets what the node at path may hold before it counts in its
// share (see Allowances).
func (l *LazyDRF) SetAllowance(path string, allowance resources.Quantities) error {
	return l.built().SetAllowance(path, allowance)
}

// Allocated records that r on agent was given to client (see
// DRF.Allocated).
func (l *LazyDRF) Allocated(client, agent string, r resources.Resources) error {
	return l.built().Allocated(client, agent, r)
}

// Unallocated records that client gave back r on agent (see
// DRF.Unallocated).
func (l *LazyDRF) Unallocated(client, agent string, r resources.Resources) error {
	return l.built().Unallocated(client, agent, r)
}

// Update replaces old with new in client's allocation on agent (see
// DRF.Update).
func (l *LazyDRF) Update(client, agent string, old, new resources.Resources) error {
	return l.built().Update(client, agent, old, new)
}

// Charge adds q to client's allocation (see Charger).
func (l *LazyDRF) Charge(client string, q resources.Quantities, count bool) error {
	if l.d != nil {
		return l.d.Charge(client, q, count)
	}
	if !l.is(client) {
		return unknownClient(client)
	}
	l.charged.Add(q)
	if count {
		l.count++
	}
	return nil
}

// Discharge takes q back from client's charged allocation (see Charger).
func (l *LazyDRF) Discharge(client string, q resources.Quantities) error {
	if l.d != nil {
		return l.d.Discharge(client, q)
	}
	if !l.is(client) {
		return unknownClient(client)
	}
	if !l.charged.Contains(q) {
		return fmt.Errorf("%w: %q was charged %s, not %s", ErrNotAllocated, client, l.charged, q)
	}
	l.charged.Subtract(q)
	return nil
}

// Allocation returns client's resources per agent (see DRF.Allocation):
// nil before the sorter is built, as charges are not in it.
func (l *LazyDRF) Allocation(client string) map[string]resources.Resources {
	if l.d != nil {
		return l.d.Allocation(client)
	}
	return nil
}

// AllocationQuantities returns the scalar quantities client holds (see
// DRF.AllocationQuantities).
func (l *LazyDRF) AllocationQuantities(client string) resources.Quantities {
	if l.d != nil {
		return l.d.AllocationQuantities(client)
	}
	if l.is(client) {
		return l.charged.Clone()
	}
	return resources.Quantities{}
}

// AddAgent sets the scalar total agent contributes to the pool (see
// DRF.AddAgent).
func (l *LazyDRF) AddAgent(agent string, total resources.Quantities) {
	if l.d != nil {
		l.d.AddAgent(agent, total)
		return
	}
	i := slices.IndexFunc(l.agents, func(a savedQuantities) bool { return a.key == agent })
	// total is kept, not copied (see Sorter.AddAgent).
	if i < 0 {
		l.agents = append(l.agents, savedQuantities{key: agent, q: total})
		return
	}
	l.agents[i].q = total
}

// pool returns the sum of the agents' totals, which the tree keeps as
// its total: the one agent's own when there is one (an allocator's sorters
// have only the pool), so that no second copy is kept.
func (l *LazyDRF) pool() resources.Quantities {
	if len(l.agents) == 1 {
		return l.agents[0].q
	}
	var sum resources.Quantities
	for _, a := range l.agents {
		sum.Add(a.q)
	}
	return sum
}

// RemoveAgent removes agent's total from the pool (see DRF.RemoveAgent).
func (l *LazyDRF) RemoveAgent(agent string) error {
	if l.d != nil {
		return l.d.RemoveAgent(agent)
	}
	i := slices.IndexFunc(l.agents, func(a savedQuantities) bool { return a.key == agent })
	if i < 0 {
		return fmt.Errorf("%w %q", ErrUnknownAgent, agent)
	}
	l.agents = slices.Delete(l.agents, i, i+1)
	return nil
}

// Sort returns the active clients, first served first (see DRF.Sort).
func (l *LazyDRF) Sort() []string {
	if l.d != nil {
		return l.d.Sort()
	}
	l.order = l.order[:0]
	if l.present && l.active {
		l.order = append(l.order, l.client)
	}
	return l.order
}

// Walk visits the active clients in Sort's order (see Walker).
func (l *LazyDRF) Walk(visit func(client string) bool) {
	if l.d != nil {
		l.d.Walk(visit)
		return
	}
	if l.present && l.active {
		visit(l.client)
	}
}

// WalkExcept is Walk without the clients whose numbers are in skip (see
// Indexed); the one client's number is 0.
func (l *LazyDRF) WalkExcept(skip Bitset, visit func(client string) bool) {
	if l.d != nil {
		l.d.WalkExcept(skip, visit)
		return
	}
	if l.present && l.active && !skip.Has(0) {
		visit(l.client)
	}
}

// Index returns the client's number (see Indexed).
func (l *LazyDRF) Index(client string) (int, bool) {
	if l.d != nil {
		return l.d.Index(client)
	}
	return 0, l.is(client)
}

// Contains reports whether client has been added and not removed.
func (l *LazyDRF) Contains(client string) bool {
	if l.d != nil {
		return l.d.Contains(client)
	}
	return l.is(client)
}

// Count returns the number of clients, active or not.
func (l *LazyDRF) Count() int {
	if l.d != nil {
		return l.d.Count()
	}
	if l.present {
		return 1
	}
	return 0
}

// Stable marks the order as stable (see Stable): it is the DRF order.
func (l *LazyDRF) Stable() {}

// ShareOf returns the weighted dominant share of the node at path (see
// DRF.ShareOf). The one client's share is worked out as the tree works it
// out (no weight or allowance can apply before the tree is built); other
// paths ask a replay.
func (l *LazyDRF) ShareOf(path string) float64 {
	if l.is(path) {
		s, _ := l.charged.DominantShare(l.pool(), l.cfg.FairnessExcluded)
		return s
	}
	return l.view().ShareOf(path)
}

// Shares returns every client's share (see DRF.Shares).
func (l *LazyDRF) Shares() []Share { return l.view().Shares() }

// Describe renders the tree as DRF.Describe does.
func (l *LazyDRF) Describe() string { return l.view().Describe() }

// MarshalBinary saves the sorter's state: the DRF sorter's bytes (see
// Snapshotter).
func (l *LazyDRF) MarshalBinary() ([]byte, error) { return l.view().MarshalBinary() }

// UnmarshalBinary restores a state saved by a DRF or LazyDRF sorter's
// MarshalBinary into an empty sorter made with the same Config (see
// Snapshotter). The restored sorter is built.
func (l *LazyDRF) UnmarshalBinary(data []byte) error {
	if l.d != nil {
		return l.d.UnmarshalBinary(data)
	}
	if l.present || len(l.agents) > 0 {
		return fmt.Errorf("%w: the sorter is not empty", ErrInvalidSnapshot)
	}
	d := NewDRF(l.cfg)
	if err := d.UnmarshalBinary(data); err != nil {
		return err
	}
	if !l.adopt(d) {
		l.d = d
		l.order = nil
	}
	return nil
}

// adopt takes d's state into the one client's fields when they can stand
// for it (so that a restored sorter of one framework stays small), and
// reports whether they could: no weight, no allowance, no holding on an
// agent, the one number only, and every node on the client's path counted
// what the client counted.
func (l *LazyDRF) adopt(d *DRF) bool {
	t := &d.t
	if len(t.weights) > 0 || len(t.allowances) > 0 || len(t.byIndex) > 1 || t.clientCount() > 1 {
		return false
	}
	var leaf *node
	for n := range t.leaves() {
		leaf = n
	}
	if leaf != nil {
		if len(leaf.held) > 0 || leaf.index != 0 || !leaf.total.Equal(leaf.charged) {
			return false
		}
		for n := leaf.parent; n != t.root; n = n.parent {
			if n.count != leaf.count {
				return false
			}
		}
		l.client, l.present, l.active, l.charged, l.count = leaf.client(), true, leaf.active, leaf.charged.Clone(), leaf.count
	}
	l.numbered = len(t.byIndex) == 1
	l.agents = append(l.agents, t.savedAgents()...)
	return true
}

// setCount sets a client's allocation count, and its ancestors', to n: a
// replay's one client has counted all the allocations there are.
func (t *tree) setCount(client string, n uint64) {
	l, ok := t.leafOf(client)
	if !ok {
		return
	}
	for x := l; x != t.root; x = x.parent {
		x.count = n
	}
	t.touch(l)
}
