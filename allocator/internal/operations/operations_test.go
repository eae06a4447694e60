package operations

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// world is one agent and one framework in role r, over real books.
type world struct {
	ops *Operations
	ag  *cluster.Agent
	fw  *cluster.Framework
}

func newWorld(t *testing.T, total string) *world {
	cs, tree := &cluster.State{}, roles.NewTree()
	parking := quota.NewParking()
	b := &books.Books{Cluster: cs, Roles: tree, RoleSorter: &roles.TrackedSorter{Sorter: sorter.NewDRF(sorter.Config{})},
		Declines: &declines.Book{Cluster: cs, Roles: tree}, Parking: &parking, Allowances: &quota.Allowances{},
		NewFrameworkSorter: func(uint64) sorter.Sorter { return sorter.NewDRF(sorter.Config{}) }}
	ledger := cluster.NewLedger(cs)
	w := &world{ops: &Operations{Cluster: cs, Books: b, Tasks: &ledger}}
	w.ag = &cluster.Agent{ID: "a1", Total: resources.MustParse(total, "*"), Active: true}
	cs.NumberAgent(w.ag)
	cs.Agents.Put(w.ag)
	cs.AgentList = slices.Insert(cs.AgentList, 0, w.ag)
	b.AddTotal(w.ag)
	w.fw = &cluster.Framework{ID: "f1", Active: true, Tasks: map[string]*cluster.Task{}}
	w.fw.Info.Roles = []string{"r"}
	w.fw.Roles.MarkOnly(tables.Subscribed, []string{"r"})
	cs.Frameworks.Put(w.fw)
	b.TrackUnderRole(w.fw, "r")
	return w
}

// offer offers text to f1 in r.
func (w *world) offer(text string) resources.Resources {
	res := resources.MustParse(text, "*").Allocate("r")
	w.ops.Books.TrackAllocation(w.fw, w.ag, res, false)
	return res
}

func launch(id, text string) offer.Operation {
	return offer.Launch{Tasks: []offer.Task{{ID: id, Resources: resources.MustParse(text, "*").Allocate("r")}}}
}

func TestUpdateLaunches(t *testing.T) {
	w := newWorld(t, "cpus:4;mem:4096")
	offered := w.offer("cpus:4;mem:4096")
	accepted, err := w.ops.Update("f1", "a1", offered, []offer.Operation{launch("t1", "cpus:1;mem:512")})
	require.NoError(t, err)
	require.True(t, accepted.Launched.Equal(resources.MustParse("cpus:1;mem:512", "*").Allocate("r")))
	require.True(t, w.ag.Allocated.Get("f1").Equal(accepted.Launched), "the task's resources are in use")
	require.True(t, w.ag.Offered.Get("f1").Equal(accepted.Unused), "the rest stays offered")
	require.Contains(t, w.fw.Tasks, "t1", "the task joined the ledger")

	// A second launch of the same id is refused, and nothing changes.
	before := w.ag.Allocated.Get("f1")
	_, err = w.ops.Update("f1", "a1", accepted.Unused, []offer.Operation{launch("t2", "cpus:1"), launch("t1", "cpus:1")})
	require.ErrorIs(t, err, cluster.ErrDuplicateTask)
	require.True(t, w.ag.Allocated.Get("f1").Equal(before), "all or nothing: t2 was not launched")
	require.NotContains(t, w.fw.Tasks, "t2")
}

func TestUpdateRefusesWhatIsNotHeld(t *testing.T) {
	w := newWorld(t, "cpus:4")
	w.offer("cpus:1")
	_, err := w.ops.Update("f1", "a1", resources.MustParse("cpus:2", "*").Allocate("r"), []offer.Operation{launch("t1", "cpus:1")})
	require.ErrorIs(t, err, cluster.ErrNotHeld)
	_, err = w.ops.Update("f1", "a1", resources.MustParse("cpus:1", "*"), nil)
	require.ErrorIs(t, err, cluster.ErrInvalidResources, "offered resources carry one allocation role")
}

func TestReserveMovesTheReservationInTheBooks(t *testing.T) {
	w := newWorld(t, "cpus:4")
	offered := w.offer("cpus:4")
	reserved, err := resources.MustParse("cpus:2", "*").Allocate("r").PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: "r", Principal: "p"})
	require.NoError(t, err)
	reserve := offer.Reserve{Resources: reserved}
	w.fw.Info.Principal = "q"
	_, err = w.ops.Update("f1", "a1", offered, []offer.Operation{reserve})
	require.ErrorIs(t, err, cluster.ErrOperation, "the framework's principal is not p")
	require.True(t, w.ag.Total.Equal(resources.MustParse("cpus:4", "*")), "nothing changed")
	require.True(t, w.ops.Books.Roles.Get("r").Reserved.IsEmpty())

	w.fw.Info.Principal = "p"
	_, err = w.ops.Update("f1", "a1", offered, []offer.Operation{reserve})
	require.NoError(t, err)
	require.True(t, w.ops.Books.Roles.Get("r").Reserved.Equal(resources.MustParseQuantities("cpus:2")), "the reservation is in the role tree")
	require.True(t, w.ops.Cluster.Totals.Equal(resources.MustParseQuantities("cpus:4")), "conversions keep every quantity")
	require.True(t, w.ag.Total.Contains(reserved.Unallocate()), "the agent's total follows the conversion")
}

func TestUpdateAvailable(t *testing.T) {
	w := newWorld(t, "cpus:4")
	err := w.ops.UpdateAvailable("a1", []offer.Operation{launch("t1", "cpus:1")})
	require.ErrorIs(t, err, cluster.ErrOperation, "operators cannot launch tasks")
	w.offer("cpus:3")
	unreserve := offer.Unreserve{Resources: resources.MustParse("cpus:1", "*")}
	err = w.ops.UpdateAvailable("a1", []offer.Operation{unreserve})
	require.Error(t, err, "nothing reserved to unreserve")
	require.True(t, w.ag.Total.Equal(resources.MustParse("cpus:4", "*")))
}

func TestCheckEachChangesNothing(t *testing.T) {
	w := newWorld(t, "cpus:4")
	offered := w.offer("cpus:4")
	require.NoError(t, w.ops.CheckEach("f1", "a1", offered, []offer.Operation{launch("t1", "cpus:1"), launch("t2", "cpus:3")}))
	require.Empty(t, w.fw.Tasks)
	require.True(t, w.ag.Offered.Get("f1").Equal(offered))
	err := w.ops.CheckEach("f1", "a1", offered, []offer.Operation{launch("t1", "cpus:3"), launch("t2", "cpus:3")})
	require.Error(t, err, "the second does not fit what the first leaves")
}

// dynamic returns text (unreserved) reserved dynamically for role by
// principal p.
func dynamic(t *testing.T, text, role string) resources.Resources {
	t.Helper()
	res, err := resources.MustParse(text, "*").PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: role, Principal: "p"})
	require.NoError(t, err)
	return res
}

// TestOperatorReservesAvailableResources: an operator's reservation of
// what is available changes the agent's total and the role tree's
// reservations, and keeps the cluster's totals; one of more than is
// available (the rest is offered) changes nothing.
func TestOperatorReservesAvailableResources(t *testing.T) {
	w := newWorld(t, "cpus:4")
	w.offer("cpus:1")
	reserved := dynamic(t, "cpus:2", "r")
	require.NoError(t, w.ops.UpdateAvailable("a1", []offer.Operation{offer.Reserve{Resources: reserved}}))
	require.True(t, w.ag.Total.Equal(resources.MustParse("cpus:2", "*").Plus(reserved)), "%s", w.ag.Total)
	require.True(t, w.ops.Books.Roles.Get("r").Reserved.Equal(resources.MustParseQuantities("cpus:2")))
	require.True(t, w.ops.Cluster.Totals.Equal(resources.MustParseQuantities("cpus:4")), "conversions keep every quantity")
	require.True(t, w.ag.Available.Equal(resources.MustParse("cpus:1", "*").Plus(reserved)), "%s", w.ag.Available)

	// Reserving two more would take the cpu offered to f1.
	total := w.ag.Total
	err := w.ops.UpdateAvailable("a1", []offer.Operation{offer.Reserve{Resources: dynamic(t, "cpus:2", "r")}})
	require.ErrorIs(t, err, cluster.ErrNotAvailable)
	require.True(t, w.ag.Total.Equal(total), "all or nothing")
	require.True(t, w.ops.Books.Roles.Get("r").Reserved.Equal(resources.MustParseQuantities("cpus:2")))
}

// task returns a launch of one task with res.
func task(id string, res resources.Resources) offer.Launch {
	return offer.Launch{Tasks: []offer.Task{{ID: id, Resources: res}}}
}

// TestReservedFirst: a launch's unreserved scalars move onto the
// reservations of the role the offer still has free, and the rest of the
// task (its ports, what no reservation holds) stays; a task that needs
// nothing reservations hold, and operations after one that cannot be
// applied, are left as they are.
func TestReservedFirst(t *testing.T) {
	r := func(text string) resources.Resources { return resources.MustParse(text, "*").Allocate("r") }
	offered := r("cpus:2;mem:256;ports:[31000-31001]").Plus(dynamic(t, "cpus:1", "r").Allocate("r"))
	reservedCPU := dynamic(t, "cpus:1", "r").Allocate("r")

	// cpus:1 of the task moves onto the reservation; its ports and mem
	// stay, and a second task finds the reservation taken.
	ops := []offer.Operation{
		task("t1", r("cpus:1;mem:128;ports:[31000-31000]")),
		task("t2", r("cpus:1")),
	}
	out := ReservedFirst("r", offered, ops)
	require.True(t, out[0].(offer.Launch).Tasks[0].Resources.Equal(r("mem:128;ports:[31000-31000]").Plus(reservedCPU)),
		"%s", out[0].(offer.Launch).Tasks[0].Resources)
	require.Equal(t, ops[1], out[1], "the reservation is the first task's")
	require.True(t, ops[0].(offer.Launch).Tasks[0].Resources.Equal(r("cpus:1;mem:128;ports:[31000-31000]")), "ops are not changed in place")

	// A task of mem only: the offer reserves no mem, nothing moves.
	memOnly := []offer.Operation{task("t1", r("mem:128"))}
	require.Equal(t, memOnly, ReservedFirst("r", offered, memOnly))
	// Nor does a task's mount disk, where the offer reserves only cpus:
	// the task keeps the disk it chose.
	disks := offered.Plus(r("disk[MOUNT:/a]:100;disk[MOUNT:/b]:100"))
	diskOnly := []offer.Operation{task("t1", r("disk[MOUNT:/b]:100"))}
	require.Equal(t, diskOnly, ReservedFirst("r", disks, diskOnly))
	// A task of cpus and a mount disk: the cpus move onto the
	// reservation, the disk stays the one the task chose (it was picked
	// again from the pool, in offer order, and became /a).
	withDisk := []offer.Operation{task("t1", r("cpus:1;disk[MOUNT:/b]:100"))}
	got := ReservedFirst("r", disks, withDisk)[0].(offer.Launch).Tasks[0].Resources
	require.True(t, got.Equal(r("disk[MOUNT:/b]:100").Plus(reservedCPU)), "%s", got)

	// After another operation that applies, launches are still moved.
	reserveMem := offer.Reserve{Resources: dynamic(t, "mem:64", "r").Allocate("r")}
	out = ReservedFirst("r", offered, []offer.Operation{reserveMem, task("t1", r("mem:64"))})
	require.True(t, out[1].(offer.Launch).Tasks[0].Resources.Equal(dynamic(t, "mem:64", "r").Allocate("r")),
		"the mem just reserved is used: %s", out[1].(offer.Launch).Tasks[0].Resources)

	// After one that cannot be applied (it unreserves mem the offer does
	// not hold), nothing is rewritten: validation will report it.
	bad := []offer.Operation{offer.Unreserve{Resources: dynamic(t, "mem:64", "r").Allocate("r")}, task("t1", r("cpus:1"))}
	require.Equal(t, bad, ReservedFirst("r", offered, bad))
}

// TestUpdateWithReservedFirst: with ReservedFirst on, an accepted launch
// uses the offer's free reservation, and the books say so.
func TestUpdateWithReservedFirst(t *testing.T) {
	w := newWorld(t, "cpus:2")
	w.ops.ReservedFirst = true
	reservedCPU := dynamic(t, "cpus:1", "r")
	require.NoError(t, w.ops.UpdateAvailable("a1", []offer.Operation{offer.Reserve{Resources: reservedCPU}}))
	offered := resources.MustParse("cpus:1", "*").Allocate("r").Plus(reservedCPU.Allocate("r"))
	w.ops.Books.TrackAllocation(w.fw, w.ag, offered, false)
	accepted, err := w.ops.Update("f1", "a1", offered, []offer.Operation{launch("t1", "cpus:1")})
	require.NoError(t, err)
	require.True(t, accepted.Launched.Equal(reservedCPU.Allocate("r")), "%s", accepted.Launched)
	require.True(t, w.ops.Books.Roles.Get("r").AllocatedReserved.Equal(resources.MustParseQuantities("cpus:1")))
}
