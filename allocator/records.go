package allocator

import (
	"unsafe"

	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/internal/prefetch"
	"github.com/allot-go/allot/resources"
)

// frameworkTable holds the frameworks by id.
type frameworkTable = tables.Table[framework, byFrameworkID]

// byFrameworkID keys a framework by its id.
type byFrameworkID struct{}

func (byFrameworkID) Of(fw *framework) string { return fw.id }

// agentTable holds agents by id.
type agentTable = tables.Table[agent, byAgentID]

// byAgentID keys an agent by its id.
type byAgentID struct{}

func (byAgentID) Of(ag *agent) string { return ag.id }

type framework struct {
	id     string
	info   FrameworkInfo
	active bool
	// roles are the framework's roles: subscribed, tracked in the sorters
	// (subscribed, or still holding resources allocated to the role),
	// suppressed (roletable.go).
	roles   tables.RoleTable
	filters refusals.Filters
	// whole holds, compactly, the refusal filters that refused all of
	// their agent's reference (wholerefusals.go); a role and agent have
	// filters in filters or in whole, never in both.
	whole refusals.WholeRefusals
	// inverseFilters: agent -> the filter.
	inverseFilters map[string]refusals.InverseFilter
	// tasks is the ledger of launched tasks that have not ended, by id.
	tasks map[string]*task

	// skips counts, by reason, the agents the framework was passed over
	// on in run skipsRun (at most one an agent and role), so int32 is
	// ample and keeps the record in a smaller size class.
	skips    [numReasons]int32
	skipsRun uint64
	// joined is the number of runs made before the framework was added.
	joined uint64
	// num is the framework's number in the agents' filtered sets and
	// rounds of declines, once it refused or declined something
	// (filterNum); 0 before.
	num int
	// demand is, by role, what the framework stated it waits for and has
	// not been offered yet (demand.go); a role it never stated demand in
	// has no entry.
	demand map[string][]Pending
}

type agent struct {
	id    string
	info  AgentInfo
	total resources.Resources
	// offered and allocated hold, per framework, resources tagged with
	// their allocation role: offered and not yet used, and in use. Their
	// values are never changed in place (they are shared with the sorters):
	// every change stores a new value.
	offered   tables.PerFramework
	allocated tables.PerFramework
	// available is what is neither offered nor allocated (shared volumes
	// always stay here), without allocation roles.
	available resources.Resources
	// headroom is this agent's part of Allocator.freeHeadroom.
	headroom resources.Quantities
	// ref, refGen and refusals make refused pairs cheap: available never
	// holds more than ref, refGen changes when ref grows, and refusals
	// indexes, per role, the frameworks whose filters cover ref (see
	// filters.go).
	ref      resources.Resources
	refGen   uint64
	refusals tables.ByRole[*refusals.Index]
	// filtered marks the frameworks with a refusal filter on the agent, in
	// any role (filters.go), and those in its round of declines
	// (rotation.go).
	filtered refusals.FrameworkBits
	// wholeRefused counts the compact refusal filters on the agent, in
	// every framework and role (wholerefusals.go); num is the agent's
	// dense number (numbering.go). Both are 32 bits, and the agent's place
	// among a run's candidates is kept by the run (Allocator.runRanks),
	// so that with the flags below they take 16 bytes and the record fits
	// the 480-byte size class.
	wholeRefused int32
	num          int32

	// What the total holds, so the hot path can skip filters that would
	// keep everything.
	hasReserved, hasShared, hasRevocable, hasRefined, hasGPUs bool
	active                                                    bool
	// overAllocated is set when the total dropped below what is in use.
	overAllocated bool

	// version changes whenever the agent's available resources grow or its
	// info changes: a negative result cached for the agent (see nobody)
	// holds only while the version is unchanged.
	version uint64
	// nobody caches, per role, that no framework of the role could take
	// anything here; see Allocator.nobody.
	nobody tables.ByRole[nobodyEntry]

	// outstanding are the offers made on the agent and not yet given back
	// in full, in the order they were made (see outstanding.go).
	outstanding []outstandingOffer
	// rare is what few agents have; nil until one of its fields is set.
	rare *agentRare
}

// prefetch asks for the agent's record ahead of its visit. A run visits its
// agents in a shuffled order, which the processor's own prefetchers cannot
// follow; once the agents outgrow the second-level cache (a few thousand)
// a visit would otherwise begin by waiting for the last level or, past it
// (50000 agents here), for memory (BENCHMARKS.md, "The next agents asked
// for ahead"). It changes nothing the run computes.
func (ag *agent) prefetch() { prefetch.Lines(unsafe.Pointer(ag), unsafe.Sizeof(*ag)) }

// prefetchAhead asks, before the visit of agents[i], for what the coming
// visits read first, each part two visits after the part that holds its
// address (a visit that offers nothing is about as long as a fetch from
// memory). Six ahead: the lines of the agent's record that every visit
// reads first (its available resources, its version and first nobody
// entry) and those that hold the next parts' addresses.
// Four ahead, unless that entry says the visit will likely end there (see
// likelyNobody): the rest of the record (the whole record is asked for
// again, in one call rather than two), the available resources and the
// first role's refusal index. Two ahead, likewise: that index's bits.
// Asking for everything for every agent left the runs that offer nothing
// slower (BENCHMARKS.md, "The next agents asked for ahead").
func prefetchAhead(agents []*agent, i int) {
	if i+6 < len(agents) {
		agents[i+6].prefetchFirst()
	}
	if i+4 < len(agents) {
		if ag := agents[i+4]; !ag.likelyNobody() {
			ag.prefetch()
			ag.available.Prefetch()
			if idx := ag.refusals.First; idx != nil {
				prefetch.Lines(unsafe.Pointer(idx), unsafe.Sizeof(*idx))
			}
		}
	}
	if i+2 < len(agents) {
		if ag := agents[i+2]; !ag.likelyNobody() {
			if idx := ag.refusals.First; idx != nil && len(idx.Skip) > 0 {
				prefetch.Lines(unsafe.Pointer(unsafe.SliceData(idx.Skip)), uintptr(len(idx.Skip))*unsafe.Sizeof(idx.Skip[0]))
			}
		}
	}
}

// prefetchFirst asks for the lines of the record that a visit reads before
// anything else, and that prefetchAhead reads to find the next parts: from
// the available resources' header to the first nobody entry (the refusal
// indexes and the version lie between).
func (ag *agent) prefetchFirst() {
	from := unsafe.Offsetof(ag.available)
	to := unsafe.Offsetof(ag.nobody) + unsafe.Sizeof(ag.nobody)
	prefetch.Lines(unsafe.Add(unsafe.Pointer(ag), from), to-from)
}

// likelyNobody reports whether the agent's first nobody entry still holds
// for its version: a visit of that role will then most likely end at the
// entry, reading nothing else. A hint only (the role's epoch and the
// entry's expiry are not looked at).
func (ag *agent) likelyNobody() bool {
	return ag.nobody.Role != "" && ag.nobody.First.version == ag.version
}

// agentRare holds the parts of an agent's record that few agents ever use,
// out of line: the record fits a smaller size class
// (BENCHMARKS.md, "Fewer bytes an agent, again"). Read them through the
// agent's methods of the same names, which answer the zero value while
// rare is nil, and set them through more.
type agentRare struct {
	// unclaimed is, per framework not added yet, what the agent reported
	// it uses (tagged with allocation roles): in use, until AddFramework
	// claims it (see unclaimed.go).
	unclaimed map[string]resources.Resources
	// excess is this agent's part of Allocator.excess: the non-shared
	// scalars held beyond its total.
	excess resources.Quantities
	// inverse is the state of each framework's inverse offer for the
	// agent's maintenance window.
	inverse map[string]*inverseState
	// holds are resources held for frameworks (see holds.go).
	holds holdList
}

// more returns ag.rare, made on first use.
func (ag *agent) more() *agentRare {
	if ag.rare == nil {
		ag.rare = &agentRare{}
	}
	return ag.rare
}

func (ag *agent) unclaimed() map[string]resources.Resources {
	if ag.rare == nil {
		return nil
	}
	return ag.rare.unclaimed
}

func (ag *agent) excess() resources.Quantities {
	if ag.rare == nil {
		return resources.Quantities{}
	}
	return ag.rare.excess
}

func (ag *agent) inverse() map[string]*inverseState {
	if ag.rare == nil {
		return nil
	}
	return ag.rare.inverse
}

func (ag *agent) holds() holdList {
	if ag.rare == nil {
		return nil
	}
	return ag.rare.holds
}

// nobodyEntry says that at agent version `version` and role epoch `epoch`
// every framework of the role was passed over on the agent for reasons that
// stay true while neither changes (refusal filters until `until`,
// capabilities, constraints, minimum allocatable resources).
type nobodyEntry struct {
	version, epoch uint64
	until          refusals.Expiry // noExpiry: no filter involved
	// passes are those of the walk that made the entry, for Explain.
	passes *nobodyPasses
}

type inverseState struct {
	outstanding bool
	status      InverseOfferStatus
}

// inverseState returns the inverse-offer state of a framework on the agent,
// making it on first use.
func (ag *agent) inverseState(fwID string) *inverseState {
	st := ag.inverse()[fwID]
	if st == nil {
		rare := ag.more()
		if rare.inverse == nil {
			rare.inverse = map[string]*inverseState{}
		}
		st = &inverseState{}
		rare.inverse[fwID] = st
	}
	return st
}
