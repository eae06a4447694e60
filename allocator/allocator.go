package allocator

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/machine"
	"github.com/allot-go/allot/allocator/internal/operations"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Allocator is the hierarchical DRF allocator. Host programs feed it events
// (agents and frameworks coming and going, declines, reservations) and call
// Allocate to get offers. It is not safe for concurrent use; Runner wraps it
// for that. A zero Allocator is one made by New with the zero Options.
type Allocator struct {
	opts Options
	pcg  *rand.PCG // the source of the engine's shuffles, kept for Snapshot
	// excluded are the resources left out of shares.
	excluded resources.NameSet
	// rec records events and stands in for the clock while an entry is
	// applied (see events.go).
	rec recorder

	// cs is the cluster: agents, frameworks and their sums (package
	// cluster).
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

	// paused: Allocate makes no run until Resume.
	paused bool
	// dec keeps the refusal filters and the rounds of declines (package
	// declines).
	dec declines.Book

	// ops validates and applies operations (package operations).
	ops operations.Operations
	// tasks is every framework's tasks in launch order (cluster.Ledger);
	// reclaims holds the tasks runs chose to end that have not ended
	// (package reclaim).
	tasks    cluster.Ledger
	reclaims reclaim.State

	// engine makes the runs (package run), m applies the other events
	// (package machine); last is the latest run's figures.
	engine *run.Engine
	m      *machine.Machine
	last   RunStats

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
	*a = Allocator{
		opts:       opts,
		pcg:        rand.NewPCG(uint64(opts.Seed), 0x616c6c6f74),
		excluded:   resources.NewNameSet(opts.FairnessExcludedResources...),
		reclaims:   reclaim.NewState(),
		roles:      roles.NewTree(),
		parking:    quota.NewParking(),
		allowances: quota.Allowances{On: opts.ChargeBeyondAllowance},
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
	parts := run.Parts{Cluster: &a.cs, Roles: a.roles, RoleSorter: a.roleSorter, Books: &a.books,
		Parking: &a.parking, Declines: &a.dec, Tasks: &a.tasks, Reclaims: &a.reclaims,
		Explain: &a.explain, Rand: rand.New(a.pcg)}
	if a.obs != nil {
		parts.Observer = a.obs.Ledgers
	}
	// The engine reads the clock through the recorder, as every handler.
	a.engine = run.New(run.Config{
		Seed: opts.Seed, Clock: a.opts.Clock, AllocationInterval: opts.AllocationInterval,
		MinAllocatable: opts.MinAllocatable, AllowGPUsToAll: opts.AllowGPUsToAll, Region: opts.Region,
		OfferShare: opts.OfferShare, WholeOffers: opts.WholeOffers, MesosOfferOrder: opts.MesosOfferOrder,
		CacheFree: opts.CacheFree, Reclaim: reclaim.Mode(opts.Reclaim), ReclaimTimeout: opts.ReclaimTimeout,
		Excluded: a.excluded,
	}, parts)
	a.m = machine.New(machine.Parts{Cluster: &a.cs, Roles: a.roles, RoleSorter: a.roleSorter, Books: &a.books,
		Allowances: &a.allowances, Parking: &a.parking, Declines: &a.dec, Operations: &a.ops,
		Tasks: &a.tasks, Reclaims: &a.reclaims, Engine: a.engine, Explain: &a.explain,
		Observer: parts.Observer, Clock: a.opts.Clock})
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

// Resume lets allocation runs happen again.
func (a *Allocator) Resume() {
	_ = a.stepErr(Entry{Event: EventResume})
}

// Paused reports whether allocation is paused.
func (a *Allocator) Paused() bool { return a.paused }

// Pending reports whether an event asked for an allocation run that has
// not been made yet: a host (or runner.Runner) that sees it true calls
// Allocate soon, as Mesos batches the allocations its events ask for.
func (a *Allocator) Pending() bool { return a.engine.PendingAll || a.engine.Pending.Len() > 0 }

// Options returns the options the allocator runs with, defaults filled in.
func (a *Allocator) Options() Options { return a.opts }
