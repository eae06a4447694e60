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
// a map does; what must be ordered goes through ids or paths (sorted).

// byFrameworkID keys a framework by its id.
type byFrameworkID struct{}

func (byFrameworkID) Of(fw *framework) string { return fw.id }

// frameworkTable holds the frameworks by id.
type frameworkTable struct {
	keyed.Table[framework, byFrameworkID]
}

// lookup returns the framework with id and whether there is one.
func (t *frameworkTable) lookup(id string) (*framework, bool) {
	fw := t.Get(id)
	return fw, fw != nil
}

// ids returns the frameworks' ids, sorted.
func (t *frameworkTable) ids() []string { return sortedKeys(&t.Table) }

// byNodePath keys a role-tree node by its path.
type byNodePath struct{}

func (byNodePath) Of(n *roleNode) string { return n.path }

// roleNodes holds a role tree's nodes by path (the root's, "", is not
// among them).
type roleNodes struct {
	keyed.Table[roleNode, byNodePath]
}

// lookup returns the node of path and whether there is one.
func (t *roleNodes) lookup(path string) (*roleNode, bool) {
	n := t.Get(path)
	return n, n != nil
}

// paths returns the nodes' paths, sorted.
func (t *roleNodes) paths() []string { return sortedKeys(&t.Table) }

// sortedKeys returns the keys of t's records, sorted.
func sortedKeys[T any, K keyed.Key[T]](t *keyed.Table[T, K]) []string {
	var key K
	out := make([]string, 0, t.Len())
	for r := range t.All() {
		out = append(out, key.Of(r))
	}
	slices.Sort(out)
	return out
}

// byAgentID keys an agent by its id.
type byAgentID struct{}

func (byAgentID) Of(ag *agent) string { return ag.id }

// agentTable holds the agents by id.
type agentTable struct {
	keyed.Table[agent, byAgentID]
}

// lookup returns the agent with id and whether there is one.
func (t *agentTable) lookup(id string) (*agent, bool) {
	ag := t.Get(id)
	return ag, ag != nil
}

// ids returns the agents' ids, sorted.
func (t *agentTable) ids() []string { return sortedKeys(&t.Table) }
