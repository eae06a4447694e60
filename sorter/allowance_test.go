package sorter

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/stretchr/testify/require"
)

// A client charged only beyond its allowance: while it holds no more than
// the allowance, its share is zero, and it sorts before every client that
// holds more than its own; beyond it, only the excess counts.
func TestAllowanceChargesOnlyTheExcess(t *testing.T) {
	d := NewDRF(Config{})
	d.AddAgent("pool", resources.MustParseQuantities("cpus:100;mem:1000"))
	for _, c := range []string{"pool-role", "other"} {
		require.NoError(t, d.Add(c))
		require.NoError(t, d.Activate(c))
	}
	require.NoError(t, d.SetAllowance("pool-role", resources.MustParseQuantities("cpus:40;mem:200")))
	require.NoError(t, d.Allocated("pool-role", "a1", resources.MustParse("cpus:40;mem:200", "")))
	require.NoError(t, d.Allocated("other", "a2", resources.MustParse("cpus:1;mem:1", "")))
	if got := d.ShareOf("pool-role"); got != 0 {
		t.Fatalf("a role using exactly its allowance has share %v, want 0", got)
	}
	if got := d.Sort(); got[0] != "pool-role" {
		t.Fatalf("order %v: the role within its allowance should come first", got)
	}
	require.NoError(t, d.Allocated("pool-role", "a3", resources.MustParse("cpus:10", "")))
	if got := d.ShareOf("pool-role"); got != 0.1 {
		t.Fatalf("share beyond the allowance = %v, want 0.1 (cpus:10 of 100)", got)
	}
	// Removing the allowance charges everything again.
	require.NoError(t, d.SetAllowance("pool-role", resources.Quantities{}))
	if got := d.ShareOf("pool-role"); got != 0.5 {
		t.Fatalf("share without the allowance = %v, want 0.5", got)
	}
	if err := d.SetAllowance("a//b", resources.MustParseQuantities("cpus:1")); err == nil {
		t.Fatal("an allowance for a malformed path was accepted")
	}
}

// The property over random trees, allowances, weights and allocations: an
// active client within its allowance (and whose ancestors are within
// theirs) never sorts after a sibling subtree beyond its allowance.
func TestAllowancePropertyWithinSortsFirst(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 17))
		d := NewDRF(Config{})
		d.AddAgent("pool", resources.MustParseQuantities("cpus:100;mem:1000"))
		clients := []string{"a", "b", "c", "d/x", "d/y"}
		allow := map[string]resources.Quantities{}
		for _, c := range clients {
			require.NoError(t, d.Add(c))
			require.NoError(t, d.Activate(c))
			if rng.IntN(2) == 0 {
				q := resources.MustParseQuantities(fmt.Sprintf("cpus:%d;mem:%d", rng.IntN(20), rng.IntN(200)))
				allow[c] = q
				require.NoError(t, d.SetAllowance(c, q))
			}
			if rng.IntN(3) == 0 {
				require.NoError(t, d.UpdateWeight(c, float64(1+rng.IntN(3))))
			}
		}
		held := map[string]resources.Quantities{}
		for range 20 {
			c := clients[rng.IntN(len(clients))]
			r := resources.MustParse(fmt.Sprintf("cpus:%d;mem:%d", rng.IntN(5), rng.IntN(50)), "")
			require.NoError(t, d.Allocated(c, "pool", r))
			h := held[c]
			h.Add(r.Quantities())
			held[c] = h
		}
		within := func(c string) bool { return allow[c].Contains(held[c]) }
		order := d.Sort()
		pos := map[string]int{}
		for i, c := range order {
			pos[c] = i
		}
		// Among the root's leaf children: a within b beyond.
		for _, x := range []string{"a", "b", "c"} {
			for _, y := range []string{"a", "b", "c"} {
				if x != y && within(x) && !within(y) && d.ShareOf(y) > 0 && pos[x] > pos[y] {
					t.Fatalf("seed %d: %s (within %s, holds %s) sorts after %s (beyond %s, holds %s): %v",
						seed, x, allow[x], held[x], y, allow[y], held[y], order)
				}
			}
		}
	}
}
