package sorter

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/allot-go/allot/resources"
)

// commonPrefix counts the leading bytes two names share; siblings' ties
// are taken from the first byte where names differ.
func TestCommonPrefix(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"abc", "abd", 2}, {"abc", "abc", 3}, {"ab", "abc", 2}, {"", "a", 0}, {"xa", "ya", 0}} {
		if got := commonPrefix(c.a, c.b); got != c.want {
			t.Errorf("commonPrefix(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// hundredClients gives s an agent s1 of cpus:1000 and active clients c000
// to c099, each a leaf under the root.
func hundredClients(s Sorter) {
	s.AddAgent("s1", resources.MustParseQuantities("cpus:1000"))
	for i := range 100 {
		c := fmt.Sprintf("c%03d", i)
		_ = s.Add(c)
		_ = s.Activate(c)
	}
}

// Changes are re-filed one node at a time until more than a quarter of
// the nodes (plus eight) wait; then the next change marks the whole order
// for a rebuild, which is cheaper than re-filing them all.
func TestManyChangesTurnIntoARebuild(t *testing.T) {
	d := NewDRF(Config{})
	const clients = 100
	hundredClients(d)
	_ = d.Sort()
	limit := d.t.nodes/4 + 8 // each client is a leaf under the root
	for i := range clients {
		if err := d.Allocated(fmt.Sprintf("c%03d", i), "s1", resources.MustParse("cpus:1", "*")); err != nil {
			t.Fatal(err)
		}
		if i < limit && (d.t.rebuild || len(d.t.pending) != i+1) {
			t.Fatalf("after %d changes: rebuild %v, %d pending", i+1, d.t.rebuild, len(d.t.pending))
		}
		if i == limit && !d.t.rebuild {
			t.Fatalf("after %d changes of %d nodes: no rebuild", i+1, d.t.nodes)
		}
	}
	if d.t.nodes != clients {
		t.Fatalf("%d nodes, want %d", d.t.nodes, clients)
	}
}

// The Usage order is mended one moved client at a time until more than a
// quarter of its entries (plus eight) wait; then the next Sort rebuilds it,
// as it does at a new instant.
func TestUsageManyChangesTurnIntoARebuild(t *testing.T) {
	at := time.Unix(1000, 0)
	u, err := NewUsage(Config{}, UsageOptions{HalfLife: time.Minute, Clock: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	const clients = 100
	hundredClients(u)
	_ = u.Sort()
	if u.stale(at) {
		t.Fatal("stale right after a Sort")
	}
	limit := clients/4 + 8
	for i := range clients {
		if err := u.Allocated(fmt.Sprintf("c%03d", i), "s1", resources.MustParse("cpus:1", "*")); err != nil {
			t.Fatal(err)
		}
		if got, want := u.stale(at), i+1 > limit; got != want {
			t.Fatalf("after %d changes of %d entries: stale %v, want %v", i+1, len(u.entries), got, want)
		}
	}
	if !u.stale(at.Add(time.Nanosecond)) {
		t.Fatal("not stale at a later instant")
	}
	before := slices.Clone(u.Sort())
	if u.stale(at) || len(u.dirty) != 0 {
		t.Fatalf("after the rebuild: stale %v, %d waiting", u.stale(at), len(u.dirty))
	}
	if len(before) != clients {
		t.Fatalf("%d clients sorted, want %d", len(before), clients)
	}
}
