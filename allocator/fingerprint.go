package allocator

import "github.com/allot-go/allot/allocator/internal/fingerprint"

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
		fp.Agents = append(fp.Agents, AgentHash{ag.ID, fingerprint.Agent(ag)})
	}
	fp.Rest = fingerprint.Rest(a.paused, a.engine.Whitelist, a.roles, &a.cs)
	fp.Filters = fingerprint.Filters(&a.cs, &a.dec, a.opts.Clock())
	fp.Reclaim = fingerprint.Reclaim(&a.reclaims)
}
