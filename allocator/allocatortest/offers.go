package allocatortest

import (
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The handlers of allocation runs and of the events that answer offers and
// inverse offers: Allocate, AllocateAll, DeclineOffer, AcceptOffer,
// Recover and RespondInverse. Operations on offers are in operations.go.

func (h *Harness) onAllocate(ev Event, s Views, eff *effects) {
	pending := h.demandBeforeRun()
	res := h.a.Allocate()
	h.checkDemandOffers(pending, res, s, eff)
	h.recordRun(eff, "Allocate", res)
}

func (h *Harness) onAllocateAll(ev Event, s Views, eff *effects) {
	pending := h.demandBeforeRun()
	res := h.a.AllocateAll()
	h.checkDemandOffers(pending, res, s, eff)
	h.recordRun(eff, "AllocateAll", res)
}

// recordRun records the run a step made, which the checks after the step
// look at and whose offers then become outstanding.
func (h *Harness) recordRun(eff *effects, name string, res allocator.Result) {
	eff.run = &res
	h.record(eff, nil, "%s() = %d offers, %d inverse offers", name, len(res.Offers), len(res.InverseOffers))
}

func (h *Harness) onDeclineOffer(ev Event, s Views, eff *effects) {
	x := ev.Args
	if x[3]%8 == 7 {
		h.rescind(x, eff)
		return
	}
	i, o, ok := h.outstanding(s, x[0])
	if !ok {
		h.record(eff, nil, "no offer to decline")
		return
	}
	give := o.Resources
	if x[1]%3 == 0 {
		give = part(o.Resources, x[1]>>2, nil)
	}
	filter := refuse(x[2])
	err := h.a.RecoverResources(o.FrameworkID, o.AgentID, give, filter)
	if err == nil {
		h.replaceOffer(i, o.Resources.Minus(give))
		h.declined = offer.Offer{ID: o.ID, FrameworkID: o.FrameworkID, Role: o.Role, AgentID: o.AgentID, Resources: give}
	}
	h.record(eff, err, "RecoverResources(%s, %s, %s, %s) declining %s", o.FrameworkID, o.AgentID, give, filterText{filter}, o.ID)
}

// rescind has the master rescind an outstanding offer (x[0] picks it
// among the allocator's), as at its offer timeout: what it holds goes back
// without a filter, and it is not a decline.
func (h *Harness) rescind(x [4]uint8, eff *effects) {
	o, ok := pick(h.a.Offers(), x[0])
	if !ok {
		h.record(eff, nil, "no offer to rescind")
		return
	}
	err := h.a.RescindOffer(o.ID)
	if err == nil {
		h.offers = slices.DeleteFunc(h.offers, func(held offer.Offer) bool { return held.ID == o.ID })
	}
	h.record(eff, err, "RescindOffer(%s) of %s on %s", o.ID, o.FrameworkID, o.AgentID)
}

func (h *Harness) onAcceptOffer(ev Event, s Views, eff *effects) {
	x := ev.Args
	i, o, ok := h.outstanding(s, x[0])
	if !ok {
		h.record(eff, nil, "no offer to accept")
		return
	}
	// A framework that stated demand in the role launches the tasks its
	// host waits to run, as many as the offer holds.
	tasks, used := h.pendingLaunch(o)
	launch := offer.Launch{Tasks: tasks}
	if len(tasks) == 0 {
		task := part(o.Resources, x[1], isPlainScalar)
		if x[2]&1 != 0 {
			task.Add(part(o.Resources.PersistentVolumes(), 0x03, nil))
		}
		if x[2]&2 != 0 {
			task.Add(part(o.Resources.Filter(func(r resources.Resource) bool { return r.Type == resources.RangesType }), 0, nil))
		}
		launch.Tasks = []offer.Task{{ID: h.newID("t"), Resources: task}}
		if x[2]&4 != 0 {
			launch.Executor = part(o.Resources.Minus(task), 0, func(r resources.Resource) bool { return r.Name == "cpus" && !r.Revocable })
		}
	}
	filter := refuse(x[3])
	err := h.a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, filter)
	if err == nil {
		h.replaceOffer(i, resources.Resources{})
		h.launched(o, used)
	}
	h.record(eff, err, "Accept(%s, %s, %s, %s, %s)", o.FrameworkID, o.AgentID, o.ID, launch, filterText{filter})
}

func (h *Harness) onRecover(ev Event, s Views, eff *effects) {
	x := ev.Args
	type pair struct{ agent, fw string }
	var pairs []pair
	for _, v := range s.Agents {
		for _, fw := range slices.Sorted(maps.Keys(v.Allocated)) {
			pairs = append(pairs, pair{v.ID, fw})
		}
	}
	p, ok := pick(pairs, x[0])
	if !ok {
		h.record(eff, nil, "nothing allocated to recover")
		return
	}
	v, _ := s.Agent(p.agent)
	give := part(v.Allocated[p.fw], x[2], nil)
	var filter *allocator.Filter
	if x[3]%4 == 0 {
		filter = refuse(x[3] >> 2)
	}
	h.record(eff, h.a.RecoverAllocated(p.fw, p.agent, give, filter), "RecoverAllocated(%s, %s, %s, %s)", p.fw, p.agent, give, filterText{filter})
}

func (h *Harness) onRespondInverse(ev Event, s Views, eff *effects) {
	x := ev.Args
	if len(h.inverse) == 0 {
		h.record(eff, nil, "no inverse offer to answer")
		return
	}
	i := int(x[0]) % len(h.inverse)
	io := h.inverse[i]
	status := allocator.InverseDeclined
	if x[1]&1 != 0 {
		status = allocator.InverseAccepted
	}
	filter := refuse(x[2])
	err := h.a.UpdateInverseOffer(io.AgentID, io.FrameworkID, status, filter)
	h.inverse = slices.Delete(h.inverse, i, i+1)
	h.record(eff, err, "UpdateInverseOffer(%s, %s, %s, %s) answering %s", io.AgentID, io.FrameworkID, status, filterText{filter}, io.ID)
}
