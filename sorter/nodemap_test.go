package sorter

import (
	"maps"
	"slices"
	"testing"
	"unsafe"

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
	parent := &node{name: "a", path: "a"}
	v := &node{name: virtualName, path: "a/.", parent: parent, leaf: true}
	s.put(v)
	require.Same(t, v, s.get("a"))
	require.Nil(t, s.get(virtualName))
	w := &node{name: "b", path: "a/b", parent: parent, leaf: true}
	s.put(w)
	require.Same(t, v, s.get("a"))
	require.Same(t, w, s.get("a/b"))
	require.Equal(t, 2, s.len())
}

// Every client of every sorter has a node: it stays in the 208-byte size
// class (a leaf's client is worked out from its path, its counts and
// numbers are 32 bits). The client of a leaf is its path, and that of a
// virtual leaf its parent's.
func TestNodeIsSmall(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(node{}), uintptr(208), "the sorter's node grew past its size class")
	d := NewDRF(Config{})
	require.NoError(t, d.Add("a/b"))
	require.NoError(t, d.Add("a"))
	require.NoError(t, d.Add("c"))
	for _, client := range []string{"a/b", "a", "c"} {
		l, ok := d.t.leafOf(client)
		require.True(t, ok)
		require.Equal(t, client, l.client())
	}
	require.Equal(t, virtualName, d.t.leaf("a").name, "a is a virtual leaf under the internal node a")
}
