package sorter

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/stretchr/testify/require"
)

// Charging quantities orders clients exactly as allocating the resources
// they stand for, through allocations, give-backs, clients that come and go
// and a client that turns into a virtual leaf and back.
func TestChargeMatchesAllocated(t *testing.T) {
	for _, fair := range []bool{true, false} {
		newSorter := func() Sorter {
			if fair {
				return NewDRF(Config{})
			}
			return NewRandom(Config{Seed: 5})
		}
		byRes, byQty := newSorter(), newSorter()
		charger := byQty.(Charger)
		rng := rand.New(rand.NewPCG(5, 9))
		clients := []string{"a", "a/b", "c", "d/e", "d/f"}
		present := map[string]bool{}
		held := map[string][]resources.Resources{}
		for _, s := range []Sorter{byRes, byQty} {
			s.AddAgent("pool", resources.MustParseQuantities("cpus:100;mem:1000"))
		}
		for step := range 400 {
			c := clients[rng.IntN(len(clients))]
			switch op := rng.IntN(10); {
			case !present[c]:
				for _, s := range []Sorter{byRes, byQty} {
					require.NoError(t, s.Add(c))
					require.NoError(t, s.Activate(c))
				}
				present[c] = true
			case op < 5:
				r := resources.MustParse(fmt.Sprintf("cpus:%d;mem:%d", rng.IntN(3)+1, rng.IntN(30)+1), "*")
				require.NoError(t, byRes.Allocated(c, "pool", r))
				require.NoError(t, charger.Charge(c, r.Quantities(), true))
				held[c] = append(held[c], r)
			case op < 8 && len(held[c]) > 0:
				i := rng.IntN(len(held[c]))
				r := held[c][i]
				held[c] = slices.Delete(held[c], i, i+1)
				require.NoError(t, byRes.Unallocated(c, "pool", r))
				require.NoError(t, charger.Discharge(c, r.Quantities()))
			case op == 9:
				for _, s := range []Sorter{byRes, byQty} {
					require.NoError(t, s.Remove(c))
				}
				present[c], held[c] = false, nil
			}
			for _, cl := range clients {
				if got, want := byQty.AllocationQuantities(cl), byRes.AllocationQuantities(cl); !got.Equal(want) {
					t.Fatalf("fair=%v step %d: %s charged %s, allocated %s", fair, step, cl, got, want)
				}
			}
			if fair {
				if got, want := byQty.Sort(), byRes.Sort(); !slices.Equal(got, want) {
					t.Fatalf("step %d: charged order %v, allocated order %v", step, got, want)
				}
			}
		}
	}
}

func TestDischargeChecks(t *testing.T) {
	d := NewDRF(Config{})
	require.NoError(t, d.Add("a"))
	require.NoError(t, d.Charge("a", resources.MustParseQuantities("cpus:2"), true))
	if err := d.Discharge("a", resources.MustParseQuantities("cpus:3")); !errors.Is(err, ErrNotAllocated) {
		t.Fatalf("discharge beyond the charge: %v", err)
	}
	if err := d.Discharge("b", resources.MustParseQuantities("cpus:1")); !errors.Is(err, ErrUnknownClient) {
		t.Fatalf("discharge of an unknown client: %v", err)
	}
	if err := d.Charge("b", resources.MustParseQuantities("cpus:1"), true); !errors.Is(err, ErrUnknownClient) {
		t.Fatalf("charge of an unknown client: %v", err)
	}
	if got := d.AllocationQuantities("a").String(); got != "cpus:2" {
		t.Fatalf("after refused calls a holds %s", got)
	}
}
