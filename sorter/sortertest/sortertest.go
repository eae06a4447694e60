// Package sortertest is a conformance kit for sorter.Sorter implementations.
//
// Run checks the behaviours every sorter must have, whatever order it
// chooses: add, remove, activate and deactivate bookkeeping, allocation
// accounting (shared volumes counted once per agent), agent totals,
// hierarchy bookkeeping (virtual leaves appear and disappear with their
// children), the rule that a call which fails changes nothing, and that a
// sorter.Stable sorter sorts the same while nothing changes. RunFair
// adds the ordering behaviours of a dominant resource fairness sorter:
// dominant shares, weights, tie rules, fairness exclusions, pool totals and
// the hierarchical order of the sorter package's DRF.
//
// Use it from a test of your own:
//
//	func TestMySorter(t *testing.T) {
//		sortertest.Run(t, func(cfg sorter.Config) sorter.Sorter { return New(cfg) })
//		sortertest.RunFair(t, func(cfg sorter.Config) sorter.Sorter { return New(cfg) })
//	}
//
// Each behaviour is a subtest, so -run selects them (-run 'MySorter/Fair/Ties').
//
// A sorter that embeds sorter.Accounting gets the bookkeeping Run checks
// from it; Run then checks that its Sort returns each active client once.
package sortertest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// res parses resources in Mesos's text format.
func res(text string) resources.Resources { return resources.MustParse(text, "") }

// qty parses scalar quantities.
func qty(text string) resources.Quantities { return resources.MustParseQuantities(text) }

// volume is a shared persistent volume of 100 MB, counted once per client
// per agent however many copies a client holds.
const volume = "disk(role1)[id:vol1,path:data]<SHARED>:100"

type checker struct {
	t *testing.T
	s sorter.Sorter
}

func (c checker) ok(err error, what string) {
	c.t.Helper()
	if err != nil {
		c.t.Fatalf("%s: unexpected error: %v", what, err)
	}
}

func (c checker) fails(err, want error, what string) {
	c.t.Helper()
	if !errors.Is(err, want) {
		c.t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

func (c checker) add(clients ...string) {
	c.t.Helper()
	for _, cl := range clients {
		c.ok(c.s.Add(cl), "Add("+cl+")")
	}
}

func (c checker) activate(clients ...string) {
	c.t.Helper()
	for _, cl := range clients {
		c.ok(c.s.Activate(cl), "Activate("+cl+")")
	}
}

func (c checker) alloc(client, agent, text string) {
	c.t.Helper()
	c.ok(c.s.Allocated(client, agent, res(text)), fmt.Sprintf("Allocated(%s, %s, %s)", client, agent, text))
}

func (c checker) unalloc(client, agent, text string) {
	c.t.Helper()
	c.ok(c.s.Unallocated(client, agent, res(text)), fmt.Sprintf("Unallocated(%s, %s, %s)", client, agent, text))
}

// order checks Sort's result exactly.
func (c checker) order(want ...string) {
	c.t.Helper()
	got := c.s.Sort()
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		c.t.Fatalf("Sort() = %q, want %q", got, want)
	}
}

// members checks Sort's result as a set, each client exactly once.
func (c checker) members(want ...string) {
	c.t.Helper()
	got := slices.Clone(c.s.Sort())
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		c.t.Fatalf("Sort() holds %q, want %q once each", got, want)
	}
}

func (c checker) quantities(client, want string) {
	c.t.Helper()
	if got := c.s.AllocationQuantities(client); !got.Equal(qty(want)) {
		c.t.Fatalf("AllocationQuantities(%s) = %s, want %s", client, got, qty(want))
	}
}

// allocation checks Allocation(client) against agent -> text; agents whose
// allocation is empty may be present with an empty value or absent.
func (c checker) allocation(client string, want map[string]string) {
	c.t.Helper()
	got := c.s.Allocation(client)
	for agent, r := range got {
		if _, ok := want[agent]; !ok && !r.IsEmpty() {
			c.t.Fatalf("Allocation(%s)[%s] = %s, want nothing", client, agent, r)
		}
	}
	for agent, text := range want {
		if r := got[agent]; !r.Equal(res(text)) {
			c.t.Fatalf("Allocation(%s)[%s] = %s, want %s", client, agent, r, res(text))
		}
	}
}

// snapshot renders what a sorter shows of itself, to check that a failing
// call changed nothing.
func snapshot(s sorter.Sorter, clients []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "count=%d\n", s.Count())
	for _, cl := range clients {
		fmt.Fprintf(&b, "%s contains=%v qty=%s", cl, s.Contains(cl), s.AllocationQuantities(cl))
		alloc := s.Allocation(cl)
		agents := make([]string, 0, len(alloc))
		for a := range alloc {
			agents = append(agents, a)
		}
		slices.Sort(agents)
		for _, a := range agents {
			fmt.Fprintf(&b, " %s=%s", a, alloc[a])
		}
		b.WriteByte('\n')
	}
	active := slices.Clone(s.Sort())
	slices.Sort(active)
	fmt.Fprintf(&b, "active=%q\n", active)
	return b.String()
}

// Run runs the behaviours every sorter must have. newSorter is called once
// per subtest, so state never leaks between them.
func Run(t *testing.T, newSorter sorter.Factory) {
	t.Helper()
	with := func(name string, f func(c checker)) {
		t.Run(name, func(t *testing.T) {
			f(checker{t: t, s: newSorter(sorter.Config{Seed: 1})})
		})
	}

	with("Empty", func(c checker) {
		if n := c.s.Count(); n != 0 {
			c.t.Fatalf("Count() = %d on a new sorter", n)
		}
		if c.s.Contains("a") {
			c.t.Fatal("Contains(a) on a new sorter")
		}
		c.order()
	})

	with("AddIsInactive", func(c checker) {
		c.add("a", "b")
		if !c.s.Contains("a") || !c.s.Contains("b") || c.s.Count() != 2 {
			c.t.Fatalf("after Add(a), Add(b): Contains = %v, %v; Count = %d", c.s.Contains("a"), c.s.Contains("b"), c.s.Count())
		}
		c.order()
		c.fails(c.s.Add("a"), sorter.ErrDuplicateClient, "Add(a) again")
		if c.s.Count() != 2 {
			c.t.Fatalf("Count() = %d after a duplicate Add", c.s.Count())
		}
	})

	with("InvalidPaths", func(c checker) {
		for _, p := range []string{"", "/", "/a", "a/", "a//b", ".", "a/.", "./a", "a/./b"} {
			c.fails(c.s.Add(p), sorter.ErrInvalidClient, fmt.Sprintf("Add(%q)", p))
			c.fails(c.s.UpdateWeight(p, 2), sorter.ErrInvalidClient, fmt.Sprintf("UpdateWeight(%q)", p))
			if c.s.Contains(p) {
				c.t.Fatalf("Contains(%q) after a rejected Add", p)
			}
		}
		if c.s.Count() != 0 {
			c.t.Fatalf("Count() = %d after rejected Adds", c.s.Count())
		}
	})

	with("ActivateDeactivate", func(c checker) {
		c.add("a", "b")
		c.activate("a")
		c.members("a")
		c.activate("a") // idempotent
		c.members("a")
		c.activate("b")
		c.members("a", "b")
		c.ok(c.s.Deactivate("a"), "Deactivate(a)")
		c.members("b")
		c.ok(c.s.Deactivate("a"), "Deactivate(a) again")
		c.members("b")
		if !c.s.Contains("a") || c.s.Count() != 2 {
			c.t.Fatal("Deactivate removed the client")
		}
	})

	with("Remove", func(c checker) {
		c.add("a", "b")
		c.activate("a", "b")
		c.alloc("a", "s1", "cpus:1")
		c.ok(c.s.Remove("a"), "Remove(a)")
		if c.s.Contains("a") || c.s.Count() != 1 {
			c.t.Fatalf("after Remove(a): Contains = %v, Count = %d", c.s.Contains("a"), c.s.Count())
		}
		c.members("b")
		c.fails(c.s.Remove("a"), sorter.ErrUnknownClient, "Remove(a) again")
		c.add("a")
		c.members("b") // back inactive
		c.quantities("a", "")
		c.allocation("a", nil)
	})

	with("UnknownClient", func(c checker) {
		c.add("a")
		r := res("cpus:1")
		c.fails(c.s.Remove("x"), sorter.ErrUnknownClient, "Remove(x)")
		c.fails(c.s.Activate("x"), sorter.ErrUnknownClient, "Activate(x)")
		c.fails(c.s.Deactivate("x"), sorter.ErrUnknownClient, "Deactivate(x)")
		c.fails(c.s.Allocated("x", "s1", r), sorter.ErrUnknownClient, "Allocated(x)")
		c.fails(c.s.Unallocated("x", "s1", r), sorter.ErrUnknownClient, "Unallocated(x)")
		c.fails(c.s.Update("x", "s1", r, r), sorter.ErrUnknownClient, "Update(x)")
		c.fails(c.s.Activate("a/b"), sorter.ErrUnknownClient, "Activate(a/b)")
		if c.s.Contains("x") {
			c.t.Fatal("Contains(x)")
		}
		if got := c.s.Allocation("x"); len(got) != 0 {
			c.t.Fatalf("Allocation(x) = %v, want nothing", got)
		}
		c.quantities("x", "")
		c.order()
		if c.s.Count() != 1 {
			c.t.Fatalf("Count() = %d", c.s.Count())
		}
	})

	with("Allocation", func(c checker) {
		c.add("a", "b")
		c.alloc("a", "s1", "cpus:1;mem:10")
		c.alloc("a", "s1", "cpus:2;ports:[31000-31009]")
		c.alloc("a", "s2", "cpus:4")
		c.alloc("b", "s2", "mem:5")
		c.allocation("a", map[string]string{"s1": "cpus:3;mem:10;ports:[31000-31009]", "s2": "cpus:4"})
		c.allocation("b", map[string]string{"s2": "mem:5"})
		c.quantities("a", "cpus:7;mem:10")
		c.quantities("b", "mem:5")

		c.unalloc("a", "s1", "cpus:1;ports:[31000-31004]")
		c.allocation("a", map[string]string{"s1": "cpus:2;mem:10;ports:[31005-31009]", "s2": "cpus:4"})
		c.quantities("a", "cpus:6;mem:10")
		c.unalloc("a", "s2", "cpus:4")
		c.allocation("a", map[string]string{"s1": "cpus:2;mem:10;ports:[31005-31009]"})
		c.quantities("a", "cpus:2;mem:10")
		c.quantities("b", "mem:5")
	})

	with("AllocationWhileInactive", func(c checker) {
		c.add("a")
		c.alloc("a", "s1", "cpus:1")
		c.activate("a")
		c.ok(c.s.Deactivate("a"), "Deactivate(a)")
		c.quantities("a", "cpus:1")
		c.unalloc("a", "s1", "cpus:1")
		c.quantities("a", "")
	})

	with("NotAllocated", func(c checker) {
		c.add("a")
		c.alloc("a", "s1", "cpus:2;ports:[31000-31009]")
		cases := []struct{ agent, text string }{
			{"s1", "cpus:3"},
			{"s1", "mem:1"},
			{"s1", "ports:[31005-31015]"},
			{"s2", "cpus:1"},
			{"s1", volume},
		}
		for _, tc := range cases {
			before := snapshot(c.s, []string{"a"})
			c.fails(c.s.Unallocated("a", tc.agent, res(tc.text)), sorter.ErrNotAllocated,
				fmt.Sprintf("Unallocated(a, %s, %s)", tc.agent, tc.text))
			c.fails(c.s.Update("a", tc.agent, res(tc.text), res("cpus:1")), sorter.ErrNotAllocated,
				fmt.Sprintf("Update(a, %s, %s, cpus:1)", tc.agent, tc.text))
			if after := snapshot(c.s, []string{"a"}); after != before {
				c.t.Fatalf("a failed call changed the sorter:\nbefore:\n%safter:\n%s", before, after)
			}
		}
	})

	with("Update", func(c checker) {
		c.add("a")
		c.alloc("a", "s1", "cpus:4;mem:10")
		c.ok(c.s.Update("a", "s1", res("cpus:2"), res("cpus(role1):2")), "Update to a reservation")
		c.allocation("a", map[string]string{"s1": "cpus:2;cpus(role1):2;mem:10"})
		c.quantities("a", "cpus:4;mem:10")
		c.ok(c.s.Update("a", "s1", res("mem:10"), res("mem:4;disk:1")), "Update with new quantities")
		c.allocation("a", map[string]string{"s1": "cpus:2;cpus(role1):2;mem:4;disk:1"})
		c.quantities("a", "cpus:4;mem:4;disk:1")
	})

	with("SharedCountedOncePerAgent", func(c checker) {
		c.add("a", "b")
		c.alloc("a", "s1", volume)
		c.alloc("a", "s1", volume)
		c.quantities("a", "disk:100")
		c.alloc("a", "s2", volume)
		c.quantities("a", "disk:200")
		c.alloc("b", "s1", volume+";cpus:1")
		c.quantities("b", "disk:100;cpus:1")
		c.unalloc("a", "s1", volume)
		c.quantities("a", "disk:200")
		c.unalloc("a", "s1", volume)
		c.quantities("a", "disk:100")
		c.allocation("a", map[string]string{"s2": volume})
		c.fails(c.s.Unallocated("a", "s1", res(volume)), sorter.ErrNotAllocated, "Unallocated of a volume no longer held")
	})

	with("RemoveDropsAllocation", func(c checker) {
		c.add("a", "a/b")
		c.alloc("a", "s1", "cpus:1;"+volume)
		c.alloc("a/b", "s1", "cpus:2;"+volume)
		c.ok(c.s.Remove("a/b"), "Remove(a/b)")
		c.quantities("a", "cpus:1;disk:100")
		c.ok(c.s.Remove("a"), "Remove(a)")
		c.add("a")
		c.quantities("a", "")
		c.allocation("a", nil)
	})

	with("Agents", func(c checker) {
		c.fails(c.s.RemoveAgent("s1"), sorter.ErrUnknownAgent, "RemoveAgent(s1) before AddAgent")
		c.s.AddAgent("s1", qty("cpus:4;mem:100"))
		c.s.AddAgent("s1", qty("cpus:8;mem:100")) // replaces
		c.s.AddAgent("s2", qty("cpus:4"))
		c.ok(c.s.RemoveAgent("s1"), "RemoveAgent(s1)")
		c.fails(c.s.RemoveAgent("s1"), sorter.ErrUnknownAgent, "RemoveAgent(s1) twice")
		c.ok(c.s.RemoveAgent("s2"), "RemoveAgent(s2)")
		// Allocations outlive their agent's total.
		c.add("a")
		c.s.AddAgent("s3", qty("cpus:4"))
		c.alloc("a", "s3", "cpus:1")
		c.ok(c.s.RemoveAgent("s3"), "RemoveAgent(s3)")
		c.quantities("a", "cpus:1")
		c.unalloc("a", "s3", "cpus:1")
	})

	with("Hierarchy", func(c checker) {
		c.add("a/b/c", "a", "d", "a/b")
		if c.s.Count() != 4 {
			c.t.Fatalf("Count() = %d, want 4", c.s.Count())
		}
		for _, p := range []string{"a/b/c", "a", "d", "a/b"} {
			if !c.s.Contains(p) {
				c.t.Fatalf("Contains(%s) = false", p)
			}
		}
		c.fails(c.s.Add("a/b"), sorter.ErrDuplicateClient, "Add(a/b) again")
		c.activate("a/b/c", "a", "d", "a/b")
		c.members("a", "a/b", "a/b/c", "d")
		c.ok(c.s.Remove("a/b"), "Remove(a/b)")
		c.members("a", "a/b/c", "d")
		if c.s.Contains("a/b") || !c.s.Contains("a/b/c") {
			c.t.Fatal("Remove(a/b) removed its child or kept itself")
		}
		c.ok(c.s.Remove("a/b/c"), "Remove(a/b/c)")
		c.members("a", "d")
		c.ok(c.s.Deactivate("a"), "Deactivate(a)")
		c.members("d")
	})

	with("SplitAndJoinKeepState", func(c checker) {
		// A client that gains a child keeps its activity and allocation,
		// and keeps them again when the child goes.
		c.add("a")
		c.activate("a")
		c.alloc("a", "s1", "cpus:1")
		c.add("a/x")
		c.members("a")
		c.quantities("a", "cpus:1")
		c.alloc("a/x", "s1", "cpus:2")
		c.quantities("a", "cpus:1")
		c.activate("a/x")
		c.members("a", "a/x")
		c.ok(c.s.Remove("a/x"), "Remove(a/x)")
		c.members("a")
		c.quantities("a", "cpus:1")
		c.allocation("a", map[string]string{"s1": "cpus:1"})
		c.unalloc("a", "s1", "cpus:1")

		// An inactive client that gains and loses a child stays inactive.
		c.add("b", "b/y")
		c.activate("b/y")
		c.members("a", "b/y")
		c.ok(c.s.Remove("b/y"), "Remove(b/y)")
		c.members("a")
		if !c.s.Contains("b") {
			c.t.Fatal("Remove(b/y) removed b")
		}
	})

	with("InternalNodeIsNotAClient", func(c checker) {
		c.add("a/b")
		if c.s.Contains("a") {
			c.t.Fatal("Contains(a) with only a/b added")
		}
		c.fails(c.s.Activate("a"), sorter.ErrUnknownClient, "Activate(a)")
		c.fails(c.s.Remove("a"), sorter.ErrUnknownClient, "Remove(a)")
		c.add("a")
		c.activate("a")
		c.members("a")
		c.ok(c.s.Remove("a"), "Remove(a)")
		if !c.s.Contains("a/b") {
			c.t.Fatal("Remove(a) removed a/b")
		}
	})

	with("Weights", func(c checker) {
		for _, w := range []float64{0, -1, nan(), inf(1), inf(-1)} {
			c.fails(c.s.UpdateWeight("a", w), sorter.ErrInvalidWeight, fmt.Sprintf("UpdateWeight(a, %v)", w))
		}
		c.ok(c.s.UpdateWeight("not/yet/there", 3), "UpdateWeight of a path not in the tree")
		c.ok(c.s.UpdateWeight("not/yet/there", 1), "UpdateWeight back to 1")
		c.add("a")
		c.activate("a")
		c.ok(c.s.UpdateWeight("a", 0.5), "UpdateWeight(a, 0.5)")
		c.members("a")
	})

	with("FailedCallsChangeNothing", func(c checker) {
		clients := []string{"a", "a/b", "c"}
		c.add(clients...)
		c.activate("a", "c")
		c.alloc("a", "s1", "cpus:1;"+volume)
		c.alloc("a/b", "s2", "mem:1")
		c.s.AddAgent("s1", qty("cpus:10;mem:10;disk:1000"))
		before := snapshot(c.s, clients)
		calls := map[string]func() error{
			"Add(a)":              func() error { return c.s.Add("a") },
			"Add(a//b)":           func() error { return c.s.Add("a//b") },
			"Remove(x)":           func() error { return c.s.Remove("x") },
			"Activate(x)":         func() error { return c.s.Activate("x") },
			"UpdateWeight(a, -1)": func() error { return c.s.UpdateWeight("a", -1) },
			"UpdateWeight(., 2)":  func() error { return c.s.UpdateWeight(".", 2) },
			"Unallocated(a, too much)": func() error {
				return c.s.Unallocated("a", "s1", res("cpus:1;mem:1"))
			},
			"Update(a/b, wrong agent)": func() error {
				return c.s.Update("a/b", "s1", res("mem:1"), res("cpus:9"))
			},
			"RemoveAgent(s9)": func() error { return c.s.RemoveAgent("s9") },
		}
		names := make([]string, 0, len(calls))
		for name := range calls {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if err := calls[name](); err == nil {
				c.t.Fatalf("%s succeeded", name)
			}
			if after := snapshot(c.s, clients); after != before {
				c.t.Fatalf("%s failed but changed the sorter:\nbefore:\n%safter:\n%s", name, before, after)
			}
		}
	})

	with("SortIsEachActiveClientOnce", func(c checker) {
		// A deterministic mix of adds, removes and activations over a
		// small hierarchy.
		paths := []string{"a", "a/b", "a/b/c", "a/d", "e", "e/f", "g"}
		active := map[string]bool{}
		present := map[string]bool{}
		for step := range 200 {
			p := paths[(step*7+step/3)%len(paths)]
			switch (step * 5) % 6 {
			case 0, 1:
				if !present[p] {
					c.add(p)
					present[p] = true
				}
			case 2:
				if present[p] {
					c.activate(p)
					active[p] = true
				}
			case 3:
				if present[p] {
					c.ok(c.s.Deactivate(p), "Deactivate("+p+")")
					active[p] = false
				}
			case 4:
				if present[p] {
					c.alloc(p, "s1", "cpus:1")
				}
			case 5:
				if present[p] && step%4 == 0 {
					c.ok(c.s.Remove(p), "Remove("+p+")")
					present[p], active[p] = false, false
				}
			}
			var want []string
			for _, q := range paths {
				if active[q] {
					want = append(want, q)
				}
			}
			c.members(want...)
			if n := len(present); n > 0 {
				count := 0
				for _, ok := range present {
					if ok {
						count++
					}
				}
				if c.s.Count() != count {
					c.t.Fatalf("step %d: Count() = %d, want %d", step, c.s.Count(), count)
				}
			}
		}
	})

	with("StableSortsTheSameTwice", func(c checker) {
		// A sorter that says it is sorter.Stable lets callers skip walks
		// whose outcome they know: sorting and walking it must change
		// nothing.
		if _, ok := c.s.(sorter.Stable); !ok {
			c.t.Skip("not a sorter.Stable")
		}
		c.add("a", "b/c", "b/d", "e")
		c.activate("a", "b/c", "b/d", "e")
		c.alloc("a", "s1", "cpus:2;mem:10")
		c.alloc("b/c", "s1", "cpus:1;mem:30")
		first := slices.Clone(c.s.Sort())
		for i := range 3 {
			if w, ok := c.s.(sorter.Walker); ok {
				var walked []string
				w.Walk(func(client string) bool { walked = append(walked, client); return i%2 == 0 })
			}
			if got := c.s.Sort(); !slices.Equal(got, first) {
				c.t.Fatalf("sorted %q, then %q: a Stable sorter must sort the same while nothing changes", first, got)
			}
		}
	})
}
