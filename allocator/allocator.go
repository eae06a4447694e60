package allocator

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/operations"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

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

	// cs is the cluster: agents, frameworks and their sums (state.go).
	cs cluster.State

	roles      *roles.Tree
	roleSorter *roles.TrackedSorter
	// books keeps what frameworks hold in the agents' records, the
	// sorters, the role tree and the cluster's sums (package books).
	books books.Books

	// allowances are what the role sorter was told each role may hold
	// before it counts in its share; parking the roles kept out of it
	// because they can take nothing more (package quota).
	allowances quota.Allowances
	parking    quota.Parking

	// pending are the agents waiting for a run, not listed while
	// pendingAll (every agent waits; a restored snapshot of an earlier
	// version may list some, which the run ignores).
	pending    cluster.AgentTable
	pendingAll bool
	// periodic: the run under way is a periodic one (AllocateAll).
	periodic  bool
	paused    bool
	whitelist map[string]struct{} // nil: every agent
	// dec keeps the refusal filters and the rounds of declines
	// (declinebook.go).
	dec declines.Book

	// ops validates and applies operations (package operations).
	ops operations.Operations
	// ch is reused by the run's offers to tell the sorters.
	ch books.Charge

	// tasks is every framework's tasks in launch order (ledger.go);
	// reclaims holds the tasks runs chose to end that have not ended
	// (reclaim.go).
	tasks    cluster.Ledger
	reclaims reclaim.State

	// unsatBuf holds a role's unsatisfied guarantees on the hot path.
	unsatBuf resources.Quantities
	// runAgents holds a run's candidate agents, kept between runs;
	// candidateIDs the ids of a run over every agent.
	runAgents    []*cluster.Agent
	candidateIDs []string
	// runRanks holds, by agent number, each candidate's place among the
	// run's candidates (groupOffers sorts a group's offers by it).
	runRanks []int32
	// grouping is groupOffers's working storage, kept between runs.
	grouping offerGrouping

	// cur and the bound visit methods are the state of a run's walks.
	cur                                         cursor
	visitGuaranteeRole, visitGuaranteeFramework func(string) bool
	visitFairRole, visitFairFramework           func(string) bool

	offerIDs, inverseOfferIDs offer.IDs
	runs                      uint64
	last                      RunStats

	// explain is what the latest run did, for Explain (package explain);
	// preempted the tasks it chose to end.
	explain   explain.Log
	preempted []Preemption
	// obs is nil unless Options.Observer is set (observer.go).
	obs *observer

	// entry is the event under way (see step); last, so that it does not
	// move the fields the hot paths read.
	entry Entry
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
		reclaims:        reclaim.NewState(),
		roles:           roles.NewTree(),
		parking:         quota.NewParking(),
		allowances:      quota.Allowances{On: opts.ChargeBeyondAllowance},
		offerIDs:        offer.IDs{Prefix: "offer-"},
		inverseOfferIDs: offer.IDs{Prefix: "inverse-offer-"},
	}
	a.tasks = cluster.NewLedger(&a.cs)
	a.dec = declines.Book{Cluster: &a.cs, Roles: a.roles, AllocationInterval: opts.AllocationInterval, MesosOfferOrder: opts.MesosOfferOrder, CacheFree: opts.CacheFree}
	a.roleSorter = &roles.TrackedSorter{Sorter: opts.RoleSorter(a.sorterConfig(0))}
	a.books = books.Books{Cluster: &a.cs, Roles: a.roles, RoleSorter: a.roleSorter, Declines: &a.dec,
		Parking: &a.parking, Allowances: &a.allowances,
		NewFrameworkSorter: func(salt uint64) sorter.Sorter { return a.opts.FrameworkSorter(a.sorterConfig(salt)) }}
	a.ops = operations.Operations{Cluster: &a.cs, Books: &a.books, Tasks: &a.tasks, ReservedFirst: opts.ReservedFirst}
	if opts.Observer != nil {
		a.obs = newObserver(opts.Observer, opts.Stopwatch)
		a.books.Observer = a.obs.Ledgers
		a.dec.OnFilter = func(fw *cluster.Framework, role string, t time.Time, batch uint64, delta int) {
			a.obs.Filter(fw.ID, role, t, batch, delta)
		}
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

// wantsRun notes that ag waits for the next run. While every agent does
// (pendingAll), the run takes them all and ag is not listed.
func (a *Allocator) wantsRun(ag *cluster.Agent) {
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
