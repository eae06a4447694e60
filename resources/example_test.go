package resources_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Parse reads Mesos's text format; String prints the canonical form, which
// Parse reads back.
func ExampleParse() {
	agent, err := resources.Parse("cpus(roleA):4;mem:2048;ports:[31000-31099,31100-32000];disks:{sdb1,sda1};gpus:0", "*")
	if err != nil {
		panic(err)
	}
	fmt.Println(agent)
	fmt.Println(agent.Get("cpus").Slice()[0].Role())

	// Amounts keep three decimals, rounded half away from zero.
	fmt.Println(resources.MustParse("cpus:1.5015;mem:0.0005", "*"))

	// Entries without a role take the default role as a static reservation.
	fmt.Println(resources.MustParse("cpus:2;mem(*):64", "analytics"))

	// Errors name the token and the rule, and wrap a sentinel.
	_, err = resources.Parse("cpus:1;ports:[9-3]", "*")
	fmt.Println(errors.Is(err, resources.ErrInvalidRanges), err)
	// Output:
	// cpus(roleA):4; mem:2048; ports:[31000-32000]; disks:{sda1,sdb1}
	// roleA
	// cpus:1.502; mem:0.001
	// cpus(analytics):2; mem:64
	// true resources: invalid ranges: ports: [9-3] begins after it ends (in "ports:[9-3]")
}

// Add and subtract with Mesos's semantics: resources with different metadata
// never touch, and an entry that would go negative is removed.
func ExampleResources_Minus() {
	agent := resources.MustParse("cpus:8;cpus(role1):5;cpus(role2):3;ports:[31000-32000]", "*")
	task := resources.MustParse("cpus:1.5;cpus(role1):1;ports:[31000-31009]", "*")

	fmt.Println(agent.Contains(task))
	left := agent.Minus(task)
	fmt.Println(left)
	fmt.Println(left.Plus(task).Equal(agent))

	fmt.Println(resources.MustParse("cpus:1", "*").Minus(resources.MustParse("cpus:2", "*")))
	fmt.Println(resources.MustParse("cpus(r1):8", "*").Minus(resources.MustParse("cpus(r2):8", "*")))

	// In place, without allocating for scalars.
	left.Add(task)
	fmt.Println(left.Equal(agent))
	// Output:
	// true
	// cpus:6.5; cpus(role1):4; cpus(role2):3; ports:[31010-32000]
	// true
	// {}
	// cpus(r1):8
	// true
}

// Reserve unreserved resources for a role, refine the reservation to a
// sub-role, then undo both steps.
func ExampleResources_PushReservation() {
	offered := resources.MustParse("cpus:2;mem:1024", "*")

	reserved, err := offered.PushReservation(reservation.Reservation{
		Type: reservation.Dynamic, Role: "eng", Principal: "ops",
		Labels: reservation.Labels{{Key: "team", Value: "storage"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(reserved)

	refined, err := reserved.PushReservation(reservation.Reservation{
		Type: reservation.Dynamic, Role: "eng/db", Principal: "ops",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(refined)
	fmt.Println("for eng:", refined.AllocatableTo("eng"))
	fmt.Println("for eng/db:", refined.AllocatableTo("eng/db").Equal(refined))

	// A refinement must be dynamic and for a strict sub-role.
	_, err = reserved.PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: "web"})
	fmt.Println(errors.Is(err, resources.ErrInvalidReservation))

	back, err := refined.PopReservation()
	if err != nil {
		panic(err)
	}
	fmt.Println(back.Equal(reserved))
	unreserved, err := back.PopReservation()
	if err != nil {
		panic(err)
	}
	fmt.Println(unreserved)
	_, err = unreserved.PopReservation()
	fmt.Println(errors.Is(err, resources.ErrNotReserved))
	fmt.Println(refined.ToUnreserved())
	// Output:
	// cpus(reservations: [(DYNAMIC,eng,ops,{team: storage})]):2; mem(reservations: [(DYNAMIC,eng,ops,{team: storage})]):1024
	// cpus(reservations: [(DYNAMIC,eng,ops,{team: storage}), (DYNAMIC,eng/db,ops)]):2; mem(reservations: [(DYNAMIC,eng,ops,{team: storage}), (DYNAMIC,eng/db,ops)]):1024
	// for eng: {}
	// for eng/db: true
	// true
	// true
	// cpus:2; mem:1024
	// true
	// cpus:2; mem:1024
}

// What a framework in a role may be offered: unreserved resources plus the
// reservations of its role and of the role's ancestors.
func ExampleResources_AllocatableTo() {
	agent := resources.MustParse("cpus:1;cpus(eng):2;cpus(eng/db):4;cpus(eng/web):8;cpus(ops):16", "*")
	for _, role := range []string{"eng", "eng/db", "eng/db/replica", "eng/web", "ops", "other"} {
		fmt.Printf("%-15s %v\n", role, agent.AllocatableTo(role))
	}
	// Output:
	// eng             cpus:1; cpus(eng):2
	// eng/db          cpus:1; cpus(eng):2; cpus(eng/db):4
	// eng/db/replica  cpus:1; cpus(eng):2; cpus(eng/db):4
	// eng/web         cpus:1; cpus(eng):2; cpus(eng/web):8
	// ops             cpus:1; cpus(ops):16
	// other           cpus:1
}

// Quantities drop all metadata; Limits bound them, absent names being
// unlimited.
func ExampleQuantities() {
	agent := resources.MustParse("cpus:8;cpus(eng):2;mem:4096;ports:[31000-32000]", "*")
	q := agent.Quantities()
	fmt.Println(q)

	used := resources.MustParseQuantities("cpus:3;mem:5000")
	q.Subtract(used) // saturates at zero and drops the name
	fmt.Println(q)

	quota := resources.MustParseLimits("cpus:4;gpus:0")
	fmt.Println(quota.Contains(resources.MustParseQuantities("cpus:4;mem:100000")))
	fmt.Println(quota.Contains(resources.MustParseQuantities("gpus:1")))
	fmt.Println(quota.Subtract(used))

	share, name := resources.MustParseQuantities("cpus:2;mem:1024").DominantShare(agent.Quantities(), resources.NameSet{})
	fmt.Println(share, name)
	// Output:
	// cpus:10; mem:4096
	// cpus:7
	// true
	// false
	// cpus:1; gpus:0
	// 0.25 mem
}

// Shrink cuts resources down to a target; disks that can only be used whole
// are dropped when they do not fit.
func ExampleResources_Shrink() {
	agent := resources.MustParse("cpus:2;cpus(eng):2;disk[MOUNT:/mnt/ssd]:500;disk:300;ports:[1-9]", "*")
	fmt.Println(agent.Shrink(resources.MustParseQuantities("cpus:3;disk:400"), nil))
	fmt.Println(agent.ShrinkToLimits(resources.MustParseLimits("cpus:1"), nil))

	// With a random source the entries are visited in a shuffled order, as
	// Mesos does; the result always fits.
	part := agent.Shrink(resources.MustParseQuantities("cpus:3"), rand.New(rand.NewPCG(1, 2)))
	fmt.Println(part.Quantities())
	// Output:
	// cpus:2; cpus(eng):1; disk:300
	// cpus:1; disk[MOUNT:/mnt/ssd]:500; disk:300; ports:[1-9]
	// cpus:3
}

// Resources marshal to Mesos's JSON shape and back.
func ExampleResources_MarshalJSON() {
	r := resources.MustParse("cpus(eng):1.5;ports:[31000-31001]", "*")
	data, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(data))

	var back resources.Resources
	if err := json.Unmarshal(data, &back); err != nil {
		panic(err)
	}
	fmt.Println(back.Equal(r))

	// The pre-refinement form is read too: role plus reservation is a
	// dynamic reservation.
	legacy, err := resources.Parse(`[{"name":"mem","type":"SCALAR","scalar":{"value":64},"role":"eng","reservation":{"principal":"ops"}}]`, "*")
	fmt.Println(legacy, err)
	// Output:
	// [{"name":"cpus","type":"SCALAR","scalar":{"value":1.5},"reservations":[{"type":"STATIC","role":"eng"}]},{"name":"ports","type":"RANGES","ranges":{"range":[{"begin":31000,"end":31001}]}}]
	// true
	// mem(reservations: [(DYNAMIC,eng,ops)]):64 <nil>
}

// Persistent volumes are made from reserved disk; each is an item of its
// own, and shared volumes count copies.
func ExampleResources_Contains() {
	disk := resources.MustParse("disk(reservations: [(DYNAMIC,db,ops)]):1024", "*")
	vol := resources.MustParse("disk(reservations: [(DYNAMIC,db,ops)])[id:pg,path:data]:1024", "*")
	fmt.Println(disk.Contains(vol), vol.Contains(vol.Plus(vol)))

	shared := resources.MustParse("disk(db)[id:logs,path:logs]<SHARED>:10", "*")
	two := shared.Plus(shared)
	fmt.Println(two, two.Copies(shared.Slice()[0]), two.Contains(shared), shared.Contains(two))
	// Output:
	// false false
	// disk(db)[id:logs,path:logs]<SHARED>:10<2> 2 true false
}

// Agents of one machine shape, their totals decoded apart, keep one storage
// of it between them.
func ExampleInterner() {
	var shapes resources.Interner
	a := shapes.Intern(resources.MustParse("cpus:24;mem:4096;ports:[31000-32000]", "*"))
	b := shapes.Intern(resources.MustParse("cpus:24;mem:4096;ports:[31000-32000]", "*"))
	c := shapes.Intern(resources.MustParse("cpus:48;mem:8192;ports:[31000-32000]", "*"))
	fmt.Println(a.Identical(b), a.Identical(c))
	fmt.Println(b)
	// Output:
	// true false
	// cpus:24; mem:4096; ports:[31000-32000]
}
