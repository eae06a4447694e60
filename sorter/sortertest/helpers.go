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

// The helpers of the checks: resources in text, and checker, a sorter under
// test with the assertions the checks make on it.

// res parses resources in Mesos's text format.
func res(text string) resources.Resources { return resources.MustParse(text, "") }

// qty parses scalar quantities.
func qty(text string) resources.Quantities { return resources.MustParseQuantities(text) }

// volume is a shared persistent volume of 100 MB, counted once per client
// per agent however many copies a client holds.
const volume = "disk(role1)[id:vol1,path:data]<SHARED>:100"

// checker is a check's sorter and the subtest it runs in: each assertion
// stops the subtest at the first one that does not hold.
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

// pool makes text the total of agent s1, the whole pool of most RunFair
// checks.
func (c checker) pool(text string) { c.s.AddAgent("s1", qty(text)) }

// order checks Sort's result exactly.
func (c checker) order(want ...string) {
	c.t.Helper()
	got := c.s.Sort()
	if !slices.Equal(got, want) {
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
	if !slices.Equal(got, want) {
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
