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

// topLevel are the roles quota is set on in the property tests, as Mesos
// allows.
var topLevel = []string{"a", "b", "c"}

// propertyConfigs are the harness configurations the property tests run.
var propertyConfigs = []struct {
	name string
	opts allocatortest.Options
	mix  allocatortest.Mix
}{
	{
		// Every kind of event; shared volumes stay out.
		name: "all events",
		opts: allocatortest.Options{QuotaRoles: topLevel, NoSharedVolumes: true},
		mix:  allocatortest.DefaultMix(),
	},
	{
		// The random sorter, fairness exclusions, a region, GPUs offered to
		// all, no minimum allocatable resources and a longer interval.
		name: "random sorter",
		opts: allocatortest.Options{
			QuotaRoles: topLevel, NoSharedVolumes: true, Agents: 4, Frameworks: 3,
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
		// DRF with fairness exclusions and a single deep role family.
		name: "nested roles",
		opts: allocatortest.Options{
			QuotaRoles: []string{"a"}, NoSharedVolumes: true,
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
