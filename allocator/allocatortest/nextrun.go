package allocatortest

import (
	"errors"
	"fmt"

	"github.com/allot-go/allot/allocator"
)

// The next run, with and without caches.
//
// The cache-free twin compares the runs a sequence makes. A cache that
// goes stale and is mended by a later event before any run reads it does
// no harm, but one that is read only many events later is found late, far
// from the event that broke it. So the harness also asks, after a step,
// what the allocator's next AllocateAll would offer: it restores two
// copies from the allocator's snapshot, one with the caches the snapshot
// keeps and one without (allocator.RestoreOptions.CacheFree), runs both
// and compares them. The allocator itself is left as it was. Without Fast
// this happens after every step; with Fast every Options.OracleEvery
// steps, and a difference is replayed without Fast, which names the first
// step after which the next run would have differed.

// DefaultOracleEvery is how many steps a Fast harness lets pass between
// two comparisons of the next run, unless Options.OracleEvery says.
const DefaultOracleEvery = 16

// checkNextRun compares the next AllocateAll of two copies of the
// allocator, with and without caches. Sorters that cannot be saved
// (without sorter.Snapshotter) leave the comparison to the cache-free
// twin.
func (h *Harness) checkNextRun() []error {
	if h.noSnapshots {
		return nil
	}
	data, err := h.a.Snapshot()
	if errors.Is(err, allocator.ErrSnapshotSorter) {
		h.noSnapshots = true
		return nil
	}
	if err != nil {
		return []error{fmt.Errorf("Snapshot for the next run: %w", err)}
	}
	ro := h.restoreOptions()
	cached, err := allocator.Restore(data, ro)
	if err != nil {
		return []error{fmt.Errorf("Restore for the next run: %w", err)}
	}
	ro.CacheFree = true
	free, err := allocator.Restore(data, ro)
	if err != nil {
		return []error{fmt.Errorf("Restore without caches for the next run: %w", err)}
	}
	want, got := free.AllocateAll(), cached.AllocateAll()
	if err := sameRun(want, got); err != nil {
		return []error{fmt.Errorf("the next AllocateAll would differ with the caches and without (- without, + with): %w", err)}
	}
	free.Fingerprint(&h.twinFP)
	cached.Fingerprint(&h.forkFP)
	if !h.twinFP.Equal(&h.forkFP) {
		return []error{fmt.Errorf("after the next AllocateAll the state would differ with the caches and without: %s:\n%s",
			fingerprintDiff(&h.twinFP, &h.forkFP), diff(free.Describe(), cached.Describe()))}
	}
	if err := sameRoles(free.Roles(), cached.Roles()); err != nil {
		return []error{fmt.Errorf("after the next AllocateAll the roles would differ with the caches and without: %w", err)}
	}
	if err := h.demandDiff(free, cached); err != nil {
		return []error{fmt.Errorf("after the next AllocateAll the demand left would differ with the caches and without: %w", err)}
	}
	return nil
}

// restoreOptions are what the harness restores its allocator's snapshots
// with.
func (h *Harness) restoreOptions() allocator.RestoreOptions {
	o := h.opts.Allocator
	return allocator.RestoreOptions{Clock: h.Now, RoleSorter: o.RoleSorter, FrameworkSorter: o.FrameworkSorter}
}
