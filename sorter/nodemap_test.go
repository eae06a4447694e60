package sorter

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNodeMap checks the inline entry and the map it turns into against a
// plain Go map, through puts that replace, deletions of absent keys and
// the move from one entry to two.
func TestNodeMap(t *testing.T) {
	var s nodeMap[byName]
	want := map[string]*node{}
	check := func(step string) {
		t.Helper()
		require.Equal(t, len(want), s.len(), step)
		got := maps.Collect(s.all())
		require.Equal(t, want, got, step)
		require.ElementsMatch(t, slices.Collect(maps.Keys(want)), slices.Collect(s.keys()), step)
		for _, k := range []string{"a", "b", "c", "."} {
			n, ok := s.lookup(k)
			require.Equal(t, want[k], n, "%s: get %q", step, k)
			require.Equal(t, want[k] != nil, ok, "%s: lookup %q", step, k)
		}
	}
	put := func(name string) *node {
		n := &node{name: name}
		s.put(n)
		want[name] = n
		return n
	}
	check("empty")
	s.del("a")
	check("delete from empty")
	put("a")
	check("one inline")
	put("a")
	check("inline replaced")
	s.del("b")
	check("delete of another key")
	s.del("a")
	delete(want, "a")
	check("inline deleted")
	put("a")
	put("b")
	check("two: a map")
	put("b")
	check("replaced in the map")
	s.del("a")
	delete(want, "a")
	check("deleted from the map")
	put(".")
	put("c")
	check("three")
}

// TestNodeMapByClient keys leaves by their client, not their name: a
// virtual leaf "." is found under its client's path.
func TestNodeMapByClient(t *testing.T) {
	var s nodeMap[byClient]
	v := &node{name: virtualName, client: "a", leaf: true}
	s.put(v)
	require.Same(t, v, s.get("a"))
	require.Nil(t, s.get(virtualName))
	w := &node{name: "b", client: "a/b", leaf: true}
	s.put(w)
	require.Same(t, v, s.get("a"))
	require.Same(t, w, s.get("a/b"))
	require.Equal(t, 2, s.len())
}
