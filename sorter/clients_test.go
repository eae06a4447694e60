package sorter

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Clients are found through the tree: those without a "/" through the
// root's children (their leaf, or the virtual leaf of a client with
// children), only the deeper ones through a map of their own; across
// adds that split a leaf and removes that join one back, every client is
// found, and only the deep ones are in the map.
func TestClientsFoundThroughTheTree(t *testing.T) {
	d := NewDRF(Config{})
	check := func(want ...string) {
		t.Helper()
		deep := 0
		for _, c := range want {
			l, ok := d.t.leafOf(c)
			require.True(t, ok, "client %q not found", c)
			require.True(t, l.leaf && !l.dead, "client %q: not a live leaf", c)
			require.Equal(t, c, l.client())
			if strings.Contains(c, "/") {
				deep++
			}
		}
		require.Equal(t, deep, d.t.deep.len(), "clients in the map of deep ones")
		require.Equal(t, len(want), d.Count())
		var listed []string
		for l := range d.t.leaves() {
			listed = append(listed, l.client())
		}
		require.ElementsMatch(t, want, listed)
		for _, absent := range []string{"z", "a/z", "a/x/z", "."} {
			_, ok := d.t.leafOf(absent)
			require.False(t, ok, "client %q found", absent)
		}
	}
	for _, c := range []string{"a", "b", "c/d"} {
		require.NoError(t, d.Add(c))
	}
	check("a", "b", "c/d")
	_, ok := d.t.leafOf("c")
	require.False(t, ok, "c is an internal node, not a client")
	require.NoError(t, d.Add("a/x")) // splits a's leaf
	require.NoError(t, d.Add("a/x/y"))
	check("a", "b", "c/d", "a/x", "a/x/y")
	require.Equal(t, virtualName, d.t.leaf("a").name)
	require.Equal(t, virtualName, d.t.leaf("a/x").name)
	require.ErrorIs(t, d.Add("a"), ErrDuplicateClient)
	require.ErrorIs(t, d.Add("a/x"), ErrDuplicateClient)
	require.NoError(t, d.Remove("a/x/y")) // joins a/x back into a leaf
	check("a", "b", "c/d", "a/x")
	require.NoError(t, d.Remove("a/x")) // joins a back
	check("a", "b", "c/d")
	require.Equal(t, "a", d.t.leaf("a").name)
	require.NoError(t, d.Remove("c/d"))
	check("a", "b")
}
