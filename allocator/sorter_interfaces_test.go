package allocator_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// plainSorter is a role sorter built on sorter.Accounting, in path order,
// that counts how the allocator reads its order.
type plainSorter struct {
	sorter.Accounting
	order        []string
	sorts, walks int
}

func (s *plainSorter) ordered() []string {
	s.order = s.AppendActive(s.order[:0])
	return s.order
}

func (s *plainSorter) Sort() []string { s.sorts++; return s.ordered() }

// walkingSorter is a plainSorter that is also a sorter.Walker.
type walkingSorter struct{ plainSorter }

func (s *walkingSorter) Walk(visit func(string) bool) {
	s.walks++
	for _, c := range s.ordered() {
		if !visit(c) {
			return
		}
	}
}

// sharingSorter is a plainSorter that is also a sorter.Sharer: a role's
// share is its fraction of the pool's CPUs.
type sharingSorter struct{ plainSorter }

func (s *sharingSorter) ShareOf(path string) float64 {
	return s.SubtreeQuantity(path, "cpus") / s.Pool().Float64("cpus")
}

var (
	_ sorter.Walker = (*walkingSorter)(nil)
	_ sorter.Sharer = (*sharingSorter)(nil)
)

// roleSorterRun runs one allocation of two agents for one framework with
// the role sorter s and returns the allocator.
func roleSorterRun(t *testing.T, s sorter.Sorter) *allocator.Allocator {
	t.Helper()
	a := newAllocator(t, allocator.Options{Seed: 1, RoleSorter: func(sorter.Config) sorter.Sorter { return s }})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:1;mem:1024", "*"), nil))
	require.NoError(t, a.AddAgent("a2", allocator.AgentInfo{}, resources.MustParse("cpus:3;mem:1024", "*"), nil))
	require.NoError(t, a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"eng/web"}}, nil, allocator.Active))
	if n := len(a.Allocate().Offers); n != 2 {
		t.Fatalf("%d offers, want 2", n)
	}
	return a
}

// A run walks a role sorter that is a sorter.Walker and never sorts it; it
// sorts one that is not.
func TestRoleSorterWalker(t *testing.T) {
	w := &walkingSorter{}
	roleSorterRun(t, w)
	if w.walks == 0 || w.sorts != 0 {
		t.Errorf("a sorter.Walker was walked %d times and sorted %d times; want walks only", w.walks, w.sorts)
	}
	p := &plainSorter{}
	roleSorterRun(t, p)
	if p.sorts == 0 {
		t.Error("a sorter without Walk was never sorted")
	}
}

// RoleView.Share is the role sorter's ShareOf, for the role and its
// ancestors; -1 when the role sorter is not a sorter.Sharer.
func TestRoleViewShareFromSharer(t *testing.T) {
	want := map[string]float64{"eng": 1, "eng/web": 1}
	for _, r := range roleSorterRun(t, &sharingSorter{}).Roles() {
		if r.Share != want[r.Role] {
			t.Errorf("role %s: Share = %v, want %v", r.Role, r.Share, want[r.Role])
		}
	}
	for _, r := range roleSorterRun(t, &plainSorter{}).Roles() {
		if r.Share != -1 {
			t.Errorf("role %s: Share = %v without a Sharer, want -1", r.Role, r.Share)
		}
	}
}
