package offer

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

// rule is one validation rule with an operation that passes it and one that
// breaks it. Both are validated with ctxWeb() changed by okCtx and badCtx.
type rule struct {
	name   string
	want   error
	ok     Operation
	bad    Operation
	okCtx  func(*Context)
	badCtx func(*Context)
	// free marks rules that need no Context: Conversions (and so Apply)
	// enforce them too. For the others, Conversions accepts bad.
	free bool
	// offered, if set, are resources that Apply(offered, ok) must accept.
	offered string
}

// Context changes.
var (
	noAgentCaps = func(c *Context) { c.AgentCapabilities = 0 }
	operator    = func(c *Context) { c.Operator, c.Roles = true, nil }
	noPrincipal = func(c *Context) { c.Principal = "" }
)

func rules(t *testing.T) []rule {
	reserved := func(text, role string) string {
		return strings.Replace(text, "(allocated: web)", "(allocated: "+role+")(reservations: [(DYNAMIC,"+role+",ops)])", 1)
	}
	half := strings.Replace(resDisk, "1024", "512", 1)
	// Resources drop empty disk metadata; a single Resource can hold it.
	emptyDisk := one(t, half)
	emptyDisk.Disk = &volume.Disk{}
	badStack := one(t, vol)
	badStack.Reservations = reservation.Stack{{Type: reservation.Dynamic, Role: "web"}, {Type: reservation.Dynamic, Role: "db"}}
	negative := one(t, vol)
	negative.Scalar = -1
	roVol := strings.Replace(vol, "path:data", "path:data,mode:RO", 1)
	otherVol := strings.Replace(vol, "id:data", "id:logs", 1)
	unallocated := func(text string) resources.Resources { return rs(text).Unallocate() }
	launch := func(text string) Launch { return Launch{Tasks: []Task{{ID: "t1", Resources: rs(text)}}} }

	return []rule{
		// Common checks of the resources an operation names.
		{name: "InvalidResources/gpus must be whole", want: ErrInvalidResources, free: true,
			ok:  Reserve{Resources: rs(reserved("gpus(allocated: web):1", "web"))},
			bad: Reserve{Resources: rs(reserved("gpus(allocated: web):1.5", "web"))}},
		{name: "InvalidResources/empty disk metadata", want: ErrInvalidResources, free: true,
			ok:  GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad: GrowVolume{Volume: emptyDisk, Addition: rs(half)}},
		{name: "InvalidResources/invalid volume", want: ErrInvalidResources, free: true,
			ok:  GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad: GrowVolume{Volume: negative, Addition: rs(half)}},
		{name: "Empty/reserve", want: ErrEmpty, free: true,
			ok: Reserve{Resources: rs(resCPUs)}, bad: Reserve{}, offered: webCPUs},
		{name: "Empty/launch", want: ErrEmpty, free: true,
			ok: launch(webCPUs), bad: Launch{}, offered: webCPUs},
		{name: "Empty/create", want: ErrEmpty, free: true,
			ok: Create{Volumes: rs(vol)}, bad: Create{}, offered: resDisk},
		{name: "Empty/destroy", want: ErrEmpty, free: true,
			ok: Destroy{Volumes: rs(vol)}, bad: Destroy{}, offered: vol,
			okCtx: func(c *Context) { c.Checkpointed = unallocated(vol) }},
		{name: "InvalidTask/no id", want: ErrInvalidTask, free: true,
			ok: launch(webCPUs), bad: Launch{Tasks: []Task{{Resources: rs(webCPUs)}}}},
		{name: "InvalidTask/duplicate id", want: ErrInvalidTask, free: true,
			ok:      Launch{Tasks: []Task{{ID: "t1", Resources: rs("cpus(allocated: web):1")}, {ID: "t2", Resources: rs("cpus(allocated: web):1")}}},
			bad:     Launch{Tasks: []Task{{ID: "t1", Resources: rs("cpus(allocated: web):1")}, {ID: "t1", Resources: rs("cpus(allocated: web):1")}}},
			offered: webCPUs},
		{name: "MultipleProviders", want: ErrMultipleProviders, free: true,
			ok:  Reserve{Resources: rs(reserved("cpus(allocated: web)(provider: a):1", "web") + ";" + reserved("mem(allocated: web)(provider: a):1", "web"))},
			bad: Reserve{Resources: rs(reserved("cpus(allocated: web)(provider: a):1", "web") + ";" + reserved("mem(allocated: web)(provider: b):1", "web"))}},

		// Reservations.
		{name: "NotDynamicallyReserved/static reservations are never unreserved", want: ErrNotDynamicallyReserved, free: true,
			ok: Unreserve{Resources: rs(resCPUs)}, bad: Unreserve{Resources: rs(staticCPUs)}, offered: resCPUs},
		{name: "NotDynamicallyReserved/unreserved resources", want: ErrNotDynamicallyReserved, free: true,
			ok: Unreserve{Resources: rs(resCPUs)}, bad: Unreserve{Resources: rs(webCPUs)}},
		{name: "NotDynamicallyReserved/reserve without a dynamic reservation", want: ErrNotDynamicallyReserved, free: true,
			ok: Reserve{Resources: rs(resCPUs)}, bad: Reserve{Resources: rs(staticCPUs)}},
		{name: "NotDynamicallyReserved/source drops a static reservation", want: ErrNotDynamicallyReserved, free: true,
			ok: Reserve{
				Resources: rs("cpus(allocated: web/api)(reservations: [(STATIC,web),(DYNAMIC,web/api,ops)]):2"),
				Source:    rs("cpus(allocated: web/api)(web):2")},
			bad: Reserve{
				Resources: rs("cpus(allocated: web/api)(reservations: [(DYNAMIC,web/api,ops)]):2"),
				Source:    rs("cpus(allocated: web/api)(web):2")},
			offered: "cpus(allocated: web/api)(web):2"},
		{name: "ReserveVolume", want: ErrReserveVolume, free: true,
			ok: Reserve{Resources: rs(resDisk)}, bad: Reserve{Resources: rs(vol)}},
		{name: "VolumeHeld/destroy the volume first", want: ErrVolumeHeld, free: true,
			ok: Unreserve{Resources: rs(resDisk)}, bad: Unreserve{Resources: rs(vol)}, offered: resDisk},
		{name: "DynamicFromRevocable", want: ErrDynamicFromRevocable, free: true,
			ok:  Reserve{Resources: rs(resCPUs)},
			bad: Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,ops)]){REV}:1")}},
		{name: "MixedReservations", want: ErrMixedReservations, free: true,
			ok: Reserve{
				Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,ops,{k: a})]):1; mem(allocated: web)(reservations: [(DYNAMIC,web,ops,{k: a})]):1"),
				Source:    rs("cpus(allocated: web):1; mem(allocated: web):1")},
			bad: Reserve{
				Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,ops,{k: a})]):1; mem(allocated: web)(reservations: [(DYNAMIC,web,ops,{k: b})]):1"),
				Source:    rs("cpus(allocated: web):1; mem(allocated: web):1")},
			offered: webCPUs + ";" + webMem},
		{name: "SourceMismatch", want: ErrSourceMismatch, free: true,
			ok:  Reserve{Resources: rs(resCPUs), Source: rs("cpus(allocated: web):2")},
			bad: Reserve{Resources: rs(resCPUs), Source: rs("cpus(allocated: web):3")}, offered: webCPUs},
		{name: "RefinementNotStrict/source moves up", want: ErrRefinementNotStrict, free: true,
			ok:      Reserve{Resources: rs(refinedCPUs), Source: rs(parentCPUs)},
			bad:     Reserve{Resources: rs(parentCPUs), Source: rs(refinedCPUs)},
			offered: parentCPUs},
		{name: "RefinementNotStrict/source moves sideways", want: ErrRefinementNotStrict, free: true,
			ok: Reserve{
				Resources: rs("cpus(allocated: web/api)(reservations: [(DYNAMIC,web/api,ops,{k: b})]):2"),
				Source:    rs("cpus(allocated: web/api)(reservations: [(DYNAMIC,web/api,ops,{k: a})]):2")},
			bad: Reserve{
				Resources: rs("cpus(allocated: web/api)(reservations: [(DYNAMIC,web/api,ops)]):2"),
				Source:    rs("cpus(allocated: web/api)(reservations: [(DYNAMIC,web/db,ops)]):2")},
			offered: "cpus(allocated: web/api)(reservations: [(DYNAMIC,web/api,ops,{k: a})]):2"},
		{name: "RefinementNotStrict/stack", want: ErrRefinementNotStrict, free: true,
			ok:  ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(1)},
			bad: ShrinkVolume{Volume: badStack, Subtract: resources.Units(1)}},
		{name: "RefinementCapability/agent", want: ErrRefinementCapability,
			ok: Reserve{Resources: rs(refinedCPUs)}, bad: Reserve{Resources: rs(refinedCPUs)},
			badCtx:  func(c *Context) { c.AgentCapabilities &^= ReservationRefinement },
			offered: parentCPUs},
		{name: "RefinementCapability/framework", want: ErrRefinementCapability,
			ok: Reserve{Resources: rs(refinedCPUs)}, bad: Reserve{Resources: rs(refinedCPUs)},
			badCtx: func(c *Context) { c.FrameworkCapabilities &^= ReservationRefinement }},
		{name: "RefinementCapability/launch", want: ErrRefinementCapability,
			ok: launch(refinedCPUs), bad: launch(refinedCPUs),
			badCtx: func(c *Context) { c.FrameworkCapabilities &^= ReservationRefinement }},
		{name: "RefinementCapability/create", want: ErrRefinementCapability,
			ok:     Create{Volumes: rs("disk(allocated: web/api)(reservations: [(DYNAMIC,web,ops),(DYNAMIC,web/api,ops)])[id:x,principal:ops,path:x]:1")},
			bad:    Create{Volumes: rs("disk(allocated: web/api)(reservations: [(DYNAMIC,web,ops),(DYNAMIC,web/api,ops)])[id:x,principal:ops,path:x]:1")},
			badCtx: func(c *Context) { c.AgentCapabilities &^= ReservationRefinement }},
		{name: "HierarchicalRoleCapability", want: ErrHierarchicalRoleCapability,
			ok:     Reserve{Resources: rs(reserved("cpus(allocated: web):1", "web/api"))},
			bad:    Reserve{Resources: rs(reserved("cpus(allocated: web):1", "web/api"))},
			badCtx: func(c *Context) { c.AgentCapabilities &^= HierarchicalRole }},
		{name: "HierarchicalRoleCapability/unneeded for top-level roles", want: ErrHierarchicalRoleCapability,
			ok: Reserve{Resources: rs(resCPUs)}, okCtx: noAgentCaps,
			bad: Reserve{Resources: rs(reserved("cpus(allocated: web):1", "web/api"))}, badCtx: noAgentCaps},

		// Principals.
		{name: "NoPrincipal/reserve", want: ErrNoPrincipal,
			ok:    Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web)]):1")},
			okCtx: noPrincipal,
			bad:   Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web)]):1")}},
		{name: "PrincipalMismatch/reserve", want: ErrPrincipalMismatch,
			ok:  Reserve{Resources: rs(resCPUs)},
			bad: Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,other)]):1")}},
		{name: "PrincipalMismatch/not checked without a principal", want: ErrPrincipalMismatch,
			ok:    Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,other)]):1")},
			okCtx: noPrincipal,
			bad:   Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,other)]):1")}},
		{name: "PrincipalMismatch/unreserve does not compare principals", want: ErrRoleNotSubscribed,
			ok:     Unreserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,other)]):1")},
			bad:    Unreserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,other)]):1")},
			badCtx: func(c *Context) { c.Roles = []string{"db"} }},
		{name: "NoPrincipal/create", want: ErrNoPrincipal,
			ok: Create{Volumes: rs(vol)}, bad: Create{Volumes: rs(strings.Replace(vol, "principal:ops,", "", 1))}},
		{name: "PrincipalMismatch/create", want: ErrPrincipalMismatch,
			ok: Create{Volumes: rs(vol)}, bad: Create{Volumes: rs(strings.Replace(vol, "principal:ops", "principal:other", 1))}},

		// Allocation roles and the framework's roles.
		{name: "NotAllocated/reserve", want: ErrNotAllocated,
			ok: Reserve{Resources: rs(resCPUs)}, bad: Reserve{Resources: unallocated(resCPUs)}},
		{name: "NotAllocated/launch", want: ErrNotAllocated,
			ok: launch(webCPUs), bad: launch("cpus:1")},
		{name: "NotAllocated/destroy", want: ErrNotAllocated,
			ok: Destroy{Volumes: rs(vol)}, bad: Destroy{Volumes: unallocated(vol)},
			okCtx:  func(c *Context) { c.Checkpointed = unallocated(vol) },
			badCtx: func(c *Context) { c.Checkpointed = unallocated(vol) }},
		{name: "AllocationRoleMismatch", want: ErrAllocationRoleMismatch,
			ok:  Reserve{Resources: rs(reserved("cpus(allocated: web):1", "web/api"))},
			bad: Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web/api,ops)]):1")}},
		{name: "RoleNotSubscribed/reserve", want: ErrRoleNotSubscribed,
			ok: Reserve{Resources: rs(resCPUs)}, bad: Reserve{Resources: rs(resCPUs)},
			badCtx: func(c *Context) { c.Roles = []string{"web/api"} }},
		{name: "RoleNotSubscribed/create", want: ErrRoleNotSubscribed,
			ok: Create{Volumes: rs(vol)}, bad: Create{Volumes: rs(vol)},
			badCtx: func(c *Context) { c.Roles = nil }},
		{name: "RoleNotSubscribed/grow", want: ErrRoleNotSubscribed,
			ok: GrowVolume{Volume: one(t, vol), Addition: rs(half)}, bad: GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			badCtx: func(c *Context) { c.Roles = []string{"db"} }},
		{name: "MultipleAllocationRoles", want: ErrMultipleAllocationRoles,
			ok:  Unreserve{Resources: rs(resCPUs + ";" + reserved("mem(allocated: web):1", "web"))},
			bad: Unreserve{Resources: rs(resCPUs + ";" + parentCPUs)}},
		{name: "MultipleAllocationRoles/launch", want: ErrMultipleAllocationRoles,
			ok:  Launch{Tasks: []Task{{ID: "t1", Resources: rs("cpus(allocated: web):1")}, {ID: "t2", Resources: rs("mem(allocated: web):1")}}},
			bad: Launch{Tasks: []Task{{ID: "t1", Resources: rs("cpus(allocated: web):1")}, {ID: "t2", Resources: rs("mem(allocated: web/api):1")}}}},

		// The operator path.
		{name: "Allocated/operator reserve", want: ErrAllocated,
			ok:    Reserve{Resources: unallocated(resCPUs)},
			okCtx: operator, bad: Reserve{Resources: rs(resCPUs)}, badCtx: operator,
			offered: "cpus:4"},
		{name: "Allocated/operator unreserve", want: ErrAllocated,
			ok:    Unreserve{Resources: unallocated(resCPUs)},
			okCtx: operator, bad: Unreserve{Resources: rs(resCPUs)}, badCtx: operator},
		{name: "Allocated/operator create", want: ErrAllocated,
			ok:    Create{Volumes: unallocated(sharedVol)},
			okCtx: operator, bad: Create{Volumes: rs(vol)}, badCtx: operator},
		{name: "Allocated/operator ignores roles and principals of no one", want: ErrAllocated,
			ok: Reserve{Resources: unallocated("cpus(allocated: web)(reservations: [(DYNAMIC,db/x,ops)]):1")},
			okCtx: func(c *Context) {
				operator(c)
				c.FrameworkCapabilities = 0
			},
			bad: Reserve{Resources: rs("cpus(allocated: db/x)(reservations: [(DYNAMIC,db/x,ops)]):1")}, badCtx: operator},
		{name: "Unsupported/operator launch", want: ErrUnsupported,
			ok: launch(webCPUs), bad: launch("cpus:1"), badCtx: operator},

		// Persistent volumes.
		{name: "NotPersistentVolume/create", want: ErrNotPersistentVolume, free: true,
			ok: Create{Volumes: rs(vol)}, bad: Create{Volumes: rs(resDisk)}},
		{name: "NotPersistentVolume/destroy", want: ErrNotPersistentVolume, free: true,
			ok: Destroy{Volumes: rs(vol)}, bad: Destroy{Volumes: rs(resCPUs)},
			okCtx: func(c *Context) { c.Checkpointed = unallocated(vol) }},
		{name: "NotPersistentVolume/no container path", want: ErrNotPersistentVolume, free: true,
			ok: Create{Volumes: rs(vol)}, bad: Create{Volumes: rs(strings.Replace(vol, ",path:data", "", 1))}},
		{name: "NotPersistentVolume/grow", want: ErrNotPersistentVolume, free: true,
			ok:  GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad: GrowVolume{Volume: one(t, half), Addition: rs(half)}},
		{name: "ReadOnlyVolume", want: ErrReadOnlyVolume, free: true,
			ok: Create{Volumes: rs(vol)}, bad: Create{Volumes: rs(roVol)}},
		{name: "VolumeFromUnreserved", want: ErrVolumeFromUnreserved, free: true,
			ok:  Create{Volumes: rs(vol)},
			bad: Create{Volumes: rs("disk(allocated: web)[id:data,principal:ops,path:data]:1024")}},
		{name: "VolumeFromRevocable", want: ErrVolumeFromRevocable, free: true,
			ok:  Create{Volumes: rs(vol)},
			bad: Create{Volumes: rs("disk(allocated: web)(web)[id:data,principal:ops,path:data]{REV}:1024")}},
		{name: "PersistenceIDNotUnique/checkpointed", want: ErrPersistenceIDNotUnique,
			ok: Create{Volumes: rs(otherVol)}, bad: Create{Volumes: rs(vol)},
			okCtx:   func(c *Context) { c.Checkpointed = unallocated(vol) },
			badCtx:  func(c *Context) { c.Checkpointed = unallocated(vol) },
			offered: resDisk},
		{name: "PersistenceIDNotUnique/per role", want: ErrPersistenceIDNotUnique,
			ok: Create{Volumes: rs(vol)}, bad: Create{Volumes: rs(vol)},
			okCtx:  func(c *Context) { c.Checkpointed = rs(strings.ReplaceAll(vol, "web", "db")).Unallocate() },
			badCtx: func(c *Context) { c.Checkpointed = rs(strings.Replace(vol, "1024", "1", 1)).Unallocate() }},
		{name: "PersistenceIDNotUnique/request", want: ErrPersistenceIDNotUnique, free: true,
			ok: Create{Volumes: rs(vol + ";" + otherVol)}, bad: Create{Volumes: rs(vol + ";" + vol)},
			offered: strings.Replace(resDisk, "1024", "2048", 1)},
		{name: "SharedCapability/create", want: ErrSharedCapability,
			ok: Create{Volumes: rs(sharedVol)}, bad: Create{Volumes: rs(sharedVol)},
			badCtx: func(c *Context) { c.FrameworkCapabilities &^= SharedResources }, offered: resDisk},
		{name: "SharedCapability/launch", want: ErrSharedCapability,
			ok: launch(sharedVol), bad: launch(sharedVol),
			badCtx: func(c *Context) { c.FrameworkCapabilities &^= SharedResources }, offered: sharedVol},
		{name: "VolumeNotFound", want: ErrVolumeNotFound,
			ok: Destroy{Volumes: rs(vol)}, bad: Destroy{Volumes: rs(vol)},
			okCtx:   func(c *Context) { c.Checkpointed = unallocated(vol + ";" + resCPUs) },
			badCtx:  func(c *Context) { c.Checkpointed = unallocated(otherVol + ";" + resCPUs) },
			offered: vol},
		{name: "VolumeInUse", want: ErrVolumeInUse,
			ok: Destroy{Volumes: rs(sharedVol)}, bad: Destroy{Volumes: rs(sharedVol)},
			okCtx: func(c *Context) { c.Checkpointed, c.InUse = unallocated(sharedVol), unallocated(otherVol) },
			badCtx: func(c *Context) {
				// In use by a task of another framework, in another role.
				c.Checkpointed, c.InUse = unallocated(sharedVol), rs(sharedVol).Allocate("other")
			},
			offered: sharedVol},

		// Growing and shrinking volumes.
		{name: "GrowShared", want: ErrGrowShared, free: true,
			ok:  GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad: GrowVolume{Volume: one(t, sharedVol), Addition: rs(half)}},
		{name: "GrowAmount", want: ErrGrowAmount, free: true,
			ok:  GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad: GrowVolume{Volume: one(t, vol)}},
		{name: "IncompatibleAddition/other reservation", want: ErrIncompatibleAddition, free: true,
			ok:      GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad:     GrowVolume{Volume: one(t, vol), Addition: rs("disk(allocated: web)(reservations: [(DYNAMIC,web,other)]):512")},
			offered: vol + ";" + half},
		{name: "IncompatibleAddition/unreserved", want: ErrIncompatibleAddition, free: true,
			ok:  GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad: GrowVolume{Volume: one(t, vol), Addition: rs("disk(allocated: web):512")}},
		{name: "IncompatibleAddition/MOUNT", want: ErrIncompatibleAddition, free: true,
			ok:  GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad: GrowVolume{Volume: one(t, mountVol), Addition: rs(mountDisk)}},
		{name: "IncompatibleAddition/not disk", want: ErrIncompatibleAddition, free: true,
			ok:  GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad: GrowVolume{Volume: one(t, vol), Addition: rs(half + ";" + resCPUs)}},
		{name: "ShrinkShared", want: ErrShrinkShared, free: true,
			ok:  ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(1)},
			bad: ShrinkVolume{Volume: one(t, sharedVol), Subtract: resources.Units(1)}, offered: vol},
		{name: "ShrinkMount", want: ErrShrinkMount, free: true,
			ok:  ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(1)},
			bad: ShrinkVolume{Volume: one(t, mountVol), Subtract: resources.Units(1)}},
		{name: "ShrinkAmount/zero", want: ErrShrinkAmount, free: true,
			ok:  ShrinkVolume{Volume: one(t, vol), Subtract: resources.MustScalar(0.001)},
			bad: ShrinkVolume{Volume: one(t, vol), Subtract: 0}, offered: vol},
		{name: "ShrinkAmount/whole volume", want: ErrShrinkAmount, free: true,
			ok:  ShrinkVolume{Volume: one(t, vol), Subtract: resources.MustScalar(1023.999)},
			bad: ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(1024)}, offered: vol},
		{name: "ShrinkAmount/negative", want: ErrShrinkAmount, free: true,
			ok:  ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(1)},
			bad: ShrinkVolume{Volume: one(t, vol), Subtract: -resources.Units(1)}},
		{name: "ResizeCapability/grow", want: ErrResizeCapability,
			ok: GrowVolume{Volume: one(t, vol), Addition: rs(half)}, bad: GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			badCtx: noAgentCaps, offered: vol + ";" + half},
		{name: "ResizeCapability/shrink", want: ErrResizeCapability,
			ok: ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(1)}, bad: ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(1)},
			badCtx: noAgentCaps},
		{name: "Unsupported/resource provider", want: ErrUnsupported, free: true,
			ok:  GrowVolume{Volume: one(t, vol), Addition: rs(half)},
			bad: GrowVolume{Volume: one(t, strings.Replace(vol, "[id:", "(provider: rp)[id:", 1)), Addition: rs(strings.Replace(half, ":512", "(provider: rp):512", 1))}},
		{name: "Unsupported/nil operation", want: ErrUnsupported, free: true,
			ok: &Reserve{Resources: rs(resCPUs)}, bad: (*Reserve)(nil)},
	}
}

// TestValidateRules checks every rule with an operation that passes it and
// one that breaks it. Rules that need no Context must be enforced by
// Conversions too, and those that do must not be.
func TestValidateRules(t *testing.T) {
	seen := make(map[string]bool)
	for _, r := range rules(t) {
		t.Run(r.name, func(t *testing.T) {
			if seen[r.name] {
				t.Fatalf("rule %q listed twice", r.name)
			}
			seen[r.name] = true
			okCtx, badCtx := ctxWeb(), ctxWeb()
			if r.okCtx != nil {
				r.okCtx(&okCtx)
			}
			if r.badCtx != nil {
				r.badCtx(&badCtx)
			}
			if err := Validate(r.ok, okCtx); err != nil {
				t.Errorf("Validate(%v) = %v, want nil", r.ok, err)
			}
			err := Validate(r.bad, badCtx)
			if !errors.Is(err, r.want) {
				t.Errorf("Validate(%v) = %v, want %v", r.bad, err, r.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "offer: ") && !strings.Contains(err.Error(), ": offer: ") {
				t.Errorf("error %q does not name the package", err)
			}
			_, convErr := Conversions(r.bad)
			if r.free && !errors.Is(convErr, r.want) {
				t.Errorf("Conversions(%v) = %v, want %v", r.bad, convErr, r.want)
			}
			if !r.free && convErr != nil {
				t.Errorf("Conversions(%v) = %v, want nil: the rule needs a Context", r.bad, convErr)
			}
			if _, err := Conversions(r.ok); err != nil {
				t.Errorf("Conversions(%v) = %v", r.ok, err)
			}
			if r.offered != "" {
				offered := rs(r.offered)
				if _, err := Apply(offered, r.ok); err != nil {
					t.Errorf("Apply(%s, %v) = %v", offered, r.ok, err)
				}
				got, err := Apply(offered, r.bad)
				if r.free && !errors.Is(err, r.want) {
					t.Errorf("Apply(%s, %v) = %v, want %v", offered, r.bad, err, r.want)
				}
				if err != nil && !got.Equal(offered) {
					t.Errorf("failed Apply changed the resources: %s", got)
				}
			}
		})
	}
}

// TestValidateChangesNothing checks that Validate leaves the operation and
// the Context as they were.
func TestValidateChangesNothing(t *testing.T) {
	for _, r := range rules(t) {
		ctx := ctxWeb()
		ctx.Checkpointed = rs(vol).Unallocate()
		ctx.InUse = rs(sharedVol)
		before := fmt.Sprint(r.bad) + ctx.Checkpointed.String() + ctx.InUse.String()
		_ = Validate(r.bad, ctx)
		_ = Validate(r.ok, ctx)
		after := fmt.Sprint(r.bad) + ctx.Checkpointed.String() + ctx.InUse.String()
		eq(t, after, before)
	}
}

func TestValidateErrorMessages(t *testing.T) {
	ctx := ctxWeb()
	cases := []struct {
		op   Operation
		ctx  Context
		want string
	}{
		{Unreserve{Resources: rs("cpus(ops):2")}, ctx, "offer: resource is not dynamically reserved: cpus(ops):2"},
		{Unreserve{Resources: rs(vol)}, ctx, "offer: a persistent volume holds the reservation; destroy the volume first: " + vol},
		{Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,bob)]):1")}, ctx,
			`offer: principal does not match: cpus(allocated: web)(reservations: [(DYNAMIC,web,bob)]):1 has principal "bob", request by principal "ops"`},
		{ShrinkVolume{Volume: one(t, vol), Subtract: resources.Units(2048)}, ctx,
			"offer: subtract must be greater than zero and smaller than the volume: subtract 2048 from " + vol},
	}
	for _, c := range cases {
		err := Validate(c.op, c.ctx)
		if err == nil || err.Error() != c.want {
			t.Errorf("Validate(%v) = %v\nwant %s", c.op, err, c.want)
		}
	}
}
