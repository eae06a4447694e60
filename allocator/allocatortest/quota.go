package allocatortest

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// The handlers of the events that set what roles are due: SetQuota and
// SetWeights, and Overflow, which takes the sums the allocator keeps
// (quota guarantees, an agent's total) to their bound and past it.

func (h *Harness) onSetQuota(ev Event, s Views, eff *effects) {
	x := ev.Args
	role, ok := pick(h.opts.QuotaRoles, x[0])
	if !ok {
		h.record(eff, nil, "no role to set quota on")
		return
	}
	q := quota(x[1], x[2])
	if x[3]%8 == 0 {
		q = allocator.Quota{}
	}
	err := h.a.UpdateQuota(role, q)
	if err == nil && !q.Limits.IsEmpty() {
		h.limits = true
	}
	h.record(eff, err, "UpdateQuota(%s, guarantees %s, limits %s)", role, q.Guarantees, q.Limits)
}

func (h *Harness) onSetWeights(ev Event, s Views, eff *effects) {
	x := ev.Args
	table := []float64{0.5, 1, 2, 3, 0.25}
	w := map[string]float64{}
	r1, _ := pick(h.roles, x[0])
	w[r1] = table[int(x[1])%len(table)]
	if x[2]&1 != 0 {
		r2, _ := pick(h.roles, x[2]>>1)
		w[r2] = table[int(x[3])%len(table)]
	}
	h.record(eff, h.a.UpdateWeights(w), "UpdateWeights(%v)", w)
}

// onOverflow sends an event that takes a sum the allocator keeps past
// resources.MaxTotal, or exactly to it (see the Overflow kind).
func (h *Harness) onOverflow(ev Event, s Views, eff *effects) {
	if ev.Args[0]%3 == 2 {
		h.agentOverflow(ev.Args, s, eff)
		return
	}
	h.quotaOverflow(ev.Args, eff)
}

// quotaOverflow sets a role's guarantee of cpus at the bound of quota
// values, or (x[0]%3 == 0) one past it.
func (h *Harness) quotaOverflow(x [4]uint8, eff *effects) {
	role, ok := pick(h.opts.QuotaRoles, x[1])
	if !ok {
		h.record(eff, nil, "no role to set quota on")
		return
	}
	var others resources.Scalar
	for _, r := range h.a.Roles() {
		if r.Role != role {
			others += r.Quota.Guarantees.Scalar("cpus")
		}
	}
	// A guarantee at the bound of quota values is taken (a harness's
	// few roles cannot sum past resources.MaxTotal with them); one
	// past it is refused.
	g := resources.MaxScalar
	switch {
	case x[0]%3 == 0:
		g++
		eff.bad, eff.want = true, allocator.ErrInvalidQuota
	case others+g > resources.MaxTotal:
		eff.bad, eff.want = true, allocator.ErrOverflow
	}
	var q allocator.Quota
	q.Guarantees.SetScalar("cpus", g)
	err := h.a.UpdateQuota(role, q)
	h.record(eff, err, "UpdateQuota(%s, guarantees %s) with %s cpus guaranteed to other roles", role, q.Guarantees, others)
}

// agentOverflow gives an agent (x[2]), new or known, a total whose cpus
// sum past resources.MaxTotal.
func (h *Harness) agentOverflow(x [4]uint8, s Views, eff *effects) {
	eff.bad, eff.want = true, allocator.ErrOverflow
	total := overflowTotal()
	id := freeID(h.agentIDs, agentIDs(s), x[2])
	if _, exists := s.Agent(id); exists {
		h.record(eff, h.a.UpdateAgent(id, h.agentInfo[id], &total), "UpdateAgent(%s, a total of %d entries of cpus:%s)", id, total.Len(), resources.MaxScalar)
		return
	}
	h.record(eff, h.a.AddAgent(id, allocator.AgentInfo{Hostname: "host-" + id}, total, nil), "AddAgent(%s, a total of %d entries of cpus:%s)", id, total.Len(), resources.MaxScalar)
}

// overflowTotal is an agent's total whose cpus sum past resources.MaxTotal:
// entries of the largest amount, each reserved with labels of its own.
var overflowTotal = sync.OnceValue(func() resources.Resources {
	var out resources.Resources
	n := int(resources.MaxTotal/resources.MaxScalar) + 1
	for i := range n {
		r := resources.ScalarResource("cpus", resources.MaxScalar)
		r.Reservations = reservation.Stack{{Type: reservation.Dynamic, Role: "ops", Principal: "ops", Labels: reservation.Labels{{Key: "n", Value: strconv.Itoa(i)}}}}
		if err := out.AddResource(r); err != nil {
			panic(fmt.Sprintf("allocatortest: overflow total: %v", err))
		}
	}
	return out
})

func quota(g, l uint8) allocator.Quota {
	guarantees := []string{"", "cpus:1", "cpus:2;mem:1024", "cpus:4;mem:2048;disk:1000"}[g%4]
	var q allocator.Quota
	if guarantees != "" {
		q.Guarantees = resources.MustParseQuantities(guarantees)
	}
	switch l % 6 {
	case 1:
		q.Limits = resources.LimitsOf(q.Guarantees)
	case 2:
		q.Limits = resources.LimitsOf(q.Guarantees.Plus(resources.MustParseQuantities("cpus:2;mem:2048")))
	case 3:
		q.Limits = resources.MustParseLimits("cpus:1")
	case 4:
		q.Limits = resources.MustParseLimits("cpus:0")
	case 5:
		q.Limits = resources.MustParseLimits("cpus:8;mem:8192;gpus:0")
	}
	return q
}
