package sorter

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-go/allot/resources"
)

// walkAll collects a full walk.
func walkAll(w Walker) []string {
	var out []string
	w.Walk(func(c string) bool { out = append(out, c); return true })
	return out
}

// Walk visits exactly Sort's order, also after allocations made in the
// middle of an earlier walk, and stops when told to.
func TestDRFWalkMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	d := NewDRF(Config{})
	d.AddAgent("pool", resources.MustParseQuantities("cpus:100;mem:1000"))
	clients := []string{"a", "b/x", "b/y", "c", "c/d", "e/f/g"}
	for _, c := range clients {
		if err := d.Add(c); err != nil {
			t.Fatal(err)
		}
		if err := d.Activate(c); err != nil {
			t.Fatal(err)
		}
	}
	for step := range 200 {
		var walked []string
		// Allocate to whichever client the walk reaches at a random place,
		// as the allocator does while walking.
		stop := rng.IntN(len(clients)) + 1
		d.Walk(func(c string) bool {
			walked = append(walked, c)
			if len(walked) == stop {
				r := resources.MustParse(fmt.Sprintf("cpus:%d;mem:%d", rng.IntN(3)+1, rng.IntN(30)+1), "*")
				if err := d.Allocated(c, "pool", r); err != nil {
					t.Fatal(err)
				}
				return false
			}
			return true
		})
		if len(walked) != stop {
			t.Fatalf("step %d: walk stopped after %d clients, want %d", step, len(walked), stop)
		}
		if step%3 == 0 {
			c := clients[rng.IntN(len(clients))]
			if alloc := d.Allocation(c); len(alloc) > 0 {
				if err := d.Unallocated(c, "pool", alloc["pool"]); err != nil {
					t.Fatal(err)
				}
			}
		}
		full := walkAll(d)
		if sorted := d.Sort(); !slices.Equal(full, sorted) {
			t.Fatalf("step %d: walk %v, sort %v", step, full, sorted)
		}
		if again := walkAll(d); !slices.Equal(again, full) {
			t.Fatalf("step %d: second walk %v, first %v", step, again, full)
		}
	}
}

// A walk that stops at the first client allocates nothing and does not
// visit the others.
func TestDRFWalkStopsEarly(t *testing.T) {
	d := NewDRF(Config{})
	for i := range 100 {
		c := fmt.Sprintf("c%03d", i)
		_ = d.Add(c)
		_ = d.Activate(c)
	}
	visited := 0
	d.Walk(func(string) bool { visited++; return false })
	if visited != 1 {
		t.Fatalf("visited %d clients, want 1", visited)
	}
}

func BenchmarkDRFWalkFirst(b *testing.B) {
	for _, clients := range []int{100, 1000} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			d := NewDRF(Config{})
			d.AddAgent("pool", resources.MustParseQuantities("cpus:100000;mem:100000"))
			for i := range clients {
				c := fmt.Sprintf("c%04d", i)
				_ = d.Add(c)
				_ = d.Activate(c)
			}
			r := resources.MustParse("cpus:1;mem:1", "*")
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				// Allocate to the first client, as an allocation run does.
				d.Walk(func(c string) bool {
					_ = d.Allocated(c, "pool", r)
					return false
				})
			}
		})
	}
}

// After a Sort, a Walk with nothing changed reads Sort's result.
func TestDRFWalkAfterSort(t *testing.T) {
	d := NewDRF(Config{})
	d.AddAgent("pool", resources.MustParseQuantities("cpus:10"))
	for _, c := range []string{"a", "b", "c/d", "c/e"} {
		_ = d.Add(c)
		_ = d.Activate(c)
	}
	_ = d.Allocated("a", "pool", resources.MustParse("cpus:2", ""))
	_ = d.Allocated("c/e", "pool", resources.MustParse("cpus:1", ""))
	sorted := slices.Clone(d.Sort())
	if got := walkAll(d); !slices.Equal(got, sorted) {
		t.Fatalf("walk %v, sort %v", got, sorted)
	}
	if n := testing.AllocsPerRun(100, func() { d.Walk(func(string) bool { return true }) }); n != 0 {
		t.Fatalf("a walk of the cached order allocates %v times", n)
	}
}
