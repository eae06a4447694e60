package sorter

import (
	"fmt"
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/stretchr/testify/require"
)

// flatDRF returns a DRF sorter of the active clients named, added in that
// order (so numbered 0, 1, ...), on one agent, none holding anything.
func flatDRF(t *testing.T, clients ...string) *DRF {
	t.Helper()
	d := NewDRF(Config{})
	d.AddAgent("pool", resources.MustParseQuantities("cpus:1000;mem:1000"))
	for _, c := range clients {
		require.NoError(t, d.Add(c))
		require.NoError(t, d.Activate(c))
	}
	return d
}

// clientNames returns n client names, "c00", "c01", ...
func clientNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%02d", i)
	}
	return out
}

// skipOf returns the Bitset of the numbers of clients.
func skipOf(t *testing.T, d *DRF, clients ...string) Bitset {
	t.Helper()
	var skip Bitset
	for _, c := range clients {
		i, ok := d.Index(c)
		require.True(t, ok, c)
		skip.Set(i)
	}
	return skip
}

// walkExceptAll collects a full WalkExcept.
func walkExceptAll(d *DRF, skip Bitset) []string {
	var out []string
	d.WalkExcept(skip, func(c string) bool { out = append(out, c); return true })
	return out
}

// Ties are broken by client name also when WalkExcept takes the clients by
// number, where the scan meets them in the order of their numbers: of
// clients of equal share and count, whose names agree on the bytes the key
// holds, the one of least name comes first, whatever its number.
func TestWalkExceptBreaksTiesByName(t *testing.T) {
	// "zz" keeps the names from sharing a prefix, so that the key's four
	// bytes are "pppp" for the three tied clients and only their names
	// tell them apart. They are numbered 1, 2, 3 out of name order.
	clients := []string{"zz", "pppp-2", "pppp-1", "pppp-3"}
	for i := range 40 {
		clients = append(clients, fmt.Sprintf("q%02d", i))
	}
	d := flatDRF(t, clients...)
	skip := skipOf(t, d, clients[4:]...)
	skip.Set(0) // "zz"

	// Walk's order puts them by name, and WalkExcept visits that order.
	var want []string
	for _, c := range walkAll(d) {
		if c == "pppp-1" || c == "pppp-2" || c == "pppp-3" {
			want = append(want, c)
		}
	}
	require.Equal(t, []string{"pppp-1", "pppp-2", "pppp-3"}, want)
	require.Equal(t, want, walkExceptAll(d, skip))

	// A walk that stops at its first client stops at the least name.
	var first []string
	d.WalkExcept(skip, func(c string) bool { first = append(first, c); return false })
	require.Equal(t, []string{"pppp-1"}, first)

	// A share breaks the tie before the name does.
	require.NoError(t, d.Allocated("pppp-1", "pool", resources.MustParse("cpus:1", "*")))
	require.Equal(t, []string{"pppp-2", "pppp-3", "pppp-1"}, walkExceptAll(d, skip))
}

// A Bitset holds as many words as its largest member needs, so a skip set
// of low numbers is shorter than the sorter's numbering: the clients past
// its end are not skipped.
func TestWalkExceptSkipShorterThanNumbers(t *testing.T) {
	clients := clientNames(70)
	d := flatDRF(t, clients...)
	// The clients of the second word come last in the order.
	for _, c := range clients[64:] {
		require.NoError(t, d.Allocated(c, "pool", resources.MustParse("cpus:1", "*")))
	}
	require.NoError(t, d.Allocated("c66", "pool", resources.MustParse("cpus:1", "*")))
	skip := skipOf(t, d, clients[:64]...)
	require.Len(t, skip, 1)
	require.Equal(t, []string{"c64", "c65", "c67", "c68", "c69", "c66"}, walkExceptAll(d, skip))

	// Longer than the numbering, with members no client has, it is the
	// same set.
	skip.Set(200)
	require.Equal(t, []string{"c64", "c65", "c67", "c68", "c69", "c66"}, walkExceptAll(d, skip))
}

// WalkExcept chooses how to find the clients not skipped (see its doc):
// stepping over the skipped ones in the order when few are skipped or the
// tree is not flat; by number, from the keys, when most are skipped and at
// most directBelow are left; and otherwise walking the order first, giving
// up after exceptBudget skipped clients. Every way visits the same clients
// in the same order; what shows which one was taken is the buffer that
// only the way by number fills (restBuf), on a sorter that has not walked
// before.
func TestWalkExceptChoosesItsWay(t *testing.T) {
	byNumber := func(d *DRF) bool { return cap(d.restBuf) > 0 }
	for _, tc := range []struct {
		name    string
		clients int
		// skipped are the numbers skipped; the others hold nothing and
		// the skipped ones one cpu each unless skippedFirst.
		skipped      []int
		skippedFirst bool
		// ahead, without skippedFirst, is how many of the skipped (the
		// lowest numbers) hold nothing either: their names put them first.
		ahead    int
		nested   bool
		byNumber bool
	}{
		// 2k < active: few skipped, the walk steps over them.
		{name: "fewer than half skipped", clients: 40, skipped: span(0, 19), skippedFirst: true},
		// 2k == active: half skipped counts as most; 20 left, taken by
		// number at once.
		{name: "half skipped, few left", clients: 40, skipped: span(0, 20), skippedFirst: true, byNumber: true},
		{name: "half skipped, few left, skipped last", clients: 40, skipped: span(20, 40), byNumber: true},
		{name: "most skipped in a nested tree", clients: 40, skipped: span(0, 30), skippedFirst: true, nested: true},
		// Exactly directBelow left: by number, even though they come
		// first in the order.
		{name: "directBelow left", clients: 32 + 40, skipped: span(32, 72), byNumber: true},
		// One more than directBelow left, coming first: the walk finds
		// them without giving up.
		{name: "more than directBelow left, first in the order", clients: 33 + 40, skipped: span(33, 73)},
		// One more than directBelow left, coming after every skipped
		// client: the walk gives up and takes them by number.
		{name: "more than directBelow left, after the skipped", clients: 33 + 40, skipped: span(0, 40), skippedFirst: true, byNumber: true},
		// The walk's budget: it steps over one skipped client fewer than
		// exceptBudget and visits the others, but gives up at the
		// exceptBudget-th.
		{name: "more than directBelow left, after fewer than exceptBudget skipped", clients: 33 + 40, skipped: span(0, 40), ahead: exceptBudget - 1},
		{name: "more than directBelow left, after exceptBudget skipped", clients: 33 + 40, skipped: span(0, 40), ahead: exceptBudget, byNumber: true},
	} {
		// The order is read from the tree when something changed since
		// the last Sort, and from Sort's result when nothing did: the
		// way is the same either way.
		for _, sorted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, sorted %v", tc.name, sorted), func(t *testing.T) {
				clients := clientNames(tc.clients)
				if tc.nested {
					clients[tc.clients-1] = "n/x"
				}
				d := flatDRF(t, clients...)
				var skip Bitset
				for _, i := range tc.skipped {
					skip.Set(i)
				}
				// Place the skipped clients first or last in the order.
				for i, c := range clients {
					if skip.Has(i) && i-tc.skipped[0] < tc.ahead {
						continue
					}
					if skip.Has(i) != tc.skippedFirst {
						require.NoError(t, d.Allocated(c, "pool", resources.MustParse("cpus:1", "*")))
					}
				}
				if sorted {
					d.Sort()
				}
				var want []string
				for _, c := range walkAll(d) {
					if i, _ := d.Index(c); !skip.Has(i) {
						want = append(want, c)
					}
				}
				require.Equal(t, want, walkExceptAll(d, skip))
				require.Equal(t, tc.byNumber, byNumber(d))
			})
		}
	}
}

// span returns the numbers from lo up to hi, hi excluded.
func span(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}
