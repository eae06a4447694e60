package cluster

import (
	"slices"
	"time"
	"unsafe"

	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/internal/prefetch"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// AgentTable holds agents by id.
type AgentTable = tables.Table[Agent, byAgentID]

// byAgentID keys an agent by its id.
type byAgentID struct{}

func (byAgentID) Of(ag *Agent) string { return ag.ID }

// Agent is the allocator's record of one agent: its total, what each
// framework was offered and uses there, what is left available, and what
// the run keeps per agent to skip work it already did.
type Agent struct {
	ID    string
	Info  AgentInfo
	Total resources.Resources
	// Offered and allocated hold, per framework, resources tagged with
	// their allocation role: offered and not yet used, and in use. Their
	// values are never changed in place (they are shared with the sorters):
	// every change stores a new value.
	Offered   tables.PerFramework
	Allocated tables.PerFramework
	// Available is what is neither offered nor allocated (shared volumes
	// always stay here), without allocation roles.
	Available resources.Resources
	// Headroom is this agent's part of State.FreeHeadroom.
	Headroom resources.Quantities
	// Ref, refGen and refusals make refused pairs cheap: available never
	// holds more than ref, refGen changes when ref grows, and refusals
	// indexes, per role, the frameworks whose filters cover ref (see
	// filters.go).
	Ref      resources.Resources
	RefGen   uint64
	Refusals tables.ByRole[*refusals.Index]
	// Filtered marks the frameworks with a refusal filter on the agent, in
	// any role (filters.go), and those in its round of declines
	// (rotation.go).
	Filtered refusals.FrameworkBits
	// WholeRefused counts the compact refusal filters on the agent, in
	// every framework and role (wholerefusals.go); num is the agent's
	// dense number (numbering.go). Both are 32 bits, and the agent's place
	// among a run's candidates is kept by the run (Allocator.runRanks),
	// so that with the flags below they take 16 bytes and the record fits
	// the 480-byte size class.
	WholeRefused int32
	Num          int32

	// What the total holds, so the hot path can skip filters that would
	// keep everything.
	HasReserved, HasShared, HasRevocable, HasRefined, HasGPUs bool
	Active                                                    bool
	// OverAllocated is set when the total dropped below what is in use.
	OverAllocated bool

	// Version changes whenever the agent's available resources grow or its
	// info changes: a negative result cached for the agent (see nobody)
	// holds only while the version is unchanged.
	Version uint64
	// Nobody caches, per role, that no framework of the role could take
	// anything here; see Allocator.nobody.
	Nobody tables.ByRole[NobodyEntry]

	// Outstanding are the offers made on the agent and not yet given back
	// in full, in the order they were made (see outstanding.go).
	Outstanding []OutstandingOffer
	// Rare is what few agents have; nil until one of its fields is set.
	Rare *AgentRare
}

// unclaimedQuantities returns the non-shared scalars of the agent's
// unclaimed usage.
func (ag *Agent) unclaimedQuantities(q *resources.Quantities) {
	for _, res := range ag.Unclaimed() {
		if res.HasShared() {
			res = res.NonShared()
		}
		res.AddQuantitiesTo(q)
	}
}

// RefIsAvailable makes the reference what is available now, in the same
// storage rather than a copy (an agent's largest resources value after its
// total): available is frozen, so its next change in place copies it first
// and the reference keeps the entries it has. An offer of everything
// available empties available without a copy, so an agent that is offered
// whole, refused and recovered never copies them.
func (ag *Agent) RefIsAvailable() {
	ag.Available = ag.Available.Frozen()
	ag.Ref = ag.Available
}

// Refusers returns the index of the frameworks of role known to refuse
// everything on ag at now, or nil when there is none worth using.
func (ag *Agent) Refusers(role string, now time.Time) *refusals.Index {
	idx, _ := ag.Refusals.Get(role)
	if idx == nil {
		return nil
	}
	if !idx.ValidAt(ag.RefGen, now) {
		ag.Refusals.Drop(role)
		return nil
	}
	return idx
}

// prefetch asks for the agent's record ahead of its visit. A run visits its
// agents in a shuffled order, which the processor's own prefetchers cannot
// follow; once the agents outgrow the second-level cache (a few thousand)
// a visit would otherwise begin by waiting for the last level or, past it
// (50000 agents here), for memory (BENCHMARKS.md, "The next agents asked
// for ahead"). It changes nothing the run computes.
func (ag *Agent) prefetch() { prefetchLines(unsafe.Pointer(ag), unsafe.Sizeof(*ag)) }

// prefetchLines gives the agents' prefetch hints (prefetch, PrefetchAhead,
// prefetchFirst). It is a variable so that a test can see which memory is
// asked for, which nothing the run computes shows. prefetch.Lines is
// assembly on amd64, never inlined, so a call through a variable costs
// about what a direct one does. The available resources' hint stays a
// direct call, which inlines.
var prefetchLines = prefetch.Lines

// PrefetchAhead asks, before the visit of agents[i], for what the coming
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
func PrefetchAhead(agents []*Agent, i int) {
	if i+6 < len(agents) {
		agents[i+6].prefetchFirst()
	}
	if i+4 < len(agents) {
		if ag := agents[i+4]; !ag.likelyNobody() {
			ag.prefetch()
			ag.Available.Prefetch()
			if idx := ag.Refusals.First; idx != nil {
				prefetchLines(unsafe.Pointer(idx), unsafe.Sizeof(*idx))
			}
		}
	}
	if i+2 < len(agents) {
		if ag := agents[i+2]; !ag.likelyNobody() {
			if idx := ag.Refusals.First; idx != nil && len(idx.Skip) > 0 {
				prefetchLines(unsafe.Pointer(unsafe.SliceData(idx.Skip)), uintptr(len(idx.Skip))*unsafe.Sizeof(idx.Skip[0]))
			}
		}
	}
}

// prefetchFirst asks for the lines of the record that a visit reads before
// anything else, and that prefetchAhead reads to find the next parts: from
// the available resources' header to the first nobody entry (the refusal
// indexes and the version lie between).
func (ag *Agent) prefetchFirst() {
	from := unsafe.Offsetof(ag.Available)
	to := unsafe.Offsetof(ag.Nobody) + unsafe.Sizeof(ag.Nobody)
	prefetchLines(unsafe.Add(unsafe.Pointer(ag), from), to-from)
}

// likelyNobody reports whether the agent's first nobody entry still holds
// for its version: a visit of that role will then most likely end at the
// entry, reading nothing else. A hint only (the role's epoch and the
// entry's expiry are not looked at).
func (ag *Agent) likelyNobody() bool {
	return ag.Nobody.Role != "" && ag.Nobody.First.Version == ag.Version
}

// AgentRare holds the parts of an agent's record that few agents ever use,
// out of line: the record fits a smaller size class
// (BENCHMARKS.md, "Fewer bytes an agent, again"). Read them through the
// agent's methods of the same names, which answer the zero value while
// rare is nil, and set them through more.
type AgentRare struct {
	// Unclaimed is, per framework not added yet, what the agent reported
	// it uses (tagged with allocation roles): in use, until AddFramework
	// claims it (see unclaimed.go).
	Unclaimed map[string]resources.Resources
	// Excess is this agent's part of State.Excess: the non-shared
	// scalars held beyond its total.
	Excess resources.Quantities
	// Inverse is the state of each framework's inverse offer for the
	// agent's maintenance window.
	Inverse map[string]*InverseState
	// Holds are resources held for frameworks (see holds.go).
	Holds HoldList
}

// More returns ag.rare, made on first use.
func (ag *Agent) More() *AgentRare {
	if ag.Rare == nil {
		ag.Rare = &AgentRare{}
	}
	return ag.Rare
}

func (ag *Agent) Unclaimed() map[string]resources.Resources {
	if ag.Rare == nil {
		return nil
	}
	return ag.Rare.Unclaimed
}

func (ag *Agent) Excess() resources.Quantities {
	if ag.Rare == nil {
		return resources.Quantities{}
	}
	return ag.Rare.Excess
}

func (ag *Agent) Inverse() map[string]*InverseState {
	if ag.Rare == nil {
		return nil
	}
	return ag.Rare.Inverse
}

func (ag *Agent) Holds() HoldList {
	if ag.Rare == nil {
		return nil
	}
	return ag.Rare.Holds
}

// NobodyEntry says that at agent version `version` and role epoch `epoch`
// every framework of the role was passed over on the agent for reasons that
// stay true while neither changes (refusal filters until `until`,
// capabilities, constraints, minimum allocatable resources).
type NobodyEntry struct {
	Version, Epoch uint64
	Until          refusals.Expiry // noExpiry: no filter involved
	// Passes are those of the walk that made the entry, for Explain.
	Passes *NobodyPasses
}

// InverseState is where a framework's inverse offer for the agent stands:
// outstanding, and its last answer (zero: none yet).
type InverseState struct {
	Outstanding bool
	Status      uint8 // InverseAccepted or InverseDeclined
}

// The answers to an inverse offer: package allocator's
// InverseOfferStatus values.
const (
	InverseAccepted uint8 = iota + 1
	InverseDeclined
)

// InverseState returns the inverse-offer state of a framework on the agent,
// making it on first use.
func (ag *Agent) InverseState(fwID string) *InverseState {
	st := ag.Inverse()[fwID]
	if st == nil {
		rare := ag.More()
		if rare.Inverse == nil {
			rare.Inverse = map[string]*InverseState{}
		}
		st = &InverseState{}
		rare.Inverse[fwID] = st
	}
	return st
}

// OfferedOrUsed returns what a framework is offered or uses on the agent:
// what it may operate on or give back (what is held for it, RecoverHeld,
// is neither until it is offered).
func (ag *Agent) OfferedOrUsed(fwID string) resources.Resources {
	return ag.Offered.Get(fwID).Plus(ag.Allocated.Get(fwID))
}

// Held returns what a framework holds on the agent: offered, allocated or
// held for it.
func (ag *Agent) Held(fwID string) resources.Resources {
	held := ag.Offered.Get(fwID).Plus(ag.Allocated.Get(fwID))
	held.Add(ag.Holds().Of(fwID)) // nothing, without holds
	return held
}

func (ag *Agent) FrameworkIDs() []string {
	if len(ag.Holds()) == 0 {
		if ag.Allocated.Len() == 0 {
			return ag.Offered.IDs()
		}
		if ag.Offered.Len() == 0 {
			return ag.Allocated.IDs()
		}
	}
	ids := ag.Offered.IDs()
	for id := range ag.Allocated.All() {
		if !ag.Offered.Has(id) {
			ids = append(ids, id)
		}
	}
	for _, h := range ag.Holds() {
		if !slices.Contains(ids, h.Framework) {
			ids = append(ids, h.Framework)
		}
	}
	slices.Sort(ids)
	return ids
}

// HeldQuantities returns the non-shared scalars every framework holds on
// the agent, offered, allocated or held, and those in use by frameworks
// not added yet.
func (ag *Agent) HeldQuantities() resources.Quantities {
	var q resources.Quantities
	for _, held := range []*tables.PerFramework{&ag.Offered, &ag.Allocated} {
		for _, r := range held.All() {
			if r.HasShared() {
				r = r.NonShared()
			}
			r.AddQuantitiesTo(&q)
		}
	}
	for _, h := range ag.Holds() {
		h.Res.AddQuantitiesTo(&q)
	}
	ag.unclaimedQuantities(&q)
	return q
}

func (ag *Agent) Capabilities() offer.Capabilities {
	if ag.Info.Capabilities == 0 {
		return defaultAgentCapabilities
	}
	return ag.Info.Capabilities
}

// InUse returns the persistent volumes that tasks use on the agent.
func (ag *Agent) InUse() resources.Resources {
	var out resources.Resources
	for _, fwID := range ag.Allocated.IDs() {
		out.Add(ag.Allocated.Get(fwID).PersistentVolumes().Unallocate())
	}
	return out
}

// defaultAgentCapabilities are assumed for agents that declare none: what
// every current Mesos agent has.
const defaultAgentCapabilities = offer.MultiRole | offer.HierarchicalRole | offer.ReservationRefinement | offer.ResizeVolume
