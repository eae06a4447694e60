package allocator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// The default framework sorter is the lazy DRF sorter (the cache-free
// allocator's is the DRF sorter), and a snapshot of either restores into an
// allocator with the other: they save the same state under the same name.
func TestFrameworkSorterDefaultsAndRestore(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	build := func(opts Options) *Allocator {
		opts.Seed, opts.Clock = 1, now
		a, err := New(opts)
		require.NoError(t, err)
		require.NoError(t, a.AddAgent("a0", AgentInfo{}, resources.MustParse("cpus:8;mem:1024", "*"), nil))
		for fw, role := range map[string]string{"f1": "solo", "f2": "pair", "f3": "pair"} {
			require.NoError(t, a.AddFramework(fw, FrameworkInfo{Roles: []string{role}}, nil, Active))
		}
		a.AllocateAll()
		return a
	}
	lazy, eager := build(Options{}), build(Options{CacheFree: true})
	require.IsType(t, &sorter.LazyDRF{}, lazy.books.FrameworkSorter("solo").Sorter)
	require.IsType(t, &sorter.DRF{}, eager.books.FrameworkSorter("solo").Sorter)
	require.Equal(t, eager.Describe(), lazy.Describe())

	lazyBytes, err := lazy.Snapshot()
	require.NoError(t, err)
	eagerBytes, err := eager.Snapshot()
	require.NoError(t, err)
	drf := func(c sorter.Config) sorter.Sorter { return sorter.NewDRF(c) }
	fromLazy, err := Restore(lazyBytes, RestoreOptions{Clock: now, FrameworkSorter: drf})
	require.NoError(t, err, "a lazy sorter's snapshot into DRF sorters")
	fromEager, err := Restore(eagerBytes, RestoreOptions{Clock: now})
	require.NoError(t, err, "a DRF sorter's snapshot into lazy ones")
	require.IsType(t, &sorter.LazyDRF{}, fromEager.books.FrameworkSorter("solo").Sorter)
	require.Equal(t, lazy.Describe(), fromLazy.Describe())
	require.Equal(t, lazy.Describe(), fromEager.Describe())
	require.Equal(t, lazy.AllocateAll().Offers, fromEager.AllocateAll().Offers)
}
