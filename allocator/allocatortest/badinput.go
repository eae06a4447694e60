package allocatortest

import (
	"math"
	"slices"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// The handler of BadInput: a call that must fail with a named error and
// change nothing. Args[0] modulo 16 picks the case, and what exists picks
// the call within it.

// badCall is what every BadInput case chooses from: the event's arguments,
// a known framework and a known agent (when there are some), and
// resources no framework holds, allocated to the framework's first role.
type badCall struct {
	h       *Harness
	x       [4]uint8
	s       Views
	eff     *effects
	fw      string
	fwOK    bool
	agent   string
	agentOK bool
	huge    resources.Resources
}

// badCases are BadInput's cases, indexed by Args[0] modulo 16.
var badCases = [16]func(b *badCall){
	0:  (*badCall).noSuchFramework,
	1:  (*badCall).noSuchAgent,
	2:  (*badCall).duplicateAgent,
	3:  (*badCall).duplicateFramework,
	4:  (*badCall).invalidWeight,
	5:  (*badCall).invalidRole,
	6:  (*badCall).guaranteesAboveLimits,
	7:  (*badCall).notHeld,
	8:  (*badCall).operatorRefused,
	9:  (*badCall).operatorRefused,
	10: (*badCall).invalidStatus,
	11: (*badCall).roleNotSubscribed,
	12: (*badCall).notHeld,
	13: (*badCall).twoAllocationRoles,
	14: (*badCall).usedWithoutRole,
	15: (*badCall).operationNotOffered,
}

// onBadInput makes a call that must fail with a named error; which one
// depends on Args[0] and on what exists.
func (h *Harness) onBadInput(ev Event, s Views, eff *effects) {
	x := ev.Args
	eff.bad = true
	b := &badCall{h: h, x: x, s: s, eff: eff}
	b.fw, b.fwOK = pick(frameworkIDs(s), x[1])
	b.agent, b.agentOK = pick(agentIDs(s), x[2])
	role := "a"
	if b.fwOK {
		role = h.fwInfo[b.fw].Roles[0]
	}
	b.huge = h.res(hugeText).Allocate(role)
	badCases[x[0]%16](b)
}

// record records the call, which must fail with want.
func (b *badCall) record(want, err error, format string, args ...any) {
	b.h.recordBad(b.eff, want, err, format, args...)
}

// namedCall is a call of the allocator's, by name.
type namedCall struct {
	name string
	f    func() error
}

// noSuchFramework calls a method that takes a framework with an unknown
// one.
func (b *badCall) noSuchFramework() {
	a, id, agentID, huge := b.h.a, unknownFramework, b.agent, b.huge
	calls := []namedCall{
		{"RemoveFramework", func() error { return a.RemoveFramework(id) }},
		{"ActivateFramework", func() error { return a.ActivateFramework(id) }},
		{"DeactivateFramework", func() error { return a.DeactivateFramework(id) }},
		{"UpdateFramework", func() error { return a.UpdateFramework(id, allocator.FrameworkInfo{Roles: []string{"a"}}) }},
		{"SuppressOffers", func() error { return a.SuppressOffers(id) }},
		{"ReviveOffers", func() error { return a.ReviveOffers(id) }},
		{"RecoverResources", func() error { return a.RecoverResources(id, agentID, huge, nil) }},
		{"UpdateAllocation", func() error { return a.UpdateAllocation(id, agentID, huge, nil) }},
		{"Accept", func() error { return a.Accept(id, agentID, huge, nil, nil) }},
		{"UpdateInverseOffer", func() error {
			if !b.agentOK {
				return a.UpdateInverseOffer(unknownAgent, id, allocator.InverseAccepted, nil)
			}
			return a.UpdateInverseOffer(agentID, id, allocator.InverseAccepted, nil)
		}},
	}
	c, _ := pick(calls, b.x[1])
	want := allocator.ErrUnknownFramework
	if c.name == "UpdateInverseOffer" && !b.agentOK {
		want = allocator.ErrUnknownAgent
	}
	b.record(want, c.f(), "%s(unknown framework)", c.name)
}

// noSuchAgent calls a method that takes an agent with an unknown one.
func (b *badCall) noSuchAgent() {
	a, id, fw, huge := b.h.a, unknownAgent, b.fw, b.huge
	calls := []namedCall{
		{"RemoveAgent", func() error { return a.RemoveAgent(id) }},
		{"UpdateAgent", func() error { return a.UpdateAgent(id, allocator.AgentInfo{}, nil) }},
		{"ActivateAgent", func() error { return a.ActivateAgent(id) }},
		{"DeactivateAgent", func() error { return a.DeactivateAgent(id) }},
		{"AddResourceProvider", func() error { return a.AddResourceProvider(id, b.h.res("disk:10"), nil) }},
		{"UpdateAvailable", func() error { return a.UpdateAvailable(id, nil) }},
		{"UpdateUnavailability", func() error { return a.UpdateUnavailability(id, nil) }},
		{"UpdateInverseOffer", func() error { return a.UpdateInverseOffer(id, fw, allocator.InverseAccepted, nil) }},
		{"RecoverResources", func() error { return a.RecoverResources(fw, id, huge, nil) }},
		{"UpdateAllocation", func() error { return a.UpdateAllocation(fw, id, huge, nil) }},
	}
	c, _ := pick(calls, b.x[1])
	want := allocator.ErrUnknownAgent
	if !b.fwOK && (c.name == "RecoverResources" || c.name == "UpdateAllocation") {
		want = allocator.ErrUnknownFramework
	}
	b.record(want, c.f(), "%s(unknown agent)", c.name)
}

func (b *badCall) duplicateAgent() {
	a := b.h.a
	if !b.agentOK {
		b.record(allocator.ErrInvalidID, a.AddAgent("", allocator.AgentInfo{}, b.h.res("cpus:1"), nil), "AddAgent(\"\")")
		return
	}
	b.record(allocator.ErrDuplicateAgent, a.AddAgent(b.agent, allocator.AgentInfo{}, b.h.res("cpus:1"), nil), "AddAgent(%s) again", b.agent)
}

func (b *badCall) duplicateFramework() {
	a := b.h.a
	if !b.fwOK {
		b.record(allocator.ErrInvalidID, a.AddFramework("f\x01", allocator.FrameworkInfo{Roles: []string{"a"}}, nil, allocator.Active), "AddFramework(\"f\\x01\")")
		return
	}
	b.record(allocator.ErrDuplicateFramework, a.AddFramework(b.fw, allocator.FrameworkInfo{Roles: []string{"a"}}, nil, allocator.Active), "AddFramework(%s) again", b.fw)
}

func (b *badCall) invalidWeight() {
	w := []float64{0, -1, math.NaN(), math.Inf(1)}[b.x[1]%4]
	r, _ := pick(b.h.roles, b.x[2])
	b.record(allocator.ErrInvalidWeight, b.h.a.UpdateWeights(map[string]float64{r: w}), "UpdateWeights(%s: %v)", r, w)
}

// invalidRole names a role that is not valid, or suppresses one the
// framework does not subscribe to.
func (b *badCall) invalidRole() {
	h, a, s := b.h, b.h.a, b.s
	switch b.x[1] % 5 {
	case 0:
		b.record(allocator.ErrInvalidRole, a.UpdateQuota("a//b", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:1")}), "UpdateQuota(\"a//b\")")
	case 1:
		b.record(allocator.ErrInvalidRole, a.UpdateQuota("a/*", allocator.Quota{}), "UpdateQuota(\"a/*\")")
	case 2:
		b.record(allocator.ErrInvalidRole, a.UpdateWeights(map[string]float64{"-x": 2}), "UpdateWeights(\"-x\")")
	case 3:
		id := freeID(append(slices.Clone(h.fwIDs), "f-bad"), frameworkIDs(s), 0)
		b.record(allocator.ErrInvalidRole, a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{"a/../b"}}, nil, allocator.Active), "AddFramework(%s, roles [\"a/../b\"])", id)
	default:
		if !b.fwOK {
			b.record(allocator.ErrInvalidRole, a.AddFramework("f-bad", allocator.FrameworkInfo{}, nil, allocator.Active), "AddFramework(f-bad, no roles)")
			return
		}
		info := cloneFrameworkInfo(h.fwInfo[b.fw])
		info.SuppressedRoles = append(info.SuppressedRoles, "zz")
		b.record(allocator.ErrInvalidRole, a.UpdateFramework(b.fw, info), "UpdateFramework(%s, suppressing unsubscribed \"zz\")", b.fw)
	}
}

func (b *badCall) guaranteesAboveLimits() {
	r, _ := pick(b.h.roles, b.x[1])
	q := allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:2"), Limits: resources.MustParseLimits("cpus:1")}
	b.record(allocator.ErrInvalidQuota, b.h.a.UpdateQuota(r, q), "UpdateQuota(%s, guarantees above limits)", r)
}

// notHeld gives back (case 7) or operates on (case 12) resources the
// framework does not hold.
func (b *badCall) notHeld() {
	a, fw, agentID, huge := b.h.a, b.fw, b.agent, b.huge
	switch {
	case !b.fwOK:
		b.record(allocator.ErrUnknownFramework, a.RecoverResources(unknownFramework, agentID, huge, nil), "RecoverResources(unknown framework)")
	case !b.agentOK:
		b.record(allocator.ErrUnknownAgent, a.RecoverResources(fw, unknownAgent, huge, nil), "RecoverResources(unknown agent)")
	case b.x[0]%16 == 7:
		b.record(allocator.ErrNotHeld, a.RecoverResources(fw, agentID, huge, nil), "RecoverResources(%s, %s, %s) not held", fw, agentID, huge)
	default:
		b.record(allocator.ErrNotHeld, a.UpdateAllocation(fw, agentID, huge, nil), "UpdateAllocation(%s, %s, %s) not held", fw, agentID, huge)
	}
}

// operatorRefused has an operator reserve more than is available (case 8)
// or launch a task (case 9).
func (b *badCall) operatorRefused() {
	h, a, agentID := b.h, b.h.a, b.agent
	if !b.agentOK {
		b.record(allocator.ErrUnknownAgent, a.UpdateAvailable(unknownAgent, nil), "UpdateAvailable(unknown agent)")
		return
	}
	if b.x[0]%16 == 8 {
		r, _ := pick(h.reservable, b.x[1])
		r = reservation.TopLevel(r)
		res, _ := h.res(hugeText).PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: r, Principal: "ops"})
		b.record(allocator.ErrNotAvailable, a.UpdateAvailable(agentID, []offer.Operation{offer.Reserve{Resources: res}}), "UpdateAvailable(%s, reserve %s)", agentID, res)
		return
	}
	launch := offer.Launch{Tasks: []offer.Task{{ID: "t", Resources: h.res("cpus:1")}}}
	b.record(allocator.ErrOperation, a.UpdateAvailable(agentID, []offer.Operation{launch}), "UpdateAvailable(%s, launch)", agentID)
}

func (b *badCall) invalidStatus() {
	a := b.h.a
	if !b.fwOK || !b.agentOK {
		b.record(allocator.ErrUnknownAgent, a.UpdateInverseOffer(unknownAgent, unknownFramework, 0, nil), "UpdateInverseOffer(unknown ids)")
		return
	}
	b.record(allocator.ErrInvalidStatus, a.UpdateInverseOffer(b.agent, b.fw, 0, nil), "UpdateInverseOffer(%s, %s, no status)", b.agent, b.fw)
}

func (b *badCall) roleNotSubscribed() {
	a := b.h.a
	if !b.fwOK {
		b.record(allocator.ErrUnknownFramework, a.SuppressOffers(unknownFramework), "SuppressOffers(unknown framework)")
		return
	}
	b.record(allocator.ErrRoleNotSubscribed, a.SuppressOffers(b.fw, "zz"), "SuppressOffers(%s, \"zz\")", b.fw)
}

// twoAllocationRoles operates on resources allocated to two roles, which
// no offer holds.
func (b *badCall) twoAllocationRoles() {
	a := b.h.a
	if !b.fwOK || !b.agentOK {
		b.record(allocator.ErrUnknownFramework, a.UpdateAllocation(unknownFramework, unknownAgent, b.huge, nil), "UpdateAllocation(unknown ids)")
		return
	}
	two := b.h.res("cpus(allocated: a):1;mem(allocated: b):1")
	b.record(allocator.ErrInvalidResources, a.UpdateAllocation(b.fw, b.agent, two, nil), "UpdateAllocation(%s, %s, %s)", b.fw, b.agent, two)
}

// usedWithoutRole adds a framework that uses resources without an
// allocation role.
func (b *badCall) usedWithoutRole() {
	h, a := b.h, b.h.a
	if !b.agentOK {
		b.record(allocator.ErrInvalidID, a.AddAgent("", allocator.AgentInfo{}, resources.Resources{}, nil), "AddAgent(a-bad, used by unknown ids)")
		return
	}
	id := freeID(append(slices.Clone(h.fwIDs), "f-bad"), frameworkIDs(b.s), 0)
	used := map[string]resources.Resources{b.agent: h.res("cpus:1")}
	b.record(allocator.ErrInvalidResources, a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{"a"}}, used, allocator.Active), "AddFramework(%s, used %v without allocation role)", id, used)
}

// operationNotOffered applies to an outstanding offer an operation on
// resources it does not hold.
func (b *badCall) operationNotOffered() {
	h, a := b.h, b.h.a
	_, o, ok := h.outstanding(b.s, b.x[1])
	if !ok {
		b.record(allocator.ErrUnknownFramework, a.RecoverResources(unknownFramework, unknownAgent, b.huge, nil), "RecoverResources(unknown framework)")
		return
	}
	op := h.notOffered(o.Role, h.fwInfo[o.FrameworkID].Principal)
	b.record(allocator.ErrOperation, a.UpdateAllocation(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{op}), "UpdateAllocation(%s, %s, %s, %s) on resources not offered", o.FrameworkID, o.AgentID, o.ID, op)
}
