package sorter

import (
	"fmt"

	"github.com/allot-go/allot/resources"
)

// agent is what a sorter knows of one agent: its total, if added, and the
// clients' holdings on it. It lives while it has either.
type agent struct {
	name    string
	total   resources.Quantities
	added   bool      // AddAgent'ed and not removed: total counts in the pool
	holders []holding // one per client holding something here
	inline  [1]holding
	// index maps a leaf to its holding's place in holders, once there are
	// more holders than a scan should visit.
	index map[*node]int
}

// indexAbove is the number of holders beyond which an agent indexes them.
const indexAbove = 8

// holding is one client's allocation on one agent.
//
// res is kept as the caller passed it, without a copy: allocations are
// recorded far more often than they change in place, and a copy of a
// Resources costs as much as the rest of Allocated. Before its first change
// in place the holding takes a copy of its own (owned).
//
// Further allocations on the same agent are kept as chunks in more, without
// merging: the allocator usually gives back exactly what it allocated, and
// such a chunk is found by identity and dropped in O(1). The holding is
// merged into res (see merged) only when something else is asked of it.
type holding struct {
	leaf  *node
	res   resources.Resources
	more  []resources.Resources
	owned bool
	at    int // index of the agent in leaf.held
}

// merged folds the chunks into res and returns it.
func (h *holding) merged() resources.Resources {
	if len(h.more) != 0 {
		h.own()
		for _, c := range h.more {
			h.res.Add(c)
		}
		clear(h.more)
		h.more = h.more[:0]
	}
	return h.res
}

// takeChunk drops the chunk identical to r, if there is one, and reports
// whether it did. The holding may be left empty.
func (h *holding) takeChunk(r resources.Resources) bool {
	for i := len(h.more) - 1; i >= 0; i-- {
		if h.more[i].Identical(r) {
			last := len(h.more) - 1
			h.more[i] = h.more[last]
			h.more[last] = resources.Resources{}
			h.more = h.more[:last]
			return true
		}
	}
	if h.res.Identical(r) {
		if n := len(h.more); n > 0 {
			h.res, h.owned = h.more[n-1], false
			h.more[n-1] = resources.Resources{}
			h.more = h.more[:n-1]
		} else {
			h.res, h.owned = resources.Resources{}, false
		}
		return true
	}
	return false
}

// empty reports whether the holding holds nothing.
func (h *holding) empty() bool { return h.res.IsEmpty() && len(h.more) == 0 }

func (t *tree) newAgent(name string) *agent {
	a := &agent{name: name}
	a.holders = a.inline[:0]
	t.agents.put(a)
	return a
}

// find returns the index of l's holding in a.holders, or -1.
func (a *agent) find(l *node) int {
	if a.index != nil {
		if i, ok := a.index[l]; ok {
			return i
		}
		return -1
	}
	for i := range a.holders {
		if a.holders[i].leaf == l {
			return i
		}
	}
	return -1
}

// rekey hands from's holding over to leaf to.
func (a *agent) rekey(from, to *node) {
	i := a.find(from)
	if i < 0 {
		panic(fmt.Sprintf("sorter: client %q has no holding on agent %q", from.client(), a.name))
	}
	a.holders[i].leaf = to
	if a.index != nil {
		delete(a.index, from)
		a.index[to] = i
	}
}

// push appends a holding.
func (a *agent) push(h holding) {
	a.holders = append(a.holders, h)
	switch {
	case a.index != nil:
		a.index[h.leaf] = len(a.holders) - 1
	case len(a.holders) > indexAbove:
		a.index = make(map[*node]int, len(a.holders))
		for i := range a.holders {
			a.index[a.holders[i].leaf] = i
		}
	}
}

// holding returns l's holding on a, which must exist.
func (a *agent) holding(l *node) *holding {
	i := a.find(l)
	if i < 0 {
		panic(fmt.Sprintf("sorter: client %q has no holding on agent %q", l.client(), a.name))
	}
	return &a.holders[i]
}

// drop removes holding i from a and from its leaf's list, and forgets a if
// nothing is left of it.
func (t *tree) drop(a *agent, i int) {
	h := &a.holders[i]
	l := h.leaf
	last := len(l.held) - 1
	if h.at != last {
		moved := l.held[last]
		l.held[h.at] = moved
		moved.holding(l).at = h.at
	}
	l.held[last] = nil
	l.held = l.held[:last]
	l.view = nil

	last = len(a.holders) - 1
	if a.index != nil {
		delete(a.index, l)
		if i != last {
			a.index[a.holders[last].leaf] = i
		}
	}
	if i != last {
		a.holders[i] = a.holders[last]
	}
	a.holders[last] = holding{}
	a.holders = a.holders[:last]
	if len(a.holders) == 0 {
		a.index = nil
	}
	t.forget(a)
}

// own makes h's resources its own to change in place.
func (h *holding) own() {
	if !h.owned {
		h.res = h.res.Clone()
		h.owned = true
	}
}

// forget drops a from the tree once it has neither a total nor holdings.
func (t *tree) forget(a *agent) {
	if !a.added && len(a.holders) == 0 {
		t.agents.remove(a)
	}
}

// hold adds r to l's allocation on the named agent, without the shares.
func (t *tree) hold(l *node, name string, r resources.Resources) {
	a := t.agents.get(name)
	if a == nil {
		a = t.newAgent(name)
	}
	if i := a.find(l); i >= 0 {
		h := &a.holders[i]
		h.more = append(h.more, r)
	} else {
		a.push(holding{leaf: l, res: r, at: len(l.held)})
		l.held = append(l.held, a)
	}
	l.view = nil
}

// release takes r, which holding i of a holds, out of it, dropping the
// holding when it is left empty; without the shares.
func (t *tree) release(a *agent, i int, r resources.Resources) {
	h := &a.holders[i]
	h.leaf.view = nil
	if !h.takeChunk(r) {
		all := h.merged()
		if r.Len() != all.Len() || !r.Contains(all) {
			h.own()
			h.res.Subtract(r)
		} else {
			h.res = resources.Resources{} // r was all of it
		}
	}
	if h.empty() {
		t.drop(a, i)
	}
}

// charge adds r on agent to the figures of l and its ancestors (the root
// keeps none).
func (t *tree) charge(l *node, agent string, r resources.Resources) {
	if !r.HasShared() {
		for n := l; n != t.root; n = n.parent {
			r.AddQuantitiesTo(&n.total)
		}
		return
	}
	sh := t.load(r)
	for n := l; n != t.root; n = n.parent {
		t.addTo(n, agent, sh)
	}
}

// discharge subtracts r on agent from the figures of l and its ancestors.
func (t *tree) discharge(l *node, agent string, r resources.Resources) {
	sh := t.load(r)
	for n := l; n != t.root; n = n.parent {
		t.subtract(n, agent, sh)
	}
}

func (t *tree) allocated(client, agent string, r resources.Resources) error {
	l, ok := t.leafOf(client)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownClient, client)
	}
	if !r.IsEmpty() {
		t.charge(l, agent, r)
		t.hold(l, agent, r)
	}
	for n := l; n != t.root; n = n.parent {
		n.count++
	}
	t.touch(l)
	return nil
}

// holdingOf finds client's leaf and its holding on the named agent, for
// Unallocated and Update: the agent and the index of the holding in its
// holders, or a nil agent or -1 when the client holds nothing there. It
// returns ErrUnknownClient for a client not present.
//
// The agent is looked up first: when the client is its only holder, as is
// usual, the holding names the leaf, and the lookup of the client's name in
// the clients map is saved.
func (t *tree) holdingOf(client, name string) (*node, *agent, int, error) {
	a := t.agents.get(name)
	if a != nil && len(a.holders) == 1 && a.holders[0].leaf.client() == client {
		return a.holders[0].leaf, a, 0, nil
	}
	l, ok := t.leafOf(client)
	if !ok {
		return nil, nil, 0, fmt.Errorf("%w %q", ErrUnknownClient, client)
	}
	i := -1
	if a != nil {
		i = a.find(l)
	}
	return l, a, i, nil
}

// check checks that holding i of a (see holdingOf), l's on the named agent,
// contains r; with no holding there, only an empty r passes.
func (t *tree) check(l *node, a *agent, i int, name string, r resources.Resources) error {
	var cur resources.Resources
	if i >= 0 {
		h := &a.holders[i]
		if h.res.Identical(r) {
			return nil
		}
		for _, c := range h.more {
			if c.Identical(r) {
				return nil
			}
		}
		cur = h.merged()
	}
	if !cur.Contains(r) {
		return fmt.Errorf("%w: %q holds %s on agent %q, not %s", ErrNotAllocated, l.client(), cur, name, r)
	}
	return nil
}

func (t *tree) unallocated(client, agent string, r resources.Resources) error {
	l, a, i, err := t.holdingOf(client, agent)
	if err != nil {
		return err
	}
	if err := t.check(l, a, i, agent, r); err != nil || r.IsEmpty() {
		return err
	}
	t.release(a, i, r)
	t.discharge(l, agent, r)
	t.touch(l)
	return nil
}

func (t *tree) update(client, agent string, old, new resources.Resources) error {
	l, a, i, err := t.holdingOf(client, agent)
	if err != nil {
		return err
	}
	if err := t.check(l, a, i, agent, old); err != nil {
		return err
	}
	if !old.IsEmpty() {
		t.release(a, i, old)
		t.discharge(l, agent, old)
	}
	if !new.IsEmpty() {
		t.charge(l, agent, new)
		t.hold(l, agent, new)
	}
	t.touch(l)
	return nil
}

func (t *tree) allocation(client string) map[string]resources.Resources {
	l, ok := t.leafOf(client)
	if !ok || len(l.held) == 0 {
		return nil
	}
	if l.view == nil {
		l.view = make(map[string]resources.Resources, len(l.held))
		for _, a := range l.held {
			l.view[a.name] = a.holding(l).merged()
		}
	}
	return l.view
}

func (t *tree) allocationQuantities(client string) resources.Quantities {
	if l, ok := t.leafOf(client); ok {
		return l.total.Clone()
	}
	return resources.Quantities{}
}

// addAgent sets agent's total; it reports whether the pool changed.
func (t *tree) addAgent(name string, total resources.Quantities) bool {
	a := t.agents.get(name)
	if a == nil {
		a = t.newAgent(name)
	}
	if a.added {
		if a.total.Equal(total) {
			return false
		}
		t.total.Subtract(a.total)
	}
	a.total, a.added = total, true // kept, not copied (see Sorter.AddAgent)
	t.total.Add(total)
	t.markRebuild()
	return true
}

func (t *tree) removeAgent(name string) error {
	a := t.agents.get(name)
	if a == nil || !a.added {
		return fmt.Errorf("%w %q", ErrUnknownAgent, name)
	}
	t.total.Subtract(a.total)
	a.total, a.added = resources.Quantities{}, false
	t.forget(a)
	t.markRebuild()
	return nil
}
