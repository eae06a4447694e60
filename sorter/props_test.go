package sorter

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/leanovate/gopter"
)

// Property tests read their seed and run count from flags, so that a
// failure can be replayed and a long run asked for:
//
//	go test ./sorter -run Property -sorter.seed=42 -sorter.runs=5000
//
// The default seed is fixed so that every run checks the same cases; 0
// picks one from the clock. A failing property prints the seed it started
// from and the generated input that broke it.
var (
	flagSeed = flag.Int64("sorter.seed", 1, "seed of the property tests (0: from the clock)")
	flagRuns = flag.Int("sorter.runs", 0, "successful runs per property test (0: each test's default)")
)

// testSeed returns the seed for a property test and logs it.
func testSeed(t *testing.T) int64 {
	t.Helper()
	seed := *flagSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -sorter.seed=%d)", seed, seed)
	return seed
}

// runs returns the number of runs for a property test: def unless
// -sorter.runs says otherwise.
func runs(def int) int {
	if *flagRuns > 0 {
		return *flagRuns
	}
	return def
}

// parameters returns gopter parameters seeded from the flags.
func parameters(t *testing.T, def int) *gopter.TestParameters {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(testSeed(t))
	p.MinSuccessfulTests = runs(def)
	return p
}

// newRand returns a generator for hand-written random loops.
func newRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x5eed))
}
