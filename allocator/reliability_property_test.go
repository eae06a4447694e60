package allocator_test

import (
	"flag"
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator/allocatortest"
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
		return 30
	}
	return 200
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
var propertyConfigs = allocatortest.Configs()

// TestPropertyRandomEvents runs random sequences of every kind of event
// through a Harness with Fast checks, which check the accounting after
// every step and the offers of every run. Scale it with
// -allocator.sequences (or run cmd/eventcheck for long runs), replay a
// failure with -allocator.seed or the eventcheck line it prints.
func TestPropertyRandomEvents(t *testing.T) {
	lessGC(t)
	for _, c := range propertyConfigs {
		t.Run(c.Name, func(t *testing.T) {
			opts := c.Options
			opts.Fast = true
			// The last sequence that failed is the shrunk one.
			var failed allocatortest.Sequence
			props := gopter.NewProperties(parameters(t))
			props.Property("every step keeps the accounting", prop.ForAll(func(s allocatortest.Sequence) string {
				if err := allocatortest.RunSequence(opts, s); err != nil {
					failed = s
					return fmt.Sprintf("%v\nsequence:\n%s", err, s)
				}
				return ""
			}, allocatortest.GenSequence(c.Mix, *eventsFlag)))
			props.TestingRun(t)
			if t.Failed() {
				t.Logf("replay the shrunk sequence with\n  go run ./allocator/allocatortest/cmd/eventcheck -config '%s' -replay '%s'", c.Name, failed.Line())
			}
		})
	}
}

// lessGC lets the heap grow to five times what is live until the test
// ends: the event tests make short-lived garbage at a high rate, and on
// small heaps the collector would take a third of their time.
func lessGC(t testing.TB) {
	old := debug.SetGCPercent(400)
	t.Cleanup(func() { debug.SetGCPercent(old) })
}
