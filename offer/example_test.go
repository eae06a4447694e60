package offer_test

import (
	"errors"
	"fmt"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

// A framework of role "eng" reserves part of an offer for its role; later a
// framework of the sub-role "eng/backend" is offered that reservation and
// refines it for itself; when it no longer needs it, unreserving pops the
// refinement and the cpus go back to "eng".
func Example_reserveRefineUnreserve() {
	ctx := offer.Context{
		Principal:             "ops",
		Roles:                 []string{"eng"},
		FrameworkCapabilities: offer.ReservationRefinement,
		AgentCapabilities:     offer.HierarchicalRole | offer.ReservationRefinement,
	}

	// 1. The framework in "eng" reserves 4 of the 8 offered cpus.
	offered := resources.MustParse("cpus:8", "").Allocate("eng")
	want := resources.MustParse("cpus:4", "").Allocate("eng")
	reserved, _ := want.PushReservation(reservation.Reservation{
		Type: reservation.Dynamic, Role: "eng", Principal: "ops",
	})
	reserve := offer.Reserve{Resources: reserved}
	if err := offer.Validate(reserve, ctx); err != nil {
		fmt.Println(err)
		return
	}
	after, err := offer.Apply(offered, reserve)
	fmt.Println("reserved:", after, err)

	// 2. The reservation is offered to a framework in "eng/backend", which
	// refines it: the new reservation is pushed on top of the old one.
	ctx.Roles = []string{"eng/backend"}
	offered = after.Unallocate().Reserved("eng").Allocate("eng/backend")
	refined, _ := offered.PushReservation(reservation.Reservation{
		Type: reservation.Dynamic, Role: "eng/backend", Principal: "ops",
	})
	refine := offer.Reserve{Resources: refined}
	fmt.Println("validate refine:", offer.Validate(refine, ctx))
	after, err = offer.Apply(offered, refine)
	fmt.Println("refined:", after, err)

	// Without the RESERVATION_REFINEMENT capability, the refinement is refused.
	noRefinement := ctx
	noRefinement.FrameworkCapabilities = 0
	fmt.Println("without capability:", offer.Validate(refine, noRefinement))

	// 3. Unreserving pops the refinement: the cpus are reserved for "eng" again.
	unreserve := offer.Unreserve{Resources: refined}
	fmt.Println("validate unreserve:", offer.Validate(unreserve, ctx))
	after, err = offer.Apply(after, unreserve)
	fmt.Println("unreserved:", after, err)

	// Output:
	// reserved: cpus(allocated: eng):4; cpus(allocated: eng)(reservations: [(DYNAMIC,eng,ops)]):4 <nil>
	// validate refine: <nil>
	// refined: cpus(allocated: eng/backend)(reservations: [(DYNAMIC,eng,ops), (DYNAMIC,eng/backend,ops)]):4 <nil>
	// without capability: offer: reservation refinement needs the RESERVATION_REFINEMENT capability: framework: cpus(allocated: eng/backend)(reservations: [(DYNAMIC,eng,ops), (DYNAMIC,eng/backend,ops)]):4
	// validate unreserve: <nil>
	// unreserved: cpus(allocated: eng/backend)(reservations: [(DYNAMIC,eng,ops)]):4 <nil>
}

// A stateful service (a database in role "db") reserves disk, creates a
// persistent volume on it and launches its task with the volume. The volume
// survives the task: while a task uses it, it cannot be destroyed; once
// the service is retired, the volume is destroyed and the disk unreserved.
func Example_persistentVolumeLifecycle() {
	ctx := offer.Context{
		Principal:         "pg",
		Roles:             []string{"db"},
		AgentCapabilities: offer.HierarchicalRole | offer.ReservationRefinement,
	}
	offered := resources.MustParse("cpus:4; mem:8192; disk:20000", "").Allocate("db")

	// Reserve what the service needs, make a volume on the reserved disk and
	// launch the task, all in one call.
	reserved, _ := resources.MustParse("cpus:2; mem:4096; disk:10000", "").Allocate("db").
		PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: "db", Principal: "pg"})
	data := reserved.Get("disk").Slice()[0]
	data.Disk = &volume.Disk{
		Persistence: &volume.Persistence{ID: "pg-data", Principal: "pg"},
		Volume:      &volume.Volume{ContainerPath: "data", Mode: volume.RW},
	}
	vol, _ := resources.New(data)
	task := offer.Task{ID: "postgres-1", Resources: reserved.Get("cpus").Plus(reserved.Get("mem")).Plus(vol)}
	ops := []offer.Operation{
		offer.Reserve{Resources: reserved},
		offer.Create{Volumes: vol},
		offer.Launch{Tasks: []offer.Task{task}},
	}
	for _, op := range ops {
		if err := offer.Validate(op, ctx); err != nil {
			fmt.Println(err)
			return
		}
	}
	accepted, err := offer.ApplyAll(offered, ops...)
	fmt.Println("launched:", accepted.Launched, err)
	fmt.Println("unused:  ", accepted.Unused)

	// The agent checkpoints the reservation and the volume.
	ctx.Checkpointed = reserved.Get("cpus").Plus(reserved.Get("mem")).Plus(vol).Unallocate()

	// While the task runs, the volume cannot be destroyed.
	ctx.InUse = vol.Unallocate()
	destroy := offer.Destroy{Volumes: vol}
	err = offer.Validate(destroy, ctx)
	fmt.Println("destroy in use:", errors.Is(err, offer.ErrVolumeInUse), err)

	// Nor can the disk holding it be unreserved.
	err = offer.Validate(offer.Unreserve{Resources: vol}, ctx)
	fmt.Println("unreserve volume:", errors.Is(err, offer.ErrVolumeHeld))

	// The task ends; the next offer holds the volume again. Destroy it and
	// unreserve everything.
	ctx.InUse = resources.Resources{}
	offered = ctx.Checkpointed.Allocate("db")
	unreserve := offer.Unreserve{Resources: reserved}
	fmt.Println("validate:", offer.Validate(destroy, ctx), offer.Validate(unreserve, ctx))
	after, err := offer.Apply(offered, destroy, unreserve)
	fmt.Println("retired:", after, err)

	// Output:
	// launched: cpus(allocated: db)(reservations: [(DYNAMIC,db,pg)]):2; mem(allocated: db)(reservations: [(DYNAMIC,db,pg)]):4096; disk(allocated: db)(reservations: [(DYNAMIC,db,pg)])[id:pg-data,principal:pg,path:data]:10000 <nil>
	// unused:   cpus(allocated: db):2; mem(allocated: db):4096; disk(allocated: db):10000
	// destroy in use: true offer: persistent volume in use: disk(reservations: [(DYNAMIC,db,pg)])[id:pg-data,principal:pg,path:data]:10000
	// unreserve volume: true
	// validate: <nil> <nil>
	// retired: cpus(allocated: db):2; mem(allocated: db):4096; disk(allocated: db):10000 <nil>
}

// Pick takes the role's own reservations first, then its ancestors', then
// unreserved resources.
func ExamplePick() {
	offered := resources.MustParse(
		"cpus:8; mem:4096; "+
			"cpus(reservations: [(DYNAMIC,eng,ops)]):2; "+
			"cpus(reservations: [(DYNAMIC,eng,ops),(DYNAMIC,eng/backend,ops)]):1; "+
			"mem(reservations: [(DYNAMIC,eng/frontend,ops)]):1024", "").Allocate("eng/backend")
	need := resources.MustParseQuantities("cpus:4; mem:512")

	picked, ok := offer.Pick(offered, need, "eng/backend")
	fmt.Println(ok)
	for r := range picked.All() {
		fmt.Println(r)
	}

	_, ok = offer.Pick(offered, resources.MustParseQuantities("cpus:20"), "eng/backend")
	fmt.Println(ok)

	// Output:
	// true
	// cpus(allocated: eng/backend)(reservations: [(DYNAMIC,eng,ops), (DYNAMIC,eng/backend,ops)]):1
	// cpus(allocated: eng/backend)(reservations: [(DYNAMIC,eng,ops)]):2
	// cpus(allocated: eng/backend):1
	// mem(allocated: eng/backend):512
	// false
}

// Validate returns an error wrapping the sentinel of the rule an operation
// breaks; Apply enforces the rules that need no Context too.
func ExampleValidate() {
	ctx := offer.Context{Principal: "ops", Roles: []string{"web"}}
	ops := []offer.Operation{
		// Static reservations are never unreserved.
		offer.Unreserve{Resources: resources.MustParse("cpus(allocated: web)(web):2", "")},
		// The reservation's principal is not the caller's.
		offer.Reserve{Resources: resources.MustParse("cpus(allocated: web)(reservations: [(DYNAMIC,web,bob)]):1", "")},
		// A framework reserves for the role the resources are offered to.
		offer.Reserve{Resources: resources.MustParse("cpus(allocated: web)(reservations: [(DYNAMIC,db,ops)]):1", "")},
		// The operator path acts on unallocated resources only.
		offer.Reserve{Resources: resources.MustParse("cpus(reservations: [(DYNAMIC,web,ops)]):1", "")},
	}
	for _, op := range ops {
		fmt.Println(offer.Validate(op, ctx))
	}
	operator := offer.Context{Operator: true}
	fmt.Println(offer.Validate(ops[3], operator))
	fmt.Println(errors.Is(offer.Validate(ops[0], ctx), offer.ErrNotDynamicallyReserved))

	// Output:
	// offer: resource is not dynamically reserved: cpus(allocated: web)(web):2
	// offer: principal does not match: cpus(allocated: web)(reservations: [(DYNAMIC,web,bob)]):1 has principal "bob", request by principal "ops"
	// offer: reservation role is not the allocation role: cpus(allocated: web)(reservations: [(DYNAMIC,db,ops)]):1 is reserved for "db" but allocated to "web"
	// offer: frameworks can only operate on allocated resources: cpus(reservations: [(DYNAMIC,web,ops)]):1 is not allocated
	// <nil>
	// true
}

// ApplyAll tells what the launches use and what is left to decline.
func ExampleApplyAll() {
	offered := resources.MustParse("cpus:4; mem:1024", "").Allocate("web")
	launch, _, ok := offer.PickLaunch(offered, "web",
		offer.TaskNeed{ID: "a", Need: resources.MustParseQuantities("cpus:1; mem:256")},
		offer.TaskNeed{ID: "b", Need: resources.MustParseQuantities("cpus:2; mem:256")})
	fmt.Println(ok, launch)
	accepted, err := offer.ApplyAll(offered, launch)
	fmt.Println(accepted.Unused, err)
	// Output:
	// true LAUNCH [a: cpus(allocated: web):1; mem(allocated: web):256] [b: cpus(allocated: web):2; mem(allocated: web):256]
	// cpus(allocated: web):1; mem(allocated: web):512 <nil>
}

// Offer ids come from a counter the host owns.
func ExampleIDs() {
	ids := offer.IDs{Prefix: "agent7-o"}
	fmt.Println(ids.Next(), ids.Next(), ids.Last())
	// Output: agent7-o1 agent7-o2 2
}
