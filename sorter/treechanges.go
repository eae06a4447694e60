package sorter

import (
	"fmt"
	"strings"

	"github.com/allot-go/allot/resources"
)

// add adds client as an inactive leaf.
func (t *tree) add(client string) error {
	if err := ValidatePath(client); err != nil {
		return err
	}
	if _, ok := t.leafOf(client); ok {
		return fmt.Errorf("%w %q", ErrDuplicateClient, client)
	}
	n := t.root
	for rest := client; ; {
		c, more, found := strings.Cut(rest, "/")
		path := client[:len(client)-len(more)]
		if found {
			path = path[:len(path)-1]
		}
		kid := n.kids.get(c)
		if !found {
			var leaf *node
			if kid == nil {
				// A new leaf.
				leaf = &node{name: c, path: client, parent: n, weight: t.weightOf(client)}
				n.kids.put(leaf)
				t.named(leaf)
			} else {
				// client is already an internal node: it gets a virtual leaf.
				leaf = &node{name: virtualName, path: client + "/" + virtualName, parent: kid, weight: 1}
				kid.kids.put(leaf)
				t.named(leaf)
			}
			leaf.leaf = true
			t.number(leaf)
			t.nodes++
			t.file(leaf)
			t.fileClient(leaf)
			return nil
		}
		switch {
		case kid == nil:
			kid = t.newInternal(c, path, n)
			n.kids.put(kid)
			t.named(kid)
			t.nodes++
			t.file(kid)
		case kid.leaf:
			kid = t.splitLeaf(kid)
		}
		n, rest = kid, more
	}
}

// splitLeaf turns leaf l into an internal node with the same path, figures and
// place, and moves l below it as its virtual leaf ".". It returns the
// internal node.
func (t *tree) splitLeaf(l *node) *node {
	p := l.parent
	t.unfile(l)
	in := t.newInternal(l.name, l.path, p)
	in.activeLeaves = l.activeLeaves
	in.count = l.count
	in.total = l.total.Clone()
	if l.shared != nil {
		in.shared = make(map[string]resources.Resources, len(l.shared))
		for a, r := range l.shared {
			in.shared[a] = r.Clone()
		}
	}
	p.kids.put(in)
	in.key.tie = l.key.tie // l's name, counted from the same byte
	t.nodes++
	t.file(in)

	l.name = virtualName
	l.path = in.path + "/" + virtualName
	l.parent = in
	l.weight = 1 // the weight of "a/." can never be set
	in.kids.put(l)
	t.named(l)
	t.file(l)
	return in
}

// remove removes client and its allocation.
func (t *tree) remove(client string) error {
	l, ok := t.leafOf(client)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownClient, client)
	}
	t.unfileClient(client)
	t.byIndex[l.index] = nil
	t.leafKeys[l.index] = key{idle: true}
	t.free = append(t.free, int(l.index))
	p := l.parent
	if !l.charged.IsEmpty() {
		for n := p; n != t.root; n = n.parent {
			n.total.Subtract(l.charged)
		}
	}
	for len(l.held) > 0 {
		a := l.held[len(l.held)-1]
		i := a.find(l)
		sh := t.load(a.holders[i].merged())
		for n := p; n != t.root; n = n.parent {
			t.subtract(n, a.name, sh)
		}
		t.drop(a, i)
	}
	if l.active {
		for n := p; n != nil; n = n.parent {
			n.activeLeaves--
		}
	}
	t.unfile(l)
	p.kids.del(l.name)
	l.dead = true
	t.nodes--
	t.touch(p)

	// Drop internal nodes left empty, and turn an internal node left with
	// only its virtual leaf back into a leaf.
	for n := p; n != t.root; {
		up := n.parent
		switch {
		case n.kids.len() == 0:
			t.unfile(n)
			up.kids.del(n.name)
			n.dead = true
			t.nodes--
			t.touch(up)
			n = up
			continue
		case n.kids.len() == 1 && n.kids.get(virtualName) != nil:
			t.join(n)
		}
		break
	}
	return nil
}

// join turns internal node n, whose only child is its virtual leaf v, back
// into the leaf for v's client. n keeps its place, weight and allocation
// count (as the internal node it competed with its siblings under them);
// its allocation is v's.
func (t *tree) join(n *node) {
	v := n.kids.get(virtualName)
	t.unfile(n)
	n.order.Clear(true)
	n.order = nil
	n.kids = nodeMap[byName]{}
	n.leaf = true
	n.active = v.active
	n.activeLeaves = v.activeLeaves
	n.held, n.view = v.held, nil
	for _, a := range n.held {
		a.rekey(v, n)
	}
	n.total = v.total
	n.charged = v.charged
	n.shared = v.shared
	t.file(n)
	t.fileClient(n)
	n.index = v.index
	t.place(n)
	v.dead = true
	t.nodes--
	t.touch(n)
}

func (t *tree) setActive(client string, active bool) error {
	l, ok := t.leafOf(client)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownClient, client)
	}
	if l.active == active {
		return nil
	}
	l.active = active
	d := int32(1)
	if !active {
		d = -1
	}
	for n := l; n != nil; n = n.parent {
		n.activeLeaves += d
	}
	t.touch(l)
	return nil
}

func (t *tree) updateWeight(path string, w float64) error {
	if err := ValidatePath(path); err != nil {
		return err
	}
	if err := ValidateWeight(w); err != nil {
		return err
	}
	if w == 1 {
		delete(t.weights, path)
	} else {
		if t.weights == nil {
			t.weights = make(map[string]float64)
		}
		t.weights[path] = w
	}
	if n := t.find(path); n != nil && n.weight != w {
		n.weight = w
		t.touch(n)
	}
	return nil
}
