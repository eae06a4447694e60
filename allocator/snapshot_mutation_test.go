package allocator_test

import (
	"bytes"
	"errors"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
)

var (
	mutationsFlag    = flag.Int("restore.mutations", 3000, "damaged snapshots TestRestoreDamagedSnapshots tries")
	mutationSeedFlag = flag.Uint64("restore.seed", 1, "seed of TestRestoreDamagedSnapshots's damage")
)

// TestRestoreDamagedSnapshots changes one to four bytes of valid snapshots
// at random and seals them again with a correct checksum, so that the
// damage reaches past the checksum into the state's checks. Restore must
// refuse each with ErrInvalidSnapshot or ErrSnapshotSorter, or return an
// allocator whose state holds: its invariants hold, it saves the same
// bytes, and a run leaves its invariants holding. FuzzRestore looks for the
// same with coverage; this looks at many more inputs a second, and found a
// state FuzzRestore had not (a role capped in a run not made yet). Long
// runs:
// -args -restore.mutations=3000000 -restore.seed=N.
func TestRestoreDamagedSnapshots(t *testing.T) {
	configs := allocatortest.Configs()
	seeds := [][]byte{
		snapshotOf(t, allocatortest.Options{}, 7, 20),
		snapshotOf(t, allocatortest.Options{}, 7, 200),
		snapshotOf(t, configs[1].Options, 5, 300),
		snapshotOf(t, configs[2].Options, 3, 200),
	}
	seed := *mutationSeedFlag
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	for i := range *mutationsFlag {
		base := seeds[rng.IntN(len(seeds))]
		body := bytes.Clone(base[:len(base)-4])
		for k := 1 + rng.IntN(4); k > 0; k-- {
			body[rng.IntN(len(body))] = byte(rng.IntN(256))
		}
		in := resealed(body)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d, damage %d: "+format, append([]any{seed, i}, args...)...)
		}
		a, err := allocator.Restore(in, allocator.RestoreOptions{})
		if err != nil {
			if a != nil || !(errors.Is(err, allocator.ErrInvalidSnapshot) || errors.Is(err, allocator.ErrSnapshotSorter)) {
				fail("%v (allocator %v)", err, a)
			}
			continue
		}
		if err := a.CheckInvariants(); err != nil {
			fail("restored: %v", err)
		}
		if again, err := a.Snapshot(); err != nil || !bytes.Equal(again, in) {
			fail("restored snapshot saves other bytes (%v)", err)
		}
		a.AllocateAll()
		if err := a.CheckInvariants(); err != nil {
			fail("after a run: %v", err)
		}
	}
}
