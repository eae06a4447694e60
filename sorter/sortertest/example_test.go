package sortertest_test

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// leastServed is a sorter a researcher might try: it ignores shares and
// serves the active client that has been allocated to the fewest times,
// ties by path. sorter.Accounting keeps the bookkeeping every sorter owes
// its caller, so the policy is Sort alone; its test
// (leastserved_test.go) runs it through sortertest.Run:
//
//	func TestLeastServed(t *testing.T) {
//		sortertest.Run(t, newLeastServed)
//	}
//
// It is not a DRF-kind sorter, so sortertest.RunFair does not apply.
type leastServed struct {
	sorter.Accounting
	order []string
}

func newLeastServed(cfg sorter.Config) sorter.Sorter {
	return &leastServed{Accounting: sorter.NewAccounting(cfg)}
}

func (s *leastServed) Sort() []string {
	s.order = s.AppendActive(s.order[:0]) // in path order
	slices.SortStableFunc(s.order, func(a, b string) int {
		return cmp.Compare(s.AllocationCount(a), s.AllocationCount(b))
	})
	return s.order
}

// A custom sorter is checked with sortertest.Run from a test of its own
// (see leastServed); here it takes turns with three clients.
func Example_customSorter() {
	s := newLeastServed(sorter.Config{})
	for _, c := range []string{"b", "a", "c"} {
		_ = s.Add(c)
		_ = s.Activate(c)
	}
	task := resources.MustParse("cpus:1;mem:128", "")
	for range 4 {
		first := s.Sort()[0]
		_ = s.Allocated(first, "agent1", task)
		fmt.Println(first, "->", s.Sort())
	}
	// Output:
	// a -> [b c a]
	// b -> [c a b]
	// c -> [a b c]
	// a -> [b c a]
}
