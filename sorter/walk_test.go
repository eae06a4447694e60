package sorter

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/stretchr/testify/require"
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

// WalkExcept visits Walk's order without the skipped clients, with few
// skipped (stepping over them) and with most skipped (stepping over a few,
// then sorting the rest; some steps skip the first clients of the order), on
// flat and nested trees, as clients come and go and allocations change
// between and during walks.
func TestDRFWalkExceptMatchesWalk(t *testing.T) {
	for _, flat := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(11, 3))
		d := NewDRF(Config{})
		d.AddAgent("pool", resources.MustParseQuantities("cpus:1000;mem:10000"))
		var clients []string
		// 150 clients: numbers span three words of a Bitset, the last one
		// partly.
		for i := range 150 {
			c := fmt.Sprintf("c%03d", i)
			if !flat && i%5 == 0 {
				c = fmt.Sprintf("g%d/c%03d", i%3, i)
			}
			clients = append(clients, c)
			require.NoError(t, d.Add(c))
			if i%7 != 3 {
				require.NoError(t, d.Activate(c))
			}
		}
		for step := range 300 {
			var skip Bitset
			share := rng.Float64()
			for _, c := range clients {
				if i, ok := d.Index(c); ok && rng.Float64() < share {
					skip.Set(i)
				}
			}
			if step%3 == 0 {
				// The skipped clients come first in the order, more than
				// a walk steps over before it takes the rest by number.
				order := walkAll(d)
				for _, c := range order[:rng.IntN(len(order)+1)] {
					i, _ := d.Index(c)
					skip.Set(i)
				}
			}
			var want []string
			for _, c := range walkAll(d) {
				if i, _ := d.Index(c); !skip.Has(i) {
					want = append(want, c)
				}
			}
			stop := rng.IntN(len(want) + 1)
			var got []string
			d.WalkExcept(skip, func(c string) bool {
				got = append(got, c)
				if len(got) == stop {
					r := resources.MustParse(fmt.Sprintf("cpus:%d;mem:%d", rng.IntN(3)+1, rng.IntN(30)+1), "*")
					require.NoError(t, d.Allocated(c, "pool", r))
					return false
				}
				return true
			})
			if stop == 0 {
				stop = len(want)
			}
			if !slices.Equal(got, want[:stop]) {
				t.Fatalf("flat=%v step %d (%d of %d skipped): WalkExcept visited\n%v\nwant\n%v", flat, step, skip.Count(), len(clients), got, want[:stop])
			}
			// Clients come and go: numbers are reused.
			if step%10 == 9 {
				i := rng.IntN(len(clients))
				require.NoError(t, d.Remove(clients[i]))
				require.NoError(t, d.Add(clients[i]))
				require.NoError(t, d.Activate(clients[i]))
			}
			// Clients go idle and come back.
			if step%10 == 4 {
				c := clients[rng.IntN(len(clients))]
				if rng.IntN(2) == 0 {
					require.NoError(t, d.Deactivate(c))
				} else {
					require.NoError(t, d.Activate(c))
				}
			}
			// A restored sorter walks as the one it was saved from: its
			// clients keep their numbers and keys.
			if step%50 == 49 {
				data, err := d.MarshalBinary()
				require.NoError(t, err)
				restored := NewDRF(Config{})
				require.NoError(t, restored.UnmarshalBinary(data))
				require.Equal(t, walkAll(d), walkAll(restored))
				d = restored
			}
		}
	}
}

func TestBitset(t *testing.T) {
	var b Bitset
	if b.Has(3) || b.Count() != 0 || b.Clear(3) {
		t.Fatal("zero Bitset is not empty")
	}
	if !b.Set(3) || b.Set(3) || !b.Set(130) || !b.Has(3) || !b.Has(130) || b.Has(4) || b.Has(-1) {
		t.Fatalf("Set/Has: %b", b)
	}
	if b.Count() != 2 {
		t.Fatalf("Count = %d, want 2", b.Count())
	}
	if !b.Clear(3) || b.Clear(3) || b.Has(3) || b.Count() != 1 {
		t.Fatalf("Clear: %b", b)
	}
	b.Reset()
	if b.Count() != 0 || b.Has(130) {
		t.Fatalf("Reset: %b", b)
	}
}

// 0 is a member like any other (the first client's number): Set, Has and
// Clear take it, and a negative number is never a member.
func TestBitsetZero(t *testing.T) {
	var b Bitset
	require.True(t, b.Set(0))
	require.True(t, b.Has(0))
	require.False(t, b.Clear(-1))
	require.True(t, b.Clear(0), "0 was a member")
	require.False(t, b.Has(0))
	require.Zero(t, b.Count())
}

func TestBitsetAll(t *testing.T) {
	var b Bitset
	require.Empty(t, slices.Collect(b.All()))
	for _, i := range []int{130, 0, 63, 64, 5} {
		b.Set(i)
	}
	require.Equal(t, []int{0, 5, 63, 64, 130}, slices.Collect(b.All()))
	var first []int
	for i := range b.All() {
		first = append(first, i)
		if len(first) == 2 {
			break
		}
	}
	require.Equal(t, []int{0, 5}, first, "stops when the loop does")
}

// A client charged after a walk stopped at it (the allocator's pattern:
// offer to the first, charge it, walk again) is re-filed before the next
// walk, whether the charge moves it or not. Walks after charges of every
// size to the first client, and now and then a release, visit the
// reference's order, in a flat sorter, under a common parent, and for a
// lone client.
func TestWalkAfterChargingTheFirstMatchesReference(t *testing.T) {
	for _, prefix := range []string{"", "team/", "solo/"} {
		seed := uint64(20261127)
		rng := rand.New(rand.NewPCG(seed, uint64(len(prefix))))
		d, r := NewDRF(Config{}), newRef(resources.NameSet{})
		total := resources.MustParseQuantities("cpus:100;mem:100000")
		d.AddAgent("a", total)
		r.AddAgent("a", total)
		clients := 12
		if prefix == "solo/" {
			clients = 1 // the one child of its parent, and of the root
		}
		for i := range clients {
			c := fmt.Sprintf("%sc%02d", prefix, i)
			require.NoError(t, d.Add(c))
			require.NoError(t, r.Add(c))
			require.NoError(t, d.Activate(c))
			require.NoError(t, r.setActive(c, true))
		}
		for step := range 400 {
			var first string
			d.Walk(func(c string) bool { first = c; return false })
			require.NotEmpty(t, first)
			amounts := []string{"mem:1", "cpus:0.01", "cpus:1;mem:500", "cpus:9;mem:20000"}
			res := resources.MustParse(amounts[rng.IntN(len(amounts))], "*")
			if rng.IntN(8) == 0 && !r.quantities([]string{first}).IsEmpty() {
				held := resources.Resources{}
				for _, x := range r.clients[first].alloc {
					held.Add(x)
				}
				require.NoError(t, d.Unallocated(first, "a", held))
				require.NoError(t, r.Unallocated(first, "a", held))
			} else {
				require.NoError(t, d.Allocated(first, "a", res))
				require.NoError(t, r.Allocated(first, "a", res))
			}
			require.Equal(t, r.Sort(), walkAll(d), "seed %d, prefix %q, step %d", seed, prefix, step)
		}
		require.NoError(t, checkTree(&d.t))
	}
}

// A number freed by a removed client is never walked, also in a restored
// sorter, where the freed number's client is not loaded at all: when more
// clients than a walk steps over come first and are skipped, WalkExcept
// finds the first of the others by number.
func TestDRFWalkExceptPassesFreeNumbers(t *testing.T) {
	d := NewDRF(Config{})
	d.AddAgent("pool", resources.MustParseQuantities("cpus:100;mem:100"))
	var skipped []string
	for i := range 40 {
		c := fmt.Sprintf("c%02d", i)
		require.NoError(t, d.Add(c))
		require.NoError(t, d.Activate(c))
		if i > 0 {
			skipped = append(skipped, c)
		}
	}
	require.NoError(t, d.Add("z"))
	require.NoError(t, d.Activate("z"))
	require.NoError(t, d.Allocated("z", "pool", resources.MustParse("cpus:50", "*")))
	gone, _ := d.Index("c00")
	require.NoError(t, d.Remove("c00"))
	data, err := d.MarshalBinary()
	require.NoError(t, err)
	restored := NewDRF(Config{})
	require.NoError(t, restored.UnmarshalBinary(data))
	for name, s := range map[string]*DRF{"live": d, "restored": restored} {
		var skip Bitset
		for _, c := range skipped {
			i, _ := s.Index(c)
			skip.Set(i)
		}
		require.False(t, skip.Has(gone), name)
		var got []string
		s.WalkExcept(skip, func(c string) bool { got = append(got, c); return true })
		require.Equal(t, []string{"z"}, got, name)
	}
}

// BenchmarkDRFWalkExcept is the allocator's walk of a role's frameworks on
// one agent, over 1000 clients of equal share of which the agent's refusers
// are skipped: a walk takes the first client not skipped and charges it,
// and after every 1000 walks (a round) the charges are given back, so that
// shares tie again as in Mesos's DeclineOffers loop. skipped is how many
// of the 1000 each walk steps past (drawn anew for each of 64 agents).
func BenchmarkDRFWalkExcept(b *testing.B) {
	for _, skipped := range []int{0, 500, 900, 990} {
		b.Run(fmt.Sprintf("skipped=%d", skipped), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, uint64(skipped)))
			d := NewDRF(Config{})
			d.AddAgent("pool", resources.MustParseQuantities("cpus:100000;mem:100000"))
			for i := range 1000 {
				c := fmt.Sprintf("framework-%04d", i)
				require.NoError(b, d.Add(c))
				require.NoError(b, d.Activate(c))
			}
			skips := make([]Bitset, 64)
			for a := range skips {
				for _, i := range rng.Perm(1000)[:skipped] {
					skips[a].Set(i)
				}
			}
			one := resources.MustParse("cpus:1", "*")
			var charged []string
			take := func(c string) bool { charged = append(charged, c); return false }
			b.ResetTimer()
			for n := range b.N {
				d.WalkExcept(skips[n%len(skips)], take)
				_ = d.Allocated(charged[len(charged)-1], "pool", one)
				if len(charged) == 1000 {
					for _, c := range charged {
						_ = d.Unallocated(c, "pool", one)
					}
					charged = charged[:0]
				}
			}
		})
	}
}
