package allocatortest

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// The handlers of the events that change agents: AddAgent, RemoveAgent,
// UpdateAgent, ActivateAgent, DeactivateAgent, AddResourceProvider and
// Maintenance.

func (h *Harness) onAddAgent(ev Event, s Views, eff *effects) {
	x := ev.Args
	id := freeID(h.agentIDs, agentIDs(s), x[0])
	total := h.agentTotal(id, x[1], x[2], x[3])
	info := allocator.AgentInfo{Hostname: "host-" + id, Attributes: map[string]string{"rack": fmt.Sprintf("r%d", x[1]%2)}}
	if h.opts.Allocator.Region != "" {
		info.Region = []string{"", h.opts.Allocator.Region, "elsewhere"}[x[3]%3]
	}
	var used map[string]resources.Resources
	if x[3]&0x80 != 0 {
		if fw, ok := pick(frameworkIDs(s), x[0]); ok {
			role := h.fwInfo[fw].Roles[0]
			used = map[string]resources.Resources{fw: h.res("cpus:1;mem:128").Allocate(role)}
		}
	}
	err := h.a.AddAgent(id, info, total, used)
	if err == nil {
		h.agentInfo[id] = info
		eff.volumesFree[id] = true
	}
	h.record(eff, err, "AddAgent(%s, %s, used %v)", id, total, used)
}

func (h *Harness) onRemoveAgent(ev Event, s Views, eff *effects) {
	id := existingAgent(s, ev.Args[0])
	eff.volumesFree[id] = true
	err := h.a.RemoveAgent(id)
	if err == nil {
		delete(h.agentInfo, id)
	}
	h.record(eff, err, "RemoveAgent(%s)", id)
}

func (h *Harness) onUpdateAgent(ev Event, s Views, eff *effects) {
	x := ev.Args
	id := existingAgent(s, x[0])
	v, _ := s.Agent(id)
	info := cloneAgentInfo(h.agentInfo[id])
	var total *resources.Resources
	what := ""
	switch x[1] % 6 {
	case 0:
		info.Attributes = map[string]string{"rack": fmt.Sprintf("r%d", x[2]%3)}
		what = "attributes"
	case 1:
		t := h.agentTotal(id, x[2], x[3], x[2]>>3)
		total, what = &t, "new total"
	case 2:
		t := v.Total.Plus(h.res("cpus:1;mem:256"))
		total, what = &t, "grown total"
	case 3:
		t := v.Total.Minus(part(v.Total.Unreserved(), x[2], isPlainScalar))
		total, what = &t, "shrunk total"
	case 4:
		info.Capabilities = []offer.Capabilities{0, offer.MultiRole | offer.HierarchicalRole,
			offer.MultiRole | offer.HierarchicalRole | offer.ReservationRefinement | offer.ResizeVolume}[x[2]%3]
		what = "capabilities"
		if h.text {
			what += " " + info.Capabilities.String()
		}
	default:
		what = "nothing"
	}
	if total != nil {
		eff.volumesFree[id] = true
	}
	err := h.a.UpdateAgent(id, info, total)
	if err == nil {
		h.agentInfo[id] = info
	}
	if total != nil {
		h.record(eff, err, "UpdateAgent(%s, %s %s)", id, what, *total)
	} else {
		h.record(eff, err, "UpdateAgent(%s, %s)", id, what)
	}
}

func (h *Harness) onActivateAgent(ev Event, s Views, eff *effects) {
	id := existingAgent(s, ev.Args[0])
	h.record(eff, h.a.ActivateAgent(id), "ActivateAgent(%s)", id)
}

func (h *Harness) onDeactivateAgent(ev Event, s Views, eff *effects) {
	id := existingAgent(s, ev.Args[0])
	h.record(eff, h.a.DeactivateAgent(id), "DeactivateAgent(%s)", id)
}

func (h *Harness) onAddResourceProvider(ev Event, s Views, eff *effects) {
	x := ev.Args
	id := existingAgent(s, x[0])
	total := h.res(fmt.Sprintf("disk(provider: rp%d):%d", x[1]%2, 100*(1+int(x[2]%8))))
	h.record(eff, h.a.AddResourceProvider(id, total, nil), "AddResourceProvider(%s, %s)", id, total)
}

func (h *Harness) onMaintenance(ev Event, s Views, eff *effects) {
	x := ev.Args
	id := existingAgent(s, x[0])
	var u *offer.Unavailability
	if x[1]%4 != 0 {
		u = &offer.Unavailability{Start: h.now.Add(time.Duration(x[1]) * time.Second), Duration: time.Duration(x[2]%4) * time.Hour}
	}
	err := h.a.UpdateUnavailability(id, u)
	if err == nil {
		info := h.agentInfo[id]
		info.Unavailability = u
		h.agentInfo[id] = info
	}
	if u == nil {
		h.record(eff, err, "UpdateUnavailability(%s, none)", id)
	} else {
		h.record(eff, err, "UpdateUnavailability(%s, from +%s for %s)", id, u.Start.Sub(h.start), u.Duration)
	}
}

func cloneAgentInfo(info allocator.AgentInfo) allocator.AgentInfo {
	if info.Attributes != nil {
		m := make(map[string]string, len(info.Attributes))
		for k, v := range info.Attributes {
			m[k] = v
		}
		info.Attributes = m
	}
	return info
}

// agentTotal builds an agent's total: cpus, mem, disk and ports sized by
// size, and by the bits of extras gpus, revocable cpus, a static
// reservation, labelled dynamic reservations, a refined reservation, a
// MOUNT disk, a persistent volume and a shared volume, reserved for the
// role of the pool chosen by roleArg ("*" aside).
func (h *Harness) agentTotal(id string, size, extras, roleArg uint8) resources.Resources {
	role, _ := pick(h.reservable, roleArg)
	// The total is the sum of parts, each parsed once: the parts are few,
	// their combinations many.
	var total resources.Resources
	add := func(format string, args ...any) { total.Add(h.res(fmt.Sprintf(format, args...))) }
	cpus := []int64{1, 2, 4, 8}[size%4]
	if size&0x80 != 0 {
		// Near the largest amount a resource may hold: sums over agents
		// and shares must stay exact.
		cpus = int64(resources.MaxScalar/resources.Units(1)) - cpus
	}
	add("cpus:%d;mem:%d;disk:%d;ports:[31000-31009]",
		cpus, []int{512, 1024, 4096, 8192}[(size>>2)%4], []int{1000, 4000}[(size>>4)%2])
	if extras&3 == 3 {
		add("gpus:%d", 1+(size>>5)%2)
	}
	if extras&2 != 0 {
		add("cpus{REV}:2")
	}
	if extras&4 != 0 {
		add("cpus(%s):1;mem(%s):256", role, role)
	}
	if extras&8 != 0 {
		add("cpus(reservations: [(DYNAMIC,%s,ops,{team: x})]):1;disk(reservations: [(DYNAMIC,%s,ops)]):1000", role, role)
	}
	if extras&16 != 0 {
		if parent, child, ok := h.refinable(roleArg); ok {
			first := "(DYNAMIC," + parent + ",ops)"
			if size&0x40 != 0 {
				first = "(STATIC," + parent + ")"
			}
			add("mem(reservations: [%s,(DYNAMIC,%s,ops)]):512;disk(reservations: [%s]):500", first, child, first)
		}
	}
	if extras&32 != 0 {
		add("disk[MOUNT:/mnt/ssd]:2000")
	}
	if extras&64 != 0 {
		add("disk(reservations: [(DYNAMIC,%s,ops)])[id:v-%s,principal:ops,path:data]:500", role, id)
	}
	if extras&128 != 0 && !h.opts.NoSharedVolumes {
		add("disk(reservations: [(DYNAMIC,%s,ops)])[id:s-%s,principal:ops,path:data]<SHARED>:300", role, id)
	}
	return total
}

// refinable returns a role of the pool and a strict sub-role of it.
func (h *Harness) refinable(b uint8) (string, string, bool) {
	var pairs [][2]string
	for _, p := range h.reservable {
		for _, c := range h.reservable {
			if reservation.IsStrictSubrole(c, p) {
				pairs = append(pairs, [2]string{p, c})
			}
		}
	}
	pr, ok := pick(pairs, b)
	return pr[0], pr[1], ok
}
