package tables

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// A role table keeps each role once, in name order, with its marks; a
// role leaves it with its last mark, and markOnly sets exactly the roles
// marked one way without touching the other marks.
func TestRoleTable(t *testing.T) {
	var rt RoleTable
	require.True(t, rt.Mark("web", Subscribed))
	require.True(t, rt.Mark("batch", Subscribed))
	require.False(t, rt.Mark("web", Subscribed), "marked twice")
	require.True(t, rt.Mark("web", Tracked))
	require.True(t, rt.Mark("old", Tracked))
	require.Equal(t, []string{"batch", "web"}, rt.List(Subscribed))
	require.Equal(t, []string{"old", "web"}, rt.List(Tracked))
	require.Nil(t, rt.List(Suppressed))
	require.Equal(t, []string{"batch", "old", "web"}, []string{rt[0].role, rt[1].role, rt[2].role}, "one entry a role, in name order")
	require.True(t, rt.Has("web", Subscribed|Suppressed), "has any of the marks")
	require.False(t, rt.Has("old", Subscribed))
	require.False(t, rt.Has("nope", Tracked))

	require.False(t, rt.Unmark("old", Subscribed), "not marked so")
	require.True(t, rt.Unmark("old", Tracked))
	require.Len(t, rt, 2, "a role with no mark left leaves the table")

	rt.MarkOnly(Suppressed, []string{"web", "web", "batch"})
	require.Equal(t, []string{"batch", "web"}, rt.List(Suppressed))
	rt.MarkOnly(Suppressed, []string{"batch"})
	require.Equal(t, []string{"batch"}, rt.List(Suppressed))
	require.Equal(t, []string{"batch", "web"}, rt.List(Subscribed), "other marks untouched")
	rt.MarkOnly(Subscribed, nil)
	require.Equal(t, 1, rt.Count(Suppressed))
	require.Equal(t, 0, rt.Count(Subscribed))
	require.Equal(t, []string{"web"}, slices.Collect(rt.All(Tracked)))
	require.Len(t, rt, 2, "batch (suppressed) and web (tracked) are left")
}

var allMarks = []roleMark{Subscribed, Tracked, Suppressed}

// A randomized model: a role table reads as a map of roles to their marks
// would, keeps its roles sorted and each once, and keeps no role without a
// mark.
func TestRoleTableModel(t *testing.T) {
	const seed = 13
	rng := rand.New(rand.NewPCG(seed, 7))
	roles := []string{"a", "b", "b/c", "d", "e"}
	for round := range 200 {
		var rt RoleTable
		want := map[string]roleMark{}
		for step := range 30 {
			m := allMarks[rng.IntN(len(allMarks))]
			role := roles[rng.IntN(len(roles))]
			msg := fmt.Sprintf("seed %d round %d step %d mark %d", seed, round, step, m)
			switch rng.IntN(3) {
			case 0:
				msg += " mark " + role
				require.Equal(t, want[role]&m == 0, rt.Mark(role, m), msg)
				want[role] |= m
			case 1:
				msg += " unmark " + role
				require.Equal(t, want[role]&m != 0, rt.Unmark(role, m), msg)
				if want[role] &^= m; want[role] == 0 {
					delete(want, role)
				}
			case 2:
				var list []string
				for range rng.IntN(4) {
					list = append(list, roles[rng.IntN(len(roles))])
				}
				msg += fmt.Sprintf(" markOnly %q", list)
				rt.MarkOnly(m, list)
				for r := range want {
					if !slices.Contains(list, r) {
						if want[r] &^= m; want[r] == 0 {
							delete(want, r)
						}
					}
				}
				for _, r := range list {
					want[r] |= m
				}
			}
			checkRoleTable(t, rt, want, roles, msg)
		}
	}
}

func checkRoleTable(t *testing.T, rt RoleTable, want map[string]roleMark, roles []string, msg string) {
	t.Helper()
	require.Len(t, rt, len(want), msg)
	for i, e := range rt {
		require.NotZero(t, e.marks, "%s: %s has no mark", msg, e.role)
		require.Equal(t, want[e.role], e.marks, "%s: %s", msg, e.role)
		if i > 0 {
			require.Less(t, rt[i-1].role, e.role, "%s: sorted, each once", msg)
		}
	}
	for _, m := range allMarks {
		var list []string
		for _, r := range slices.Sorted(maps.Keys(want)) {
			if want[r]&m != 0 {
				list = append(list, r)
			}
		}
		require.Equal(t, list, rt.List(m), "%s: list %d", msg, m)
		require.Equal(t, len(list), rt.Count(m), "%s: count %d", msg, m)
		all := slices.Collect(rt.All(m))
		require.True(t, slices.Equal(list, all), "%s: all %d = %q, want %q", msg, m, all, list)
		if len(list) > 1 {
			var first []string
			for r := range rt.All(m) {
				first = append(first, r)
				break
			}
			require.Equal(t, list[:1], first, "%s: all stops when asked", msg)
		}
		for _, r := range append([]string{"", "zz"}, roles...) {
			require.Equal(t, want[r]&m != 0, rt.Has(r, m), "%s: has %s %d", msg, r, m)
		}
	}
	for _, r := range roles {
		require.Equal(t, want[r] != 0, rt.Has(r, Subscribed|Tracked|Suppressed), "%s: has %s any", msg, r)
	}
}
