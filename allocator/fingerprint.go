package allocator

import (
	"hash/maphash"
	"iter"
	"maps"
	"math"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Fingerprint is a hash of an allocator's state, one for each agent and one
// for the rest, for tests that compare states often: taking one costs a
// walk over the state without rendering it, and allocates little once its
// storage has grown. Two states that Describe renders alike (and whose
// inverse-offer statuses and holds, hold by hold, are alike) have equal
// fingerprints; two states that differ in what the fingerprint covers
// (below) have different ones but with a chance of about 2^-64.
// Fingerprints are comparable within one process only.
type Fingerprint struct {
	// Agents holds every agent's id and the hash of its view (Agent:
	// hostname, activity, over-allocation, total, available, offered,
	// allocated and unclaimed resources, maintenance window) and of its
	// holds in order, sorted by id.
	Agents []AgentHash
	// Rest is the hash of everything else that events set: roles'
	// weights and quota, frameworks (activity, roles, suppressed roles,
	// capabilities, launched tasks), inverse-offer statuses, the
	// whitelist and pausing. What the allocator derives from the agents'
	// holdings (roles' reservations, allocations and shares, the
	// frameworks each role lists) is left out: CheckInvariants
	// recomputes it.
	Rest uint64
	// Filters is the hash of the refusal filters that may still apply
	// (Allocator.Filters). A periodic run at the expiry instant of filters
	// that waited for it changes it.
	Filters uint64
	// Reclaim is the hash of reclaim's state (Options.Reclaim): the tasks
	// chosen to end that have not ended, and the runs that chose for each
	// role. A run that chooses changes it.
	Reclaim uint64
}

// AgentHash is one agent's part of a Fingerprint.
type AgentHash struct {
	ID   string
	Hash uint64
}

// Equal reports whether two fingerprints are the same.
func (fp *Fingerprint) Equal(o *Fingerprint) bool {
	if fp.Rest != o.Rest || fp.Filters != o.Filters || fp.Reclaim != o.Reclaim || len(fp.Agents) != len(o.Agents) {
		return false
	}
	for i, h := range fp.Agents {
		if h != o.Agents[i] {
			return false
		}
	}
	return true
}

// Fingerprint stores the fingerprint of the current state in fp, reusing
// its storage.
func (a *Allocator) Fingerprint(fp *Fingerprint) {
	a.ready()
	fp.Agents = fp.Agents[:0]
	for _, ag := range a.cs.AgentList {
		fp.Agents = append(fp.Agents, AgentHash{ag.ID, agentFingerprint(ag)})
	}
	fp.Rest = a.restFingerprint()
	fp.Filters = a.filtersFingerprint()
	fp.Reclaim = a.reclaimFingerprint()
}

// reclaimFingerprint hashes the tasks chosen to end and the runs that
// chose for each role.
func (a *Allocator) reclaimFingerprint() uint64 {
	var sum uint64
	for ref, p := range a.reclaims.Choices {
		x := fpHash(11)
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
	x := fpHash(13)
	x.u(a.reclaims.Groups)
	sum += uint64(x)
	for role, run := range a.reclaims.TookAt {
		x := fpHash(12)
		x.s(role)
		x.u(run)
		sum += uint64(x)
	}
	return sum
}

// fingerprintSeed keys every fingerprint of the process.
var fingerprintSeed = maphash.MakeSeed()

// fpHash accumulates a hash; ordered writes, and sums of independent
// hashes where the state is a map.
type fpHash uint64

func (h *fpHash) u(v uint64) {
	x := (uint64(*h) ^ v) * 0x9e3779b97f4a7c15
	*h = fpHash(x ^ x>>31)
}

func (h *fpHash) s(v string) {
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

func (h *fpHash) b(v bool) {
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

func (h *fpHash) time(t time.Time) { h.u(uint64(t.UnixNano())) }

func (h *fpHash) resources(rs resources.Resources) {
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
		if len(r.Reservations) > 0 {
			h.stack(r.Reservations)
		}
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

func (h *fpHash) stack(st reservation.Stack) {
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

func (h *fpHash) quantities(q resources.Quantities) {
	h.u(uint64(q.Len()))
	for name, v := range q.All() {
		h.s(name)
		h.u(uint64(v))
	}
}

func (h *fpHash) held(m iter.Seq2[string, resources.Resources], tag uint64) {
	var sum uint64
	for fwID, rs := range m {
		x := fpHash(tag)
		x.s(fwID)
		x.resources(rs)
		sum += uint64(x)
	}
	h.u(sum)
}

func (a *Allocator) restFingerprint() uint64 {
	var h fpHash
	h.b(a.paused)
	h.b(a.whitelist != nil)
	var sum uint64
	for host := range a.whitelist {
		sum += maphash.String(fingerprintSeed, host)
	}
	h.u(sum)

	sum = 0
	for n := range a.roles.Nodes.All() {
		path := n.Path
		w, ok := a.roles.Weights[path]
		if !ok && n.Q().IsZero() {
			continue
		}
		if !ok {
			w = 1
		}
		var x fpHash
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
	for fw := range a.cs.Frameworks.All() {
		fwID := fw.ID
		x := fpHash(5)
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
			y := fpHash(6)
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
	for ag := range a.cs.Agents.All() {
		id := ag.ID
		for fwID, st := range ag.Inverse() {
			if st.Status != 0 {
				x := fpHash(8)
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

// filtersFingerprint sums a hash of each framework's live filters per role
// and agent; a compact filter hashes as the ordinary one it stands for, so
// the sum does not depend on how filters are stored.
func (a *Allocator) filtersFingerprint() uint64 {
	now := a.opts.Clock()
	var sum uint64
	add := func(fwID, role, agentID string, list []refusals.Refusal) {
		y, alive := fpHash(7), false
		for _, f := range list {
			if a.dec.FilterAlive(f.Expires, f.Batch, now) {
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
	for fw := range a.cs.Frameworks.All() {
		fwID := fw.ID
		for role, byAgent := range fw.Filters {
			for agentID, list := range byAgent {
				add(fwID, role, agentID, list)
			}
		}
		for role, s := range fw.Whole {
			for num, w := range s.All() {
				ag := a.cs.AgentsByNum.At(num)
				one := [1]refusals.Refusal{a.dec.RefusalOf(w, ag)}
				add(fwID, role, ag.ID, one[:])
			}
		}
	}
	return sum
}

func agentFingerprint(ag *cluster.Agent) uint64 {
	var h fpHash
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
