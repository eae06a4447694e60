package runner_test

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/leanovate/gopter"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
)

var (
	interleaveSeeds = flag.Int("interleave.seeds", 4, "how many seeds TestHostRunsBetweenEvents tries, from 1")
	interleaveSeed  = flag.Int64("interleave.seed", 0, "the one seed TestHostRunsBetweenEvents tries (a failure's replay)")
)

// hostRuns drives a harness in one goroutine as a Runner's host sees it:
// events, each checked by the harness, and between them the runs the
// runner makes on its own (a tick's AllocateAll; an Allocate when events
// left agents pending), whose offers the harness learns only later, when
// the host hands them over (Observe). TestRunnerConcurrentEvents does
// this from many goroutines, where a failure cannot be replayed; here a
// seed replays it. It returns what it did, one step a line, and the first
// violation.
func hostRuns(seed int64, steps int) (log []string, err error) {
	h, err := allocatortest.New(allocatortest.Options{Allocator: allocator.Options{Seed: seed}})
	if err != nil {
		return nil, err
	}
	draw := rand.New(rand.NewSource(seed))
	p := gopter.DefaultGenParameters()
	p.Rng = rand.New(rand.NewSource(seed + 1))
	g := allocatortest.GenEvent(allocatortest.DefaultMix())
	var unseen []allocator.Result
	run := func(what string, res allocator.Result) {
		log = append(log, what)
		if len(res.Offers)+len(res.InverseOffers) > 0 {
			unseen = append(unseen, res)
		}
	}
	for step := range steps {
		switch x := draw.Intn(10); {
		case x == 0:
			run("tick", h.Allocator().AllocateAll())
		case x == 1 && len(unseen) > 0:
			h.Observe(unseen[0])
			unseen = unseen[1:]
			log = append(log, "observe")
		default:
			v, _ := g(p).Retrieve()
			ev := v.(allocatortest.Event)
			log = append(log, ev.String())
			if err := h.Step(ev); err != nil {
				return log, fmt.Errorf("step %d: %w", step, err)
			}
			if h.Allocator().Pending() {
				run("pending run", h.Allocator().Allocate())
			}
		}
	}
	return log, allocatortest.Check(h.Allocator())
}

// TestHostRunsBetweenEvents runs hostRuns over a few seeds; more with
// -interleave.seeds, one with -interleave.seed.
func TestHostRunsBetweenEvents(t *testing.T) {
	// Seeds that once failed: 324, a role parked for its limit, kept
	// parked by the next run after a run between had offered the spare
	// that made the limit needed (the headroom alone kept it off then).
	seeds := []int64{324}
	for seed := int64(1); seed <= int64(*interleaveSeeds); seed++ {
		seeds = append(seeds, seed)
	}
	if *interleaveSeed != 0 {
		seeds = []int64{*interleaveSeed}
	}
	for _, seed := range seeds {
		log, err := hostRuns(seed, 300)
		if err != nil {
			t.Fatalf("seed %d (replay: go test ./allocator/runner -run TestHostRunsBetweenEvents -interleave.seed %d): %v\nsteps: %s", seed, seed, err, strings.Join(log, "; "))
		}
		if len(log) < 300 {
			t.Fatalf("seed %d: %d steps logged, want at least 300", seed, len(log))
		}
	}
}
