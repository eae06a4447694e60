package sorter_test

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// The benchmarks follow Mesos's CommonSorterTest BENCHMARK_FullSort and
// BENCHMARK_HierarchyFullSort (src/tests/sorter_tests.cpp) so that figures
// compare phase by phase: each agent contributes cpus:24;mem:4096;disk:4096
// and holds cpus:16;mem:2014;disk:1024 plus ports 31000-32000 cut into 100
// ranges, allocated to a client chosen round-robin.
//
// One benchmark iteration runs every phase on a fresh sorter; ns/op is the
// whole cycle and each phase is reported as a metric of its own:
//
//	addclients-us  adding the clients
//	addagents-us   adding the agents
//	allocate-us    one Allocated per agent
//	activate-us    activating every client
//	sort-us        the first Sort (re-keys every node after the agents came)
//	sortagain-ns   a Sort with nothing changed
//	resort-ns      one Allocated on an agent the client already holds, then Sort
//	unallocate-us  one Unallocated per agent
//	rmagents-us    removing the agents
//	rmclients-us   removing the clients
//
// Like Mesos, the allocations are added after the agents and before the
// first Sort, so they find the orders due for a rebuild anyway and only
// update the figures; the resort phase measures the incremental path.

var (
	benchAgents  = []int{1000, 5000, 10000, 20000, 50000}
	benchClients = []int{1, 50, 100, 200, 500, 1000}
	benchTrees   = []struct{ height, branching int }{{3, 32}, {7, 3}, {10, 2}}
)

func benchUsed() resources.Resources {
	var b strings.Builder
	b.WriteString("cpus:16;mem:2014;disk:1024;ports:[")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		lo := 31000 + 10*i
		fmt.Fprintf(&b, "%d-%d", lo, lo+4)
	}
	b.WriteString("]")
	return resources.MustParse(b.String(), "")
}

// treeClients returns every non-root node of a tree of the given height
// (levels, root included) and branching factor, parents before children.
func treeClients(height, branching int) []string {
	var out []string
	level := []string{""}
	for range height - 1 {
		var next []string
		for _, p := range level {
			for i := range branching {
				c := strconv.Itoa(i)
				if p != "" {
					c = p + "/" + c
				}
				next = append(next, c)
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

func flatClients(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "framework" + strconv.Itoa(i)
	}
	return out
}

func agentNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "agent" + strconv.Itoa(i)
	}
	return out
}

type phases struct {
	addClients, addAgents, allocate, activate, sort time.Duration
	sortAgain, resort                               time.Duration
	unallocate, rmAgents, rmClients                 time.Duration
	sortAgainN, resortN                             int
}

func timed(d *time.Duration, f func()) {
	start := time.Now()
	f()
	*d += time.Since(start)
}

func runPhases(b *testing.B, newSorter sorter.Factory, clients, agents []string) {
	total := resources.MustParseQuantities("cpus:24;mem:4096;disk:4096")
	used := benchUsed()
	small := resources.MustParse("cpus:1;mem:1", "")
	resorts := min(len(agents), 1000)
	var ph phases
	check := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := newSorter(sorter.Config{})
		timed(&ph.addClients, func() {
			for _, c := range clients {
				check(s.Add(c))
			}
		})
		timed(&ph.addAgents, func() {
			for _, a := range agents {
				s.AddAgent(a, total)
			}
		})
		timed(&ph.allocate, func() {
			for i, a := range agents {
				check(s.Allocated(clients[i%len(clients)], a, used))
			}
		})
		timed(&ph.activate, func() {
			for _, c := range clients {
				check(s.Activate(c))
			}
		})
		// The garbage of the phases before is not the sort's to collect:
		// without this, a collection they started lands in the sort's time.
		runtime.GC()
		timed(&ph.sort, func() {
			if got := len(s.Sort()); got != len(clients) {
				b.Fatalf("Sort returned %d clients, want %d", got, len(clients))
			}
		})
		timed(&ph.sortAgain, func() {
			for range resorts {
				s.Sort()
			}
		})
		ph.sortAgainN += resorts
		timed(&ph.resort, func() {
			for i := range resorts {
				check(s.Allocated(clients[i%len(clients)], agents[i], small))
				s.Sort()
			}
		})
		ph.resortN += resorts
		for i := range resorts {
			check(s.Unallocated(clients[i%len(clients)], agents[i], small))
		}
		timed(&ph.unallocate, func() {
			for i, a := range agents {
				check(s.Unallocated(clients[i%len(clients)], a, used))
			}
		})
		timed(&ph.rmAgents, func() {
			for _, a := range agents {
				check(s.RemoveAgent(a))
			}
		})
		timed(&ph.rmClients, func() {
			// Children before parents, as an allocator removes them.
			for i := len(clients) - 1; i >= 0; i-- {
				check(s.Remove(clients[i]))
			}
		})
	}
	n := float64(b.N)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / n }
	b.ReportMetric(us(ph.addClients), "addclients-us")
	b.ReportMetric(us(ph.addAgents), "addagents-us")
	b.ReportMetric(us(ph.allocate), "allocate-us")
	b.ReportMetric(us(ph.activate), "activate-us")
	b.ReportMetric(us(ph.sort), "sort-us")
	b.ReportMetric(float64(ph.sortAgain.Nanoseconds())/float64(ph.sortAgainN), "sortagain-ns")
	b.ReportMetric(float64(ph.resort.Nanoseconds())/float64(ph.resortN), "resort-ns")
	b.ReportMetric(us(ph.unallocate), "unallocate-us")
	b.ReportMetric(us(ph.rmAgents), "rmagents-us")
	b.ReportMetric(us(ph.rmClients), "rmclients-us")
}

func drfFactory(cfg sorter.Config) sorter.Sorter { return sorter.NewDRF(cfg) }

// BenchmarkFullSort is Mesos's BENCHMARK_FullSort for the DRF sorter.
func BenchmarkFullSort(b *testing.B) {
	for _, na := range benchAgents {
		agents := agentNames(na)
		for _, nc := range benchClients {
			clients := flatClients(nc)
			b.Run(fmt.Sprintf("agents=%d/clients=%d", na, nc), func(b *testing.B) {
				runPhases(b, drfFactory, clients, agents)
			})
		}
	}
}

// BenchmarkHierarchyFullSort is Mesos's BENCHMARK_HierarchyFullSort: every
// node of a tree below the root is a client, so most clients are also
// parents and compete through their virtual leaves.
func BenchmarkHierarchyFullSort(b *testing.B) {
	for _, na := range benchAgents {
		agents := agentNames(na)
		for _, tr := range benchTrees {
			clients := treeClients(tr.height, tr.branching)
			b.Run(fmt.Sprintf("agents=%d/height=%d/branching=%d", na, tr.height, tr.branching), func(b *testing.B) {
				runPhases(b, drfFactory, clients, agents)
			})
		}
	}
}

// BenchmarkRandomFullSort runs the phases through the random sorter, whose
// Sort draws a fresh order every time.
func BenchmarkRandomFullSort(b *testing.B) {
	agents := agentNames(10000)
	for _, nc := range []int{100, 1000} {
		clients := flatClients(nc)
		b.Run(fmt.Sprintf("agents=10000/clients=%d", nc), func(b *testing.B) {
			runPhases(b, func(cfg sorter.Config) sorter.Sorter { return sorter.NewRandom(cfg) }, clients, agents)
		})
	}
}

// steady returns a DRF sorter with n active clients, each holding
// resources on its own agent, sorted once.
func steady(b *testing.B, clients []string) *sorter.DRF {
	s := sorter.NewDRF(sorter.Config{})
	total := resources.MustParseQuantities("cpus:24;mem:4096;disk:4096")
	used := benchUsed()
	for i, c := range clients {
		a := "agent" + strconv.Itoa(i)
		s.AddAgent(a, total)
		if err := s.Add(c); err != nil {
			b.Fatal(err)
		}
		if err := s.Activate(c); err != nil {
			b.Fatal(err)
		}
		if err := s.Allocated(c, a, used); err != nil {
			b.Fatal(err)
		}
	}
	s.Sort()
	return s
}

// BenchmarkSteady measures the paths an allocator takes on every offer once
// the cluster is up; none of them should allocate.
func BenchmarkSteady(b *testing.B) {
	small := resources.MustParse("cpus:1;mem:1", "")
	for _, nc := range []int{10, 1000} {
		clients := flatClients(nc)
		agents := agentNames(nc)
		b.Run(fmt.Sprintf("op=Allocated/clients=%d", nc), func(b *testing.B) {
			s := steady(b, clients)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				j := i % nc
				if i/nc%2 == 0 {
					_ = s.Allocated(clients[j], agents[j], small)
				} else {
					_ = s.Unallocated(clients[j], agents[j], small)
				}
			}
		})
		b.Run(fmt.Sprintf("op=Sort/clients=%d", nc), func(b *testing.B) {
			s := steady(b, clients)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s.Sort()
			}
		})
		b.Run(fmt.Sprintf("op=AllocatedSort/clients=%d", nc), func(b *testing.B) {
			s := steady(b, clients)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				j := i % nc
				if i/nc%2 == 0 {
					_ = s.Allocated(clients[j], agents[j], small)
				} else {
					_ = s.Unallocated(clients[j], agents[j], small)
				}
				s.Sort()
			}
		})
		b.Run(fmt.Sprintf("op=ShareOf/clients=%d", nc), func(b *testing.B) {
			s := steady(b, clients)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				_ = s.ShareOf(clients[i%nc])
			}
		})
	}
}
