package allocator_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
)

// AcceptEach drops the invalid operations of an accept, as Mesos's master
// does, and applies the rest; Accept refuses them all.
func TestAcceptEachDropsInvalidOperations(t *testing.T) {
	build := func() (*allocator.Allocator, offer.Offer) {
		a := newAllocator(t, allocator.Options{Seed: 1, Clock: allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)).Now})
		require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096;disk:1000"), nil))
		require.NoError(t, a.AddFramework("db", allocator.FrameworkInfo{Roles: []string{"db"}, Principal: "ops"}, nil, allocator.Active))
		return a, a.Allocate().Offers[0]
	}
	reserve := func(o offer.Offer, principal string) offer.Operation {
		r, err := res("cpus:1;disk:500").Allocate("db").PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: "db", Principal: principal})
		require.NoError(t, err)
		return offer.Reserve{Resources: r}
	}
	task := func(id, text string) offer.Operation {
		return offer.Launch{Tasks: []offer.Task{{ID: id, Resources: res(text).Allocate("db")}}}
	}
	ops := func(o offer.Offer) []offer.Operation {
		return []offer.Operation{
			task("t1", "cpus:1;mem:1024"),
			reserve(o, "mallory"),         // wrong principal: dropped
			task("t2", "cpus:8"),          // does not fit: dropped
			reserve(o, "ops"),             // applied
			task("t1", "cpus:1;mem:1024"), // t1 runs already: dropped
			task("t3", "cpus(reservations: [(DYNAMIC,db,ops)]):1;mem:512"), // on the new reservation
		}
	}

	a, o := build()
	before := a.Describe()
	err := a.Accept("db", "a1", o.Resources, ops(o), nil)
	require.ErrorIs(t, err, offer.ErrPrincipalMismatch)
	require.Equal(t, before, a.Describe(), "the strict Accept changed the state")

	a, o = build()
	results, err := a.AcceptEach("db", "a1", o.Resources, ops(o), nil)
	require.NoError(t, err)
	require.Len(t, results, 6)
	want := []error{nil, offer.ErrPrincipalMismatch, offer.ErrDoesNotContain, nil, allocator.ErrDuplicateTask, nil}
	for i, w := range want {
		if w == nil {
			require.NoError(t, results[i], "operation %d", i)
			continue
		}
		require.ErrorIs(t, results[i], w, "operation %d", i)
		if !errors.Is(w, allocator.ErrDuplicateTask) {
			require.ErrorIs(t, results[i], allocator.ErrOperation, "operation %d", i)
		}
	}
	var ids []string
	for _, tv := range a.Tasks("db") {
		ids = append(ids, tv.ID)
	}
	require.Equal(t, []string{"t1", "t3"}, ids)
	v, _ := a.Agent("a1")
	require.Equal(t, "cpus(allocated: db):1; mem(allocated: db):1536; cpus(allocated: db)(reservations: [(DYNAMIC,db,ops)]):1", v.Allocated["db"].String())
	require.True(t, v.Offered["db"].IsEmpty(), "the rest was not given back: %s", v.Offered["db"])
	require.True(t, v.Total.Contains(res("disk(reservations: [(DYNAMIC,db,ops)]):500")), "the reservation was not made: %s", v.Total)
	require.NoError(t, allocatortest.Check(a))

	// A call-level error changes nothing.
	before = a.Describe()
	_, err = a.AcceptEach("db", "a1", res("cpus:100").Allocate("db"), ops(o), nil)
	require.ErrorIs(t, err, allocator.ErrNotHeld)
	require.Equal(t, before, a.Describe())
}

func TestOperationContext(t *testing.T) {
	a := catalogueCluster(t)
	ctx, err := a.OperationContext("db", "a1")
	require.NoError(t, err)
	require.Equal(t, "ops", ctx.Principal)
	require.Equal(t, []string{"db", "db/replica"}, ctx.Roles)
	require.True(t, ctx.FrameworkCapabilities.Has(offer.SharedResources))
	require.True(t, ctx.AgentCapabilities.Has(offer.ResizeVolume))
	v, _ := a.Agent("a1")
	require.True(t, ctx.Checkpointed.Equal(v.Total))
	require.True(t, ctx.InUse.Contains(res(pgVolume)), "pg is in use: %s", ctx.InUse)
	require.False(t, ctx.InUse.Contains(res(logsVolume)))

	// Destroying the volume in use is refused with that context, as
	// Accept refuses it.
	destroy := offer.Destroy{Volumes: heldAs(t, a, "db", "a1", pgVolume)}
	require.ErrorIs(t, offer.Validate(destroy, ctx), offer.ErrVolumeInUse)

	op, err := a.OperatorContext("a1")
	require.NoError(t, err)
	require.True(t, op.Operator)
	require.True(t, op.InUse.Contains(res(pgVolume)))
	_, err = a.OperationContext("nobody", "a1")
	require.ErrorIs(t, err, allocator.ErrUnknownFramework)
	_, err = a.OperatorContext("nowhere")
	require.ErrorIs(t, err, allocator.ErrUnknownAgent)
}

func TestParseQuota(t *testing.T) {
	q, err := allocator.ParseQuota("cpus:4;mem:8192")
	require.NoError(t, err)
	require.Equal(t, "cpus:4; mem:8192", q.Guarantees.String())
	require.Equal(t, "cpus:4; mem:8192", q.Limits.String())
	_, err = allocator.ParseQuota("cpus:-1")
	require.ErrorIs(t, err, allocator.ErrInvalidQuota)
	_, err = allocator.ParseQuota("cpus")
	require.ErrorIs(t, err, allocator.ErrInvalidQuota)
}

func TestRoleByName(t *testing.T) {
	a := catalogueCluster(t)
	v, ok := a.Role("web")
	require.True(t, ok)
	require.Equal(t, "web", v.Role)
	require.Equal(t, "cpus:1", v.Quota.Guarantees.String())
	require.Equal(t, []string{"web"}, v.Frameworks)
	for _, r := range a.Roles() {
		got, ok := a.Role(r.Role)
		require.True(t, ok)
		require.Equal(t, r, got)
	}
	_, ok = a.Role("nobody")
	require.False(t, ok)
}
