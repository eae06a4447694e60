package allocator_test

import (
	"flag"
	"testing"
	"time"

	"github.com/leanovate/gopter"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

var (
	seedFlag      = flag.Int64("allocator.seed", 0, "seed of the allocator property tests; 0 picks one from the clock")
	sequencesFlag = flag.Int("allocator.sequences", 0, "random event sequences per allocator property; 0 means a default that keeps the package's tests short")
	eventsFlag    = flag.Int("allocator.events", 80, "most events in one generated sequence")
)

// sequences returns how many sequences each property runs: the flag, or
// a default that is smaller under the race detector.
func sequences() int {
	if *sequencesFlag > 0 {
		return *sequencesFlag
	}
	if raceEnabled {
		return 15
	}
	return 80
}

// parameters returns gopter parameters with the seed from -allocator.seed
// or the clock. The seed is logged, and gopter prints it again with the
// shrunk failing sequence.
func parameters(t *testing.T) *gopter.TestParameters {
	t.Helper()
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -allocator.seed=%d)", seed, seed)
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = sequences()
	p.MaxShrinkCount = 300
	return p
}

// propertyConfigs are the harness configurations the property tests run.
var propertyConfigs = []struct {
	name string
	opts allocatortest.Options
	mix  allocatortest.Mix
}{
	{
		// Every kind of event: quota on nested roles, shared volumes made,
		// offered and destroyed while other offers hold them, agents whose
		// new totals drop what is in use.
		name: "all events",
		opts: allocatortest.Options{},
		mix:  allocatortest.DefaultMix(),
	},
	{
		// Mostly operations on offers: reservations, refinements, volumes
		// and shared volumes, resizes. Before a shared volume is destroyed,
		// the harness rescinds the offers that hold it, as Mesos's master
		// does.
		name: "operations",
		opts: allocatortest.Options{RescindSharedVolumes: true},
		mix: func() allocatortest.Mix {
			m := allocatortest.DefaultMix()
			m[allocatortest.Operate] = 30
			m[allocatortest.OperatorOperate] = 10
			return m
		}(),
	},
	{
		// The random sorter, fairness exclusions, a region, GPUs offered to
		// all, no minimum allocatable resources and a longer interval; quota
		// on top-level roles only, as in Mesos.
		name: "random sorter",
		opts: allocatortest.Options{
			QuotaRoles: []string{"a", "b", "c"}, Agents: 4, Frameworks: 3,
			Allocator: allocator.Options{
				RoleSorter:                func(c sorter.Config) sorter.Sorter { return sorter.NewRandom(c) },
				FrameworkSorter:           func(c sorter.Config) sorter.Sorter { return sorter.NewRandom(c) },
				FairnessExcludedResources: []string{"gpus"},
				Region:                    "east",
				AllowGPUsToAll:            true,
				MinAllocatable:            []resources.Quantities{},
				AllocationInterval:        5 * time.Second,
			},
		},
		mix: allocatortest.DefaultMix(),
	},
	{
		// DRF with fairness exclusions and one deep family of roles, each
		// with quota now and then.
		name: "nested roles",
		opts: allocatortest.Options{
			Roles:     []string{"a", "a/b", "a/b/c", "a/b/c/d", "a/e"},
			Allocator: allocator.Options{FairnessExcludedResources: []string{"gpus", "disk"}},
		},
		mix: allocatortest.DefaultMix(),
	},
}

// TestPropertyRandomEvents runs random sequences of every kind of event
// through a Harness, which checks the accounting after every step and the
// offers of every run. Scale it with -allocator.sequences, replay a
// failure with -allocator.seed.
func TestPropertyRandomEvents(t *testing.T) {
	for _, c := range propertyConfigs {
		t.Run(c.name, func(t *testing.T) {
			props := gopter.NewProperties(parameters(t))
			props.Property("every step keeps the accounting", allocatortest.Property(c.opts, c.mix, *eventsFlag))
			props.TestingRun(t)
		})
	}
}
