package allocator_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// catalogueTotal is agent a1 of the catalogue's cluster: unreserved
// resources, a static reservation for "db", dynamic reservations, a
// reservation refined to "db/replica", two persistent volumes and a shared
// one.
const catalogueTotal = "cpus:8;mem:8192;disk:4000;ports:[31000-32000];cpus(db):2;mem(db):1024;" +
	"disk(reservations: [(DYNAMIC,db,ops)]):2000;" +
	"disk(reservations: [(DYNAMIC,db,ops)])[id:pg,principal:ops,path:data]:1000;" +
	"disk(reservations: [(DYNAMIC,db,ops)])[id:logs,principal:ops,path:logs]:300;" +
	"disk(reservations: [(DYNAMIC,db,ops)])[id:shared,principal:ops,path:s]<SHARED>:500;" +
	"cpus(reservations: [(DYNAMIC,db,ops),(DYNAMIC,db/replica,ops)]):1"

const (
	pgVolume     = "disk(reservations: [(DYNAMIC,db,ops)])[id:pg,principal:ops,path:data]:1000"
	logsVolume   = "disk(reservations: [(DYNAMIC,db,ops)])[id:logs,principal:ops,path:logs]:300"
	sharedVolume = "disk(reservations: [(DYNAMIC,db,ops)])[id:shared,principal:ops,path:s]<SHARED>:500"
	dbDisk       = "disk(reservations: [(DYNAMIC,db,ops)]):2000"
)

func res(text string) resources.Resources { return resources.MustParse(text, "") }

// catalogueCluster builds the same state every time: agents a1 and a2,
// frameworks "db" (roles db and db/replica, principal ops, shared volumes
// and refinement) and "web", quota on web, a task of db using the pg and
// shared volumes, and the rest offered again (all but the shared volume).
func catalogueCluster(t *testing.T) *allocator.Allocator {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := newAllocator(t, allocator.Options{Seed: 3, Clock: func() time.Time { return now }})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{Hostname: "h1"}, res(catalogueTotal), nil))
	require.NoError(t, a.AddAgent("a2", allocator.AgentInfo{Hostname: "h2"}, res("cpus:4;mem:4096;disk:1000"), nil))
	require.NoError(t, a.AddFramework("db", allocator.FrameworkInfo{Roles: []string{"db", "db/replica"}, Principal: "ops",
		Capabilities: offer.SharedResources | offer.ReservationRefinement}, nil, true))
	require.NoError(t, a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateQuota("web", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:1"), Limits: resources.MustParseLimits("cpus:6")}))
	a.Allocate()
	vols := heldAs(t, a, "db", "a1", pgVolume).Plus(heldAs(t, a, "db", "a1", sharedVolume))
	role := vols.AllocationRoles()[0]
	offered := offeredTo(a, "db", "a1").AllocatedTo(role)
	task := offer.Launch{Tasks: []offer.Task{{ID: "pg-1", Resources: vols}}}
	require.NoError(t, a.Accept("db", "a1", offered, []offer.Operation{task}, nil))
	a.AllocateAll()
	// The shared volume stays available while in use, so db is offered it
	// again; it declines that copy and holds one, the task's.
	if again := offeredTo(a, "db", "a1").Shared(); !again.IsEmpty() {
		require.NoError(t, a.RecoverResources("db", "a1", again, nil))
	}
	require.NoError(t, allocatortest.Check(a))
	return a
}

// offeredTo returns what fw is offered on agent, all roles.
func offeredTo(a *allocator.Allocator, fw, agent string) resources.Resources {
	v, _ := a.Agent(agent)
	return v.Offered[fw]
}

// heldAs returns the resources of text as fw holds them on agent (offered
// or allocated), tagged with the allocation role they are held in.
func heldAs(t *testing.T, a *allocator.Allocator, fw, agent, text string) resources.Resources {
	t.Helper()
	v, _ := a.Agent(agent)
	held := v.Offered[fw].Plus(v.Allocated[fw])
	want := res(text)
	for _, role := range held.AllocationRoles() {
		if x := want.Allocate(role); held.AllocatedTo(role).Contains(x) {
			return x
		}
	}
	t.Fatalf("%s does not hold %s on %s; it holds %s", fw, text, agent, held)
	return resources.Resources{}
}

// roleOf returns the allocation role of held resources.
func roleOf(r resources.Resources) string { return r.AllocationRoles()[0] }

func dynamic(role, principal string) reservation.Reservation {
	return reservation.Reservation{Type: reservation.Dynamic, Role: role, Principal: principal}
}

func push(t *testing.T, r resources.Resources, res reservation.Reservation) resources.Resources {
	t.Helper()
	out, err := r.PushReservation(res)
	require.NoError(t, err)
	return out
}

func one(t *testing.T, r resources.Resources) resources.Resource {
	t.Helper()
	if r.Len() != 1 {
		t.Fatalf("want one resource, have %s", r)
	}
	return r.Slice()[0]
}

type badCall struct {
	name string
	call func(t *testing.T, a *allocator.Allocator) error
	// want are the named errors the call's error must wrap.
	want []error
}

func unknownFrameworkCalls() []badCall {
	const id = "nobody"
	e := []error{allocator.ErrUnknownFramework}
	held := res("cpus:1").Allocate("web")
	return []badCall{
		{"RemoveFramework", func(_ *testing.T, a *allocator.Allocator) error { return a.RemoveFramework(id) }, e},
		{"ActivateFramework", func(_ *testing.T, a *allocator.Allocator) error { return a.ActivateFramework(id) }, e},
		{"DeactivateFramework", func(_ *testing.T, a *allocator.Allocator) error { return a.DeactivateFramework(id) }, e},
		{"UpdateFramework", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateFramework(id, allocator.FrameworkInfo{Roles: []string{"web"}})
		}, e},
		{"SuppressOffers", func(_ *testing.T, a *allocator.Allocator) error { return a.SuppressOffers(id) }, e},
		{"ReviveOffers", func(_ *testing.T, a *allocator.Allocator) error { return a.ReviveOffers(id, "web") }, e},
		{"RecoverResources", func(_ *testing.T, a *allocator.Allocator) error { return a.RecoverResources(id, "a1", held, nil) }, e},
		{"UpdateAllocation", func(_ *testing.T, a *allocator.Allocator) error { return a.UpdateAllocation(id, "a1", held, nil) }, e},
		{"Accept", func(_ *testing.T, a *allocator.Allocator) error {
			return a.Accept(id, "a1", held, nil, &allocator.Filter{Refuse: time.Hour})
		}, e},
		{"UpdateInverseOffer", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateInverseOffer("a1", id, allocator.InverseAccepted, nil)
		}, e},
	}
}

func unknownAgentCalls() []badCall {
	const id = "nowhere"
	e := []error{allocator.ErrUnknownAgent}
	held := res("cpus:1").Allocate("web")
	return []badCall{
		{"RemoveAgent", func(_ *testing.T, a *allocator.Allocator) error { return a.RemoveAgent(id) }, e},
		{"UpdateAgent", func(_ *testing.T, a *allocator.Allocator) error {
			total := res("cpus:1")
			return a.UpdateAgent(id, allocator.AgentInfo{Hostname: "h9"}, &total)
		}, e},
		{"AddResourceProvider", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddResourceProvider(id, res("disk(provider: rp1):100"), nil)
		}, e},
		{"ActivateAgent", func(_ *testing.T, a *allocator.Allocator) error { return a.ActivateAgent(id) }, e},
		{"DeactivateAgent", func(_ *testing.T, a *allocator.Allocator) error { return a.DeactivateAgent(id) }, e},
		{"UpdateAvailable", func(t *testing.T, a *allocator.Allocator) error {
			return a.UpdateAvailable(id, []offer.Operation{offer.Reserve{Resources: push(t, res("cpus:1"), dynamic("web", ""))}})
		}, e},
		{"UpdateUnavailability", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateUnavailability(id, &offer.Unavailability{Start: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)})
		}, e},
		{"UpdateInverseOffer", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateInverseOffer(id, "web", allocator.InverseDeclined, nil)
		}, e},
		{"RecoverResources", func(_ *testing.T, a *allocator.Allocator) error { return a.RecoverResources("web", id, held, nil) }, e},
		{"UpdateAllocation", func(_ *testing.T, a *allocator.Allocator) error { return a.UpdateAllocation("web", id, held, nil) }, e},
		{"Accept", func(_ *testing.T, a *allocator.Allocator) error { return a.Accept("web", id, held, nil, nil) }, e},
	}
}

func catalogue() []badCall {
	var rows []badCall
	for _, c := range unknownFrameworkCalls() {
		c.name = "unknown framework/" + c.name
		rows = append(rows, c)
	}
	for _, c := range unknownAgentCalls() {
		c.name = "unknown agent/" + c.name
		rows = append(rows, c)
	}
	webInfo := allocator.FrameworkInfo{Roles: []string{"web"}}
	addFramework := func(info allocator.FrameworkInfo, used map[string]resources.Resources) func(*testing.T, *allocator.Allocator) error {
		return func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddFramework("new", info, used, allocator.Active)
		}
	}
	updateWeb := func(info allocator.FrameworkInfo) func(*testing.T, *allocator.Allocator) error {
		return func(_ *testing.T, a *allocator.Allocator) error { return a.UpdateFramework("web", info) }
	}
	weights := func(w map[string]float64) func(*testing.T, *allocator.Allocator) error {
		return func(_ *testing.T, a *allocator.Allocator) error { return a.UpdateWeights(w) }
	}
	quota := func(role, guarantees, limits string) func(*testing.T, *allocator.Allocator) error {
		return func(_ *testing.T, a *allocator.Allocator) error {
			var q allocator.Quota
			if guarantees != "" {
				q.Guarantees = resources.MustParseQuantities(guarantees)
			}
			if limits != "" {
				q.Limits = resources.MustParseLimits(limits)
			}
			return a.UpdateQuota(role, q)
		}
	}
	// dbOps applies operations for db to what it holds on a1 in the role
	// of the first of the given held resources.
	dbOps := func(build func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation)) func(*testing.T, *allocator.Allocator) error {
		return func(t *testing.T, a *allocator.Allocator) error {
			offered, ops := build(t, a)
			return a.Accept("db", "a1", offered, ops, &allocator.Filter{Refuse: time.Hour})
		}
	}
	// dbHolding returns what db holds on a1 in the role it holds text in.
	dbHolding := func(t *testing.T, a *allocator.Allocator, text string) (resources.Resources, string) {
		x := heldAs(t, a, "db", "a1", text)
		role := roleOf(x)
		v, _ := a.Agent("a1")
		return v.Offered["db"].Plus(v.Allocated["db"]).AllocatedTo(role), role
	}
	operator := func(build func(t *testing.T) []offer.Operation) func(*testing.T, *allocator.Allocator) error {
		return func(t *testing.T, a *allocator.Allocator) error { return a.UpdateAvailable("a1", build(t)) }
	}
	op := func(sentinel error) []error { return []error{allocator.ErrOperation, sentinel} }

	rows = append(rows, []badCall{
		// Duplicates and invalid ids.
		{"duplicate agent", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:1"), nil)
		}, []error{allocator.ErrDuplicateAgent}},
		{"duplicate framework", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddFramework("web", webInfo, nil, allocator.Active)
		}, []error{allocator.ErrDuplicateFramework}},
		{"empty agent id", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddAgent("", allocator.AgentInfo{}, res("cpus:1"), nil)
		}, []error{allocator.ErrInvalidID}},
		{"agent id with a newline", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddAgent("a\n3", allocator.AgentInfo{}, res("cpus:1"), nil)
		}, []error{allocator.ErrInvalidID}},
		{"empty framework id", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddFramework("", webInfo, nil, allocator.Active)
		}, []error{allocator.ErrInvalidID}},
		{"framework id with DEL", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddFramework("f\x7f", webInfo, nil, allocator.Active)
		}, []error{allocator.ErrInvalidID}},

		// Invalid resources.
		{"used resources without allocation role", addFramework(webInfo, map[string]resources.Resources{"a2": res("cpus:1")}),
			[]error{allocator.ErrInvalidResources}},
		{"used resources in a role not subscribed", addFramework(webInfo, map[string]resources.Resources{"a2": res("cpus:1").Allocate("db")}),
			[]error{allocator.ErrRoleNotSubscribed}},
		{"used resources reserved for another role", addFramework(webInfo, map[string]resources.Resources{"a1": res("cpus(db):1").Allocate("web")}),
			[]error{allocator.ErrInvalidResources}},
		{"new agent used by a framework in a role it lacks", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddAgent("a3", allocator.AgentInfo{}, res("cpus:4"), map[string]resources.Resources{"web": res("cpus:1").Allocate("db")})
		}, []error{allocator.ErrRoleNotSubscribed}},
		{"resource provider used without allocation role", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddResourceProvider("a2", res("disk(provider: rp1):100"), map[string]resources.Resources{"web": res("disk(provider: rp1):100")})
		}, []error{allocator.ErrInvalidResources}},
		{"offered resources of two allocation roles", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateAllocation("db", "a1", res("cpus(allocated: db):1;mem(allocated: db/replica):1"), nil)
		}, []error{allocator.ErrInvalidResources}},
		{"offered resources without allocation role", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateAllocation("web", "a1", res("cpus:1"), nil)
		}, []error{allocator.ErrInvalidResources}},
		{"task with fractional gpus", func(t *testing.T, a *allocator.Allocator) error {
			// a2 is offered to db in role db: launch gpus it cannot have.
			v, _ := a.Agent("a2")
			offered := v.Offered["db"]
			role := roleOf(offered)
			task := offer.Launch{Tasks: []offer.Task{{ID: "t", Resources: res("gpus:0.5").Allocate(role)}}}
			return a.Accept("db", "a2", offered, []offer.Operation{task}, nil)
		}, op(offer.ErrInvalidResources)},
		{"nil operation", func(t *testing.T, a *allocator.Allocator) error {
			held, _ := dbHolding(t, a, dbDisk)
			return a.UpdateAllocation("db", "a1", held, []offer.Operation{nil})
		}, op(offer.ErrUnsupported)},
		{"nil pointer to an operation", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, _ := dbHolding(t, a, dbDisk)
			return held, []offer.Operation{(*offer.Reserve)(nil)}
		}), op(offer.ErrUnsupported)},
		{"nil operation, operator", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateAvailable("a1", []offer.Operation{nil})
		}, op(offer.ErrUnsupported)},
		{"nil pointer to a launch, operator", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateAvailable("a1", []offer.Operation{(*offer.Launch)(nil)})
		}, []error{allocator.ErrOperation}},
		{"empty reservation", func(t *testing.T, a *allocator.Allocator) error {
			held, _ := dbHolding(t, a, dbDisk)
			return a.UpdateAllocation("db", "a1", held, []offer.Operation{offer.Reserve{}})
		}, op(offer.ErrEmpty)},

		// Sums that would pass resources.MaxTotal.
		{"agent whose total sums past the bound", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddAgent("a3", allocator.AgentInfo{}, manyMaxCPUs(1001, ""), nil)
		}, []error{allocator.ErrOverflow}},
		{"agent that takes the cluster's totals past the bound", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddAgent("a3", allocator.AgentInfo{}, manyMaxCPUs(1000, ""), nil)
		}, []error{allocator.ErrOverflow}},
		{"agent update that takes the totals past the bound", func(_ *testing.T, a *allocator.Allocator) error {
			total := manyMaxCPUs(1000, "")
			return a.UpdateAgent("a2", allocator.AgentInfo{Hostname: "h2"}, &total)
		}, []error{allocator.ErrOverflow}},
		{"resource provider past the bound", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddResourceProvider("a2", manyMaxCPUs(1000, ""), nil)
		}, []error{allocator.ErrOverflow}},
		{"used resources beyond the agent past the bound", addFramework(webInfo, map[string]resources.Resources{"a2": manyMaxCPUs(1000, "web")}),
			[]error{allocator.ErrOverflow}},
		{"new agent used beyond its total past the bound", func(_ *testing.T, a *allocator.Allocator) error {
			return a.AddAgent("a3", allocator.AgentInfo{}, res("cpus:1"), map[string]resources.Resources{"web": manyMaxCPUs(1000, "web")})
		}, []error{allocator.ErrOverflow}},
		{"quota guarantees of all roles past the bound", func(_ *testing.T, a *allocator.Allocator) error {
			for i := range 999 {
				max := resources.Quantities{}
				max.SetScalar("cpus", resources.MaxScalar)
				if err := a.UpdateQuota(fmt.Sprintf("big-%03d", i), allocator.Quota{Guarantees: max}); err != nil {
					return fmt.Errorf("role %d: %w", i, err)
				}
			}
			// web holds a guarantee of cpus:1 already: one more role of
			// the largest guarantee passes the bound.
			max := resources.Quantities{}
			max.SetScalar("cpus", resources.MaxScalar)
			err := a.UpdateQuota("big-last", allocator.Quota{Guarantees: max})
			for i := range 999 {
				if err := a.UpdateQuota(fmt.Sprintf("big-%03d", i), allocator.Quota{}); err != nil {
					return err
				}
			}
			return err
		}, []error{allocator.ErrOverflow}},

		// Resources the agent (or the framework) does not have.
		{"recover more than held", func(_ *testing.T, a *allocator.Allocator) error {
			return a.RecoverResources("web", "a1", res("cpus:100").Allocate("web"), &allocator.Filter{Refuse: time.Hour})
		}, []error{allocator.ErrNotHeld}},
		{"recover unallocated resources", func(_ *testing.T, a *allocator.Allocator) error {
			return a.RecoverResources("web", "a1", res("cpus:1"), nil)
		}, []error{allocator.ErrInvalidResources}},
		{"recover another framework's resources", func(t *testing.T, a *allocator.Allocator) error {
			return a.RecoverResources("web", "a1", heldAs(t, a, "db", "a1", dbDisk), nil)
		}, []error{allocator.ErrNotHeld}},
		{"update allocation of resources not held", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateAllocation("web", "a2", res("cpus:1").Allocate("web"), nil)
		}, []error{allocator.ErrNotHeld}},
		{"accept resources not held", func(_ *testing.T, a *allocator.Allocator) error {
			return a.Accept("web", "a1", res("cpus:100").Allocate("web"), nil, &allocator.Filter{Refuse: time.Hour})
		}, []error{allocator.ErrNotHeld}},
		{"reserve more than the agent has", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, dbDisk)
			return held, []offer.Operation{offer.Reserve{Resources: push(t, res("cpus:100").Allocate(role), dynamic(role, "ops"))}}
		}), op(allocator.ErrNotHeld)},
		{"operator reserves more than available", operator(func(t *testing.T) []offer.Operation {
			return []offer.Operation{offer.Reserve{Resources: push(t, res("cpus:100"), dynamic("web", "ops"))}}
		}), []error{allocator.ErrNotAvailable, offer.ErrDoesNotContain}},
		{"operator reserves offered resources", func(t *testing.T, a *allocator.Allocator) error {
			v, _ := a.Agent("a2")
			if !v.Available.IsEmpty() {
				t.Fatalf("a2 has %s available", v.Available)
			}
			return a.UpdateAvailable("a2", []offer.Operation{offer.Reserve{Resources: push(t, res("cpus:1"), dynamic("web", ""))}})
		}, []error{allocator.ErrNotAvailable}},
		{"operator unreserves a reservation the agent lacks", operator(func(t *testing.T) []offer.Operation {
			return []offer.Operation{offer.Unreserve{Resources: push(t, res("mem:10"), dynamic("web", "ops"))}}
		}), []error{allocator.ErrNotAvailable}},
		{"destroy a volume the agent lacks", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, dbDisk)
			vol := res("disk(reservations: [(DYNAMIC,db,ops)])[id:nope,principal:ops,path:x]:10").Allocate(role)
			return held, []offer.Operation{offer.Destroy{Volumes: vol}}
		}), op(offer.ErrVolumeNotFound)},

		// Invalid roles.
		{"framework role with an empty component", addFramework(allocator.FrameworkInfo{Roles: []string{"a//b"}}, nil), []error{allocator.ErrInvalidRole}},
		{"framework role starting with '-'", addFramework(allocator.FrameworkInfo{Roles: []string{"-x"}}, nil), []error{allocator.ErrInvalidRole}},
		{"framework role with '..'", addFramework(allocator.FrameworkInfo{Roles: []string{"a/../b"}}, nil), []error{allocator.ErrInvalidRole}},
		{"framework role with a space", addFramework(allocator.FrameworkInfo{Roles: []string{"a b"}}, nil), []error{allocator.ErrInvalidRole}},
		{"framework without roles", addFramework(allocator.FrameworkInfo{}, nil), []error{allocator.ErrInvalidRole}},
		{"suppressed role not subscribed", addFramework(allocator.FrameworkInfo{Roles: []string{"web"}, SuppressedRoles: []string{"db"}}, nil), []error{allocator.ErrInvalidRole}},
		{"minimum allocatable for a role not subscribed", addFramework(allocator.FrameworkInfo{Roles: []string{"web"},
			MinAllocatable: map[string][]resources.Quantities{"db": {}}}, nil), []error{allocator.ErrInvalidRole}},
		{"constraints for a role not subscribed", addFramework(allocator.FrameworkInfo{Roles: []string{"web"},
			Constraints: map[string]allocator.Constraints{"db": {{{Attribute: "rack", Op: allocator.OpExists}}}}}, nil), []error{allocator.ErrInvalidRole}},
		{"constraint with an unknown operator", addFramework(allocator.FrameworkInfo{Roles: []string{"web"},
			Constraints: map[string]allocator.Constraints{"web": {{{Attribute: "rack", Op: 99}}}}}, nil), []error{allocator.ErrInvalidRole}},
		{"update to an invalid role", updateWeb(allocator.FrameworkInfo{Roles: []string{"web", "web/"}}), []error{allocator.ErrInvalidRole}},
		{"update suppressing a role not subscribed", updateWeb(allocator.FrameworkInfo{Roles: []string{"web"}, SuppressedRoles: []string{"db"}}), []error{allocator.ErrInvalidRole}},
		{"suppress a role not subscribed", func(_ *testing.T, a *allocator.Allocator) error { return a.SuppressOffers("web", "db") },
			[]error{allocator.ErrRoleNotSubscribed}},
		{"revive a role not subscribed", func(_ *testing.T, a *allocator.Allocator) error { return a.ReviveOffers("web", "web", "db") },
			[]error{allocator.ErrRoleNotSubscribed}},
		{"quota for a role with a '*' component", quota("web/*", "cpus:1", ""), []error{allocator.ErrInvalidRole}},
		{"quota for an empty role", quota("", "cpus:1", ""), []error{allocator.ErrInvalidRole}},
		{"quota for a role ending in '/'", quota("web/", "cpus:1", ""), []error{allocator.ErrInvalidRole}},
		{"weight for a role with a '*' component", weights(map[string]float64{"*/web": 2}), []error{allocator.ErrInvalidRole}},
		{"weight for an invalid role", weights(map[string]float64{"db": 2, "a//b": 2}), []error{allocator.ErrInvalidRole}},

		// Weights.
		{"weight zero", weights(map[string]float64{"web": 0}), []error{allocator.ErrInvalidWeight}},
		{"weight negative", weights(map[string]float64{"web": -1}), []error{allocator.ErrInvalidWeight}},
		{"weight NaN", weights(map[string]float64{"web": math.NaN()}), []error{allocator.ErrInvalidWeight}},
		{"weight infinite", weights(map[string]float64{"web": math.Inf(1)}), []error{allocator.ErrInvalidWeight}},
		{"one weight of two invalid", weights(map[string]float64{"db": 3, "web": -2}), []error{allocator.ErrInvalidWeight}},

		// Quota.
		{"guarantees above limits", quota("db", "cpus:4;mem:1024", "cpus:2"), []error{allocator.ErrInvalidQuota}},
		{"guarantee of a name limited to zero", quota("db", "gpus:1", "gpus:0"), []error{allocator.ErrInvalidQuota}},
		{"guarantee above an ancestor's limit", quota("web/api", "cpus:8", ""), []error{allocator.ErrInvalidQuota}},
		{"limit below a descendant's guarantee", func(t *testing.T, a *allocator.Allocator) error {
			// The guarantee is set in another cluster's history; here the
			// limit comes second.
			require.NoError(t, a.UpdateQuota("db/replica", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:2")}))
			before := a.Describe()
			err := a.UpdateQuota("db", allocator.Quota{Limits: resources.MustParseLimits("cpus:1")})
			if after := a.Describe(); after != before {
				t.Fatalf("state changed:\n%s\nwas:\n%s", after, before)
			}
			// Undo the guarantee so the row leaves the catalogue's state.
			require.NoError(t, a.UpdateQuota("db/replica", allocator.Quota{}))
			return err
		}, []error{allocator.ErrInvalidQuota}},

		// Reservations and volumes.
		{"refinement to a non-descendant role, operator", operator(func(t *testing.T) []offer.Operation {
			return []offer.Operation{offer.Reserve{
				Resources: push(t, res("disk:2000"), dynamic("web", "ops")),
				Source:    res(dbDisk),
			}}
		}), op(offer.ErrRefinementNotStrict)},
		{"refinement to a non-descendant role, framework", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, dbDisk)
			source := res(dbDisk).Allocate(role)
			target := push(t, res("disk:2000").Allocate(role), dynamic("db/replica", "ops"))
			sideways := push(t, res("disk:2000").Allocate(role), dynamic("web", "ops"))
			_ = target
			return held, []offer.Operation{offer.Reserve{Resources: sideways, Source: source}}
		}), op(offer.ErrRefinementNotStrict)},
		{"refined stack in a volume to shrink", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, logsVolume)
			bad := one(t, res(logsVolume).Allocate(role))
			bad.Reservations = reservation.Stack{dynamic("db", "ops"), dynamic("web", "ops")}
			return held, []offer.Operation{offer.ShrinkVolume{Volume: bad, Subtract: resources.Units(1)}}
		}), op(offer.ErrRefinementNotStrict)},
		{"unreserve a static reservation, framework", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, "cpus(db):2")
			return held, []offer.Operation{offer.Unreserve{Resources: res("cpus(db):1").Allocate(role)}}
		}), op(offer.ErrNotDynamicallyReserved)},
		{"unreserve a static reservation, operator", operator(func(t *testing.T) []offer.Operation {
			return []offer.Operation{offer.Unreserve{Resources: res("cpus(db):1")}}
		}), op(offer.ErrNotDynamicallyReserved)},
		{"unreserve a volume's reservation, framework", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, logsVolume)
			return held, []offer.Operation{offer.Unreserve{Resources: res(logsVolume).Allocate(role)}}
		}), op(offer.ErrVolumeHeld)},
		{"unreserve a volume's reservation, operator", operator(func(t *testing.T) []offer.Operation {
			return []offer.Operation{offer.Unreserve{Resources: res(sharedVolume)}}
		}), op(offer.ErrVolumeHeld)},
		{"destroy a volume in use, framework", func(t *testing.T, a *allocator.Allocator) error {
			vol := heldAs(t, a, "db", "a1", pgVolume)
			return a.UpdateAllocation("db", "a1", vol, []offer.Operation{offer.Destroy{Volumes: vol}})
		}, op(offer.ErrVolumeInUse)},
		{"destroy a shared volume in use, operator", operator(func(t *testing.T) []offer.Operation {
			return []offer.Operation{offer.Destroy{Volumes: res(sharedVolume)}}
		}), op(offer.ErrVolumeInUse)},
		{"reserve a volume", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, logsVolume)
			return held, []offer.Operation{offer.Reserve{Resources: push(t, res(logsVolume).Allocate(role), dynamic("db/replica", "ops"))}}
		}), op(offer.ErrReserveVolume)},
		{"volume id used twice", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, dbDisk)
			vol := res("disk(reservations: [(DYNAMIC,db,ops)])[id:logs,principal:ops,path:other]:100").Allocate(role)
			return held, []offer.Operation{offer.Create{Volumes: vol}}
		}), op(offer.ErrPersistenceIDNotUnique)},
		{"volume of unreserved disk", func(t *testing.T, a *allocator.Allocator) error {
			offered := offeredTo(a, "web", "a1")
			vol := res("disk[id:w,principal:ops,path:data]:100").Allocate("web")
			return a.UpdateAllocation("web", "a1", offered, []offer.Operation{offer.Create{Volumes: vol}})
		}, []error{allocator.ErrOperation}},
		{"shared volume without the capability", func(t *testing.T, a *allocator.Allocator) error {
			// The reservation is valid; the shared volume made of it is
			// not, and neither is applied.
			offered := offeredTo(a, "web", "a1")
			disk := push(t, res("disk:100").Allocate("web"), dynamic("web", ""))
			vol := res("disk(reservations: [(DYNAMIC,web)])[id:w,path:data]<SHARED>:100").Allocate("web")
			return a.Accept("web", "a1", offered, []offer.Operation{offer.Reserve{Resources: disk}, offer.Create{Volumes: vol}}, &allocator.Filter{Refuse: time.Hour})
		}, op(offer.ErrSharedCapability)},
		{"reservation by another principal", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, dbDisk)
			unreserved := held.Unreserved().Filter(func(r resources.Resource) bool { return r.Name == "cpus" })
			return held, []offer.Operation{offer.Reserve{Resources: push(t, unreserved, dynamic(role, "eve"))}}
		}), op(offer.ErrPrincipalMismatch)},
		{"reservation for another role", func(t *testing.T, a *allocator.Allocator) error {
			offered := offeredTo(a, "web", "a1")
			return a.UpdateAllocation("web", "a1", offered, []offer.Operation{offer.Reserve{Resources: push(t, res("cpus:1").Allocate("web"), dynamic("db", ""))}})
		}, []error{allocator.ErrOperation}},
		{"operator launches a task", operator(func(t *testing.T) []offer.Operation {
			return []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: "t", Resources: res("cpus:1")}}}}
		}), []error{allocator.ErrOperation}},

		// Operations on resources not offered.
		{"launch on resources not offered", func(t *testing.T, a *allocator.Allocator) error {
			offered := offeredTo(a, "web", "a1")
			task := offer.Launch{Tasks: []offer.Task{{ID: "t", Resources: res("cpus:1000").Allocate("web")}}}
			return a.Accept("web", "a1", offered, []offer.Operation{task}, &allocator.Filter{Refuse: time.Hour})
		}, op(offer.ErrDoesNotContain)},
		{"reserve resources of another offer", func(t *testing.T, a *allocator.Allocator) error {
			// web's offer on a1 does not hold a2's resources, which db was
			// offered.
			offered := offeredTo(a, "web", "a1")
			return a.UpdateAllocation("web", "a1", offered, []offer.Operation{offer.Reserve{Resources: push(t, res("ports:[40000-40001]").Allocate("web"), dynamic("web", ""))}})
		}, []error{allocator.ErrOperation}},
		{"reserve what an earlier operation used", dbOps(func(t *testing.T, a *allocator.Allocator) (resources.Resources, []offer.Operation) {
			held, role := dbHolding(t, a, dbDisk)
			cpus := held.Unreserved().Filter(func(r resources.Resource) bool { return r.Name == "cpus" })
			launch := offer.Launch{Tasks: []offer.Task{{ID: "t", Resources: cpus}}}
			return held, []offer.Operation{launch, offer.Reserve{Resources: push(t, cpus, dynamic(role, "ops"))}}
		}), op(offer.ErrDoesNotContain)},

		// Maintenance.
		{"inverse offer answer without status", func(_ *testing.T, a *allocator.Allocator) error {
			return a.UpdateInverseOffer("a1", "web", 0, &allocator.Filter{Refuse: time.Hour})
		}, []error{allocator.ErrInvalidStatus}},
	}...)
	return rows
}

// formatRun prints a run's offers.
func formatRun(res allocator.Result) string {
	var b strings.Builder
	for _, o := range res.Offers {
		fmt.Fprintf(&b, "%s %s %s %s: %s\n", o.ID, o.FrameworkID, o.Role, o.AgentID, o.Resources)
	}
	for _, o := range res.InverseOffers {
		fmt.Fprintf(&b, "inverse %s %s %s\n", o.ID, o.FrameworkID, o.AgentID)
	}
	return b.String()
}

// TestCatalogueOfBadInput sends one bad input per row to the same cluster:
// each returns the named error, leaves Describe unchanged, keeps the
// accounting, and leaves nothing behind that a later run would show.
func TestCatalogueOfBadInput(t *testing.T) {
	seen := map[string]bool{}
	for _, row := range catalogue() {
		if seen[row.name] {
			t.Fatalf("row %q appears twice", row.name)
		}
		seen[row.name] = true
		t.Run(row.name, func(t *testing.T) {
			a := catalogueCluster(t)
			before := a.Describe()
			err := row.call(t, a)
			if err == nil {
				t.Fatalf("no error, want %v", row.want)
			}
			for _, want := range row.want {
				if !errors.Is(err, want) {
					t.Errorf("error %q does not wrap %q", err, want)
				}
			}
			if !strings.HasPrefix(err.Error(), "allocator: ") && !strings.Contains(err.Error(), ": allocator: ") {
				t.Errorf("error %q does not name the package", err)
			}
			if after := a.Describe(); after != before {
				t.Fatalf("state changed:\n%s\nwas:\n%s", after, before)
			}
			require.NoError(t, allocatortest.Check(a))

			// Later runs are those of a cluster that never saw the call.
			fresh := catalogueCluster(t)
			for i, run := range []func(*allocator.Allocator) allocator.Result{(*allocator.Allocator).Allocate, (*allocator.Allocator).AllocateAll} {
				got, want := formatRun(run(a)), formatRun(run(fresh))
				if got != want {
					t.Fatalf("run %d after the call:\n%s\nwithout it:\n%s", i, got, want)
				}
			}
		})
	}
}

// TestCatalogueClusterIsUsable makes sure the rows act on the state they
// describe: db runs a task on pg and the shared volume, and every named
// resource is where the rows look for it.
func TestCatalogueClusterIsUsable(t *testing.T) {
	a := catalogueCluster(t)
	v, _ := a.Agent("a1")
	if !v.Allocated["db"].Unallocate().Contains(res(pgVolume)) {
		t.Fatalf("pg is not in use: %s", v.Allocated["db"])
	}
	for _, text := range []string{logsVolume, dbDisk, "cpus(db):2"} {
		heldAs(t, a, "db", "a1", text)
	}
	if offeredTo(a, "web", "a1").IsEmpty() {
		t.Fatal("web holds nothing on a1")
	}
	if w, _ := a.Agent("a2"); w.Offered["db"].IsEmpty() {
		t.Fatalf("db holds nothing on a2: %v", w.Offered)
	}
	// The operator's shared volume row needs it in use.
	if !v.Allocated["db"].Unallocate().Contains(res(sharedVolume)) {
		t.Fatalf("the shared volume is not in use: %s", v.Allocated["db"])
	}
}

// The catalogue's cluster is the same every time, so rows compare states.
func TestCatalogueClusterIsDeterministic(t *testing.T) {
	first, second := catalogueCluster(t).Describe(), catalogueCluster(t).Describe()
	if first != second {
		t.Fatal("two builds of the catalogue's cluster differ")
	}
}

// manyMaxCPUs returns n resources of the largest amount of cpus, each from
// a resource provider of its own so that they do not merge, allocated to
// role when one is given.
func manyMaxCPUs(n int, role string) resources.Resources {
	var out resources.Resources
	for i := range n {
		r := resources.ScalarResource("cpus", resources.MaxScalar)
		if i > 0 {
			r.ProviderID = fmt.Sprintf("rp%04d", i)
		}
		if err := out.AddResource(r); err != nil {
			panic(err)
		}
	}
	if role != "" {
		out = out.Allocate(role)
	}
	return out
}
