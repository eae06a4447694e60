package sorter

import (
	"iter"

	"github.com/allot-go/allot/internal/keyed"
)

// nodeMap finds nodes by a string that each node carries itself: a child by
// its name (byName), a client's leaf by its client (byClient).
//
// Most of these maps in an allocator hold one entry: the framework sorter of
// a role with one framework has one client, and its root one child. The
// first entry is kept inline, keyed by the node's own field, and a table
// (keyed.Table, 10-21 bytes an entry, where a Go map costs about a quarter
// of a kilobyte from its first entry and 54 bytes an entry at 1000) is made
// for the second. The zero value is empty and ready to use.
type nodeMap[K nodeKey] struct {
	one *node                 // the only entry while t is nil; nil when empty
	t   *keyed.Table[node, K] // every entry, from the second on
}

// nodeKey says which of a node's fields keys a nodeMap.
type nodeKey interface{ keyed.Key[node] }

// byName keys a node by its path component (children under their parent).
type byName struct{}

func (byName) Of(n *node) string { return n.name }

// byClient keys a leaf by the client it stands for.
type byClient struct{}

func (byClient) Of(n *node) string { return n.client() }

// get returns the node under k, or nil.
func (s *nodeMap[K]) get(k string) *node {
	if s.t != nil {
		return s.t.Get(k)
	}
	var key K
	if s.one != nil && key.Of(s.one) == k {
		return s.one
	}
	return nil
}

// lookup is get with a found flag, as a map's comma-ok read.
func (s *nodeMap[K]) lookup(k string) (*node, bool) {
	n := s.get(k)
	return n, n != nil
}

// put files n under its key, replacing the node there.
func (s *nodeMap[K]) put(n *node) {
	var key K
	switch {
	case s.t != nil:
		s.t.Put(n)
	case s.one == nil || key.Of(s.one) == key.Of(n):
		s.one = n
	default:
		s.t = &keyed.Table[node, K]{}
		s.t.Put(s.one)
		s.t.Put(n)
		s.one = nil
	}
}

// del removes the node under k, if any. A table once made stays: a set
// that had two entries is likely to have two again.
func (s *nodeMap[K]) del(k string) {
	if s.t != nil {
		s.t.Delete(k)
		return
	}
	var key K
	if s.one != nil && key.Of(s.one) == k {
		s.one = nil
	}
}

// len returns the number of entries.
func (s *nodeMap[K]) len() int {
	switch {
	case s.t != nil:
		return s.t.Len()
	case s.one != nil:
		return 1
	}
	return 0
}

// keys yields every key, in no particular order.
func (s *nodeMap[K]) keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range s.all() {
			if !yield(k) {
				return
			}
		}
	}
}

// all yields every entry with its key, in no particular order. Entries
// may be deleted during all; none may be put.
func (s *nodeMap[K]) all() iter.Seq2[string, *node] {
	return func(yield func(string, *node) bool) {
		var key K
		if s.t == nil {
			if s.one != nil {
				yield(key.Of(s.one), s.one)
			}
			return
		}
		for n := range s.t.All() {
			if !yield(key.Of(n), n) {
				return
			}
		}
	}
}
