package cluster

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

func TestHeadroomOf(t *testing.T) {
	require.True(t, HeadroomOf(resources.Resources{}).IsEmpty())
	requireQty(t, qty("cpus:4;mem:10;disk:5"), HeadroomOf(res("cpus:4;mem:10;disk:5;ports:[1-10];zones:{a}")))
	requireQty(t, qty("cpus:4;mem:1"), HeadroomOf(res("cpus:4;cpus(web):2;cpus{REV}:1;mem:1;mem(web):9;disk(db)[id:v,path:p]<SHARED>:10")))
	requireQty(t, qty("cpus:3"), HeadroomOf(alloc("cpus:1", "web").Plus(alloc("cpus:2", "db"))), "allocation roles aside")
	require.True(t, HeadroomOf(res("cpus(web):2;cpus{REV}:1")).IsEmpty())
}

func TestCheckUsed(t *testing.T) {
	roles := []string{"web", "db", "team/dev"}
	for _, used := range []resources.Resources{
		{},
		alloc("cpus:1;mem:5", "web"),
		alloc("cpus:1", "web").Plus(alloc("mem:5", "db")),
		res("cpus(db):1;disk(db)[id:v,path:p]<SHARED>:10").Allocate("db"),
		res("cpus(team):1").Allocate("team/dev"), // reserved to an ancestor
		res("cpus(team/dev):1").Allocate("team/dev"),
		res("cpus{REV}:1;ports:[1-10]").Allocate("web"),
	} {
		require.NoError(t, CheckUsed(used, roles), "%s", used)
	}

	for _, c := range []struct {
		used  resources.Resources
		roles []string
		want  error
		msg   string
	}{
		{res("cpus:1"), roles, ErrInvalidResources, "allocator: invalid resources: cpus:1 has no allocation role"},
		{alloc("cpus:1", "web").Plus(res("mem:1")), roles, ErrInvalidResources, "allocator: invalid resources: mem:1 has no allocation role"},
		{alloc("cpus:1", "batch"), roles, ErrRoleNotSubscribed, `allocator: framework not subscribed to role: "batch"`},
		{alloc("cpus:1", "web"), nil, ErrRoleNotSubscribed, `allocator: framework not subscribed to role: "web"`},
		{alloc("cpus:1", "team"), roles, ErrRoleNotSubscribed, `allocator: framework not subscribed to role: "team"`},
		{res("cpus(db):1").Allocate("web"), roles, ErrInvalidResources, "allocator: invalid resources: cpus(allocated: web)(db):1 is reserved for another role"},
		{res("cpus(team/dev):1").Allocate("team/dev").Plus(res("cpus(team/dev):1").Allocate("db")), roles, ErrInvalidResources,
			"allocator: invalid resources: cpus(allocated: db)(team/dev):1 is reserved for another role"},
	} {
		err := CheckUsed(c.used, c.roles)
		require.True(t, errors.Is(err, c.want), "%s: %v", c.used, err)
		require.EqualError(t, err, c.msg)
	}

	// An entry that is not valid on its own (merged past the largest
	// amount): the error wraps the resources package's too.
	big := res("cpus:1000000000000000").Allocate("web")
	require.NoError(t, CheckUsed(big, roles), "the largest amount is valid")
	err := CheckUsed(big.Plus(big), roles)
	require.True(t, errors.Is(err, ErrInvalidResources), "%v", err)
	require.True(t, errors.Is(err, resources.ErrInvalidScalar), "%v", err)
	require.EqualError(t, err, "allocator: invalid resources: resources: invalid scalar: cpus:2000000000000000: larger than 1000000000000000")
}

func TestPickRoles(t *testing.T) {
	fw := &Framework{ID: "f1"}
	roles, err := pickRoles(fw, nil)
	require.NoError(t, err)
	require.Empty(t, roles, "no roles")

	fw.Roles.MarkOnly(tables.Subscribed, []string{"web", "db"})
	fw.Roles.Mark("old", tables.Tracked)
	fw.Roles.Mark("quiet", tables.Suppressed)
	for _, none := range [][]string{nil, {}} {
		roles, err := pickRoles(fw, none)
		require.NoError(t, err)
		require.Equal(t, []string{"db", "web"}, roles, "every subscribed role, in order")
	}

	named := []string{"web"}
	roles, err = pickRoles(fw, named)
	require.NoError(t, err)
	require.Equal(t, []string{"web"}, roles)
	roles, err = pickRoles(fw, []string{"web", "db", "web"})
	require.NoError(t, err)
	require.Equal(t, []string{"web", "db", "web"}, roles, "as named")

	for _, c := range []struct {
		roles []string
		msg   string
	}{
		{[]string{"batch"}, `allocator: framework not subscribed to role: framework "f1", role "batch"`},
		{[]string{"web", "old"}, `allocator: framework not subscribed to role: framework "f1", role "old"`},
		{[]string{"quiet", "web"}, `allocator: framework not subscribed to role: framework "f1", role "quiet"`},
		{[]string{"db", "x", "y"}, `allocator: framework not subscribed to role: framework "f1", role "x"`},
		{[]string{""}, `allocator: framework not subscribed to role: framework "f1", role ""`},
	} {
		roles, err := pickRoles(fw, c.roles)
		require.Nil(t, roles)
		require.True(t, errors.Is(err, ErrRoleNotSubscribed), "%v", err)
		require.EqualError(t, err, c.msg)
	}
}

func TestValidID(t *testing.T) {
	for _, id := range []string{
		"a", "agent-1", "a b", " ", "~", "a~", "é", "日本", "x/y.z",
		"S0-1234;weird:but(ok)", "\x20\x7e",
	} {
		require.NoError(t, ValidID("agent", id), "%q", id)
	}

	err := ValidID("agent", "")
	require.True(t, errors.Is(err, ErrInvalidID))
	require.EqualError(t, err, "allocator: invalid id: empty agent id")
	err = ValidID("framework", "")
	require.EqualError(t, err, "allocator: invalid id: empty framework id")

	for _, id := range []string{"\x00", "a\x00", "a\tb", "\n", "a\r", "\x1f", "x\x1fy", "\x7f", "a\x7f", "\x7fa", "ok\x01", "\u0080", "a\u0085", "\u009fz"} {
		err := ValidID("task", id)
		require.True(t, errors.Is(err, ErrInvalidID), "%q: %v", id, err)
		require.Equal(t, "allocator: invalid id: task id "+strconv.Quote(id)+" has control characters", err.Error())
	}
	// A byte that is not UTF-8 would come back from the journal's JSON
	// as U+FFFD: another id.
	for _, id := range []string{"\xff", "a\xc3", "\xed\xa0\x80", "ok\x80"} {
		err := ValidID("framework", id)
		require.True(t, errors.Is(err, ErrInvalidID), "%q: %v", id, err)
		require.Equal(t, "allocator: invalid id: framework id "+strconv.Quote(id)+" is not valid UTF-8", err.Error())
	}
}
