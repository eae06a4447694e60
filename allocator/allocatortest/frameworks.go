package allocatortest

import (
	"slices"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The handlers of the events that change frameworks: AddFramework,
// RemoveFramework, ActivateFramework, DeactivateFramework,
// UpdateFramework, Suppress and Revive.

func (h *Harness) onAddFramework(ev Event, s Views, eff *effects) {
	x := ev.Args
	id := freeID(h.fwIDs, frameworkIDs(s), x[0])
	info := allocator.FrameworkInfo{Roles: h.roleSet(x[1], x[0]), Capabilities: capabilities(x[2])}
	if x[3]&4 != 0 {
		info.Principal = "ops"
	}
	first := info.Roles[0]
	if x[3]&8 != 0 {
		info.SuppressedRoles = []string{first}
	}
	if x[3]&16 != 0 {
		info.MinAllocatable = map[string][]resources.Quantities{first: minAllocatable(x[2] >> 5)}
	}
	if x[3]&32 != 0 {
		info.Constraints = map[string]allocator.Constraints{first: constraints(x[1])}
	}
	var used map[string]resources.Resources
	if x[3]&64 != 0 {
		if ag, ok := pick(s.Agents, x[1]); ok {
			u := part(ag.Available.AllocatableTo(first), x[2], isPlainScalar).Allocate(first)
			if !u.IsEmpty() {
				used = map[string]resources.Resources{ag.ID: u}
			}
		}
	}
	active := x[3]&3 != 3
	err := h.a.AddFramework(id, info, used, allocator.Activation(active))
	if err == nil {
		h.fwInfo[id], h.fwStale = info, true
		h.forgetDemand(id, nil)
	}
	h.record(eff, err, "AddFramework(%s, roles %q, caps %s, principal %q, suppressed %q, used %v, active %v)", id, info.Roles, info.Capabilities, info.Principal, info.SuppressedRoles, used, active)
}

func (h *Harness) onRemoveFramework(ev Event, s Views, eff *effects) {
	id := existingFramework(s, ev.Args[0])
	err := h.a.RemoveFramework(id)
	if err == nil {
		delete(h.fwInfo, id)
		h.fwStale = true
		h.forgetDemand(id, nil)
	}
	h.record(eff, err, "RemoveFramework(%s)", id)
}

func (h *Harness) onActivateFramework(ev Event, s Views, eff *effects) {
	id := existingFramework(s, ev.Args[0])
	h.record(eff, h.a.ActivateFramework(id), "ActivateFramework(%s)", id)
}

func (h *Harness) onDeactivateFramework(ev Event, s Views, eff *effects) {
	id := existingFramework(s, ev.Args[0])
	h.record(eff, h.a.DeactivateFramework(id), "DeactivateFramework(%s)", id)
}

func (h *Harness) onUpdateFramework(ev Event, s Views, eff *effects) {
	x := ev.Args
	id := existingFramework(s, x[0])
	info := cloneFrameworkInfo(h.fwInfo[id])
	if x[1] != 0 || len(info.Roles) == 0 {
		info.Roles = h.roleSet(x[1], x[0])
	}
	info.Capabilities = capabilities(x[2])
	info.SuppressedRoles = nil
	for i, role := range info.Roles {
		if x[3]&(1<<i) != 0 {
			info.SuppressedRoles = append(info.SuppressedRoles, role)
		}
	}
	if x[3]&0x80 == 0 {
		// Drop settings for roles no longer subscribed; otherwise the
		// update is refused.
		for role := range info.MinAllocatable {
			if !slices.Contains(info.Roles, role) {
				delete(info.MinAllocatable, role)
			}
		}
		for role := range info.Constraints {
			if !slices.Contains(info.Roles, role) {
				delete(info.Constraints, role)
			}
		}
	}
	err := h.a.UpdateFramework(id, info)
	if err == nil {
		h.fwInfo[id] = info
		h.forgetDemand(id, info.Roles)
	}
	h.record(eff, err, "UpdateFramework(%s, roles %q, caps %s, suppressed %q)", id, info.Roles, info.Capabilities, info.SuppressedRoles)
}

func (h *Harness) onSuppress(ev Event, s Views, eff *effects) {
	id := existingFramework(s, ev.Args[0])
	roles := h.someRoles(id, ev.Args[1])
	h.record(eff, h.a.SuppressOffers(id, roles...), "SuppressOffers(%s, %q)", id, roles)
}

func (h *Harness) onRevive(ev Event, s Views, eff *effects) {
	id := existingFramework(s, ev.Args[0])
	roles := h.someRoles(id, ev.Args[1])
	h.record(eff, h.a.ReviveOffers(id, roles...), "ReviveOffers(%s, %q)", id, roles)
}

// roleSet returns the roles of the pool whose bits are set in b, or one
// role chosen by alt when none is.
func (h *Harness) roleSet(b, alt uint8) []string {
	var out []string
	for i, r := range h.roles {
		if b&(1<<i) != 0 {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		r, _ := pick(h.roles, alt)
		out = []string{r}
	}
	return out
}

// someRoles returns no roles (meaning all), one of the framework's roles,
// or (b&0x80) a role of the pool it may not subscribe to.
func (h *Harness) someRoles(fw string, b uint8) []string {
	roles := h.fwInfo[fw].Roles
	if b&0x80 != 0 {
		r, _ := pick(h.roles, b)
		return []string{r}
	}
	if b%2 == 0 || len(roles) == 0 {
		return nil
	}
	r, _ := pick(roles, b>>1)
	return []string{r}
}

func capabilities(b uint8) offer.Capabilities {
	caps := offer.MultiRole
	for i, c := range []offer.Capabilities{offer.SharedResources, offer.RevocableResources, offer.ReservationRefinement, offer.GPUResources, offer.RegionAware} {
		if b&(1<<i) != 0 {
			caps |= c
		}
	}
	return caps
}

func minAllocatable(b uint8) []resources.Quantities {
	switch b % 4 {
	case 0:
		return []resources.Quantities{}
	case 1:
		return []resources.Quantities{resources.MustParseQuantities("cpus:2")}
	case 2:
		return []resources.Quantities{resources.MustParseQuantities("mem:1024"), resources.MustParseQuantities("disk:500")}
	}
	return []resources.Quantities{resources.MustParseQuantities("cpus:1;mem:256")}
}

func constraints(b uint8) allocator.Constraints {
	switch b % 3 {
	case 0:
		return allocator.Constraints{{{Attribute: "rack", Op: allocator.OpEquals, Value: "r0"}}}
	case 1:
		return allocator.Constraints{{{Attribute: "rack", Op: allocator.OpNotEquals, Value: "r1"}}, {{Attribute: "gpu", Op: allocator.OpExists}}}
	}
	return allocator.Constraints{{{Attribute: "rack", Op: allocator.OpExists}, {Attribute: "zone", Op: allocator.OpNotExists}}}
}

func cloneFrameworkInfo(info allocator.FrameworkInfo) allocator.FrameworkInfo {
	info.Roles = slices.Clone(info.Roles)
	info.SuppressedRoles = slices.Clone(info.SuppressedRoles)
	if info.MinAllocatable != nil {
		m := make(map[string][]resources.Quantities, len(info.MinAllocatable))
		for k, v := range info.MinAllocatable {
			m[k] = v
		}
		info.MinAllocatable = m
	}
	if info.Constraints != nil {
		m := make(map[string]allocator.Constraints, len(info.Constraints))
		for k, v := range info.Constraints {
			m[k] = v
		}
		info.Constraints = m
	}
	return info
}
