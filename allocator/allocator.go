package allocator

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/allot-go/allot/allocator/internal/refusals"

	"github.com/allot-go/allot/allocator/internal/roles"

	"github.com/allot-go/allot/allocator/internal/tables"

	"github.com/allot-go/allot/internal/prefetch"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// poolAgent is the one agent the allocator shows its sorters: the whole
// cluster's scalar totals. Shares depend only on the sum over agents, and one
// pool agent keeps a new role's sorter from having to learn every agent.
const poolAgent = "(cluster)"

// Allocator is the hierarchical DRF allocator. Host programs feed it events
// (agents and frameworks coming and going, declines, reservations) and call
// Allocate to get offers. It is not safe for concurrent use; Runner wraps it
// for that. A zero Allocator is one made by New with the zero Options.
type Allocator struct {
	opts Options
	rng  *rand.Rand
	pcg  *rand.PCG // rng's source, kept for Snapshot
	// cutRand orders an offer's cuts, from cutPCG seeded by cutOrder.
	cutRand  *rand.Rand
	cutPCG   *rand.PCG
	excluded resources.NameSet
	// rec records events and stands in for the clock while an entry is
	// applied (see journal.go).
	rec recorder

	frameworks frameworkTable
	agents     agentTable
	// agentList holds the agents in the order of their ids, so that a run
	// over every agent looks none up by id.
	agentList []*agent
	// shapes hands agents with the same total one storage of it: most
	// clusters have a few machine shapes, and a total is 128 bytes or more.
	shapes resources.Interner

	roles      *roles.Tree
	roleSorter *roles.TrackedSorter
	// sorterRoles counts the roles with a framework sorter (in their
	// role tree node), for the salt of the next one.
	sorterRoles int

	// totals is the sum of every agent's scalar totals; totalsVersion
	// changes with it so sorters learn the new pool lazily.
	totals        resources.Quantities
	totalsVersion uint64
	// freeHeadroom is the sum over agents of the unreserved, non-revocable
	// scalars that are neither offered nor allocated: what quota headroom
	// can be drawn from.
	freeHeadroom resources.Quantities
	// excess is the sum over agents of what frameworks hold there beyond
	// the agent's total (see overflow.go).
	excess resources.Quantities

	// allowances are what the role sorter was told each role may hold
	// before it counts in its share (see syncAllowance).
	allowances map[string]resources.Quantities
	// parked are the roles kept out of the role sorter because they could
	// take nothing more when parkedEpoch was capEpoch (see parkCapped).
	parked                []string
	capEpoch, parkedEpoch uint64

	// pending are the agents waiting for a run, not listed while
	// pendingAll (every agent waits; a restored snapshot of an earlier
	// version may list some, which the run ignores).
	pending    agentTable
	pendingAll bool
	// periodic: the run under way is a periodic one (AllocateAll);
	// batches counts the periodic runs made (see filterInForce).
	periodic  bool
	batches   uint64
	paused    bool
	whitelist map[string]struct{} // nil: every agent
	// declining: a decline is giving resources back, which keeps the
	// agent's round of declines (rotation.go).
	declining bool

	// scratch, reservedScratch and ch are reused by computations on the
	// hot path.
	scratch, reservedScratch resources.Quantities
	ch                       charge
	// agentNums numbers the agents on entry, agentsByNum says which holds
	// a number; filterNums numbers the frameworks that refuse something,
	// for the agents' filtered sets, and refusersByNum says which holds a
	// number (filters.go).
	agentNums, filterNums tables.Numbering
	agentsByNum           tables.Numbered[agent]
	refusersByNum         tables.Numbered[framework]
	// anchor is the instant compact refusal filters count their expiries
	// from, set by the first of them (wholerefusals.go).
	anchor   time.Time
	anchored bool

	// taskSeq is the seq of the latest task launched; preempting holds
	// the tasks runs chose to end that have not ended (reclaim.go).
	taskSeq    uint64
	preempting map[taskRef]*pendingPreemption
	// ledger is every framework's tasks in launch order, ended ones
	// included until ledgerEnded says it is worth compacting (liveLedger).
	ledger      []*task
	ledgerBuilt bool
	ledgerEnded int
	// tookAt is, per role, the latest run that chose tasks to end for it,
	// kept for the run after it.
	tookAt map[string]uint64

	// unsatBuf holds a role's unsatisfied guarantees on the hot path.
	unsatBuf resources.Quantities
	// runAgents holds a run's candidate agents, kept between runs;
	// candidateIDs the ids of a run over every agent.
	runAgents    []*agent
	candidateIDs []string
	// runRanks holds, by agent number, each candidate's place among the
	// run's candidates (groupOffers sorts a group's offers by it).
	runRanks []int32
	// grouping is groupOffers's working storage, kept between runs.
	grouping offerGrouping

	// revocableOrSharedAgents counts agents whose total has revocable or
	// shared resources, which quota neither limits nor holds back.
	revocableOrSharedAgents int

	// cur and the bound visit methods are the state of a run's walks.
	cur                                         cursor
	visitGuaranteeRole, visitGuaranteeFramework func(string) bool
	visitFairRole, visitFairFramework           func(string) bool

	offerIDs, inverseOfferIDs offer.IDs
	runs                      uint64
	last                      RunStats

	// explain is what the latest run did, for Explain (explainlog.go).
	explain explainLog
	// obs is nil unless Options.Observer is set (observer.go).
	obs *observerState

	// entry is the event under way (see step); last, so that it does not
	// move the fields the hot paths read.
	entry Entry
}

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

// New returns an allocator with no agents and no frameworks.
func New(opts Options) (*Allocator, error) {
	if opts.AllocationInterval < 0 {
		return nil, fmt.Errorf("%w: negative allocation interval", ErrInvalidOptions)
	}
	if !(opts.OfferShare >= 0 && opts.OfferShare < 1) {
		return nil, fmt.Errorf("%w: offer share %v, want 0 (off) or a part between 0 and 1", ErrInvalidOptions, opts.OfferShare)
	}
	if opts.Reclaim > ReclaimFairShare || opts.ReclaimTimeout < 0 {
		return nil, fmt.Errorf("%w: reclaim %v for %v", ErrInvalidOptions, opts.Reclaim, opts.ReclaimTimeout)
	}
	a := &Allocator{}
	a.init(opts)
	return a, nil
}

// init makes a an allocator with opts (checked by New).
func (a *Allocator) init(opts Options) {
	opts = opts.withDefaults()
	pcg, cutPCG := rand.NewPCG(uint64(opts.Seed), 0x616c6c6f74), rand.NewPCG(0, 0)
	*a = Allocator{
		opts:            opts,
		rng:             rand.New(pcg),
		pcg:             pcg,
		cutRand:         rand.New(cutPCG),
		cutPCG:          cutPCG,
		excluded:        resources.NewNameSet(opts.FairnessExcludedResources...),
		preempting:      map[taskRef]*pendingPreemption{},
		ledgerBuilt:     true,
		tookAt:          map[string]uint64{},
		roles:           roles.NewTree(),
		capEpoch:        1,
		offerIDs:        offer.IDs{Prefix: "offer-"},
		inverseOfferIDs: offer.IDs{Prefix: "inverse-offer-"},
	}
	a.roleSorter = &roles.TrackedSorter{Sorter: opts.RoleSorter(a.sorterConfig(0))}
	if opts.Observer != nil {
		a.obs = newObserverState(opts.Observer, opts.Stopwatch)
	}
	a.rec.init(a)
	a.visitGuaranteeRole, a.visitGuaranteeFramework = a.guaranteeRole, a.guaranteeFramework
	a.visitFairRole, a.visitFairFramework = a.fairRole, a.fairFramework
}

// ready makes a zero Allocator one with the default Options, so that a
// declared `var a allocator.Allocator` works as New(Options{}) would.
func (a *Allocator) ready() {
	if a.roles == nil {
		a.init(Options{})
	}
}

func (a *Allocator) sorterConfig(salt uint64) sorter.Config {
	return sorter.Config{FairnessExcluded: a.excluded, Seed: a.opts.Seed ^ int64(salt*0x9e3779b97f4a7c15)}
}

func validID(kind, id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty %s id", ErrInvalidID, kind)
	}
	for _, c := range id {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("%w: %s id %q has control characters", ErrInvalidID, kind, id)
		}
	}
	return nil
}

// ---- frameworks ----

// AddFramework adds a framework subscribed to info.Roles. used lists, per
// agent, what the framework already runs there (tagged with allocation roles
// among its roles); agents not yet added are skipped, as AddAgent reports
// them later. Usage that an agent reported for the framework before it was
// added (see AddAgent) becomes its allocation now: used may list it again
// for that agent, the same, or leave it out. An active framework triggers
// an allocation over all agents.
func (a *Allocator) AddFramework(id string, info FrameworkInfo, used map[string]resources.Resources, state Activation) error {
	return a.stepErr(Entry{Event: EventAddFramework, Framework: id, FrameworkInfo: &info, Used: used, Active: bool(state)})
}

// addFramework is AddFramework's handler (see events.go).
func (a *Allocator) addFramework(id string, info FrameworkInfo, used map[string]resources.Resources, active bool) error {
	if err := validID("framework", id); err != nil {
		return err
	}
	if _, ok := a.frameworks.Lookup(id); ok {
		return fmt.Errorf("%w: %q", ErrDuplicateFramework, id)
	}
	if err := info.validate(); err != nil {
		return fmt.Errorf("framework %q: %w", id, err)
	}
	claims, err := a.claims(id, info.Roles, used)
	if err != nil {
		return err
	}
	var changes []agentChange
	for _, agentID := range slices.Sorted(maps.Keys(used)) {
		ag, ok := a.agents.Lookup(agentID)
		if !ok || claims[agentID] {
			continue
		}
		if err := checkUsed(used[agentID], info.Roles); err != nil {
			return fmt.Errorf("framework %q on agent %q: %w", id, agentID, err)
		}
		q, err := quantitiesWithin(used[agentID], true, "the used resources")
		if err != nil {
			return fmt.Errorf("framework %q on agent %q: %w", id, agentID, err)
		}
		changes = append(changes, agentChange{ag: ag, total: ag.total.Quantities(), held: q})
	}
	if err := a.checkSums(changes...); err != nil {
		return fmt.Errorf("framework %q: %w", id, err)
	}
	fw := &framework{
		id:     id,
		joined: a.runs,
		info:   info.clone(),
		active: active,
	}
	fw.roles.MarkOnly(tables.Subscribed, info.Roles)
	fw.roles.MarkOnly(tables.Suppressed, info.SuppressedRoles)
	a.frameworks.Put(fw)
	for _, role := range info.Roles {
		a.trackFrameworkUnderRole(fw, role)
	}
	for _, agentID := range slices.Sorted(maps.Keys(used)) {
		if ag, ok := a.agents.Lookup(agentID); ok && !claims[agentID] {
			a.trackAllocation(fw, ag, used[agentID], true)
		}
	}
	a.claim(fw, claims)
	if active {
		a.allWantRun()
	}
	return nil
}

func checkUsed(used resources.Resources, roles []string) error {
	for r := range used.All() {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidResources, err)
		}
		if r.AllocationRole == "" {
			return fmt.Errorf("%w: %s has no allocation role", ErrInvalidResources, r)
		}
		if !slices.Contains(roles, r.AllocationRole) {
			return fmt.Errorf("%w: %q", ErrRoleNotSubscribed, r.AllocationRole)
		}
		if !r.Reservations.AllocatableTo(r.AllocationRole) {
			return fmt.Errorf("%w: %s is reserved for another role", ErrInvalidResources, r)
		}
	}
	return nil
}

// RemoveFramework drops a framework: everything it was offered or uses goes
// back to the agents' available pools. No allocation is triggered.
func (a *Allocator) RemoveFramework(id string) error {
	return a.stepErr(Entry{Event: EventRemoveFramework, Framework: id})
}

// removeFramework is RemoveFramework's handler (see events.go).
func (a *Allocator) removeFramework(id string) error {
	fw, err := a.framework(id)
	if err != nil {
		return err
	}
	a.forgetFilters(fw, "")
	a.leaveRounds(fw)
	a.releaseNum(fw)
	// The agents hold what each framework holds there: no index of a
	// framework's agents is kept, so that an offer costs no insert into
	// one.
	for _, ag := range a.agentList {
		if ag.offered.Has(id) || ag.allocated.Has(id) || ag.holds().has(id) {
			a.holdsToOffered(ag, id)
			a.untrackAllocation(fw, ag, ag.held(id), false)
		}
	}
	for ag := range a.agents.All() {
		delete(ag.inverse(), id)
		ag.dropOffers(id)
	}
	for _, role := range fw.roles.List(tables.Tracked) {
		a.untrackFrameworkUnderRole(fw, role)
	}
	for _, t := range fw.tasks {
		a.forgetTask(fw, t)
	}
	a.frameworks.Delete(id)
	a.explain.forget(fw, a.runs)
	a.frameworkRemoved(fw)
	return nil
}

// ActivateFramework makes a framework eligible for offers again in its
// roles that are not suppressed, and triggers an allocation over all agents.
func (a *Allocator) ActivateFramework(id string) error {
	return a.stepErr(Entry{Event: EventActivateFramework, Framework: id})
}

// activateFramework is ActivateFramework's handler (see events.go).
func (a *Allocator) activateFramework(id string) error {
	fw, err := a.framework(id)
	if err != nil {
		return err
	}
	fw.active = true
	for role := range fw.roles.All(tables.Subscribed) {
		a.syncActivation(fw, role)
	}
	a.allWantRun()
	return nil
}

// DeactivateFramework stops offers to a framework. Its allocations stay
// (they still count for fairness); its refusal and inverse-offer filters are
// cleared, as in Mesos.
func (a *Allocator) DeactivateFramework(id string) error {
	return a.stepErr(Entry{Event: EventDeactivateFramework, Framework: id})
}

// deactivateFramework is DeactivateFramework's handler (see events.go).
func (a *Allocator) deactivateFramework(id string) error {
	fw, err := a.framework(id)
	if err != nil {
		return err
	}
	fw.active = false
	for role := range fw.roles.All(tables.Tracked) {
		a.syncActivation(fw, role)
	}
	a.forgetFilters(fw, "")
	a.leaveRounds(fw)
	clear(fw.inverseFilters)
	return nil
}

// UpdateFramework replaces a framework's info: new roles are tracked, roles
// dropped lose their filters and suppression (and are untracked once the
// framework holds nothing in them), suppression follows info.SuppressedRoles
// (reviving here triggers nothing). No allocation is triggered.
func (a *Allocator) UpdateFramework(id string, info FrameworkInfo) error {
	return a.stepErr(Entry{Event: EventUpdateFramework, Framework: id, FrameworkInfo: &info})
}

// updateFramework is UpdateFramework's handler (see events.go).
func (a *Allocator) updateFramework(id string, info FrameworkInfo) error {
	fw, err := a.framework(id)
	if err != nil {
		return err
	}
	if err := info.validate(); err != nil {
		return fmt.Errorf("framework %q: %w", id, err)
	}
	a.uncapped() // minimum allocatable resources may have changed
	for _, role := range fw.roles.List(tables.Subscribed) {
		if slices.Contains(info.Roles, role) {
			continue
		}
		fw.roles.Unmark(role, tables.Subscribed)
		a.forgetFilters(fw, role)
		fw.roles.Unmark(role, tables.Suppressed)
		delete(fw.demand, role)
		if len(fw.demand) == 0 {
			fw.demand = nil
		}
		a.syncActivation(fw, role)
		if a.heldInRole(id, role).IsEmpty() {
			a.untrackFrameworkUnderRole(fw, role)
		}
	}
	fw.info = info.clone()
	fw.roles.MarkOnly(tables.Suppressed, info.SuppressedRoles)
	for _, role := range info.Roles {
		fw.roles.Mark(role, tables.Subscribed)
		a.trackFrameworkUnderRole(fw, role)
	}
	for _, role := range fw.roles.List(tables.Subscribed) {
		a.syncActivation(fw, role)
	}
	return nil
}

// SuppressOffers stops offers to a framework in the given roles (all its
// roles when none are given) until ReviveOffers. No allocation is triggered.
func (a *Allocator) SuppressOffers(id string, roles ...string) error {
	return a.stepErr(Entry{Event: EventSuppressOffers, Framework: id, Roles: roles})
}

// suppressOffers is SuppressOffers's handler (see events.go).
func (a *Allocator) suppressOffers(id string, roles ...string) error {
	fw, roles, err := a.frameworkRoles(id, roles)
	if err != nil {
		return err
	}
	for _, role := range roles {
		fw.roles.Mark(role, tables.Suppressed)
		a.syncActivation(fw, role)
	}
	return nil
}

// ReviveOffers lifts suppression and refusal filters of a framework in the
// given roles (all its roles when none are given), clears all its
// inverse-offer filters, and triggers an allocation over all agents.
func (a *Allocator) ReviveOffers(id string, roles ...string) error {
	return a.stepErr(Entry{Event: EventReviveOffers, Framework: id, Roles: roles})
}

// reviveOffers is ReviveOffers's handler (see events.go).
func (a *Allocator) reviveOffers(id string, roles ...string) error {
	fw, roles, err := a.frameworkRoles(id, roles)
	if err != nil {
		return err
	}
	for _, role := range roles {
		fw.roles.Unmark(role, tables.Suppressed)
		a.forgetFilters(fw, role)
		a.syncActivation(fw, role)
	}
	a.leaveRounds(fw)
	clear(fw.inverseFilters)
	a.allWantRun()
	return nil
}

// frameworkRoles looks up a framework and the roles an event names: all its
// roles when none are named; a role it is not subscribed to is an error.
func (a *Allocator) frameworkRoles(id string, roles []string) (*framework, []string, error) {
	fw, err := a.framework(id)
	if err != nil {
		return nil, nil, err
	}
	roles, err = fw.pickRoles(roles)
	return fw, roles, err
}

func (fw *framework) pickRoles(roles []string) ([]string, error) {
	if len(roles) == 0 {
		return fw.roles.List(tables.Subscribed), nil
	}
	for _, role := range roles {
		if !fw.roles.Has(role, tables.Subscribed) {
			return nil, fmt.Errorf("%w: framework %q, role %q", ErrRoleNotSubscribed, fw.id, role)
		}
	}
	return roles, nil
}

// syncActivation makes the framework's state in a role's sorter match
// "active, subscribed, not suppressed and not waiting for nothing" (see
// demand.go), and marks the role changed (its
// epoch), since the framework's filters, info or state may have changed.
func (a *Allocator) syncActivation(fw *framework, role string) {
	n := a.roles.Get(role)
	if n == nil || n.FrameworkSorter == nil {
		return
	}
	s := n.FrameworkSorter
	n.Epoch = a.roles.NewEpoch()
	a.observeFramework(fw, role)
	if fw.active && fw.roles.Has(role, tables.Subscribed) && !fw.roles.Has(role, tables.Suppressed) && !fw.waitsForNothing(role) {
		_ = s.Activate(fw.id)
	} else {
		_ = s.Deactivate(fw.id)
	}
}

// frameworkSorter returns the framework sorter of role, nil while no
// framework is tracked under it. It lives in the role's node: one lookup
// finds both, and no map of sorters by role is kept beside the tree.
func (a *Allocator) frameworkSorter(role string) *roles.TrackedSorter {
	if n := a.roles.Get(role); n != nil {
		return n.FrameworkSorter
	}
	return nil
}

// rolesWithSorters returns the roles with a framework sorter, in path
// order.
func (a *Allocator) rolesWithSorters() []string {
	roles := make([]string, 0, a.sorterRoles)
	for n := range a.roles.Nodes.All() {
		path := n.Path
		if n.FrameworkSorter != nil {
			roles = append(roles, path)
		}
	}
	slices.Sort(roles)
	return roles
}

func (a *Allocator) trackFrameworkUnderRole(fw *framework, role string) {
	if !fw.roles.Mark(role, tables.Tracked) {
		return
	}
	a.uncapped()
	node := a.roles.Ensure(role)
	node.Frameworks.Add(fw.id)
	if !a.roleSorter.Contains(role) {
		_ = a.roleSorter.Add(role)
		_ = a.roleSorter.Activate(role)
	}
	s := node.FrameworkSorter
	if s == nil {
		a.sorterRoles++
		salt := uint64(a.sorterRoles)
		s = &roles.TrackedSorter{Sorter: a.opts.FrameworkSorter(a.sorterConfig(salt)), Salt: salt}
		node.FrameworkSorter = s
	}
	_ = s.Add(fw.id)
	a.syncActivation(fw, role)
}

func (a *Allocator) untrackFrameworkUnderRole(fw *framework, role string) {
	if !fw.roles.Unmark(role, tables.Tracked) {
		return
	}
	a.uncapped()
	a.observeFramework(fw, role)
	node := a.roles.Get(role)
	s := node.FrameworkSorter
	a.clearRefusalBits(fw, role)
	_ = s.Remove(fw.id)
	if s.Count() == 0 {
		node.FrameworkSorter = nil
		a.sorterRoles--
		_ = a.roleSorter.Remove(role)
		// A role that leaves the sorter leaves the parked roles too, so
		// that they name only roles the sorter has.
		a.parked = slices.DeleteFunc(a.parked, func(r string) bool { return r == role })
	}
	node.Frameworks.Remove(fw.id)
	a.roles.Prune(role)
}

func (a *Allocator) framework(id string) (*framework, error) {
	fw, ok := a.frameworks.Lookup(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownFramework, id)
	}
	return fw, nil
}

// frameworkOn returns a framework and an agent of an event about the
// framework on the agent, or the error that names the unknown one (the
// framework first).
func (a *Allocator) frameworkOn(fwID, agentID string) (*framework, *agent, error) {
	fw, err := a.framework(fwID)
	if err != nil {
		return nil, nil, err
	}
	ag, err := a.agent(agentID)
	if err != nil {
		return nil, nil, err
	}
	return fw, ag, nil
}

// heldInRole returns what a framework holds in a role over all agents.
func (a *Allocator) heldInRole(fwID, role string) resources.Resources {
	var out resources.Resources
	fw := a.frameworks.Get(fwID)
	if fw == nil {
		return out
	}
	for _, ag := range a.agentList {
		if ag.offered.Has(fwID) || ag.allocated.Has(fwID) || ag.holds().has(fwID) {
			out.Add(ag.held(fwID).AllocatedTo(role))
		}
	}
	return out
}

// ---- agents ----

// AddAgent adds an agent with its total resources. used lists, per
// framework, what runs there already (tagged with allocation roles). What a
// framework not added yet uses counts as in use on the agent, not offered,
// until AddFramework claims it (unclaimed.go), as Mesos counts it. It
// triggers an allocation of this agent.
func (a *Allocator) AddAgent(id string, info AgentInfo, total resources.Resources, used map[string]resources.Resources) error {
	return a.stepErr(Entry{Event: EventAddAgent, Agent: id, AgentInfo: &info, Resources: total, Used: used})
}

// addAgent is AddAgent's handler (see events.go).
func (a *Allocator) addAgent(id string, info AgentInfo, total resources.Resources, used map[string]resources.Resources) error {
	if err := validID("agent", id); err != nil {
		return err
	}
	if _, ok := a.agents.Lookup(id); ok {
		return fmt.Errorf("%w: %q", ErrDuplicateAgent, id)
	}
	totalQ, err := checkTotal(total)
	if err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	if err := a.checkReportedUse(id, used); err != nil {
		return err
	}
	usedQ, err := usedQuantities(used, "the used resources")
	if err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	if err := a.checkSums(agentChange{total: totalQ, held: usedQ}); err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	ag := &agent{
		id:     id,
		info:   info.clone(),
		total:  a.shape(total),
		active: true,
		refGen: 1,
	}
	if unclaimed := a.unknownUse(used); unclaimed != nil {
		ag.more().unclaimed = unclaimed
	}
	a.numberAgent(ag)
	a.agents.Put(ag)
	i, _ := a.agentPlace(id)
	a.agentList = slices.Insert(a.agentList, i, ag)
	a.addTotal(ag)
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := a.frameworks.Lookup(fwID); ok {
			a.trackAllocation(fw, ag, used[fwID], true)
		}
	}
	a.wantsRun(ag)
	return nil
}

// shape returns total without allocation roles, in the storage of an
// earlier agent's equal total when there is one (see Allocator.shapes).
func (a *Allocator) shape(total resources.Resources) resources.Resources {
	if role, ok := total.AllocationRole(); !ok || role != "" {
		total = total.Unallocate().Frozen() // a copy of the caller's
	}
	return a.shapes.Intern(total)
}

// checkTotal validates an agent's total and returns its scalar quantities.
func checkTotal(total resources.Resources) (resources.Quantities, error) {
	for r := range total.All() {
		if err := r.Validate(); err != nil {
			return resources.Quantities{}, fmt.Errorf("%w: %w", ErrInvalidResources, err)
		}
	}
	return quantitiesWithin(total, false, "the total")
}

// addTotal adds an agent's total to the cluster totals and its reservations
// to the role tree, and recomputes its available resources.
func (a *Allocator) addTotal(ag *agent) {
	a.uncapped()
	if a.obs != nil {
		a.obs.clusterDirty = true
	}
	a.totals.Add(ag.total.Quantities())
	a.totalsVersion++
	a.setFlags(ag)
	a.trackReservations(ag.total, true)
	a.recomputeAvailable(ag)
}

func (a *Allocator) removeTotal(ag *agent) {
	a.uncapped()
	if a.obs != nil {
		a.obs.clusterDirty = true
	}
	a.totals.Subtract(ag.total.Quantities())
	a.totalsVersion++
	if ag.hasRevocable || ag.hasShared {
		a.revocableOrSharedAgents--
	}
	ag.hasRevocable, ag.hasShared = false, false
	a.trackReservations(ag.total, false)
	a.freeHeadroom.Subtract(ag.headroom)
	ag.headroom = resources.Quantities{}
	if ag.rare != nil {
		a.excess.Subtract(ag.rare.excess)
		ag.rare.excess = resources.Quantities{}
	}
}

// trackReservations adds (or removes) the scalar reservations of res to the
// role tree, under their current reservation roles.
func (a *Allocator) trackReservations(res resources.Resources, add bool) {
	a.uncapped()
	if !res.IsEmpty() {
		for r := range res.All() {
			if r.IsReserved() && r.Type == resources.ScalarType {
				a.roles.TrackReserved(r.Role(), quantityOf(r), add)
				a.syncAllowance(r.Role())
				a.observeRole(r.Role())
			}
		}
	}
}

// setFlags records what the agent's total holds, for the hot path, and
// keeps the count of agents with revocable or shared resources.
func (a *Allocator) setFlags(ag *agent) {
	before := ag.hasRevocable || ag.hasShared
	ag.hasReserved, ag.hasShared, ag.hasRevocable, ag.hasRefined, ag.hasGPUs = false, false, false, false, false
	for r := range ag.total.All() {
		ag.hasReserved = ag.hasReserved || r.IsReserved()
		ag.hasShared = ag.hasShared || r.Shared
		ag.hasRevocable = ag.hasRevocable || r.Revocable
		ag.hasRefined = ag.hasRefined || r.Reservations.IsRefined()
		ag.hasGPUs = ag.hasGPUs || (r.Name == "gpus" && r.Type == resources.ScalarType && r.Scalar > 0)
	}
	switch after := ag.hasRevocable || ag.hasShared; {
	case after && !before:
		a.revocableOrSharedAgents++
	case before && !after:
		a.revocableOrSharedAgents--
	}
}

func quantityOf(r resources.Resource) resources.Quantities {
	var q resources.Quantities
	q.SetScalar(r.Name, r.Scalar)
	return q
}

// recomputeAvailable derives available from total minus everything offered
// or allocated, and refreshes the agent's headroom share.
func (a *Allocator) recomputeAvailable(ag *agent) {
	a.uncapped()
	a.excess.Subtract(ag.excess())
	used := a.measureUse(ag)
	if used.IsEmpty() {
		// Nothing in use: available is the total, in the same storage (the
		// total is only ever replaced, never changed in place; available,
		// frozen, copies its entries before its first change).
		ag.total = ag.total.Frozen()
		ag.available = ag.total
	} else {
		ag.available = ag.total.Minus(used)
	}
	a.availableGrew(ag)
	ag.version++
	a.agentChanged(ag)
	a.refreshHeadroom(ag)
}

// measureUse returns what is offered, allocated, held and in use by
// frameworks not added yet on ag (shared volumes aside, without allocation
// roles), and sets ag.overAllocated and
// its excess from it, adding the excess to the cluster's.
func (a *Allocator) measureUse(ag *agent) resources.Resources {
	var used, shared resources.Resources
	add := func(res resources.Resources) {
		used.AddUnallocated(res, false)
		if res.HasShared() {
			shared.AddUnallocated(res.Shared(), true)
		}
	}
	for _, held := range []*tables.PerFramework{&ag.offered, &ag.allocated} {
		for _, fwID := range held.IDs() {
			add(held.Get(fwID))
		}
	}
	for _, h := range ag.holds() {
		used.AddUnallocated(h.res, false)
	}
	for _, fwID := range slices.Sorted(maps.Keys(ag.unclaimed())) {
		add(ag.unclaimed()[fwID])
	}
	ag.overAllocated = !ag.total.Contains(used)
	if ag.rare != nil {
		ag.rare.excess = resources.Quantities{}
	}
	if ag.overAllocated {
		rare := ag.more()
		rare.excess = used.Quantities().Minus(ag.total.Quantities())
		a.excess.Add(rare.excess)
	}
	// A shared volume held by anyone must still be part of the total (one
	// copy of it, however many hold it).
	for r := range shared.All() {
		ag.overAllocated = ag.overAllocated || !ag.total.ContainsResource(r)
	}
	return used
}

// refreshHeadroom recomputes the agent's share of the free headroom in
// place.
func (a *Allocator) refreshHeadroom(ag *agent) {
	a.freeHeadroom.Subtract(ag.headroom)
	ag.headroom.Reset()
	if !ag.hasReserved && !ag.hasRevocable {
		ag.available.AddQuantitiesTo(&ag.headroom)
	} else {
		ag.headroom.Add(headroomOf(ag.available))
	}
	a.freeHeadroom.Add(ag.headroom)
}

// headroomOf returns the unreserved, non-revocable scalar quantities: what
// quota headroom and limits are about.
func headroomOf(res resources.Resources) resources.Quantities {
	var q resources.Quantities
	res.AddUnreservedQuantitiesTo(&q)
	return q
}

// RemoveAgent drops an agent with everything offered, allocated, held and
// reported in use on it, and every filter that names it. The tasks of the
// ledger that ran there leave it (they were lost with the agent): EndTask
// of one of them is then ErrUnknownTask. No allocation is triggered.
func (a *Allocator) RemoveAgent(id string) error {
	return a.stepErr(Entry{Event: EventRemoveAgent, Agent: id})
}

// removeAgent is RemoveAgent's handler (see events.go).
func (a *Allocator) removeAgent(id string) error {
	ag, err := a.agent(id)
	if err != nil {
		return err
	}
	a.holdsToOffered(ag, "")
	for _, fwID := range ag.frameworkIDs() {
		if fw, ok := a.frameworks.Lookup(fwID); ok {
			a.untrackAllocation(fw, ag, ag.held(fwID), false)
		}
	}
	for fw := range a.frameworks.All() {
		a.dropTasksOn(fw, id)
	}
	a.removeTotal(ag)
	a.forgetAgentFilters(ag)
	a.unnumberAgent(ag)
	a.agents.Delete(id)
	if i, ok := a.agentPlace(id); ok {
		a.agentList = slices.Delete(a.agentList, i, i+1)
	}
	a.pending.Delete(id)
	return nil
}

// UpdateAgent replaces an agent's info and, when total is not nil, its total
// resources. Changed attributes clear every framework's filters for the
// agent. The total may drop below what is in use; the agent is then
// over-allocated and offers nothing until enough is recovered. Triggers an
// allocation of the agent when anything changed.
func (a *Allocator) UpdateAgent(id string, info AgentInfo, total *resources.Resources) error {
	return a.stepErr(Entry{Event: EventUpdateAgent, Agent: id, AgentInfo: &info, Total: total})
}

// updateAgent is UpdateAgent's handler (see events.go).
func (a *Allocator) updateAgent(id string, info AgentInfo, total *resources.Resources) error {
	ag, err := a.agent(id)
	if err != nil {
		return err
	}
	if total != nil {
		totalQ, err := checkTotal(*total)
		if err != nil {
			return fmt.Errorf("agent %q: %w", id, err)
		}
		if err := a.checkSums(agentChange{ag: ag, total: totalQ}); err != nil {
			return fmt.Errorf("agent %q: %w", id, err)
		}
	}
	changed := false
	if !attributesEqual(ag.info.Attributes, info.Attributes) {
		changed = true
		a.forgetAgentFilters(ag)
	}
	if ag.info.Hostname != info.Hostname || ag.info.Region != info.Region || ag.info.Capabilities != info.Capabilities {
		changed = true
	}
	ag.info = info.clone()
	if changed {
		ag.version++
		a.agentChanged(ag)
	}
	if total != nil {
		if shaped := a.shape(*total); !shaped.Equal(ag.total) {
			changed = true
			a.removeTotal(ag)
			ag.total = shaped
			a.addTotal(ag)
		}
	}
	if changed {
		a.wantsRun(ag)
	}
	return nil
}

// AddResourceProvider grows an agent's total by a resource provider's
// resources and records what frameworks already use of them (frameworks
// not added yet as AddAgent does). No allocation.
func (a *Allocator) AddResourceProvider(agentID string, total resources.Resources, used map[string]resources.Resources) error {
	return a.stepErr(Entry{Event: EventAddResourceProvider, Agent: agentID, Resources: total, Used: used})
}

// addResourceProvider is AddResourceProvider's handler (see events.go).
func (a *Allocator) addResourceProvider(agentID string, total resources.Resources, used map[string]resources.Resources) error {
	ag, err := a.agent(agentID)
	if err != nil {
		return err
	}
	providerQ, err := checkTotal(total)
	if err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	if err := a.checkReportedUse(agentID, used); err != nil {
		return err
	}
	usedQ, err := usedQuantities(used, "the used resources")
	if err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	agentQ := ag.total.Quantities()
	if err := addWithin(&agentQ, providerQ, "the agent and its resource provider"); err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	if err := a.checkSums(agentChange{ag: ag, total: agentQ, held: usedQ}); err != nil {
		return fmt.Errorf("agent %q: %w", agentID, err)
	}
	a.removeTotal(ag)
	ag.total = ag.total.Plus(total.Unallocate())
	for fwID, res := range a.unknownUse(used) {
		rare := ag.more()
		if rare.unclaimed == nil {
			rare.unclaimed = map[string]resources.Resources{}
		}
		rare.unclaimed[fwID] = rare.unclaimed[fwID].Plus(res)
	}
	a.addTotal(ag)
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := a.frameworks.Lookup(fwID); ok {
			a.trackAllocation(fw, ag, used[fwID], true)
		}
	}
	return nil
}

// ActivateAgent makes an agent's resources offerable again. No allocation.
func (a *Allocator) ActivateAgent(id string) error {
	return a.stepErr(Entry{Event: EventActivateAgent, Agent: id})
}

// activateAgent is ActivateAgent's handler (see events.go).
func (a *Allocator) activateAgent(id string) error {
	ag, err := a.agent(id)
	if err != nil {
		return err
	}
	ag.active = true
	return nil
}

// DeactivateAgent keeps an agent's resources from being offered; nothing is
// recovered. No allocation.
func (a *Allocator) DeactivateAgent(id string) error {
	return a.stepErr(Entry{Event: EventDeactivateAgent, Agent: id})
}

// deactivateAgent is DeactivateAgent's handler (see events.go).
func (a *Allocator) deactivateAgent(id string) error {
	ag, err := a.agent(id)
	if err != nil {
		return err
	}
	ag.active = false
	return nil
}

// UpdateWhitelist restricts offers to agents whose hostnames are listed; nil
// lifts the restriction, an empty list stops all offers. No allocation.
func (a *Allocator) UpdateWhitelist(hostnames []string) {
	_ = a.stepErr(Entry{Event: EventUpdateWhitelist, Hostnames: hostnames})
}

// updateWhitelist is UpdateWhitelist's handler (see events.go).
func (a *Allocator) updateWhitelist(hostnames []string) {
	if hostnames == nil {
		a.whitelist = nil
		return
	}
	a.whitelist = make(map[string]struct{}, len(hostnames))
	for _, h := range hostnames {
		a.whitelist[h] = struct{}{}
	}
}

func (a *Allocator) agent(id string) (*agent, error) {
	ag, ok := a.agents.Lookup(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownAgent, id)
	}
	return ag, nil
}

// offeredOrUsed returns what a framework is offered or uses on the agent:
// what it may operate on or give back (what is held for it, RecoverHeld,
// is neither until it is offered).
func (ag *agent) offeredOrUsed(fwID string) resources.Resources {
	return ag.offered.Get(fwID).Plus(ag.allocated.Get(fwID))
}

// held returns what a framework holds on the agent: offered, allocated or
// held for it.
func (ag *agent) held(fwID string) resources.Resources {
	held := ag.offered.Get(fwID).Plus(ag.allocated.Get(fwID))
	if len(ag.holds()) > 0 {
		held.Add(ag.holds().of(fwID))
	}
	return held
}

func (ag *agent) frameworkIDs() []string {
	if len(ag.holds()) == 0 {
		if ag.allocated.Len() == 0 {
			return ag.offered.IDs()
		}
		if ag.offered.Len() == 0 {
			return ag.allocated.IDs()
		}
	}
	ids := ag.offered.IDs()
	for id := range ag.allocated.All() {
		if !ag.offered.Has(id) {
			ids = append(ids, id)
		}
	}
	for _, h := range ag.holds() {
		if !slices.Contains(ids, h.framework) {
			ids = append(ids, h.framework)
		}
	}
	slices.Sort(ids)
	return ids
}

// ---- allocation bookkeeping ----

// trackAllocation records res (tagged with allocation roles) as offered to,
// or (inUse) allocated to, fw on ag, taken from what is available.
func (a *Allocator) trackAllocation(fw *framework, ag *agent, res resources.Resources, inUse bool) {
	a.track(fw, ag, res, inUse, true)
}

// trackInUse records res (tagged with allocation roles) as allocated to fw
// on ag, where it was already in use (unclaimed.go): what is available
// stays.
func (a *Allocator) trackInUse(fw *framework, ag *agent, res resources.Resources) {
	a.track(fw, ag, res, true, false)
}

// track is trackAllocation, and trackInUse when fromAvailable is false.
func (a *Allocator) track(fw *framework, ag *agent, res resources.Resources, inUse, fromAvailable bool) {
	if res.IsEmpty() {
		return
	}
	recompute := false
	for _, role := range res.AllocationRoles() {
		part := res.AllocatedTo(role)
		a.trackFrameworkUnderRole(fw, role)
		held := &ag.offered
		if inUse {
			held = &ag.allocated
		}
		// The sorters and the agent's records share part; none changes it
		// in place.
		held.Add(fw.id, part)
		plain := part.Unallocate()
		if fromAvailable {
			if nonShared := plain.NonShared(); ag.available.Contains(nonShared) {
				ag.available.Subtract(nonShared)
			} else {
				recompute = true
			}
		}
		a.ch.load(part)
		if a.obs != nil {
			if inUse {
				a.observeHeld(fw, role, resources.Quantities{}, a.ch.q, true)
			} else {
				a.observeHeld(fw, role, a.ch.q, resources.Quantities{}, true)
			}
		}
		sorterAllocated(a.roleSorter.Sorter, role, ag.id, part, &a.ch)
		sorterAllocated(a.frameworkSorter(role).Sorter, fw.id, ag.id, part, &a.ch)
		a.trackHeld(role, plain, true)
	}
	if recompute {
		a.recomputeAvailable(ag)
		return
	}
	a.refreshHeadroom(ag)
}

// untrackAllocation returns res (held by fw on ag, tagged with allocation
// roles) to the agent's available pool, taking it from the offered part
// first and then from the allocated part, or the other way round.
func (a *Allocator) untrackAllocation(fw *framework, ag *agent, res resources.Resources, allocatedFirst bool) {
	if res.IsEmpty() {
		return
	}
	a.uncapped()
	roles := res.AllocationRoles()
	for _, role := range roles {
		part := res
		if len(roles) > 1 {
			part = res.AllocatedTo(role)
		}
		first, second := &ag.offered, &ag.allocated
		if allocatedFirst {
			first, second = second, first
		}
		// When part is all the framework holds there, hand the sorters the
		// value they were given (they find it by identity, in O(1)).
		given := part
		if whole := first.Get(fw.id); whole.Len() == part.Len() && whole.Equal(part) {
			given = whole
		}
		fromFirst, fromSecond := takeFrom(first, second, fw.id, part)
		taken := fromFirst
		if allocatedFirst {
			taken = fromSecond
		}
		if !taken.IsEmpty() {
			ag.offersTaken(fw.id, role, taken, resources.Resources{})
		}
		a.ch.load(given)
		if a.obs != nil {
			a.observeTaken(fw, role, taken, a.ch.q)
		}
		sorterUnallocated(a.roleSorter.Sorter, role, ag.id, given, &a.ch)
		if s := a.frameworkSorter(role); s != nil {
			sorterUnallocated(s.Sorter, fw.id, ag.id, given, &a.ch)
		}
		a.trackHeld(role, part, false)
	}
	for _, role := range roles {
		if !fw.roles.Has(role, tables.Subscribed) && a.heldInRole(fw.id, role).IsEmpty() {
			a.untrackFrameworkUnderRole(fw, role)
		}
		a.roles.Prune(role)
	}
	if ag.overAllocated {
		a.recomputeAvailable(ag)
		return
	}
	ag.available.AddUnallocated(res, false)
	a.availableGrew(ag)
	ag.version++
	a.agentChanged(ag)
	a.refreshHeadroom(ag)
}

// trackHeld records in the role tree that plain (allocation roles ignored)
// was offered or allocated to role, or given back: unreserved non-revocable
// scalars under the allocation role, reservations (but shared volumes)
// under their own role. It returns the unreserved non-revocable quantities
// it counted, in a.scratch's storage: valid until the next call.
func (a *Allocator) trackHeld(role string, plain resources.Resources, add bool) resources.Quantities {
	return a.trackHeldAt(nil, role, plain, add)
}

// trackHeldAt is trackHeld with role's node at hand (nil: looked up).
func (a *Allocator) trackHeldAt(node *roles.Node, role string, plain resources.Resources, add bool) resources.Quantities {
	q := &a.scratch
	q.Reset()
	reserved := plain.AddUnreservedQuantitiesTo(q)
	if node != nil {
		a.roles.TrackAllocatedUnreservedAt(node, *q, add)
	} else {
		a.roles.TrackAllocatedUnreserved(role, *q, add)
	}
	if !reserved {
		return *q
	}
	one := &a.reservedScratch
	for r := range plain.All() {
		// Shared volumes stay available while held and may be held many
		// times over; they are not counted as allocated reservations.
		if r.IsReserved() && r.Type == resources.ScalarType && !r.Shared {
			one.Reset()
			one.AddScalar(r.Name, r.Scalar)
			a.roles.TrackAllocatedReserved(r.Role(), *one, add)
		}
	}
	return *q
}

// takeFrom removes part from first[key] as far as it holds it, and the rest
// from second[key]; it returns what it took from each.
func takeFrom(first, second *tables.PerFramework, key string, part resources.Resources) (fromFirst, fromSecond resources.Resources) {
	held := first.Get(key)
	if held.Contains(part) {
		if held.Identical(part) || held.Equal(part) {
			first.Remove(key)
		} else {
			first.Set(key, held.Minus(part))
		}
		return part, resources.Resources{}
	}
	// part ∩ held, with Mesos's subtraction: part − (part − held).
	fromFirst = part.Minus(part.Minus(held))
	first.Set(key, held.Minus(fromFirst))
	if rest := part.Minus(fromFirst); !rest.IsEmpty() {
		second.Set(key, second.Get(key).Minus(rest))
		fromSecond = rest
	}
	return fromFirst, fromSecond
}

func setOrDelete(m map[string]resources.Resources, key string, v resources.Resources) {
	if v.IsEmpty() {
		delete(m, key)
		return
	}
	m[key] = v
}

// ---- recovering, filters ----

// RecoverResources gives back resources of an offer: declined, rescinded,
// or the unused part of an accepted offer. They are taken from what the
// framework was offered on the agent first, then from what it uses. With a
// filter, the framework is not offered what these resources contain on this
// agent in that role for the filter's time. No allocation is triggered: the
// resources are offered again at the next allocation.
func (a *Allocator) RecoverResources(fwID, agentID string, res resources.Resources, filter *Filter) error {
	return a.stepErr(Entry{Event: EventRecoverResources, Framework: fwID, Agent: agentID, Resources: res, Filter: filter})
}

// RecoverAllocated gives back the resources of tasks that ended (finished,
// failed, killed) or of a removed executor: like RecoverResources, but taken
// from what the framework uses on the agent first, then from what it was
// offered.
func (a *Allocator) RecoverAllocated(fwID, agentID string, res resources.Resources, filter *Filter) error {
	return a.stepErr(Entry{Event: EventRecoverAllocated, Framework: fwID, Agent: agentID, Resources: res, Filter: filter})
}

// recover is the handler of RecoverResources and RecoverAllocated (see
// events.go), and how other events give resources back.
func (a *Allocator) recover(fwID, agentID string, res resources.Resources, filter *Filter, allocatedFirst bool) error {
	fw, ag, err := a.frameworkOn(fwID, agentID)
	if err != nil {
		return err
	}
	if res.IsEmpty() {
		return nil
	}
	// Nothing below keeps res or changes it in place: what the allocator
	// keeps of it are new values.
	if role, single := res.AllocationRole(); single && role == "" {
		return fmt.Errorf("%w: %s has no allocation role", ErrInvalidResources, res)
	} else if !single && slices.Contains(res.AllocationRoles(), "") {
		return fmt.Errorf("%w: %s has no allocation role", ErrInvalidResources, res)
	}
	if !ag.offered.Get(fwID).Contains(res) && !ag.allocated.Get(fwID).Contains(res) && !ag.offeredOrUsed(fwID).Contains(res) {
		return fmt.Errorf("%w: framework %q, agent %q: %s", ErrNotHeld, fwID, agentID, res)
	}
	a.untrackAllocation(fw, ag, res, allocatedFirst)
	if filter != nil {
		a.addRefusal(fw, ag, res, filter.Refuse)
	}
	return nil
}

// ---- roles: weights and quota ----

// UpdateWeights sets role weights (default 1). A role with weight 2 is
// entitled to twice the share of a role with weight 1. Weights apply to the
// role's node in the role tree; the default role "*" is a top-level role
// like any other. No allocation is triggered.
func (a *Allocator) UpdateWeights(weights map[string]float64) error {
	return a.stepErr(Entry{Event: EventUpdateWeights, Weights: weights})
}

// updateWeights is UpdateWeights's handler (see events.go).
func (a *Allocator) updateWeights(weights map[string]float64) error {
	for _, role := range slices.Sorted(maps.Keys(weights)) {
		w := weights[role]
		if err := reservation.ValidateRole(role); err != nil {
			return fmt.Errorf("%w: weight for %q", ErrInvalidRole, role)
		}
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("%w: %q: %v", ErrInvalidWeight, role, w)
		}
	}
	for _, role := range slices.Sorted(maps.Keys(weights)) {
		w := weights[role]
		a.observeRole(role)
		_ = a.roleSorter.UpdateWeight(role, w)
		if w == 1 {
			delete(a.roles.Weights, role)
			a.roles.Prune(role)
		} else {
			a.roles.Weights[role] = w
			a.roles.Ensure(role)
		}
	}
	return nil
}

// UpdateQuota sets a role's quota; the zero Quota removes it. Quota may be
// set on nested roles: a child's consumption counts against every ancestor's
// guarantee and limit. The default role "*" takes quota like any top-level
// role, as in Mesos: a limit on it caps the frameworks that run in "*". Guarantees above the role's own limits or an
// ancestor's, and limits below a descendant's guarantees, are rejected. No
// allocation is triggered.
func (a *Allocator) UpdateQuota(role string, q Quota) error {
	return a.stepErr(Entry{Event: EventUpdateQuota, Role: role, Quota: q})
}

// updateQuota is UpdateQuota's handler (see events.go).
func (a *Allocator) updateQuota(role string, q Quota) error {
	if err := reservation.ValidateRole(role); err != nil {
		return fmt.Errorf("%w: quota for %q", ErrInvalidRole, role)
	}
	if !q.Limits.Contains(q.Guarantees) {
		return fmt.Errorf("%w: %q: guarantees %s exceed limits %s", ErrInvalidQuota, role, q.Guarantees, q.Limits)
	}
	if !q.Guarantees.Within(resources.MaxScalar) || !resources.LimitsWithin(q.Limits, resources.MaxScalar) {
		return fmt.Errorf("%w: %q: an amount above %s, the bound of quota values", ErrInvalidQuota, role, resources.MaxScalar)
	}
	if err := a.checkGuarantees(role, q.Guarantees); err != nil {
		return fmt.Errorf("quota for %q: %w", role, err)
	}
	for _, anc := range reservation.Ancestors(role) {
		if n := a.roles.Get(anc); n != nil && !n.Q().Limits.Contains(q.Guarantees) {
			return fmt.Errorf("%w: %q: guarantees %s exceed the limits %s of %q", ErrInvalidQuota, role, q.Guarantees, n.Q().Limits, anc)
		}
	}
	for _, path := range a.roles.Nodes.Keys() {
		n := a.roles.Nodes.Get(path)
		if reservation.IsStrictSubrole(path, role) && !q.Limits.Contains(n.Q().Guarantees) {
			return fmt.Errorf("%w: %q: limits %s are below the guarantees %s of %q", ErrInvalidQuota, role, q.Limits, n.Q().Guarantees, path)
		}
	}
	a.uncapped()
	a.observeRole(role)
	defer a.syncAllowance(role)
	q = Quota{Guarantees: q.Guarantees.Clone(), Limits: q.Limits.Clone()}
	if q.IsZero() {
		if n := a.roles.Get(role); n != nil {
			n.SetQuota(roles.Quota{})
			a.roles.Prune(role)
		}
		return nil
	}
	a.roles.Ensure(role).SetQuota(roles.Quota(q))
	return nil
}

// ---- maintenance ----

// UpdateUnavailability replaces an agent's maintenance window (nil clears
// it), clears inverse-offer filters for the agent and triggers an allocation
// of the agent, which makes the inverse offers.
func (a *Allocator) UpdateUnavailability(agentID string, u *offer.Unavailability) error {
	return a.stepErr(Entry{Event: EventUpdateUnavailability, Agent: agentID, Unavailability: u})
}

// updateUnavailability is UpdateUnavailability's handler (see events.go).
func (a *Allocator) updateUnavailability(agentID string, u *offer.Unavailability) error {
	ag, err := a.agent(agentID)
	if err != nil {
		return err
	}
	if u != nil {
		c := *u
		u = &c
	}
	ag.info.Unavailability = u
	clear(ag.inverse())
	for fw := range a.frameworks.All() {
		delete(fw.inverseFilters, agentID)
	}
	a.wantsRun(ag)
	return nil
}

// UpdateInverseOffer records a framework's answer to an inverse offer for an
// agent; with a filter, the framework gets no inverse offer for the agent for
// the filter's time.
func (a *Allocator) UpdateInverseOffer(agentID, fwID string, status InverseOfferStatus, filter *Filter) error {
	return a.stepErr(Entry{Event: EventUpdateInverseOffer, Agent: agentID, Framework: fwID, Status: status, Filter: filter})
}

// updateInverseOffer is UpdateInverseOffer's handler (see events.go).
func (a *Allocator) updateInverseOffer(agentID, fwID string, status InverseOfferStatus, filter *Filter) error {
	ag, err := a.agent(agentID)
	if err != nil {
		return err
	}
	fw, err := a.framework(fwID)
	if err != nil {
		return err
	}
	if status != InverseAccepted && status != InverseDeclined {
		return fmt.Errorf("%w: %d", ErrInvalidStatus, status)
	}
	st := ag.inverseState(fwID)
	st.outstanding = false
	st.status = status
	if filter != nil {
		if d := a.refuseDuration(filter.Refuse); d > 0 {
			if fw.inverseFilters == nil {
				fw.inverseFilters = map[string]refusals.InverseFilter{}
			}
			fw.inverseFilters[agentID] = refusals.InverseFilter{Expires: a.opts.Clock().Add(d), Batch: a.batches}
		}
	}
	return nil
}

// InverseOfferStatuses returns, per agent and framework, the last answer to
// an inverse offer.
func (a *Allocator) InverseOfferStatuses() map[string]map[string]InverseOfferStatus {
	a.ready()
	out := map[string]map[string]InverseOfferStatus{}
	for ag := range a.agents.All() {
		id := ag.id
		for fwID, st := range ag.inverse() {
			if st.status == 0 {
				continue
			}
			if out[id] == nil {
				out[id] = map[string]InverseOfferStatus{}
			}
			out[id][fwID] = st.status
		}
	}
	return out
}

// Pause stops allocation runs until Resume; events are still taken and
// triggers accumulate.
func (a *Allocator) Pause() {
	_ = a.stepErr(Entry{Event: EventPause})
}

// pause is Pause's handler (see events.go).
func (a *Allocator) pause() {
	a.paused = true
}

// Resume lets allocation runs happen again.
func (a *Allocator) Resume() {
	_ = a.stepErr(Entry{Event: EventResume})
}

// resume is Resume's handler (see events.go).
func (a *Allocator) resume() {
	a.paused = false
}

// Paused reports whether allocation is paused.
func (a *Allocator) Paused() bool { return a.paused }

// Pending reports whether an event asked for an allocation run that has
// not been made yet: a host (or runner.Runner) that sees it true calls
// Allocate soon, as Mesos batches the allocations its events ask for.
func (a *Allocator) Pending() bool { return a.pendingAll || a.pending.Len() > 0 }

// agentPlace finds where the agent of id is, or would be, in agentList.
func (a *Allocator) agentPlace(id string) (int, bool) {
	return slices.BinarySearchFunc(a.agentList, id, func(ag *agent, id string) int { return strings.Compare(ag.id, id) })
}

// wantsRun notes that ag waits for the next run. While every agent does
// (pendingAll), the run takes them all and ag is not listed.
func (a *Allocator) wantsRun(ag *agent) {
	if !a.pendingAll {
		a.pending.Put(ag)
	}
}

// allWantRun makes every agent wait for the next run (a framework-wide
// trigger): the list of the agents that did is dropped.
func (a *Allocator) allWantRun() {
	a.pendingAll = true
	a.pending.Clear()
}

// Options returns the options the allocator runs with, defaults filled in.
func (a *Allocator) Options() Options { return a.opts }
