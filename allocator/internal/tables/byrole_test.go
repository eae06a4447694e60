package tables

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// byRole keeps its first role in the agent and the others in a map, and
// reads as one map would.
func TestByRole(t *testing.T) {
	var c ByRole[entry]
	_, ok := c.Get("")
	require.False(t, ok, "the empty role has no entry")
	_, ok = c.Get("web")
	require.False(t, ok)

	c.Set("web", entry{version: 1})
	c.Set("db", entry{version: 2})
	c.Set("batch", entry{version: 3})
	c.Set("web", entry{version: 4}) // replaces, inline
	c.Set("db", entry{version: 5})  // replaces, in the map
	require.Equal(t, []string{"batch", "db", "web"}, c.Roles())
	for role, want := range map[string]uint64{"web": 4, "db": 5, "batch": 3} {
		e, ok := c.Get(role)
		require.True(t, ok, role)
		require.Equal(t, want, e.version, role)
	}

	c.Drop("web") // the inline one
	_, ok = c.Get("web")
	require.False(t, ok)
	_, ok = c.Get("")
	require.False(t, ok, "a dropped inline entry is not the empty role's")
	require.Equal(t, []string{"batch", "db"}, c.Roles())

	c.Set("ml", entry{version: 6}) // takes the free inline place
	require.Equal(t, "ml", c.Role)
	c.Drop("db")
	c.Drop("absent")
	require.True(t, slices.Equal([]string{"batch", "ml"}, c.Roles()))
	e, ok := c.Get("batch")
	require.True(t, ok)
	require.Equal(t, uint64(3), e.version)

	// A role kept in the map stays there when the inline place frees.
	c.Drop("ml")
	c.Set("batch", entry{version: 7})
	require.Equal(t, []string{"batch"}, c.Roles())
	e, _ = c.Get("batch")
	require.Equal(t, uint64(7), e.version)
	c.Drop("batch")
	require.Empty(t, c.Roles())
	_, ok = c.Get("batch")
	require.False(t, ok)
}

// entry stands for what an agent keeps by role.
type entry struct{ version uint64 }

// A randomized model: a byRole reads as a map would, whatever the order of
// sets and drops, and uses its inline place first.
func TestByRoleModel(t *testing.T) {
	const seed = 3
	rng := rand.New(rand.NewPCG(seed, 5))
	roles := []string{"a", "b", "c", "d", "e/f"}
	for round := range 200 {
		var c ByRole[entry]
		want := map[string]uint64{}
		for step := range 40 {
			role := roles[rng.IntN(len(roles))]
			msg := fmt.Sprintf("seed %d round %d step %d role %s", seed, round, step, role)
			if rng.IntN(3) == 0 {
				c.Drop(role)
				delete(want, role)
				msg += " drop"
			} else {
				_, inMap := c.More[role]
				inlineFree := c.Role == ""
				v := uint64(step + 1)
				c.Set(role, entry{version: v})
				want[role] = v
				msg += " set"
				if inlineFree && !inMap {
					require.Equal(t, role, c.Role, "%s: a new role takes the free inline place", msg)
				}
				if inMap {
					require.Equal(t, v, c.More[role].version, "%s: a role kept in the map stays there", msg)
				}
			}
			checkByRole(t, &c, want, roles, msg)
		}
	}
}

func checkByRole(t *testing.T, c *ByRole[entry], want map[string]uint64, roles []string, msg string) {
	t.Helper()
	require.Equal(t, slices.Sorted(maps.Keys(want)), c.Roles(), msg)
	for _, role := range append([]string{""}, roles...) {
		w, in := want[role]
		got, ok := c.Get(role)
		require.Equal(t, in, ok, "%s: get %q", msg, role)
		require.Equal(t, w, got.version, "%s: get %q", msg, role)
	}
	if c.Role == "" {
		require.Zero(t, c.First, "%s: an unused inline place holds a value", msg)
	} else {
		_, dup := c.More[c.Role]
		require.False(t, dup, "%s: %q both inline and in the map", msg, c.Role)
	}
	if len(c.More) == 0 && len(want) > 0 {
		require.NotEmpty(t, c.Role, msg)
	}
}

// Get of the empty role finds nothing, even in a byRole whose inline place
// is free and holds a stale value.
func TestByRoleEmptyRole(t *testing.T) {
	c := ByRole[entry]{First: entry{version: 9}}
	_, ok := c.Get("")
	require.False(t, ok)
	c = ByRole[entry]{More: map[string]entry{"": {version: 3}}}
	e, ok := c.Get("")
	require.True(t, ok, "a map entry is found whatever its role")
	require.Equal(t, uint64(3), e.version)
}
