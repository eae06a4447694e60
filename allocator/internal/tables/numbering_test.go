package tables

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Numbers start at 1, run dense, and those given back go out again last
// given first; 0 is never handed out and never taken back.
func TestNumbering(t *testing.T) {
	var n Numbering
	require.Equal(t, 1, n.Take(), "numbers start at 1")
	require.Equal(t, 2, n.Take())
	require.Equal(t, 3, n.Take())
	require.Equal(t, 4, n.Take())
	n.Give(0)
	require.Equal(t, 5, n.Take(), "0 is not taken back")
	n.Give(2)
	n.Give(4)
	n.Give(0)
	n.Give(1)
	require.Equal(t, 1, n.Take(), "the last one given back goes first")
	require.Equal(t, 4, n.Take())
	require.Equal(t, 2, n.Take())
	require.Equal(t, 6, n.Take(), "then new ones")
	n.Give(6)
	require.Equal(t, 6, n.Take())
	require.Equal(t, 7, n.Take())
}

// A model: what Numbering hands out is never held twice, never 0, and the
// numbers stay dense (at most the highest ever held at once).
func TestNumberingModel(t *testing.T) {
	const seed = 11
	rng := rand.New(rand.NewPCG(seed, 3))
	var n Numbering
	held := map[int]bool{}
	var free []int // the model's stack of numbers given back
	last := 0
	for step := range 2000 {
		msg := fmt.Sprintf("seed %d step %d", seed, step)
		if len(held) > 0 && rng.IntN(2) == 0 {
			ks := make([]int, 0, len(held))
			for k := range held {
				ks = append(ks, k)
			}
			slices.Sort(ks)
			k := ks[rng.IntN(len(ks))]
			delete(held, k)
			n.Give(k)
			free = append(free, k)
			continue
		}
		got := n.Take()
		want := 0
		if len(free) > 0 {
			want, free = free[len(free)-1], free[:len(free)-1]
		} else {
			last++
			want = last
		}
		require.Equal(t, want, got, msg)
		require.False(t, held[got], msg)
		require.NotZero(t, got, msg)
		held[got] = true
	}
}

// A numbered table grows as numbers are set and reads nil beyond its end,
// at 0 and below.
func TestNumbered(t *testing.T) {
	var tb Numbered[string]
	require.Nil(t, tb.At(0))
	require.Nil(t, tb.At(1))
	require.Nil(t, tb.At(-1))

	a, b, c := "a", "b", "c"
	tb.Set(3, &a)
	require.Len(t, tb, 4, "grown to hold number 3")
	require.Same(t, &a, tb.At(3))
	require.Nil(t, tb.At(1))
	require.Nil(t, tb.At(2))
	require.Nil(t, tb.At(4), "beyond the end")
	require.Nil(t, tb.At(len(tb)), "just beyond the end")

	tb.Set(4, &b) // grows by exactly one: len == i
	require.Len(t, tb, 5)
	require.Same(t, &b, tb.At(4))
	tb.Set(1, &c) // within
	require.Len(t, tb, 5)
	require.Same(t, &c, tb.At(1))
	require.Same(t, &a, tb.At(3))

	tb.Set(3, nil)
	require.Nil(t, tb.At(3), "nil: no one holds it")
	require.Len(t, tb, 5)

	// Number 0 is no one's, even if set.
	tb.Set(0, &a)
	require.Nil(t, tb.At(0))
	require.Nil(t, tb.At(-3))
	require.Nil(t, tb.At(100))
}
