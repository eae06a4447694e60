package fingerprint

import (
	"hash/maphash"
	"iter"
	"maps"
	"math"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Reclaim hashes the tasks chosen to end and the runs that
// chose for each role.
func Reclaim(st *reclaim.State) uint64 {
	var sum uint64
	for ref, p := range st.Choices {
		x := hash(11)
		x.s(ref.Framework)
		x.s(ref.Task)
		x.s(p.ForRole)
		x.s(p.ForFramework)
		x.s(p.HeldIn)
		x.u(uint64(p.Reason))
		x.quantities(p.Frees)
		x.quantities(p.Task)
		x.quantities(p.Room)
		x.u(p.Group)
		x.u(uint64(p.Until.UnixNano()))
		sum += uint64(x)
	}
	x := hash(13)
	x.u(st.Groups)
	sum += uint64(x)
	for role, run := range st.TookAt {
		x := hash(12)
		x.s(role)
		x.u(run)
		sum += uint64(x)
	}
	return sum
}

// fingerprintSeed keys every fingerprint of the process.
var fingerprintSeed = maphash.MakeSeed()

// hash accumulates a hash; ordered writes, and sums of independent
// hashes where the state is a map.
type hash uint64

func (h *hash) u(v uint64) {
	x := (uint64(*h) ^ v) * 0x9e3779b97f4a7c15
	*h = hash(x ^ x>>31)
}

func (h *hash) s(v string) {
	if len(v) > 16 {
		h.u(maphash.String(fingerprintSeed, v))
		return
	}
	// Short strings (names, roles, ids) inline: FNV-1a, then the length.
	x := uint64(14695981039346656037)
	for i := 0; i < len(v); i++ {
		x = (x ^ uint64(v[i])) * 1099511628211
	}
	h.u(x ^ uint64(len(v))<<56)
}

func (h *hash) b(v bool) {
	if v {
		h.u(1)
	} else {
		h.u(2)
	}
}

func bit(v bool, n uint) uint64 {
	if v {
		return 1 << n
	}
	return 0
}

func (h *hash) time(t time.Time) { h.u(uint64(t.UnixNano())) }

func (h *hash) resources(rs resources.Resources) {
	h.u(uint64(rs.Len()))
	for r := range rs.All() {
		h.s(r.Name)
		h.u(uint64(r.Scalar))
		h.u(uint64(r.Type) | uint64(len(r.Ranges))<<8 | uint64(len(r.Set))<<24 | uint64(len(r.Reservations))<<40 |
			bit(r.Shared, 48) | bit(r.Revocable, 49) | bit(r.Disk != nil, 50) |
			bit(r.ProviderID != "", 51) | bit(r.AllocationRole != "", 52))
		for _, x := range r.Ranges {
			h.u(x.Begin)
			h.u(x.End)
		}
		for _, x := range r.Set {
			h.s(x)
		}
		h.stack(r.Reservations)
		if d := r.Disk; d != nil {
			h.u(bit(d.Source != nil, 0) | bit(d.Persistence != nil, 1) | bit(d.Volume != nil, 2))
			if s := d.Source; s != nil {
				h.u(uint64(s.Type))
				h.s(s.Root)
				h.s(s.ID)
			}
			if p := d.Persistence; p != nil {
				h.s(p.ID)
				h.s(p.Principal)
			}
			if v := d.Volume; v != nil {
				h.u(uint64(v.Mode))
				h.s(v.ContainerPath)
			}
		}
		if r.ProviderID != "" {
			h.s(r.ProviderID)
		}
		if r.AllocationRole != "" {
			h.s(r.AllocationRole)
		}
		if r.Shared {
			h.u(uint64(rs.Copies(r)))
		}
	}
}

func (h *hash) stack(st reservation.Stack) {
	for _, r := range st {
		h.u(uint64(r.Type) | uint64(len(r.Labels))<<8 | bit(r.Labels == nil, 40))
		h.s(r.Role)
		h.s(r.Principal)
		for _, l := range r.Labels {
			h.s(l.Key)
			h.s(l.Value)
		}
	}
}

func (h *hash) quantities(q resources.Quantities) {
	h.u(uint64(q.Len()))
	for name, v := range q.All() {
		h.s(name)
		h.u(uint64(v))
	}
}

func (h *hash) held(m iter.Seq2[string, resources.Resources], tag uint64) {
	var sum uint64
	for fwID, rs := range m {
		x := hash(tag)
		x.s(fwID)
		x.resources(rs)
		sum += uint64(x)
	}
	h.u(sum)
}

// Rest hashes what a fingerprint covers beside the agents, the filters and
// reclaim: whether runs are paused, the whitelist, weights and quota, the
// frameworks with their roles, capabilities and tasks, and inverse-offer
// statuses.
func Rest(paused bool, whitelist map[string]struct{}, tree *roles.Tree, cs *cluster.State) uint64 {
	var h hash
	h.b(paused)
	h.b(whitelist != nil)
	var sum uint64
	for host := range whitelist {
		sum += maphash.String(fingerprintSeed, host)
	}
	h.u(sum)

	sum = 0
	for n := range tree.Nodes.All() {
		path := n.Path
		w, ok := tree.Weights[path]
		if !ok && n.Q().IsZero() {
			continue
		}
		if !ok {
			w = 1
		}
		var x hash
		x.s(path)
		x.u(math.Float64bits(w))
		if !n.Q().IsZero() {
			x.s(n.Q().Guarantees.String())
			x.s(n.Q().Limits.String())
		}
		sum += uint64(x)
	}
	h.u(sum)

	sum = 0
	for fw := range cs.Frameworks.All() {
		fwID := fw.ID
		x := hash(5)
		x.s(fwID)
		x.b(fw.Active)
		x.u(uint64(fw.Roles.Count(tables.Subscribed)))
		for r := range fw.Roles.All(tables.Subscribed) {
			x.s(r)
		}
		x.u(uint64(fw.Roles.Count(tables.Suppressed)))
		for r := range fw.Roles.All(tables.Suppressed) {
			x.s(r)
		}
		x.u(uint64(fw.Info.Capabilities))
		var tasks uint64
		for _, t := range fw.Tasks {
			y := hash(6)
			y.s(t.ID)
			y.s(t.Agent)
			y.s(t.Role)
			y.resources(t.Uses)
			y.resources(t.Owns)
			y.u(t.Seq)
			tasks += uint64(y)
		}
		x.u(tasks)
		sum += uint64(x)
	}
	h.u(sum)

	sum = 0
	for ag := range cs.Agents.All() {
		id := ag.ID
		for fwID, st := range ag.Inverse() {
			if st.Status != 0 {
				x := hash(8)
				x.s(id)
				x.s(fwID)
				x.u(uint64(st.Status))
				sum += uint64(x)
			}
		}
	}
	h.u(sum)
	return uint64(h)
}

// Filters sums a hash of each framework's live filters at now per role and
// agent; a compact filter hashes as the ordinary one it stands for, so the
// sum does not depend on how filters are stored.
func Filters(cs *cluster.State, dec *declines.Book, now time.Time) uint64 {
	var sum uint64
	add := func(fwID, role, agentID string, list []refusals.Refusal) {
		y, alive := hash(7), false
		for _, f := range list {
			if dec.FilterAlive(f.Expires, f.Batch, now) {
				y.time(f.Expires)
				y.resources(f.Refused)
				alive = true
			}
		}
		if alive {
			y.s(fwID)
			y.s(role)
			y.s(agentID)
			sum += uint64(y)
		}
	}
	for fw := range cs.Frameworks.All() {
		fwID := fw.ID
		for role, byAgent := range fw.Filters {
			for agentID, list := range byAgent {
				add(fwID, role, agentID, list)
			}
		}
		for role, s := range fw.Whole {
			for num, w := range s.All() {
				ag := cs.AgentsByNum.At(num)
				one := [1]refusals.Refusal{dec.RefusalOf(w, ag)}
				add(fwID, role, ag.ID, one[:])
			}
		}
	}
	return sum
}

// Agent hashes an agent's view and its holds in order.
func Agent(ag *cluster.Agent) uint64 {
	var h hash
	h.s(ag.ID)
	h.s(ag.Info.Hostname)
	h.b(ag.Active)
	h.b(ag.OverAllocated)
	h.resources(ag.Total)
	h.resources(ag.Available)
	h.held(ag.Offered.All(), 1)
	h.held(ag.Allocated.All(), 2)
	h.held(maps.All(ag.Unclaimed()), 3)
	// Holds are kept in order of creation; that order is part of the state
	// (an expired hold is given back before a later one).
	h.u(uint64(len(ag.Holds())))
	for _, hd := range ag.Holds() {
		h.s(hd.Framework)
		h.resources(hd.Res)
		h.time(hd.Until)
	}
	if u := ag.Info.Unavailability; u != nil {
		h.time(u.Start)
		h.u(uint64(u.Duration))
	}
	return uint64(h)
}
