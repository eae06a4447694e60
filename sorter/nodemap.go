package sorter

import "iter"

// nodeMap finds nodes by a string that each node carries itself: a child by
// its name (byName), a client's leaf by its client (byClient).
//
// Most of these maps in an allocator hold one entry: the framework sorter of
// a role with one framework has one client, and its root one child. A Go
// map costs about a quarter of a kilobyte from its first entry, so the first
// entry is kept inline, keyed by the node's own field, and a map is made for
// the second. The zero value is empty and ready to use.
type nodeMap[K nodeKey] struct {
	one *node            // the only entry while m is nil; nil when empty
	m   map[string]*node // every entry, from the second on
}

// nodeKey says which of a node's fields keys a nodeMap.
type nodeKey interface{ of(n *node) string }

// byName keys a node by its path component (children under their parent).
type byName struct{}

func (byName) of(n *node) string { return n.name }

// byClient keys a leaf by the client it stands for.
type byClient struct{}

func (byClient) of(n *node) string { return n.client() }

// get returns the node under k, or nil.
func (s *nodeMap[K]) get(k string) *node {
	if s.m != nil {
		return s.m[k]
	}
	var key K
	if s.one != nil && key.of(s.one) == k {
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
	k := key.of(n)
	switch {
	case s.m != nil:
		s.m[k] = n
	case s.one == nil || key.of(s.one) == k:
		s.one = n
	default:
		s.m = map[string]*node{key.of(s.one): s.one, k: n}
		s.one = nil
	}
}

// del removes the node under k, if any. A map once made stays: a set that
// had two entries is likely to have two again.
func (s *nodeMap[K]) del(k string) {
	if s.m != nil {
		delete(s.m, k)
		return
	}
	var key K
	if s.one != nil && key.of(s.one) == k {
		s.one = nil
	}
}

// len returns the number of entries.
func (s *nodeMap[K]) len() int {
	switch {
	case s.m != nil:
		return len(s.m)
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

// all yields every entry with its key, in no particular order.
func (s *nodeMap[K]) all() iter.Seq2[string, *node] {
	return func(yield func(string, *node) bool) {
		if s.m == nil {
			var key K
			if s.one != nil {
				yield(key.of(s.one), s.one)
			}
			return
		}
		for k, n := range s.m {
			if !yield(k, n) {
				return
			}
		}
	}
}
