package tables

import (
	"slices"

	"github.com/allot-go/allot/internal/keyed"
)

// The allocator's frameworks by id, agents by id (and those waiting for a
// run) and the role tree's nodes by path are keyed tables
// (internal/keyed): each record carries its key, so a table holds a
// pointer and a byte of hash a slot, 10-21 bytes an entry, where a Go map
// of the same set holds 24 a slot and about 54 an entry at 1000 entries.
// They yield their records in an order that differs from call to call, as
// a map does; what must be ordered goes through keys (sorted).

// Table is a keyed table with the lookups the allocator makes of it.
type Table[T any, K keyed.Key[T]] struct {
	keyed.Table[T, K]
}

// Lookup returns the record keyed k and whether there is one.
func (t *Table[T, K]) Lookup(k string) (*T, bool) {
	r := t.Get(k)
	return r, r != nil
}

// Keys returns the records' keys, sorted.
func (t *Table[T, K]) Keys() []string {
	var key K
	out := make([]string, 0, t.Len())
	for r := range t.All() {
		out = append(out, key.Of(r))
	}
	slices.Sort(out)
	return out
}
