package cluster

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// res parses resources in Mesos's text format, unreserved ones in "*".
func res(text string) resources.Resources { return resources.MustParse(text, "*") }

// alloc parses resources and tags them with the allocation role, as offers
// and allocations carry them.
func alloc(text, role string) resources.Resources { return res(text).Allocate(role) }

// qty parses quantities.
func qty(text string) resources.Quantities { return resources.MustParseQuantities(text) }

// requireRes compares resources by content.
func requireRes(t *testing.T, want, got resources.Resources, msgAndArgs ...any) {
	t.Helper()
	require.True(t, got.Equal(want), "got %v, want %v %s", got, want, fmt.Sprint(msgAndArgs...))
}

// requireQty compares quantities by content.
func requireQty(t *testing.T, want, got resources.Quantities, msgAndArgs ...any) {
	t.Helper()
	require.True(t, got.Equal(want), "got %v, want %v %s", got, want, fmt.Sprint(msgAndArgs...))
}

// amounts is a plain reference for scalar resources: role -> name ->
// amount, where the role is the allocation role ("" for none).
type amounts map[string]map[string]int

func (a amounts) add(role, name string, n int) {
	if n == 0 {
		return
	}
	if a[role] == nil {
		a[role] = map[string]int{}
	}
	a[role][name] += n
}

// resources writes the reference out in the text format and parses it.
func (a amounts) resources() resources.Resources {
	var parts []string
	for role, byName := range a {
		for name, n := range byName {
			if n == 0 {
				continue
			}
			if role == "" {
				parts = append(parts, fmt.Sprintf("%s:%d", name, n))
			} else {
				parts = append(parts, fmt.Sprintf("%s(allocated: %s):%d", name, role, n))
			}
		}
	}
	sort.Strings(parts)
	return res(strings.Join(parts, ";"))
}

// seeded runs f with a rand seeded by seed, reporting the seed if it
// fails.
func seeded(t *testing.T, seed uint64, f func(t *testing.T, rng *rand.Rand)) {
	t.Helper()
	t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
		defer func() {
			if t.Failed() {
				t.Logf("failed with seed %d", seed)
			}
		}()
		f(t, rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
	})
}
