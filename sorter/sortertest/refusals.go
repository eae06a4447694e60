package sortertest

import (
	"fmt"
	"slices"

	"github.com/allot-go/allot/sorter"
)

// Refusals: calls with a malformed path or about a client not present fail
// with the error that says so, and a failing call changes nothing.

// invalidPaths checks that malformed paths are refused by Add and
// UpdateWeight with sorter.ErrInvalidClient, and never added.
func invalidPaths(c checker) {
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
}

// unknownClient checks that every call about a client not present fails with
// sorter.ErrUnknownClient, and the queries answer nothing for it.
func unknownClient(c checker) {
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
}

// failedCallsChangeNothing checks that a call that fails, whatever the
// reason, leaves everything the sorter shows as it was.
func failedCallsChangeNothing(c checker) {
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
}
