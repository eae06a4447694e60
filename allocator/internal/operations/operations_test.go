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
