package audit

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/roles"
)

// branching is the world with roles r, s and t at the top and r/x below
// r: the root has three children, in path order, and r one.
func branching(t *testing.T) *world {
	w := newWorld(t)
	for _, path := range []string{"t", "s", "r/x"} {
		w.b.Roles.Ensure(path)
	}
	require.Len(t, w.b.Roles.Root.Children, 3)
	require.NoError(t, w.check(), "the tree is consistent")
	return w
}

// TestCheckFindsEachRoleTreeCorruption: every node's children are the
// tree's nodes of their paths, have it as their parent, and are in path
// order, each once; each drift is reported by name.
func TestCheckFindsEachRoleTreeCorruption(t *testing.T) {
	cases := map[string]struct {
		corrupt func(w *world)
		want    string
	}{
		"a child with another parent": {func(w *world) {
			w.b.Roles.Get("r/x").Parent = w.b.Roles.Get("s")
		}, "r: child r/x has another parent"},
		"a child that is not the tree's node": {func(w *world) {
			r := w.b.Roles.Get("r")
			r.Children[0] = &roles.Node{Path: "r/x", Parent: r}
		}, "r: child r/x is not the tree's node of its path"},
		"children out of order": {func(w *world) {
			c := w.b.Roles.Root.Children
			c[1], c[2] = c[2], c[1]
		}, "the root: children t and s out of order"},
		"a child listed twice": {func(w *world) {
			root := w.b.Roles.Root
			root.Children = append(root.Children[:2:2], root.Children[1:]...)
		}, "the root: children s and s out of order"},
		"a node missing from its parent's children": {func(w *world) {
			w.b.Roles.Get("r").Children = nil
		}, "role r/x: not among its parent's children"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := branching(t)
			tc.corrupt(w)
			require.ErrorContains(t, w.check(), tc.want)
		})
	}
}
