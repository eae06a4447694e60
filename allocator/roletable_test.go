package allocator

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// A role table keeps each role once, in name order, with its marks; a
// role leaves it with its last mark, and markOnly sets exactly the roles
// marked one way without touching the other marks.
func TestRoleTable(t *testing.T) {
	var rt roleTable
	require.True(t, rt.mark("web", subscribed))
	require.True(t, rt.mark("batch", subscribed))
	require.False(t, rt.mark("web", subscribed), "marked twice")
	require.True(t, rt.mark("web", tracked))
	require.True(t, rt.mark("old", tracked))
	require.Equal(t, []string{"batch", "web"}, rt.list(subscribed))
	require.Equal(t, []string{"old", "web"}, rt.list(tracked))
	require.Nil(t, rt.list(suppressed))
	require.Equal(t, []string{"batch", "old", "web"}, []string{rt[0].role, rt[1].role, rt[2].role}, "one entry a role, in name order")
	require.True(t, rt.has("web", subscribed|suppressed), "has any of the marks")
	require.False(t, rt.has("old", subscribed))
	require.False(t, rt.has("nope", tracked))

	require.False(t, rt.unmark("old", subscribed), "not marked so")
	require.True(t, rt.unmark("old", tracked))
	require.Len(t, rt, 2, "a role with no mark left leaves the table")

	rt.markOnly(suppressed, []string{"web", "web", "batch"})
	require.Equal(t, []string{"batch", "web"}, rt.list(suppressed))
	rt.markOnly(suppressed, []string{"batch"})
	require.Equal(t, []string{"batch"}, rt.list(suppressed))
	require.Equal(t, []string{"batch", "web"}, rt.list(subscribed), "other marks untouched")
	rt.markOnly(subscribed, nil)
	require.Equal(t, 1, rt.count(suppressed))
	require.Equal(t, 0, rt.count(subscribed))
	require.Equal(t, []string{"web"}, slices.Collect(rt.all(tracked)))
	require.Len(t, rt, 2, "batch (suppressed) and web (tracked) are left")
}

// One table of roles instead of three sets keeps the framework's record in
// the 256-byte size class (288 with the sets; 240 before the statement of
// demand and the two reasons it and the rotation added to the counts of
// pass-overs).
func TestFrameworkRecordIsSmall(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(framework{}), uintptr(256))
}
