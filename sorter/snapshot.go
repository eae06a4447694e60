package sorter

import (
	"encoding"
	"errors"
	"fmt"
	"slices"

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

func (t *tree) marshal(kind byte, rng []byte) []byte {
	enc := resources.NewEncoder()
	w := &wire.Writer{}
	w.Byte('S')
	w.Byte(snapshotVersion)
	w.Byte(kind)

	paths := make([]string, 0, len(t.weights))
	for p := range t.weights {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	w.Int(len(paths))
	for _, p := range paths {
		w.String(p)
		w.Float64(t.weights[p])
	}
	paths = paths[:0]
	for p := range t.allowances {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	w.Int(len(paths))
	for _, p := range paths {
		w.String(p)
		w.B = enc.AppendQuantities(w.B, t.allowances[p])
	}

	var agents []string
	for name, a := range t.agents {
		if a.added {
			agents = append(agents, name)
		}
	}
	slices.Sort(agents)
	w.Int(len(agents))
	for _, name := range agents {
		w.String(name)
		w.B = enc.AppendQuantities(w.B, t.agents[name].total)
	}

	clients := make([]string, 0, len(t.clients))
	for c := range t.clients {
		clients = append(clients, c)
	}
	slices.Sort(clients)
	w.Int(len(clients))
	for _, c := range clients {
		l := t.clients[c]
		w.String(c)
		w.Int(l.index)
		w.Bool(l.active)
		w.Uvarint(l.count)
		w.B = enc.AppendQuantities(w.B, l.charged)
		held := make([]*agent, len(l.held))
		copy(held, l.held)
		slices.SortFunc(held, func(x, y *agent) int {
			if x.name < y.name {
				return -1
			}
			return 1
		})
		w.Int(len(held))
		for _, a := range held {
			h := a.holding(l)
			all := h.res
			for _, more := range h.more {
				all = all.Plus(more)
			}
			w.String(a.name)
			w.B = enc.AppendResources(w.B, all)
		}
	}

	var inner []*node
	var collect func(n *node)
	collect = func(n *node) {
		for _, k := range n.kids {
			if !k.leaf {
				inner = append(inner, k)
				collect(k)
			}
		}
	}
	collect(t.root)
	slices.SortFunc(inner, func(x, y *node) int {
		if x.path < y.path {
			return -1
		}
		return 1
	})
	w.Int(len(inner))
	for _, n := range inner {
		w.String(n.path)
		w.Uvarint(n.count)
	}

	w.Int(len(t.byIndex))
	w.Int(len(t.free))
	for _, i := range t.free {
		w.Int(i)
	}
	if kind == 'R' {
		w.Bytes(rng)
	}
	return w.B
}

// unmarshal builds a tree like t (which must be empty) from data; rng reads
// the random source's bytes of a Random sorter.
func (t *tree) unmarshal(kind byte, data []byte, rng func([]byte) error) (tree, error) {
	if len(t.clients) > 0 || len(t.agents) > 0 || len(t.weights) > 0 {
		return tree{}, fmt.Errorf("%w: the sorter is not empty", ErrInvalidSnapshot)
	}
	out := newTree(t.fair, t.excluded)
	out.bind()
	if err := out.read(kind, data, rng); err != nil {
		return tree{}, fmt.Errorf("%w: %w", ErrInvalidSnapshot, err)
	}
	out.markRebuild()
	return out, nil
}

func (t *tree) read(kind byte, data []byte, rng func([]byte) error) error {
	r := wire.NewReader(data)
	dec := resources.NewDecoder()
	quantities := func() resources.Quantities {
		q, n, err := dec.ReadQuantities(r.Rest())
		r.Skip(n)
		r.Fail(err)
		return q
	}
	if magic, v, k := r.Byte(), r.Byte(), r.Byte(); r.Err() == nil {
		if magic != 'S' || v != snapshotVersion {
			return fmt.Errorf("not a sorter snapshot of version %d (starts %q %d)", snapshotVersion, magic, v)
		}
		if k != kind {
			return fmt.Errorf("a snapshot of a %s sorter, not of a %s sorter", kindName(k), kindName(kind))
		}
	}
	check := func(err error) {
		if err != nil {
			r.Failf("%v", err)
		}
	}

	for range r.Count("weights") {
		path, w := r.String(), r.Float64()
		if r.Err() == nil {
			check(t.updateWeight(path, w))
		}
	}
	for range r.Count("allowances") {
		path, q := r.String(), quantities()
		if r.Err() == nil {
			check(t.setAllowance(path, q))
		}
	}
	prev := ""
	for i := range r.Count("agents") {
		name, total := r.String(), quantities()
		if r.Err() != nil {
			break
		}
		if i > 0 && name <= prev {
			r.Failf("agent %q out of order", name)
		}
		prev = name
		t.addAgent(name, total)
	}

	n := r.Count("clients")
	type saved struct {
		leaf   *node
		number int
	}
	clients := make([]saved, 0, n)
	prev = ""
	for i := range n {
		c := r.String()
		number := r.Int(1<<31, "client number")
		active, count, charged := r.Bool(), r.Uvarint(), quantities()
		if r.Err() != nil {
			break
		}
		if i > 0 && c <= prev {
			r.Failf("client %q out of order", c)
			break
		}
		prev = c
		check(t.add(c))
		if r.Err() != nil {
			break
		}
		l := t.clients[c]
		clients = append(clients, saved{l, number})
		if active {
			check(t.setActive(c, true))
		}
		l.count = count
		if !charged.IsEmpty() {
			check(t.chargeQuantities(c, charged, false))
		}
		prevAgent := ""
		for j := range r.Count("holdings") {
			agent := r.String()
			res, m, err := dec.ReadResources(r.Rest())
			r.Skip(m)
			r.Fail(err)
			if r.Err() != nil {
				break
			}
			if (j > 0 && agent <= prevAgent) || res.IsEmpty() {
				r.Failf("client %q: holding on %q out of order or empty", c, agent)
				break
			}
			prevAgent = agent
			t.charge(l, agent, res)
			t.hold(l, agent, res)
		}
	}

	inner := r.Count("inner nodes")
	prev = ""
	for i := range inner {
		path, count := r.String(), r.Uvarint()
		if r.Err() != nil {
			break
		}
		n := t.find(path)
		if n == nil || n.leaf || (i > 0 && path <= prev) {
			r.Failf("inner node %q unknown or out of order", path)
			break
		}
		prev = path
		n.count = count
	}
	if r.Err() == nil && inner != t.nodes-len(t.clients) {
		r.Failf("%d inner nodes saved, the clients make %d", inner, t.nodes-len(t.clients))
	}

	slots := r.Int(1<<31, "client numbers")
	free := r.Count("free numbers")
	if r.Err() == nil && slots != len(clients)+free {
		r.Failf("%d numbers for %d clients and %d free ones", slots, len(clients), free)
	}
	if r.Err() == nil {
		t.byIndex = make([]*node, slots)
		t.free = make([]int, 0, free)
		for _, s := range clients {
			if s.number >= slots || t.byIndex[s.number] != nil {
				r.Failf("client %q: number %d taken or out of range", s.leaf.client, s.number)
				break
			}
			s.leaf.index = s.number
			t.byIndex[s.number] = s.leaf
		}
		taken := make([]bool, slots)
		for range free {
			i := r.Int(slots-1, "free number")
			if r.Err() != nil {
				break
			}
			if t.byIndex[i] != nil || taken[i] {
				r.Failf("free number %d is taken", i)
				break
			}
			taken[i] = true
			t.free = append(t.free, i)
		}
	}
	if kind == 'R' {
		b := r.Bytes()
		if r.Err() == nil {
			check(rng(b))
		}
	}
	if r.Err() == nil && r.Left() > 0 {
		r.Failf("%d bytes after the end", r.Left())
	}
	return r.Err()
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
