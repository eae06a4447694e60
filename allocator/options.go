package allocator

import (
	"fmt"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// DefaultAllocationInterval is Mesos's default batch interval.
const DefaultAllocationInterval = time.Second

// DefaultRefuse is the refusal time of a decline whose filter does not say
// (Mesos's Filters.refuse_seconds default).
const DefaultRefuse = declines.DefaultRefuse

// MaxRefuse caps refusal filters, as Mesos caps refuse_seconds at a year.
const MaxRefuse = declines.MaxRefuse

// Options configure an Allocator. The zero value is usable: the system
// clock, seed 0, DRF sorters, Mesos's default minimum allocatable resources
// and a one second interval.
type Options struct {
	// Clock returns the current time: refusal and inverse-offer filters
	// expire, and maintenance windows start, by this clock. Nil means the
	// system clock (time.Now), which is what a service wants; simulations
	// and tests pass a clock of their own (ManualClock) so that runs repeat
	// exactly. This is the only place the system clock is chosen: the
	// allocator reads time through Clock alone, once per event, and keeps
	// the reading as wall-clock time in UTC (Round(0).UTC()), so that a
	// snapshot or a journal carries it exactly.
	Clock func() time.Time
	// Seed drives every random choice (agent shuffles, random sorters).
	Seed int64
	// RoleSorter and FrameworkSorter build the sorters: one for roles, one
	// per role for its frameworks. Nil means sorter.NewDRF for roles and
	// sorter.NewLazyDRF for frameworks: the same order, without a tree
	// while a role has one framework (with CacheFree, sorter.NewDRF, so
	// that a cache-free copy checks the lazy sorter too).
	RoleSorter, FrameworkSorter sorter.Factory
	// FairnessExcludedResources are ignored by share computations (for
	// example "gpus", so one GPU does not make a role's share 1).
	FairnessExcludedResources []string
	// MinAllocatable lists alternatives: an offer is made only if it holds
	// at least one of them (ranges count their integers, sets their items).
	// Nil means DefaultMinAllocatable; a non-nil empty list means no minimum.
	MinAllocatable []resources.Quantities
	// AllocationInterval is the batch interval of the Runner and the least
	// lifetime of a refusal filter. Zero means DefaultAllocationInterval.
	AllocationInterval time.Duration
	// AllowGPUsToAll offers agents with GPUs to frameworks without the
	// GPU_RESOURCES capability. False (Mesos's --filter_gpu_resources) keeps
	// such agents from them.
	AllowGPUsToAll bool
	// ChargeBeyondAllowance charges a role in the role sorter only for what
	// it holds beyond its allowance: the larger of its quota guarantee and
	// the reservations of its subtree, name by name. (Reservations count as
	// consumed quota: a pool reservation is the guarantee it meets, so the
	// two are not added.) A role that uses exactly
	// its pool reservation then sorts as if it held nothing, and competes
	// for the shared pool with what it holds beyond it. Off (Mesos's
	// behaviour), a role's reservations count in its share like anything
	// else it holds. Frameworks within a role are charged for all they
	// hold: the allowance belongs to the role. It needs a role sorter that
	// implements sorter.Allowances (the DRF sorter does).
	ChargeBeyondAllowance bool
	// ReservedFirst moves tasks launched on unreserved resources onto the
	// role's reservations still free in the same offer, the most specific
	// first, so that reservations are used before the shared pool and the
	// pool is not left in pieces (see AcceptApplied). Off by default:
	// Mesos launches what the framework names.
	ReservedFirst bool
	// OfferShare, when between 0 and 1, splits agents among frameworks:
	// no offer of the fair-share stage holds more than this part of an
	// agent's unreserved, non-revocable scalars (by the agent's total), so
	// the rest goes to the next frameworks in DRF order in the same run.
	// Zero (the default) is Mesos's behaviour: the first framework is
	// offered everything. Splitting helps when frameworks take all they
	// can of one resource and leave the others stranded (one framework
	// fills an agent's cpus, another its memory): with 0.5 each agent
	// hosts both kinds of task. See BENCHMARKS.md, workload W2.
	OfferShare float64
	// Journal, when set, receives the entry of every event the allocator
	// takes (see Entry), after the event succeeded and before the method
	// returns, in the order of the events: a host appends them to a log
	// to replay (Replay) or replicate. It must not call the allocator.
	Journal func(Entry)
	// Observer, when not nil, is told the allocator's figures at the end
	// of every run and after every event that changes them, for a host's
	// metrics (see Observer). Without one nothing is kept for it.
	Observer Observer
	// Stopwatch, when not nil, reads elapsed time from any fixed point:
	// the allocator reads it at the start and the end of every run and
	// reports the difference to the Observer as the run's duration. It is
	// read for nothing else, and only with an Observer; the core reads no
	// clock of its own for it.
	Stopwatch func() time.Duration
	// CacheFree makes an allocator that keeps none of the answers that
	// let runs skip work (roles parked as capped, agents where nobody
	// could take anything, roles whose pending tasks fit nothing on an
	// agent, refusal indexes, filters known to cover an agent; see
	// allocator/internal/run/cachefree.go): every run works everything out
	// from the state, at Mesos's cost. It is for tests, which compare a cache-free
	// copy's runs with the allocator's own (allocatortest does); the
	// offers and views are the same with or without it.
	CacheFree bool
	// Reclaim lets runs choose other roles' tasks to end to make room, on
	// one agent, for a pending task a framework stated (UpdateDemand) in a
	// role owed more: below its quota guarantee (ReclaimGuarantees), and
	// also, for a role that got nothing, below a weighted fair share
	// (ReclaimFairShare). Without stated demand nothing is chosen. The
	// choices come back as Result.Preemptions, the ones whose need went as
	// Result.Withdrawn; allocator/internal/reclaim's doc gives the rules.
	// Off by default, as in Mesos.
	Reclaim Reclaim
	// ReclaimTimeout is how long a task chosen to end has to end (EndTask)
	// before the choice lapses and a later run may choose again; what its
	// end frees is then held for the framework it was chosen for as long.
	// Zero means ten allocation intervals.
	ReclaimTimeout time.Duration
	// MesosOfferOrder turns off the rotation after declines (see package
	// declines): a framework that declined an agent's resources is then
	// offered them again as soon as no refusal filter covers them and it
	// comes first in DRF order, as in Mesos, even when frameworks that
	// could use them wait behind it. Off by default: a framework that
	// declined is offered the same resources again only after every other
	// framework that may be offered them has been, so that nobody starves
	// behind others' declines. Tests that check Mesos's exact order of
	// offers after declines set it.
	MesosOfferOrder bool
	// WholeOffers makes offers to frameworks that state demand
	// (UpdateDemand) hold everything the agent has left for them, as
	// offers to the others do, rather than what their pending tasks need
	// there, task by task in DRF order. Either way such a framework is
	// offered an agent only when one of its pending tasks fits there.
	WholeOffers bool
	// Region is the master's fault-domain region. When set, frameworks
	// without REGION_AWARE are offered only agents in this region (or with no
	// region).
	Region string
}

// DefaultMinAllocatable is Mesos's master default: cpus:0.01|mem:32.
func DefaultMinAllocatable() []resources.Quantities {
	return []resources.Quantities{
		resources.MustParseQuantities("cpus:0.01"),
		resources.MustParseQuantities("mem:32"),
	}
}

// ParseMinAllocatable reads alternatives separated by '|', each a quantities
// text: "cpus:0.01|mem:32" or "cpus:1;mem:64|gpus:1".
func ParseMinAllocatable(text string) ([]resources.Quantities, error) {
	out := []resources.Quantities{}
	if strings.TrimSpace(text) == "" {
		return out, nil
	}
	for alt := range strings.SplitSeq(text, "|") {
		q, err := resources.ParseQuantities(alt)
		if err != nil {
			return nil, fmt.Errorf("%w: minimum allocatable %q: %w", ErrInvalidOptions, alt, err)
		}
		out = append(out, q)
	}
	return out, nil
}

func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.RoleSorter == nil {
		o.RoleSorter = func(c sorter.Config) sorter.Sorter { return sorter.NewDRF(c) }
	}
	if o.FrameworkSorter == nil {
		o.FrameworkSorter = func(c sorter.Config) sorter.Sorter { return sorter.NewLazyDRF(c) }
		if o.CacheFree {
			o.FrameworkSorter = func(c sorter.Config) sorter.Sorter { return sorter.NewDRF(c) }
		}
	}
	if o.MinAllocatable == nil {
		o.MinAllocatable = DefaultMinAllocatable()
	}
	if o.AllocationInterval == 0 {
		o.AllocationInterval = DefaultAllocationInterval
	}
	return o
}
