package sorter_test

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// The DRF paper's example: 9 CPUs and 18 GB, user A runs tasks of <1 CPU,
// 4 GB> and user B tasks of <3 CPUs, 1 GB>. Each task goes to the first
// client in order whose task still fits.
func ExampleNewDRF() {
	s := sorter.NewDRF(sorter.Config{})
	free := resources.MustParseQuantities("cpus:9;mem:18")
	s.AddAgent("agent1", free)
	task := map[string]resources.Resources{
		"A": resources.MustParse("cpus:1;mem:4", ""),
		"B": resources.MustParse("cpus:3;mem:1", ""),
	}
	for _, c := range []string{"A", "B"} {
		_ = s.Add(c)
		_ = s.Activate(c)
	}
	for served := true; served; {
		served = false
		for _, c := range s.Sort() {
			if q := task[c].Quantities(); free.Contains(q) {
				_ = s.Allocated(c, "agent1", task[c])
				free.Subtract(q)
				fmt.Printf("%s  A=%.3f B=%.3f\n", c, s.ShareOf("A"), s.ShareOf("B"))
				served = true
				break
			}
		}
	}
	fmt.Println("free:", free)
	// Output:
	// A  A=0.222 B=0.000
	// B  A=0.222 B=0.333
	// A  A=0.444 B=0.333
	// B  A=0.444 B=0.667
	// A  A=0.667 B=0.667
	// free: mem:4
}

// Describe renders the tree: Mesos's hierarchical example, where b's
// clients hold less than a each but more together.
func ExampleDRF_Describe() {
	s := sorter.NewDRF(sorter.Config{})
	s.AddAgent("agent1", resources.MustParseQuantities("cpus:100;mem:100"))
	for _, c := range []string{"a", "b/c", "b/d"} {
		_ = s.Add(c)
		_ = s.Activate(c)
	}
	_ = s.Add("b/e") // inactive
	_ = s.Allocated("a", "agent1", resources.MustParse("cpus:6;mem:6", ""))
	_ = s.Allocated("b/c", "agent1", resources.MustParse("cpus:4;mem:4", ""))
	_ = s.Allocated("b/d", "agent1", resources.MustParse("cpus:3;mem:1", ""))
	fmt.Println(s.Sort())
	fmt.Print(s.Describe())
	// Output:
	// [a b/d b/c]
	// pool cpus:100; mem:100
	// a share=0.06 dominant=cpus weight=1 count=1 alloc={cpus:6; mem:6}
	// b/ share=0.07 dominant=cpus weight=1 count=2 alloc={cpus:7; mem:5}
	//   d share=0.03 dominant=cpus weight=1 count=1 alloc={cpus:3; mem:1}
	//   c share=0.04 dominant=cpus weight=1 count=1 alloc={cpus:4; mem:4}
	//   e share=0 dominant=cpus weight=1 count=0 alloc={} inactive
}

// Weights divide shares; a client that also has children competes with
// them through its virtual leaf ".", whose weight is 1.
func ExampleDRF_UpdateWeight() {
	s := sorter.NewDRF(sorter.Config{})
	s.AddAgent("agent1", resources.MustParseQuantities("cpus:100"))
	for _, c := range []string{"eng", "eng/web", "ops"} {
		_ = s.Add(c)
		_ = s.Activate(c)
	}
	_ = s.Allocated("eng", "agent1", resources.MustParse("cpus:30", ""))
	_ = s.Allocated("eng/web", "agent1", resources.MustParse("cpus:10", ""))
	_ = s.Allocated("ops", "agent1", resources.MustParse("cpus:35", ""))
	fmt.Println(s.Sort(), s.ShareOf("eng"), s.ShareOf("eng/."))
	_ = s.UpdateWeight("eng", 4)
	fmt.Println(s.Sort(), s.ShareOf("eng"), s.ShareOf("eng/."))
	// Output:
	// [ops eng/web eng] 0.4 0.3
	// [eng/web eng ops] 0.1 0.3
}

// Shares reports each client's standing.
func ExampleDRF_Shares() {
	s := sorter.NewDRF(sorter.Config{FairnessExcluded: resources.NewNameSet("gpus")})
	s.AddAgent("agent1", resources.MustParseQuantities("cpus:10;mem:100;gpus:1"))
	_ = s.Add("a")
	_ = s.Add("b")
	_ = s.Activate("a")
	_ = s.UpdateWeight("b", 2)
	_ = s.Allocated("a", "agent1", resources.MustParse("cpus:1;gpus:1", ""))
	_ = s.Allocated("b", "agent1", resources.MustParse("cpus:1;mem:40", ""))
	for _, sh := range s.Shares() {
		fmt.Printf("%s share=%.2f dominant=%s weight=%v count=%d active=%v\n",
			sh.Client, sh.Share, sh.Dominant, sh.Weight, sh.Count, sh.Active)
	}
	// Output:
	// a share=0.10 dominant=cpus weight=1 count=1 active=true
	// b share=0.20 dominant=mem weight=2 count=1 active=false
}

// A LazyDRF sorter of one client keeps its figures without a tree; the
// second client builds the tree the calls so far would have made, and the
// order is DRF's.
func ExampleNewLazyDRF() {
	s := sorter.NewLazyDRF(sorter.Config{})
	s.AddAgent("pool", resources.MustParseQuantities("cpus:10;mem:100"))
	_ = s.Add("f1")
	_ = s.Activate("f1")
	_ = s.Charge("f1", resources.MustParseQuantities("cpus:2"), true)
	fmt.Println(s.Sort(), s.ShareOf("f1"))
	_ = s.Add("f2")
	_ = s.Activate("f2")
	fmt.Println(s.Sort())
	// Output:
	// [f1] 0.2
	// [f2 f1]
}

// The random sorter draws a fresh weighted order on every Sort; the same
// seed and calls give the same orders.
func ExampleNewRandom() {
	draw := func(seed int64) [][]string {
		s := sorter.NewRandom(sorter.Config{Seed: seed})
		for _, c := range []string{"a", "b", "c"} {
			_ = s.Add(c)
			_ = s.Activate(c)
		}
		_ = s.UpdateWeight("c", 10)
		var out [][]string
		for range 5 {
			out = append(out, slices.Clone(s.Sort()))
		}
		return out
	}
	fmt.Println(slices.EqualFunc(draw(7), draw(7), slices.Equal[[]string]))
	// Output:
	// true
}

// byPriority is a sorter of one's own built on Accounting: clients of a
// higher priority first and, within a priority, the lower weighted
// dominant share first. Accounting does the rest of the Sorter interface.
type byPriority struct {
	sorter.Accounting
	priority map[string]int // by client; 0 when absent
	order    []string
}

func (s *byPriority) Sort() []string {
	s.order = s.AppendActive(s.order[:0]) // path order breaks the last ties
	slices.SortStableFunc(s.order, func(a, b string) int {
		return cmp.Or(
			cmp.Compare(s.priority[b], s.priority[a]),
			cmp.Compare(s.DominantShare(a), s.DominantShare(b)),
			cmp.Compare(s.AllocationCount(a), s.AllocationCount(b)))
	})
	return s.order
}

// A sorter of one's own embeds an Accounting and writes only Sort. Here
// prod comes first while it wants anything; then batch and web share by
// DRF.
func ExampleAccounting() {
	s := &byPriority{Accounting: sorter.NewAccounting(sorter.Config{}), priority: map[string]int{"prod": 1}}
	var _ sorter.Sorter = s
	s.AddAgent("agent1", resources.MustParseQuantities("cpus:10;mem:100"))
	for _, c := range []string{"batch", "prod", "web"} {
		_ = s.Add(c)
		_ = s.Activate(c)
	}
	task := map[string]resources.Resources{
		"prod":  resources.MustParse("cpus:2;mem:10", ""),
		"batch": resources.MustParse("cpus:1;mem:20", ""),
		"web":   resources.MustParse("cpus:1;mem:5", ""),
	}
	for i := range 6 {
		first := s.Sort()[0]
		_ = s.Allocated(first, "agent1", task[first])
		if first == "prod" && i == 1 {
			_ = s.Deactivate("prod") // prod has all it wants
		}
		fmt.Printf("%s runs a task; next: %v\n", first, s.Sort())
	}
	fmt.Println("batch holds", s.AllocationQuantities("batch"))
	// Output:
	// prod runs a task; next: [prod batch web]
	// prod runs a task; next: [batch web]
	// batch runs a task; next: [web batch]
	// web runs a task; next: [web batch]
	// web runs a task; next: [batch web]
	// batch runs a task; next: [web batch]
	// batch holds cpus:2; mem:40
}
