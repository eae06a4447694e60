package allocator

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFrameworkSet checks the inline id and the map it turns into against
// a plain Go set, through repeated adds, removals of absent ids and the
// move from one id to two.
func TestFrameworkSet(t *testing.T) {
	var s frameworkSet
	want := map[string]struct{}{}
	check := func(step string) {
		t.Helper()
		require.Equal(t, len(want), s.len(), step)
		require.Equal(t, slices.Sorted(maps.Keys(want)), s.sorted(), step)
		require.ElementsMatch(t, slices.Collect(maps.Keys(want)), slices.Collect(s.all()), step)
		for _, id := range []string{"f0", "f1", "f2", "f3"} {
			_, in := want[id]
			require.Equal(t, in, s.any(func(x string) bool { return x == id }), "%s: any %s", step, id)
		}
	}
	add := func(id string) {
		s.add(id)
		want[id] = struct{}{}
	}
	remove := func(id string) {
		s.remove(id)
		delete(want, id)
	}
	check("empty")
	remove("f1")
	check("removal from empty")
	add("f2")
	check("one inline")
	add("f2")
	check("the same again")
	remove("f1")
	check("removal of another id")
	remove("f2")
	check("inline removed")
	add("f2")
	add("f1")
	check("two: a map")
	add("f1")
	remove("f2")
	check("removed from the map")
	add("f3")
	add("f0")
	check("three")
}
