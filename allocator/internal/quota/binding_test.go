package quota

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// minimum is an enough for BindingLimit: every offer's framework asks for
// mins.
func minimum(mins ...string) func(int, resources.Quantities) bool {
	var alts []resources.Quantities
	for _, m := range mins {
		alts = append(alts, qty(m))
	}
	return func(_ int, left resources.Quantities) bool { return MeetsMinimum(left, alts) }
}

func bindingPath(w *world, role string, enough func(int, resources.Quantities) bool, offers ...string) string {
	var qs []resources.Quantities
	for _, o := range offers {
		qs = append(qs, qty(o))
	}
	n, binds := BindingLimit(w.tree.Ensure(role), qs, enough)
	if n == nil {
		return ""
	}
	if !binds {
		return n.Path + " (fallback)"
	}
	return n.Path
}

// The limit named is one that binds, not the nearest one reached: t/b is
// at its gpus:0 limit, which the offer holds none of, and its cpus:3 of
// room leave enough; t, at its limit, leaves nothing.
func TestBindingLimitAlone(t *testing.T) {
	w := newWorld("cpus:8;mem:8192", "cpus:6;mem:7168")
	w.limit("t", "cpus:2;mem:1024")
	w.use("t/a", "cpus:2;mem:1024")
	w.limit("t/b", "cpus:3;gpus:0")
	require.Equal(t, "t", bindingPath(w, "t/b", minimum("cpus:0.01", "mem:32"), "cpus:6;mem:7168"))
	// With a minimum t/b's room cannot meet, both bind alone: the nearest.
	require.Equal(t, "t/b", bindingPath(w, "t/b", minimum("cpus:4"), "cpus:6;mem:7168"))
}

// Two limits that bind only together (each alone leaves enough): the
// role named is the nearest one the other limits without it would not
// make up for.
func TestBindingLimitsTogether(t *testing.T) {
	w := newWorld("cpus:8;mem:8192", "cpus:4;mem:4096")
	w.limit("a", "cpus:2")
	w.use("a/x", "cpus:2")
	w.limit("a/b", "mem:1024")
	w.use("a/b", "mem:1024")
	// a alone leaves mem, a/b alone leaves cpus: each is enough for
	// cpus:0.01|mem:32, and each is needed with the other.
	require.Equal(t, "a/b", bindingPath(w, "a/b", minimum("cpus:0.01", "mem:32"), "cpus:4;mem:4096"))
	// With mem the only minimum, a's cpus limit is not needed: without
	// it a/b's limit still leaves no mem. a/b binds alone.
	require.Equal(t, "a/b", bindingPath(w, "a/b", minimum("mem:32"), "cpus:4;mem:4096"))
	// With cpus the only minimum, a binds alone, though farther.
	require.Equal(t, "a", bindingPath(w, "a/b", minimum("cpus:1"), "cpus:4;mem:4096"))
}

// Where no limit binds alone and none is needed beside the others (three
// limits that keep the offer off only two at a time), the nearest limit
// that cuts something is named; where none cuts anything (figures that
// moved since the run), the nearest with a limit; none without limits.
func TestBindingLimitFallbacks(t *testing.T) {
	w := newWorld("cpus:8;mem:8;disk:8", "cpus:4;mem:4;disk:4")
	require.Equal(t, "", bindingPath(w, "x", minimum(), "cpus:4"))
	w.limit("x", "cpus:0")
	w.limit("x/y", "mem:0")
	w.limit("x/y/z", "disk:0")
	w.limit("x/y/z/w", "gpus:0")
	// Any two names are enough: each limit alone leaves two, any two
	// leave one.
	twoOfThree := minimum("cpus:1;mem:1", "mem:1;disk:1", "cpus:1;disk:1")
	require.Equal(t, "x/y/z (fallback)", bindingPath(w, "x/y/z/w", twoOfThree, "cpus:4;mem:4;disk:4"))
	require.Equal(t, "x/y/z/w (fallback)", bindingPath(w, "x/y/z/w", twoOfThree, "ssd:4"))
}

// An offer meets the minimum with something in it and one alternative
// whole; without alternatives, anything.
func TestMeetsMinimum(t *testing.T) {
	alts := []resources.Quantities{qty("cpus:1"), qty("mem:32;disk:1")}
	require.True(t, MeetsMinimum(qty("cpus:1"), alts))
	require.False(t, MeetsMinimum(qty("cpus:0.5;mem:32"), alts))
	require.True(t, MeetsMinimum(qty("cpus:0.5;mem:32;disk:1"), alts))
	require.True(t, MeetsMinimum(qty("mem:1"), nil))
	require.False(t, MeetsMinimum(resources.Quantities{}, nil))
	zero := qty("mem:1")
	zero.Subtract(qty("mem:1"))
	require.False(t, MeetsMinimum(zero, nil), "nothing left of a name is nothing")
}
