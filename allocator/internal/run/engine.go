package run

import (
	"math/rand/v2"
	"time"

	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/observe"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Config is what of the allocator's options a run reads (package
// allocator's Options documents each).
type Config struct {
	Seed               int64
	Clock              func() time.Time
	AllocationInterval time.Duration
	// MinAllocatable are the global minimum allocatable resources,
	// defaults filled in.
	MinAllocatable  []resources.Quantities
	AllowGPUsToAll  bool
	Region          string
	OfferShare      float64
	WholeOffers     bool
	MesosOfferOrder bool
	CacheFree       bool
	Reclaim         reclaim.Mode
	ReclaimTimeout  time.Duration
	// Excluded are the resources left out of shares.
	Excluded resources.NameSet
}

// Parts are the allocator's parts a run reads and changes.
type Parts struct {
	Cluster    *cluster.State
	Roles      *roles.Tree
	RoleSorter *roles.TrackedSorter
	Books      *books.Books
	Parking    *quota.Parking
	Declines   *declines.Book
	Tasks      *cluster.Ledger
	Reclaims   *reclaim.State
	// Explain is where a run records what it offered and passed over.
	Explain *explain.Log
	// Observer is nil unless the host registered one.
	Observer *observe.Ledgers
	// Rand shuffles the candidate agents of each stage.
	Rand *rand.Rand
}

// Engine makes the allocator's runs, and keeps what lasts from one run to
// the next: the agents waiting for one, the whitelist, the numbering of
// runs and offers, and storage reused by every run.
type Engine struct {
	opts       Config
	cs         *cluster.State
	roles      *roles.Tree
	roleSorter *roles.TrackedSorter
	books      *books.Books
	parking    *quota.Parking
	dec        *declines.Book
	tasks      *cluster.Ledger
	reclaims   *reclaim.State
	explain    *explain.Log
	obs        *observe.Ledgers
	rng        *rand.Rand

	// Pending are the agents waiting for a run, not listed while
	// PendingAll (every agent waits; a restored snapshot of an earlier
	// version may list some, which the run ignores).
	Pending    cluster.AgentTable
	PendingAll bool
	// Whitelist holds the hostnames runs may offer; nil: every agent.
	Whitelist map[string]struct{}
	// Runs counts the runs made; OfferIDs and InverseOfferIDs number
	// their offers.
	Runs                      uint64
	OfferIDs, InverseOfferIDs offer.IDs

	// cutRand orders an offer's cuts, from cutPCG seeded by cutOrder.
	cutRand *rand.Rand
	cutPCG  *rand.PCG
	// ch is reused by the run's offers to tell the sorters.
	ch books.Charge
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
}

// New returns an engine over the parts p with the options opts.
func New(opts Config, p Parts) *Engine {
	cutPCG := rand.NewPCG(0, 0)
	e := &Engine{
		opts: opts, cs: p.Cluster, roles: p.Roles, roleSorter: p.RoleSorter, books: p.Books,
		parking: p.Parking, dec: p.Declines, tasks: p.Tasks, reclaims: p.Reclaims,
		explain: p.Explain, obs: p.Observer, rng: p.Rand,
		OfferIDs:        offer.IDs{Prefix: "offer-"},
		InverseOfferIDs: offer.IDs{Prefix: "inverse-offer-"},
		cutRand:         rand.New(cutPCG),
		cutPCG:          cutPCG,
	}
	e.visitGuaranteeRole, e.visitGuaranteeFramework = e.guaranteeRole, e.guaranteeFramework
	e.visitFairRole, e.visitFairFramework = e.fairRole, e.fairFramework
	return e
}

// SetOfferOrder sets the options of the order of offers (Config's
// MesosOfferOrder and WholeOffers): a restored snapshot holds them after
// the parts the engine is made with.
func (e *Engine) SetOfferOrder(mesos, whole bool) {
	e.opts.MesosOfferOrder, e.opts.WholeOffers = mesos, whole
}

// WantsRun notes that ag waits for the next run. While every agent does
// (PendingAll), the run takes them all and ag is not listed.
func (e *Engine) WantsRun(ag *cluster.Agent) {
	if !e.PendingAll {
		e.Pending.Put(ag)
	}
}

// AllWantRun makes every agent wait for the next run (a framework-wide
// trigger): the list of the agents that did is dropped.
func (e *Engine) AllWantRun() {
	e.PendingAll = true
	e.Pending.Clear()
}

// Triggered runs an allocation over the agents waiting for one (periodic:
// an AllocateAll, the periodic batch, over all of them).
func (e *Engine) Triggered(periodic bool) Result {
	if periodic {
		e.AllWantRun()
	}
	var candidates []string
	var all []*cluster.Agent
	if e.PendingAll {
		all = e.cs.AgentList
	} else {
		candidates = e.Pending.Keys()
	}
	e.PendingAll = false
	e.Pending.Clear()
	return e.allocate(candidates, all, periodic)
}

// Result is what one run made: its offers and inverse offers, the tasks
// it chose to end and the earlier choices it withdrew (package reclaim),
// and its figures.
type Result struct {
	Offers            []offer.Offer
	InverseOffers     []offer.InverseOffer
	Chosen, Withdrawn []reclaim.Chosen
	Stats             Stats
}

// Stats are a run's figures: package allocator's RunStats, field for
// field (it converts one to the other), whose doc says what each counts.
// Skips is indexed by package explain's reason codes.
type Stats struct {
	Run           uint64
	Agents        int
	SkippedAgents int
	Offers        int
	InverseOffers int
	Skips         [cluster.NumReasons]int
	Unchanged     int
	Refused       int
	Capped        int
	Periodic      bool
}

// Walk visits s's clients in order until visit returns false: with
// sorter.Walker when s implements it (a run usually stops at the first
// client that takes the agent), else through Sort. Changes made to s during
// the walk (allocations, deactivations) apply from the next walk on, as
// they would from the next Sort.
func Walk(s sorter.Sorter, visit func(string) bool) {
	if w, ok := s.(sorter.Walker); ok {
		w.Walk(visit)
		return
	}
	for _, client := range s.Sort() {
		if !visit(client) {
			return
		}
	}
}
