package sorter

import (
	"iter"
	"strings"
)

// A tree finds a client's leaf by the client's name through the tree
// itself where it can: a client whose path has no "/" (a child of the
// root, which most clients are: a role in the role sorter, a framework in
// a role's sorter) is the root's child of that name, or that child's
// virtual leaf when the client also has children. Only the clients deeper
// down are kept in deep, a table of their own (nodeMap): a second table of
// every client beside the root's children would cost each client 10 to 21
// bytes more (about 50 in a Go map). The
// clients are listed by number (byIndex), and counted by the numbers in
// use.

// leaf returns client's leaf, or nil. The root's children come first, as
// most clients are among them; a name with a "/" is never one of them.
func (t *tree) leaf(client string) *node {
	if t.root != nil { // a zero tree (a zero Accounting) has no clients
		if n := t.root.kids.get(client); n != nil {
			if n.leaf {
				return n
			}
			return n.kids.get(virtualName)
		}
	}
	if !strings.Contains(client, "/") {
		return nil
	}
	return t.deep.get(client)
}

// leafOf is leaf with a found flag.
func (t *tree) leafOf(client string) (*node, bool) {
	l := t.leaf(client)
	return l, l != nil
}

// fileClient records leaf, filed in the tree, as its client's (a deep
// client's goes in deep; the others are found through the root).
func (t *tree) fileClient(leaf *node) {
	if strings.Contains(leaf.client(), "/") {
		t.deep.put(leaf)
	}
}

// unfileClient forgets client's leaf (see fileClient).
func (t *tree) unfileClient(client string) {
	if strings.Contains(client, "/") {
		t.deep.del(client)
	}
}

// clientCount returns the number of clients: the numbers in use.
func (t *tree) clientCount() int { return len(t.byIndex) - len(t.free) }

// leaves yields every client's leaf, by number.
func (t *tree) leaves() iter.Seq[*node] {
	return func(yield func(*node) bool) {
		for _, l := range t.byIndex {
			if l != nil && !yield(l) {
				return
			}
		}
	}
}
