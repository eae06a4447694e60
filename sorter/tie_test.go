package sorter

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// A tie never contradicts the names: for names sharing their first from
// bytes, a smaller tie means a smaller name, whatever the names hold
// (zero bytes, names that end within the four bytes, one a prefix of the
// other).
func TestTieAgreesWithNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	alphabet := []byte{0, 1, '-', '0', '9', 'a', 'z', 0xff}
	word := func() string {
		b := make([]byte, rng.IntN(7))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		prefix := word()
		a, b := prefix+word(), prefix+word()
		from := rng.IntN(len(prefix) + 1)
		ta, tb := tieOf(a, from), tieOf(b, from)
		if ta < tb {
			require.Less(t, a, b, "tie %08x < %08x from byte %d", ta, tb, from)
		}
		if ta > tb {
			require.Greater(t, a, b, "tie %08x > %08x from byte %d", ta, tb, from)
		}
	}
}

// Clients of equal share and count come in the order of their names, also
// after a name that shares less of the others' prefix moved every tie, and
// after a client that also has children split a leaf (its virtual leaf "."
// shares nothing with the others).
func TestEqualSharesComeByName(t *testing.T) {
	d := NewDRF(Config{})
	d.AddAgent("pool", resources.MustParseQuantities("cpus:100;mem:100"))
	rng := rand.New(rand.NewPCG(1, 2))
	var names []string
	for i := range 300 {
		names = append(names, fmt.Sprintf("fw-%04d", rng.IntN(10000)))
		if i == 200 {
			names = append(names, "aardvark", "fw-0", "fw-00", "fw-12345678")
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	add := slices.Clone(names)
	rng.Shuffle(len(add), func(i, j int) { add[i], add[j] = add[j], add[i] })
	check := func(step string, want []string) {
		t.Helper()
		require.Equal(t, want, d.Sort(), step)
		require.Equal(t, want, walkAll(d), step)
	}
	for i, c := range add {
		require.NoError(t, d.Add(c))
		require.NoError(t, d.Activate(c))
		if i%50 == 49 {
			want := slices.Clone(add[:i+1])
			slices.Sort(want)
			check(fmt.Sprintf("after %d clients", i+1), want)
		}
	}
	check("every client", names)

	// A client's child splits its leaf: the client's virtual leaf sorts
	// among the child's siblings by name, as "fw-0000/." would.
	require.NoError(t, d.Add(names[0]+"/x"))
	require.NoError(t, d.Activate(names[0]+"/x"))
	want := slices.Insert(slices.Clone(names), 0, names[0]+"/x")
	slices.Sort(want[:2]) // "<c>" (its virtual leaf) before "<c>/x"
	check("a client with a child", want)

	// Every client gets the same: the others tie again, by name.
	for _, c := range names {
		require.NoError(t, d.Allocated(c, "pool", resources.MustParse("cpus:0.1", "*")))
	}
	require.NoError(t, d.Allocated(names[0]+"/x", "pool", resources.MustParse("cpus:0.1", "*")))
	// The client with a child now holds twice what each other does: its
	// subtree comes last, its virtual leaf before its child.
	check("equal shares but one", append(slices.Clone(names[1:]), names[0], names[0]+"/x"))
}
