package sorter

import (
	"encoding"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/allot-go/allot/internal/wire"
	"github.com/allot-go/allot/resources"
)

// ErrInvalidSnapshot: UnmarshalBinary was given bytes that MarshalBinary
// of the same kind of sorter did not write, or was called on a sorter that
// is not empty. The error says which.
var ErrInvalidSnapshot = errors.New("sorter: invalid snapshot")

// Snapshotter is implemented by sorters whose whole state can be saved and
// restored: the allocator's Snapshot saves every sorter with MarshalBinary,
// and its Restore makes each one afresh with the host's Factory and the
// Config it was first made with, then hands it the saved bytes with
// UnmarshalBinary. A restored sorter must then behave exactly as the saved
// one would have: the same orders (allocation counts and random state
// included), the same numbers (Indexed), the same answers.
//
// UnmarshalBinary is called on an empty sorter (no client, no agent, no
// weight); on bad input it returns an error and the allocator drops the
// sorter. The DRF and Random sorters implement it; a sorter of your own
// that does not is refused by Snapshot (allocator.ErrSnapshotSorter).
type Snapshotter interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

var (
	_ Snapshotter = (*DRF)(nil)
	_ Snapshotter = (*Random)(nil)
)

// The layout of a DRF or Random sorter's bytes (numbers are unsigned
// varints unless said otherwise; resources, quantities and limits are in
// package resources' binary form, one Encoder for the whole):
//
//	'S' version(1) kind('D' DRF, 'R' Random)
//	weights:  count (path float64-bits){count}
//	allowances: count (path quantities){count}                by path
//	agents:   count (name total-quantities){count}         added agents
//	clients:  count client{count}                          by path
//	client:   path number active(0|1) count charged-quantities
//	          holdings: count (agent resources){count}
//	internal: count (path count){count}                    every inner node
//	numbers:  slots count free-number{count}               free list in order
//	Random only: the PCG source's MarshalBinary
//
// walk lays out these fields in code, for writing and reading alike.
const snapshotVersion = 1

// MarshalBinary saves the sorter's state (see Snapshotter).
func (d *DRF) MarshalBinary() ([]byte, error) { return d.t.marshal('D', nil), nil }

// UnmarshalBinary restores a state saved by MarshalBinary into an empty
// DRF sorter made with the same Config (see Snapshotter).
func (d *DRF) UnmarshalBinary(data []byte) error {
	t, err := d.t.unmarshal('D', data, nil)
	if err != nil {
		return err
	}
	d.t = t
	d.t.bind()
	clear(d.leaves)
	d.sorted, d.leaves = d.sorted[:0], d.leaves[:0]
	d.stale, d.exact = true, false
	return nil
}

// MarshalBinary saves the sorter's state, its random source's included
// (see Snapshotter).
func (r *Random) MarshalBinary() ([]byte, error) {
	rng, err := r.pcg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return r.t.marshal('R', rng), nil
}

// UnmarshalBinary restores a state saved by MarshalBinary into an empty
// Random sorter (see Snapshotter): the orders it draws go on as the saved
// sorter's would have.
func (r *Random) UnmarshalBinary(data []byte) error {
	pcg := *r.pcg
	t, err := r.t.unmarshal('R', data, func(b []byte) error { return pcg.UnmarshalBinary(b) })
	if err != nil {
		return err
	}
	r.t = t
	r.t.bind()
	*r.pcg = pcg
	r.valid = false
	return nil
}

// marshal writes the tree's state in the layout above; rng is a Random
// sorter's random source, in its MarshalBinary form.
func (t *tree) marshal(kind byte, rng []byte) []byte {
	c := &codec{t: t, kind: kind, rng: rng, w: &wire.Writer{}, enc: resources.NewEncoder()}
	_ = c.walk() // writing meets no problem
	return c.w.B
}

// unmarshal builds a tree like t (which must be empty) from data; rng reads
// the random source's bytes of a Random sorter. Everything is read into a
// new tree, so on an error t and the caller's sorter are as they were.
func (t *tree) unmarshal(kind byte, data []byte, rng func([]byte) error) (tree, error) {
	if t.clientCount() > 0 || t.agents.len() > 0 || len(t.weights) > 0 {
		return tree{}, fmt.Errorf("%w: the sorter is not empty", ErrInvalidSnapshot)
	}
	out := newTree(t.fair, t.excluded)
	out.bind()
	c := &codec{t: &out, kind: kind, setRNG: rng, r: wire.NewReader(data), dec: resources.NewDecoder()}
	if err := c.walk(); err != nil {
		return tree{}, fmt.Errorf("%w: %w", ErrInvalidSnapshot, err)
	}
	out.markRebuild()
	return out, nil
}

// walk is the snapshot's one description, run by the writer and by the
// reader alike: it and the sections it calls lay out every field in order,
// and the codec writes or reads each as it comes (see codec). A new field
// is one line in its section, in both directions at once, so the two can
// never disagree on the order.
func (c *codec) walk() error {
	if err := c.header(); err != nil {
		return err
	}
	c.weights()
	c.allowances()
	c.agents()
	c.clients()
	c.innerNodes()
	c.numbers()
	if c.kind == 'R' {
		c.bytes(&c.rng)
		if c.loading() {
			c.check(c.setRNG(c.rng))
		}
	}
	if c.loading() && c.r.Left() > 0 {
		c.fail("%d bytes after the end", c.r.Left())
	}
	return c.err()
}

// header: 'S', the format's version, and the kind of sorter. Its problems
// are returned as they are, not as a problem at a byte: they say the bytes
// are not this format at all.
func (c *codec) header() error {
	magic, version, kind := byte('S'), byte(snapshotVersion), c.kind
	c.byte(&magic)
	c.byte(&version)
	c.byte(&kind)
	if !c.loading() {
		return nil
	}
	if magic != 'S' || version != snapshotVersion {
		return fmt.Errorf("not a sorter snapshot of version %d (starts %q %d)", snapshotVersion, magic, version)
	}
	if kind != c.kind {
		return fmt.Errorf("a snapshot of a %s sorter, not of a %s sorter", kindName(kind), kindName(c.kind))
	}
	return nil
}

func kindName(k byte) string {
	switch k {
	case 'D':
		return "DRF"
	case 'R':
		return "Random"
	}
	return fmt.Sprintf("%q", k)
}

// savedWeight is a weight other than 1, on a path that need not be in the
// tree.
type savedWeight struct {
	path   string
	weight float64
}

func (c *codec) weights() {
	list(c, "weights", c.t.savedWeights, func(_ int, w *savedWeight) {
		c.string(&w.path)
		c.float64(&w.weight)
		if c.loading() {
			c.check(c.t.updateWeight(w.path, w.weight))
		}
	})
}

// savedQuantities is an allowance (key its path) or an added agent's total
// (key its name).
type savedQuantities struct {
	key string
	q   resources.Quantities
}

func (c *codec) allowances() {
	list(c, "allowances", c.t.savedAllowances, func(_ int, a *savedQuantities) {
		c.string(&a.key)
		c.quantities(&a.q)
		if c.loading() {
			c.check(c.t.setAllowance(a.key, a.q))
		}
	})
}

// agents are the added agents and their totals; an agent known only by
// the holdings on it comes back with them.
func (c *codec) agents() {
	prev := ""
	list(c, "agents", c.t.savedAgents, func(i int, a *savedQuantities) {
		c.string(&a.key)
		c.quantities(&a.q)
		if c.loading() {
			if !inOrder(i, &prev, a.key) {
				c.fail("agent %q out of order", a.key)
				return
			}
			c.t.addAgent(a.key, a.q)
		}
	})
}

// savedClient is a client's record; its holdings follow it.
type savedClient struct {
	path    string
	number  int // see Indexed
	active  bool
	count   uint64 // allocation count
	charged resources.Quantities
	// leaf is the client's leaf: writing, where its holdings come from
	// (see savedHoldings); reading, where they go, and which numbers
	// numbers once all clients are read.
	leaf *node
}

// savedHolding is a client's allocation on one agent, its chunks merged.
type savedHolding struct {
	agent string
	res   resources.Resources
}

// clients come with their holdings, which are read into a client already
// in the tree.
func (c *codec) clients() {
	prev := ""
	list(c, "clients", c.t.savedClients, func(i int, cl *savedClient) {
		c.string(&cl.path)
		c.int(&cl.number, math.MaxInt32, "client number")
		c.bool(&cl.active)
		c.uvarint(&cl.count)
		c.quantities(&cl.charged)
		if c.loading() {
			c.check(c.loadClient(i, &prev, cl))
		}
		c.holdings(cl)
	})
}

// loadClient adds cl, item i of the clients, to the tree; its number waits
// for numbers, which knows how many there are.
func (c *codec) loadClient(i int, prev *string, cl *savedClient) error {
	if !inOrder(i, prev, cl.path) {
		return fmt.Errorf("client %q out of order", cl.path)
	}
	if err := c.t.add(cl.path); err != nil {
		return err
	}
	cl.leaf = c.t.leaf(cl.path)
	c.loaded = append(c.loaded, numbered{cl.leaf, cl.number})
	if cl.active {
		if err := c.t.setActive(cl.path, true); err != nil {
			return err
		}
	}
	cl.leaf.count = cl.count
	if !cl.charged.IsEmpty() {
		return c.t.chargeQuantities(cl.path, cl.charged, false)
	}
	return nil
}

func (c *codec) holdings(cl *savedClient) {
	prev := ""
	saved := func() []savedHolding { return c.savedHoldings(cl.leaf) }
	list(c, "holdings", saved, func(i int, h *savedHolding) {
		c.string(&h.agent)
		c.resources(&h.res)
		if c.loading() {
			if !inOrder(i, &prev, h.agent) || h.res.IsEmpty() {
				c.fail("client %q: holding on %q out of order or empty", cl.path, h.agent)
				return
			}
			c.t.charge(cl.leaf, h.agent, h.res)
			c.t.hold(cl.leaf, h.agent, h.res)
		}
	})
}

// savedInner is an inner node's allocation count; the clients made the
// node, and every one must be there.
type savedInner struct {
	path  string
	count uint64
}

func (c *codec) innerNodes() {
	prev := ""
	n := list(c, "inner nodes", c.t.savedInner, func(i int, in *savedInner) {
		c.string(&in.path)
		c.uvarint(&in.count)
		if c.loading() {
			node := c.t.find(in.path)
			if node == nil || node.leaf || !inOrder(i, &prev, in.path) {
				c.fail("inner node %q unknown or out of order", in.path)
				return
			}
			node.count = in.count
		}
	})
	if c.loading() && n != c.t.nodes-c.t.clientCount() {
		c.fail("%d inner nodes saved, the clients make %d", n, c.t.nodes-c.t.clientCount())
	}
}

// numbers: how many client numbers there are, then the free ones in the
// order they are to be reused. Reading, the clients get their saved numbers
// as soon as the count of free ones says how many numbers are in use.
func (c *codec) numbers() {
	slots, free := len(c.t.byIndex), c.t.free
	n := len(free)
	c.int(&slots, math.MaxInt32, "client numbers")
	c.count(&n, "free numbers")
	if c.loading() {
		c.check(c.number(slots, n))
	}
	var taken []bool // reading: the free numbers read so far
	if c.loading() {
		// Only now is slots known to be no more than the input's size.
		taken = make([]bool, slots)
	}
	each(c, n, free, func(_ int, i *int) {
		c.int(i, slots-1, "free number")
		if c.loading() {
			if c.t.byIndex[*i] != nil || taken[*i] {
				c.fail("free number %d is taken", *i)
				return
			}
			taken[*i] = true
			c.t.free = append(c.t.free, *i)
		}
	})
}

// number gives the loaded clients their saved numbers, out of slots of
// which free are free.
func (c *codec) number(slots, free int) error {
	if slots != len(c.loaded)+free {
		return fmt.Errorf("%d numbers for %d clients and %d free ones", slots, len(c.loaded), free)
	}
	if slots > math.MaxInt32 {
		return fmt.Errorf("%d numbers, more than a sorter hands out", slots)
	}
	c.t.byIndex = make([]*node, slots)
	c.t.leafKeys = make([]key, slots)
	for i := range c.t.leafKeys {
		c.t.leafKeys[i].idle = true // free until a client takes it
	}
	c.t.free = make([]int, 0, free)
	for _, l := range c.loaded {
		if l.number >= slots || c.t.byIndex[l.number] != nil {
			return fmt.Errorf("client %q: number %d taken or out of range", l.leaf.client(), l.number)
		}
		l.leaf.index = int32(l.number)
		c.t.place(l.leaf)
	}
	return nil
}

// inOrder reports whether key, item i of a list kept in ascending order,
// comes after the item before it, whose key prev holds; key becomes prev.
func inOrder(i int, prev *string, key string) bool {
	ok := i == 0 || key > *prev
	*prev = key
	return ok
}

// The records the tree writes, each list in the order the reader checks.

func (t *tree) savedWeights() []savedWeight {
	out := make([]savedWeight, 0, len(t.weights))
	for _, p := range slices.Sorted(maps.Keys(t.weights)) {
		out = append(out, savedWeight{p, t.weights[p]})
	}
	return out
}

func (t *tree) savedAllowances() []savedQuantities {
	out := make([]savedQuantities, 0, len(t.allowances))
	for _, p := range slices.Sorted(maps.Keys(t.allowances)) {
		out = append(out, savedQuantities{p, t.allowances[p]})
	}
	return out
}

func (t *tree) savedAgents() []savedQuantities {
	var out []savedQuantities
	t.agents.all(func(a *agent) {
		if a.added {
			out = append(out, savedQuantities{a.name, a.total})
		}
	})
	slices.SortFunc(out, func(x, y savedQuantities) int { return strings.Compare(x.key, y.key) })
	return out
}

func (t *tree) savedClients() []savedClient {
	out := make([]savedClient, 0, t.clientCount())
	for l := range t.leaves() {
		out = append(out, savedClient{path: l.client(), number: int(l.index), active: l.active, count: l.count, charged: l.charged, leaf: l})
	}
	slices.SortFunc(out, func(x, y savedClient) int { return strings.Compare(x.path, y.path) })
	return out
}

// savedHoldings returns l's holdings by agent name, each merged. The list
// is the codec's, reused from client to client: each client's holdings are
// written before the next client's are saved.
func (c *codec) savedHoldings(l *node) []savedHolding {
	c.held = c.held[:0]
	for _, a := range l.held {
		h := a.holding(l)
		all := h.res
		for _, more := range h.more {
			all = all.Plus(more)
		}
		c.held = append(c.held, savedHolding{a.name, all})
	}
	slices.SortFunc(c.held, func(x, y savedHolding) int { return strings.Compare(x.agent, y.agent) })
	return c.held
}

func (t *tree) savedInner() []savedInner {
	var out []savedInner
	var collect func(n *node)
	collect = func(n *node) {
		for _, k := range n.kids.all() {
			if !k.leaf {
				out = append(out, savedInner{k.path, k.count})
				collect(k)
			}
		}
	}
	collect(t.root)
	slices.SortFunc(out, func(x, y savedInner) int { return strings.Compare(x.path, y.path) })
	return out
}
