package allocatortest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

// The handlers of the events that apply operations: Operate (a
// framework's operations on an offer), OperatorOperate (an operator's on
// an agent) and AcceptEach (an offer accepted with operations of which
// some must be dropped), and the operations they build.

func (h *Harness) onOperate(ev Event, s Views, eff *effects) {
	x := ev.Args
	i, o, ok := h.outstanding(s, x[0])
	if !ok {
		h.record(eff, nil, "no offer to operate on")
		return
	}
	info := h.fwInfo[o.FrameworkID]
	ops, what := h.operations(o.Resources, o.Role, info.Principal, x[1], x[2], x[3], false)
	if ops == nil {
		h.record(eff, nil, "nothing to %s in %s", what, o.ID)
		return
	}
	h.noteVolumes(o.AgentID, ops, eff)
	rescinded := h.rescindShared(s, o.AgentID, ops, o.FrameworkID, o.Resources)
	err := h.a.UpdateAllocation(o.FrameworkID, o.AgentID, o.Resources, ops)
	if err == nil {
		acc, aerr := offer.ApplyAll(o.Resources, ops...)
		if aerr != nil {
			acc.Unused = resources.Resources{}
		}
		h.replaceOffer(i, acc.Unused)
	}
	h.record(eff, err, "%sUpdateAllocation(%s, %s, %s, %s)", rescinded, o.FrameworkID, o.AgentID, o.ID, opsText(ops))
}

func (h *Harness) onOperatorOperate(ev Event, s Views, eff *effects) {
	x := ev.Args
	id := existingAgent(s, x[0])
	v, _ := s.Agent(id)
	role, _ := pick(h.roles, x[3])
	principal := ""
	if x[3]&0x40 != 0 {
		principal = "ops"
	}
	ops, what := h.operations(v.Available, role, principal, x[1], x[2], x[3], true)
	if ops == nil {
		h.record(eff, nil, "nothing to %s on %s", what, id)
		return
	}
	h.noteVolumes(id, ops, eff)
	rescinded := h.rescindShared(s, id, ops, "", resources.Resources{})
	h.record(eff, h.a.UpdateAvailable(id, ops), "%sUpdateAvailable(%s, %s)", rescinded, id, opsText(ops))
}

// onAcceptEach accepts an offer with AcceptEach, mixing operations that
// must be dropped with valid ones (see the AcceptEach kind).
func (h *Harness) onAcceptEach(ev Event, s Views, eff *effects) {
	x := ev.Args
	var (
		i  int
		o  offer.Offer
		ok bool
	)
	again := x[3]&8 != 0 && h.declined.FrameworkID != ""
	if again {
		o = h.declined
		eff.want = h.acceptAgainError(s, o)
		eff.bad = eff.want != nil
	} else if i, o, ok = h.outstanding(s, x[0]); !ok {
		h.record(eff, nil, "no offer to accept")
		return
	}
	info := h.fwInfo[o.FrameworkID]
	task := part(o.Resources, x[1], isPlainScalar)
	tid := h.newID("t")
	launch := offer.Launch{Tasks: []offer.Task{{ID: tid, Resources: task}}}
	ops := []offer.Operation{launch}
	more, _ := h.operations(o.Resources, o.Role, info.Principal, x[2], x[1]>>2, x[2]>>4, false)
	ops = append(ops, more...)
	dup, notOffered := -1, -1
	if x[3]&1 != 0 {
		dup = len(ops)
		ops = append(ops, launch)
	}
	if x[3]&2 != 0 {
		notOffered = len(ops)
		ops = append(ops, h.notOffered(o.Role, info.Principal))
	}
	filter := refuse(x[3] >> 4)
	h.noteVolumes(o.AgentID, ops, eff)
	rescinded := h.rescindShared(s, o.AgentID, ops, o.FrameworkID, o.Resources)
	results, err := h.a.AcceptEach(o.FrameworkID, o.AgentID, o.Resources, ops, filter)
	switch {
	case err != nil && !again:
		eff.fail("AcceptEach of outstanding %s failed: %v", o.ID, err)
	case err == nil && len(results) != len(ops):
		eff.fail("AcceptEach of %d operations gave %d results", len(ops), len(results))
	case err == nil:
		for j, r := range results {
			if r != nil && !isNamed(r) {
				eff.fail("operation %d (%s): error %q wraps none of the allocator's named errors", j, offer.KindOf(ops[j]), r)
			}
		}
		// A launch of nothing leaves no task in the ledger, so its id may
		// be launched again.
		if dup >= 0 && results[0] == nil && results[dup] == nil && !task.IsEmpty() {
			eff.fail("a second launch of task %s was applied", tid)
		}
		if notOffered >= 0 && results[notOffered] == nil {
			eff.fail("a reservation of resources not offered was applied")
		}
		if results[0] == nil && !task.IsEmpty() && !slices.ContainsFunc(h.a.Tasks(o.FrameworkID), func(t allocator.TaskView) bool { return t.ID == tid }) {
			eff.fail("task %s was launched, and is not listed", tid)
		}
		if !again {
			h.replaceOffer(i, resources.Resources{})
		}
	}
	what := "outstanding " + o.ID
	if again {
		what = "declined " + o.ID
	}
	h.record(eff, err, "%sAcceptEach(%s, %s, %s, %s, %s) = %v", rescinded, o.FrameworkID, o.AgentID, what, opsText(ops), filterText{filter}, results)
}

// acceptAgainError is the error accepting o, the offer declined last,
// must fail with: none if its framework holds it again (offered or
// allocated).
func (h *Harness) acceptAgainError(s Views, o offer.Offer) error {
	if _, known := h.fwInfo[o.FrameworkID]; !known {
		return allocator.ErrUnknownFramework
	}
	v, known := s.Agent(o.AgentID)
	if !known {
		return allocator.ErrUnknownAgent
	}
	if !v.Offered[o.FrameworkID].Plus(v.Allocated[o.FrameworkID]).Contains(o.Resources) {
		return allocator.ErrNotHeld
	}
	return nil
}

// operations builds operations on rs (offered resources allocated to
// role, or, for an operator, unallocated resources and a role to reserve
// for): sel chooses reserve, refine, unreserve, create, destroy, grow,
// shrink, launch, or reserve and create; amt the amount; extra labels, a
// wrong principal, volumes where they are refused, a reused persistence
// id, and shared volumes. It returns nil and the verb when rs has nothing
// to operate on.
func (h *Harness) operations(rs resources.Resources, role, principal string, sel, amt, extra uint8, operator bool) ([]offer.Operation, string) {
	b := &opBuilder{h: h, rs: rs, role: role, principal: principal, amt: amt, extra: extra, allowVolumes: extra&4 != 0}
	if extra&1 != 0 {
		b.principal = "eve"
	}
	if extra&2 != 0 {
		b.labels = reservation.Labels{{Key: "team", Value: "x"}}
	}
	switch sel % 9 {
	case 0:
		return b.reserve()
	case 1:
		if operator {
			return b.refineOperator()
		}
		return b.refine()
	case 2:
		return b.unreserve()
	case 3:
		return b.create()
	case 4:
		return b.destroy()
	case 5:
		return b.grow()
	case 6:
		return b.shrink()
	case 7:
		return b.launch()
	default:
		return b.reserveAndCreate()
	}
}

// opBuilder builds the operations of one event on rs (see operations):
// each method returns the operations of its verb and the verb, or nil and
// the verb when rs has nothing to operate on.
type opBuilder struct {
	h  *Harness
	rs resources.Resources
	// role is the offer's allocation role, or the role an operator
	// reserves for; principal and labels mark the reservations made.
	role, principal string
	labels          reservation.Labels
	amt, extra      uint8
	// allowVolumes: operations on volumes and revocable resources where
	// they are refused.
	allowVolumes bool
}

func (b *opBuilder) dynamic(role string) reservation.Reservation {
	return reservation.Reservation{Type: reservation.Dynamic, Role: role, Principal: b.principal, Labels: b.labels}
}

// persistence returns the id of a new volume: a new one, or (extra&8) one
// that may be in use already.
func (b *opBuilder) persistence() string {
	if b.extra&8 != 0 {
		return "p1"
	}
	return b.h.newID("p")
}

// makeVolumes makes a persistent volume, shared by extra&16, of every
// entry of disk.
func (b *opBuilder) makeVolumes(disk resources.Resources) resources.Resources {
	var out resources.Resources
	for r := range disk.All() {
		d := &volume.Disk{
			Persistence: &volume.Persistence{ID: b.persistence(), Principal: b.principal},
			Volume:      &volume.Volume{ContainerPath: "data", Mode: volume.RW},
		}
		if r.Disk != nil && r.Disk.Source != nil {
			src := *r.Disk.Source
			d.Source = &src
		}
		r.Disk = d
		r.Shared = b.extra&16 != 0 && !b.h.opts.NoSharedVolumes
		_ = out.AddResource(r)
	}
	return out
}

func (b *opBuilder) reserve() ([]offer.Operation, string) {
	x := part(b.rs, b.amt, func(r resources.Resource) bool {
		return r.Type == resources.ScalarType && !r.IsReserved() && (!r.Revocable || b.allowVolumes)
	})
	if x.IsEmpty() {
		return nil, "reserve"
	}
	y, err := x.PushReservation(b.dynamic(b.role))
	if err != nil {
		return nil, "reserve"
	}
	return []offer.Operation{offer.Reserve{Resources: y}}, "reserve"
}

// refine refines a reservation of an ancestor of the offer's role to that
// role.
func (b *opBuilder) refine() ([]offer.Operation, string) {
	x := part(b.rs, b.amt, func(r resources.Resource) bool {
		return r.IsReserved() && reservation.IsStrictSubrole(b.role, r.Role()) && (!r.IsPersistentVolume() || b.allowVolumes)
	})
	if x.IsEmpty() {
		return nil, "refine"
	}
	y, err := x.PushReservation(b.dynamic(b.role))
	if err != nil {
		return nil, "refine"
	}
	return []offer.Operation{offer.Reserve{Resources: y}}, "refine"
}

// refineOperator refines, as an operator, a reservation of some role to a
// strict sub-role of it.
func (b *opBuilder) refineOperator() ([]offer.Operation, string) {
	h := b.h
	x := part(b.rs, b.amt, func(r resources.Resource) bool {
		if !r.IsReserved() || (r.IsPersistentVolume() && !b.allowVolumes) {
			return false
		}
		for _, c := range h.roles {
			if reservation.IsStrictSubrole(c, r.Role()) {
				return true
			}
		}
		return false
	})
	if x.IsEmpty() {
		return nil, "refine"
	}
	target := b.role
	first, _ := pick(x.Slice(), 0)
	for _, c := range h.roles {
		if reservation.IsStrictSubrole(c, first.Role()) {
			target = c
			break
		}
	}
	x = x.Filter(func(r resources.Resource) bool { return r.Role() == first.Role() })
	y, err := x.PushReservation(b.dynamic(target))
	if err != nil {
		return nil, "refine"
	}
	return []offer.Operation{offer.Reserve{Resources: y}}, "refine"
}

func (b *opBuilder) unreserve() ([]offer.Operation, string) {
	x := part(b.rs, b.amt, func(r resources.Resource) bool {
		return r.IsReserved() && (r.IsDynamicallyReserved() || b.allowVolumes) && (!r.IsPersistentVolume() || b.allowVolumes)
	})
	if x.IsEmpty() {
		return nil, "unreserve"
	}
	return []offer.Operation{offer.Unreserve{Resources: x}}, "unreserve"
}

func (b *opBuilder) create() ([]offer.Operation, string) {
	x := part(b.rs, b.amt, func(r resources.Resource) bool {
		return r.Name == "disk" && r.IsReserved() && !r.IsPersistentVolume()
	})
	if x.IsEmpty() {
		return nil, "create"
	}
	return []offer.Operation{offer.Create{Volumes: b.makeVolumes(x)}}, "create"
}

func (b *opBuilder) destroy() ([]offer.Operation, string) {
	vols := b.rs.PersistentVolumes().Slice()
	v, ok := pick(vols, b.amt)
	if !ok {
		return nil, "destroy"
	}
	one, _ := resources.New(v)
	return []offer.Operation{offer.Destroy{Volumes: one}}, "destroy"
}

// resizable returns the volumes grow and shrink may choose from: shared
// ones only where they are refused.
func (b *opBuilder) resizable() []resources.Resource {
	return b.rs.PersistentVolumes().Filter(func(r resources.Resource) bool { return !r.Shared || b.allowVolumes }).Slice()
}

func (b *opBuilder) grow() ([]offer.Operation, string) {
	v, ok := pick(b.resizable(), b.amt>>3)
	if !ok {
		return nil, "grow"
	}
	add := part(b.rs, b.amt&3, func(r resources.Resource) bool {
		return r.Name == "disk" && !r.IsPersistentVolume() && r.Reservations.Equal(v.Reservations) &&
			r.ProviderID == v.ProviderID && (r.Disk == nil || r.Disk.Source == nil) && v.Disk.Source == nil
	})
	if add.IsEmpty() {
		return nil, "grow"
	}
	return []offer.Operation{offer.GrowVolume{Volume: v, Addition: add}}, "grow"
}

func (b *opBuilder) shrink() ([]offer.Operation, string) {
	v, ok := pick(b.resizable(), b.amt>>3)
	if !ok {
		return nil, "shrink"
	}
	sub := resources.Scalar(int64(v.Scalar) * int64(b.amt%4) / 3)
	return []offer.Operation{offer.ShrinkVolume{Volume: v, Subtract: sub}}, "shrink"
}

func (b *opBuilder) launch() ([]offer.Operation, string) {
	task := part(b.rs, b.amt, isPlainScalar)
	if b.allowVolumes {
		task.Add(part(b.rs.PersistentVolumes(), 3, nil))
	}
	if task.IsEmpty() {
		return nil, "launch"
	}
	return []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: b.h.newID("t"), Resources: task}}}}, "launch"
}

func (b *opBuilder) reserveAndCreate() ([]offer.Operation, string) {
	x := part(b.rs, b.amt, func(r resources.Resource) bool {
		return r.Name == "disk" && !r.IsReserved() && !r.Revocable && (r.Disk == nil || r.Disk.Divisible())
	})
	if x.IsEmpty() {
		return nil, "reserve and create"
	}
	y, err := x.PushReservation(b.dynamic(b.role))
	if err != nil {
		return nil, "reserve and create"
	}
	return []offer.Operation{offer.Reserve{Resources: y}, offer.Create{Volumes: b.makeVolumes(y)}}, "reserve and create"
}

// rescindShared, with Options.RescindSharedVolumes, takes the shared
// volumes that ops destroy out of every offer on the agent, except one copy
// in keep (the offer of framework fw being operated on), as Mesos's master
// rescinds such offers. It returns what it did, for the log.
func (h *Harness) rescindShared(s Views, agentID string, ops []offer.Operation, fw string, keep resources.Resources) string {
	if !h.opts.RescindSharedVolumes {
		return ""
	}
	var doomed resources.Resources
	for _, op := range ops {
		if d, ok := op.(offer.Destroy); ok {
			for r := range d.Volumes.Shared().All() {
				r.AllocationRole = ""
				if !doomed.ContainsResource(r) {
					_ = doomed.AddResource(r)
				}
			}
		}
	}
	if doomed.IsEmpty() {
		return ""
	}
	v, _ := s.Agent(agentID)
	var b strings.Builder
	did := false
	for _, holder := range slices.Sorted(maps.Keys(v.Offered)) {
		var give resources.Resources
		for r := range v.Offered[holder].Shared().All() {
			plain := r
			plain.AllocationRole = ""
			if !doomed.ContainsResource(plain) {
				continue
			}
			copies := v.Offered[holder].Copies(r)
			if holder == fw && keep.ContainsResource(r) {
				copies--
			}
			for range copies {
				_ = give.AddResource(r)
			}
		}
		if give.IsEmpty() {
			continue
		}
		err := h.a.RecoverResources(holder, agentID, give, nil)
		did = true
		if h.text {
			fmt.Fprintf(&b, "rescind RecoverResources(%s, %s, %s) = %v; ", holder, agentID, give, err)
		}
	}
	if did && h.current != nil {
		// The step's main call starts from here.
		h.current.rebased = true
		h.a.Fingerprint(&h.base)
		if !h.fast {
			base := Take(h.a)
			h.current.base = &base
		}
	}
	return b.String()
}

// noteVolumes records the volumes operations name, which may then change.
func (h *Harness) noteVolumes(agentID string, ops []offer.Operation, eff *effects) {
	m := eff.volumeOps[agentID]
	if m == nil {
		m = map[volumeKey]bool{}
		eff.volumeOps[agentID] = m
	}
	note := func(rs resources.Resources) {
		for r := range rs.All() {
			if r.IsPersistentVolume() {
				m[volumeKey{r.Role(), r.Disk.Persistence.ID}] = true
			}
		}
	}
	for _, op := range ops {
		switch o := op.(type) {
		case offer.Create:
			note(o.Volumes)
		case offer.Destroy:
			note(o.Volumes)
		case offer.GrowVolume:
			one, _ := resources.New(o.Volume)
			note(one)
		case offer.ShrinkVolume:
			one, _ := resources.New(o.Volume)
			note(one)
		}
	}
}
