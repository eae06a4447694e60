package run

import (
	"math/rand/v2"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/sorter"
)

// Caches, and the allocator without them.
//
// What makes runs cheap is a handful of answers kept from earlier runs and
// events. Each is a claim about what a computation would find, kept until
// an event could change it:
//
//   - roles parked as capped (quota.Parking): "this role can take nothing
//     anywhere", until resources are given back, totals, reservations,
//     quota or the role's frameworks change;
//   - roles hidden for the rest of a run: "capped in this run", "its
//     guarantees are met in this stage";
//   - nobody entries (Engine.nobody): "no framework of this role could
//     take anything on this agent", until the agent's available resources
//     grow, its info changes, the role's frameworks change or a filter
//     behind it expires;
//   - demand floors (demandFloor): "no pending task of this role's
//     frameworks fits what this agent has left", worked out once a run
//     and role, skipping the role's walk on such agents;
//   - refusal indexes and a filter's coverage of an agent's reference
//     (package declines): "this filter covers everything the agent can offer",
//     until the agent's available resources grow past the reference;
//   - allowances told to the role sorter (quota.Allowances), and the cluster
//     totals told to the sorters;
//   - a role's framework sorter without a tree while the role has one
//     framework (sorter.LazyDRF, the default framework sorter): "this is
//     what the DRF sorter would answer".
//
// Options.CacheFree (and RestoreOptions.CacheFree) makes an allocator that
// keeps none of them (its default framework sorter is sorter.NewDRF's):
// every run works everything out from the state, and
// costs what Mesos's runs cost. It exists for tests: allocatortest compares
// the offers and views of every run with those of a cache-free copy of the
// allocator made just before it, so a claim that outlives the event that
// should have ended it fails a test instead of idling a cluster. Both draw
// the same random numbers: agents are shuffled the same way in every run,
// an offer's cuts are ordered by a source seeded from the offer itself
// (cutOrder), and the caches skip only walks of sorters whose walks
// change nothing (sorter.Stable): any other sorter (the random sorter,
// which draws numbers for every order) is sorted as often as Mesos sorts,
// once per agent for the roles and once per agent and role for the
// frameworks, with or without caches.

// parksRoles reports whether roles found unable to take anything may be
// taken out of the role sorter (parked across runs, hidden for the rest of
// a run) rather than looked at again.
func (e *Engine) parksRoles() bool {
	if e.opts.CacheFree {
		return false
	}
	_, ok := e.roleSorter.Sorter.(sorter.Stable)
	return ok
}

// skipsWalks reports whether walks of the frameworks kept in fs may be
// skipped or shortened by what is known: (agent, role) pairs where no
// framework of the role could take anything, and frameworks known to
// refuse an agent.
func (e *Engine) skipsWalks(fs *roles.TrackedSorter) bool {
	if e.opts.CacheFree {
		return false
	}
	_, ok := fs.Sorter.(sorter.Stable)
	return ok
}

// cutOrder returns the random source that orders the entries of one
// offer's cuts (to a guarantee, a limit, the headroom, an offer share),
// seeded from the allocator's seed, the run, the stage, the agent, the
// framework and the role. Mesos cuts in a random order so that no
// reservation is always cut first; drawing that order from the offer
// itself keeps it from depending on what else the run looked at, so a run
// that skips frameworks it knows take nothing cuts every offer it makes
// exactly as a run that looks at them all.
func (e *Engine) cutOrder(r *runState, st cluster.Stage, agentID, fwID, role string) *rand.Rand {
	h := uint64(14695981039346656037) // FNV-1a, each string ended by a 0xff byte
	for _, s := range [...]string{agentID, fwID, role} {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
		h = (h ^ 0xff) * 1099511628211
	}
	e.cutPCG.Seed(uint64(e.opts.Seed)^r.id*0x9e3779b97f4a7c15, h^uint64(st))
	return e.cutRand
}

// DropCaches forgets every cached answer: parked roles go back into the
// role sorter, agents forget where nobody could take anything and which
// frameworks refuse them, and filters forget what they were known to cover.
func (e *Engine) DropCaches() {
	e.parking.Unpark(e.roleSorter)
	for ag := range e.cs.Agents.All() {
		ag.Nobody = tables.ByRole[cluster.NobodyEntry]{}
		ag.Refusals = tables.ByRole[*refusals.Index]{}
	}
	for fw := range e.cs.Frameworks.All() {
		fw.Filters.Each(func(_, _ string, f *refusals.Refusal) { f.Covered = 0 })
		for _, s := range fw.Whole {
			for num, w := range s.All() {
				w.Covered = 0
				s.Put(num, w, len(e.cs.AgentsByNum))
			}
		}
	}
}
