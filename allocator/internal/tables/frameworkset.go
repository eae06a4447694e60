package tables

import (
	"iter"
	"maps"
	"slices"
)

// FrameworkSet holds the ids of the frameworks tracked under a role. Most
// roles have one framework, and a Go map costs about 200 bytes from its
// first entry: the first id is kept in the value, and a map is made for the
// second. The zero value is empty and ready to use.
type FrameworkSet struct {
	one string              // the only id while m is nil; "" when none
	m   map[string]struct{} // every id, from the second on
}

// Add adds id (a no-op when present).
func (s *FrameworkSet) Add(id string) {
	switch {
	case s.m != nil:
		s.m[id] = struct{}{}
	case s.one == id:
	case s.one == "" && id != "":
		s.one = id
	default:
		s.m = map[string]struct{}{id: {}}
		if s.one != "" {
			s.m[s.one] = struct{}{}
		}
		s.one = ""
	}
}

// Remove removes id (a no-op when absent). A map once made stays.
func (s *FrameworkSet) Remove(id string) {
	if s.m != nil {
		delete(s.m, id)
	} else if s.one == id {
		s.one = ""
	}
}

// Len returns the number of ids.
func (s *FrameworkSet) Len() int {
	switch {
	case s.m != nil:
		return len(s.m)
	case s.one != "":
		return 1
	}
	return 0
}

// all yields every id, in no particular order.
func (s *FrameworkSet) all() iter.Seq[string] {
	if s.m != nil {
		return maps.Keys(s.m)
	}
	return func(yield func(string) bool) {
		if s.one != "" {
			yield(s.one)
		}
	}
}

// Any reports whether f holds for some id. Unlike ranging over all, it
// allocates nothing: cappedNow asks it of every role a run looks at.
func (s *FrameworkSet) Any(f func(id string) bool) bool {
	if s.m == nil {
		return s.one != "" && f(s.one)
	}
	for id := range s.m {
		if f(id) {
			return true
		}
	}
	return false
}

// Sorted returns the ids in increasing order.
func (s *FrameworkSet) Sorted() []string { return slices.Sorted(s.all()) }
