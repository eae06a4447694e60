package books

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// recording is a sorter that cannot be charged quantities (it has no
// sorter.Charger), so that it is told every allocation as resources; it
// keeps what it is told.
type recording struct {
	sorter.Sorter
	allocated, unallocated []resources.Resources
}

func (s *recording) Allocated(client, agent string, r resources.Resources) error {
	s.allocated = append(s.allocated, r)
	return s.Sorter.Allocated(client, agent, r)
}

func (s *recording) Unallocated(client, agent string, r resources.Resources) error {
	s.unallocated = append(s.unallocated, r)
	return s.Sorter.Unallocated(client, agent, r)
}

// newRecordingBooks returns books whose role sorter and framework sorters
// record what they are told; the framework sorters by salt.
func newRecordingBooks() (*Books, *recording, map[uint64]*recording) {
	b := newBooks()
	rs := &recording{Sorter: sorter.NewDRF(sorter.Config{})}
	b.RoleSorter = &roles.TrackedSorter{Sorter: rs}
	made := map[uint64]*recording{}
	b.NewFrameworkSorter = func(salt uint64) sorter.Sorter {
		s := &recording{Sorter: sorter.NewDRF(sorter.Config{})}
		made[salt] = s
		return s
	}
	return b, rs, made
}

// TestAllThatIsHeldIsGivenBackAsTheSortersGotIt: when what is given back
// is all the framework holds on the agent, the sorters are handed back the
// very value they were given (which they find by identity, in O(1)), even
// when the caller's is an equal value made apart.
func TestAllThatIsHeldIsGivenBackAsTheSortersGotIt(t *testing.T) {
	b, rs, made := newRecordingBooks()
	ag := b.agent("a1", "cpus:8;mem:4096")
	f1 := b.framework("f1", "r")
	fs := made[1]
	b.TrackAllocation(f1, ag, resources.MustParse("cpus:2;mem:1024", "*").Allocate("r"), false)
	require.Len(t, rs.allocated, 1)
	require.Len(t, fs.allocated, 1)

	again := resources.MustParse("cpus:2;mem:1024", "*").Allocate("r")
	require.False(t, again.Identical(rs.allocated[0]), "the caller's value is made apart")
	b.UntrackAllocation(f1, ag, again, false)
	require.Len(t, rs.unallocated, 1)
	require.Len(t, fs.unallocated, 1)
	require.True(t, rs.unallocated[0].Identical(rs.allocated[0]), "the role sorter gets back what it was given")
	require.True(t, fs.unallocated[0].Identical(fs.allocated[0]), "the framework sorter gets back what it was given")
	b.held(t, f1, "r", "", "")
}

// TestPartOfOneRoleIsGivenBackWithoutACopy: resources of one role that are
// part of what the framework holds reach the sorters as the caller handed
// them: giving back copies nothing on the way.
func TestPartOfOneRoleIsGivenBackWithoutACopy(t *testing.T) {
	b, rs, made := newRecordingBooks()
	ag := b.agent("a1", "cpus:8;mem:4096")
	f1 := b.framework("f1", "r")
	fs := made[1]
	b.TrackAllocation(f1, ag, resources.MustParse("cpus:2;mem:1024", "*").Allocate("r"), false)

	part := resources.MustParse("cpus:1", "*").Allocate("r")
	b.UntrackAllocation(f1, ag, part, false)
	require.Len(t, rs.unallocated, 1)
	require.Len(t, fs.unallocated, 1)
	require.True(t, rs.unallocated[0].Identical(part), "the role sorter gets the caller's value")
	require.True(t, fs.unallocated[0].Identical(part), "the framework sorter gets the caller's value")
	b.held(t, f1, "r", "cpus:1;mem:1024", "")
}
