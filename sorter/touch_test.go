package sorter

import (
	"fmt"
	"testing"

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

// Changes are re-filed one node at a time until more than a quarter of
// the nodes (plus eight) wait; then the next change marks the whole order
// for a rebuild, which is cheaper than re-filing them all.
func TestManyChangesTurnIntoARebuild(t *testing.T) {
	d := NewDRF(Config{})
	d.AddAgent("s1", resources.MustParseQuantities("cpus:1000"))
	const clients = 100
	for i := range clients {
		c := fmt.Sprintf("c%03d", i)
		_ = d.Add(c)
		_ = d.Activate(c)
	}
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
