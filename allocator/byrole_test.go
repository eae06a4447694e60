package allocator

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// byRole keeps its first role in the agent and the others in a map, and
// reads as one map would.
func TestByRole(t *testing.T) {
	var c byRole[nobodyEntry]
	_, ok := c.get("")
	require.False(t, ok, "the empty role has no entry")
	_, ok = c.get("web")
	require.False(t, ok)

	c.set("web", nobodyEntry{version: 1})
	c.set("db", nobodyEntry{version: 2})
	c.set("batch", nobodyEntry{version: 3})
	c.set("web", nobodyEntry{version: 4}) // replaces, inline
	c.set("db", nobodyEntry{version: 5})  // replaces, in the map
	require.Equal(t, []string{"batch", "db", "web"}, c.roles())
	for role, want := range map[string]uint64{"web": 4, "db": 5, "batch": 3} {
		e, ok := c.get(role)
		require.True(t, ok, role)
		require.Equal(t, want, e.version, role)
	}

	c.drop("web") // the inline one
	_, ok = c.get("web")
	require.False(t, ok)
	_, ok = c.get("")
	require.False(t, ok, "a dropped inline entry is not the empty role's")
	require.Equal(t, []string{"batch", "db"}, c.roles())

	c.set("ml", nobodyEntry{version: 6}) // takes the free inline place
	require.Equal(t, "ml", c.role)
	c.drop("db")
	c.drop("absent")
	require.True(t, slices.Equal([]string{"batch", "ml"}, c.roles()))
	e, ok := c.get("batch")
	require.True(t, ok)
	require.Equal(t, uint64(3), e.version)

	// A role kept in the map stays there when the inline place frees.
	c.drop("ml")
	c.set("batch", nobodyEntry{version: 7})
	require.Equal(t, []string{"batch"}, c.roles())
	e, _ = c.get("batch")
	require.Equal(t, uint64(7), e.version)
	c.drop("batch")
	require.Empty(t, c.roles())
	_, ok = c.get("batch")
	require.False(t, ok)
}
