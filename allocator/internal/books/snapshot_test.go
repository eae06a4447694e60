package books

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/codec"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// The sorters walk out and back in: a reader's sorters, made from the
// salts read, order and charge as the saved ones, and the totals version
// each was told comes back. A factory that makes another type of sorter,
// or one that cannot be saved, is ErrSnapshotSorter; a damaged sorter
// state is ErrInvalidSnapshot.
func TestWalkSorters(t *testing.T) {
	b := newBooks()
	ag := b.agent("a1", "cpus:8;mem:8192")
	f1, f2 := b.framework("f1", "web"), b.framework("f2", "web")
	b.framework("f3", "batch")
	b.TrackAllocation(f1, ag, resources.MustParse("cpus(allocated: web):3", "*"), true)
	b.TrackAllocation(f2, ag, resources.MustParse("cpus(allocated: web):1", "*"), true)
	b.RefreshSorterTotals()
	saved := b.FrameworkSorters()
	require.Len(t, saved, 2)
	saved["web"].Salt = 7

	w := codec.NewWriter(0)
	b.WalkSorters(w, &saved, nil)
	require.NoError(t, w.Err())

	back := newBooks()
	var salts []uint64
	var read map[string]*roles.TrackedSorter
	r := codec.NewReader(w.Out.B)
	back.WalkSorters(r, &read, func(salt uint64) *roles.TrackedSorter {
		salts = append(salts, salt)
		return &roles.TrackedSorter{Sorter: sorter.NewDRF(sorter.Config{}), Salt: salt}
	})
	require.NoError(t, r.Err())
	require.ElementsMatch(t, []uint64{saved["batch"].Salt, 7}, salts)
	require.Equal(t, []string{"f2", "f1"}, read["web"].Sorter.Sort(), "the least served first, as saved")
	require.Equal(t, saved["web"].TotalsVersion, read["web"].TotalsVersion)
	require.Equal(t, b.RoleSorter.TotalsVersion, back.RoleSorter.TotalsVersion)
	require.Equal(t, b.RoleSorter.Sorter.Sort(), back.RoleSorter.Sorter.Sort())

	// A factory of another type of sorter.
	other := newBooks()
	other.RoleSorter = &roles.TrackedSorter{Sorter: sorter.NewRandom(sorter.Config{})}
	r = codec.NewReader(w.Out.B)
	other.WalkSorters(r, &read, nil)
	require.True(t, errors.Is(r.Err(), codec.ErrSnapshotSorter), "%v", r.Err())
	require.ErrorContains(t, r.Err(), "saved a *sorter.DRF")

	// A sorter that cannot be saved.
	plain := newBooks()
	plain.RoleSorter = &roles.TrackedSorter{Sorter: unsaved{plain.RoleSorter.Sorter}}
	w = codec.NewWriter(0)
	none := map[string]*roles.TrackedSorter{}
	plain.WalkSorters(w, &none, nil)
	require.True(t, errors.Is(w.Err(), codec.ErrSnapshotSorter), "%v", w.Err())

	// A damaged state: the role sorter's bytes cut short.
	w = codec.NewWriter(0)
	none = map[string]*roles.TrackedSorter{}
	b.WalkSorters(w, &none, nil)
	require.NoError(t, w.Err())
	r = codec.NewReader(w.Out.B[:len(w.Out.B)-3])
	newBooks().WalkSorters(r, &read, nil)
	require.Error(t, r.Err())
}

// unsaved is a sorter without sorter.Snapshotter.
type unsaved struct{ sorter.Sorter }
