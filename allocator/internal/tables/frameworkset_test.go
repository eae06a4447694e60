package tables

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFrameworkSet checks the inline id and the map it turns into against
// a plain Go set, through repeated adds, removals of absent ids and the
// move from one id to two.
func TestFrameworkSet(t *testing.T) {
	var s FrameworkSet
	want := map[string]struct{}{}
	check := func(step string) {
		t.Helper()
		require.Equal(t, len(want), s.Len(), step)
		require.Equal(t, slices.Sorted(maps.Keys(want)), s.Sorted(), step)
		require.ElementsMatch(t, slices.Collect(maps.Keys(want)), slices.Collect(s.all()), step)
		for _, id := range []string{"f0", "f1", "f2", "f3"} {
			_, in := want[id]
			require.Equal(t, in, s.Any(func(x string) bool { return x == id }), "%s: any %s", step, id)
		}
	}
	add := func(id string) {
		s.Add(id)
		want[id] = struct{}{}
	}
	remove := func(id string) {
		s.Remove(id)
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

// A randomized model: a frameworkSet reads as a Go set would, keeps its
// only id inline until a second comes, and keeps a map once made.
func TestFrameworkSetModel(t *testing.T) {
	const seed = 9
	rng := rand.New(rand.NewPCG(seed, 6))
	ids := []string{"f0", "f1", "f2", "f3", "f4"}
	for round := range 200 {
		var s FrameworkSet
		want := map[string]struct{}{}
		hadMap := false
		for step := range 30 {
			id := ids[rng.IntN(len(ids))]
			msg := fmt.Sprintf("seed %d round %d step %d id %s", seed, round, step, id)
			if rng.IntN(3) == 0 {
				s.Remove(id)
				delete(want, id)
				msg += " remove"
			} else {
				s.Add(id)
				want[id] = struct{}{}
				msg += " add"
			}
			require.Equal(t, len(want), s.Len(), msg)
			require.Equal(t, slices.Sorted(maps.Keys(want)), s.Sorted(), msg)
			for _, x := range ids {
				_, in := want[x]
				calls := 0
				got := s.Any(func(y string) bool { calls++; return y == x })
				require.Equal(t, in, got, "%s: any %s", msg, x)
				require.LessOrEqual(t, calls, len(want), msg)
			}
			// any stops at the first id f holds for, and asks every id
			// otherwise.
			calls := 0
			require.Equal(t, len(want) > 0, s.Any(func(string) bool { calls++; return true }), msg)
			require.Equal(t, min(len(want), 1), calls, msg)
			calls = 0
			require.False(t, s.Any(func(string) bool { calls++; return false }), msg)
			require.Equal(t, len(want), calls, msg)

			// Layout.
			if hadMap {
				require.NotNil(t, s.m, "%s: a map once made stays", msg)
			}
			hadMap = s.m != nil
			if s.m == nil {
				require.LessOrEqual(t, len(want), 1, msg)
				for id := range want {
					require.Equal(t, id, s.one, msg)
				}
				if len(want) == 0 {
					require.Empty(t, s.one, msg)
				}
			} else {
				require.Empty(t, s.one, "%s: no inline id beside a map", msg)
			}
		}
	}
}

// One id is kept inline: no map until a second.
func TestFrameworkSetInline(t *testing.T) {
	var s FrameworkSet
	s.Add("a")
	require.Nil(t, s.m)
	require.Equal(t, "a", s.one)
	s.Add("a")
	require.Nil(t, s.m)
	s.Remove("a")
	require.Nil(t, s.m)
	require.Zero(t, s.Len())
	s.Add("b")
	require.Nil(t, s.m)
	s.Add("c")
	require.NotNil(t, s.m)
	require.Equal(t, []string{"b", "c"}, s.Sorted())
	var ids []string
	for id := range s.all() {
		ids = append(ids, id)
		break
	}
	require.Len(t, ids, 1, "all stops when asked")
	var one FrameworkSet
	one.Add("x")
	for id := range one.all() {
		require.Equal(t, "x", id)
		break
	}
}
