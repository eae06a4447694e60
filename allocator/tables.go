package allocator

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

// table is a keyed table with the lookups the allocator makes of it.
type table[T any, K keyed.Key[T]] struct {
	keyed.Table[T, K]
}

// lookup returns the record keyed k and whether there is one.
func (t *table[T, K]) lookup(k string) (*T, bool) {
	r := t.Get(k)
	return r, r != nil
}

// keys returns the records' keys, sorted.
func (t *table[T, K]) keys() []string {
	var key K
	out := make([]string, 0, t.Len())
	for r := range t.All() {
		out = append(out, key.Of(r))
	}
	slices.Sort(out)
	return out
}

// frameworkTable holds the frameworks by id.
type frameworkTable = table[framework, byFrameworkID]

// byFrameworkID keys a framework by its id.
type byFrameworkID struct{}

func (byFrameworkID) Of(fw *framework) string { return fw.id }

// roleNodes holds a role tree's nodes by path (the root's, "", is not
// among them).
type roleNodes = table[roleNode, byNodePath]

// byNodePath keys a role-tree node by its path.
type byNodePath struct{}

func (byNodePath) Of(n *roleNode) string { return n.path }

// agentTable holds agents by id.
type agentTable = table[agent, byAgentID]

// byAgentID keys an agent by its id.
type byAgentID struct{}

func (byAgentID) Of(ag *agent) string { return ag.id }
