package resources

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Equal values with the same entries share one frozen storage; the value
// handed out reads exactly as the one given.
func TestInternerShares(t *testing.T) {
	var in Interner
	a := MustParse("cpus:24;mem:4096;disk:4096;ports:[31000-32000]", "*")
	b := MustParse("cpus:24;mem:4096;disk:4096;ports:[31000-32000]", "*")
	require.False(t, a.Identical(b))
	ia, ib := in.Intern(a), in.Intern(b)
	require.True(t, ia.Identical(ib), "equal values made apart share storage")
	require.False(t, ia.Identical(a), "a value not frozen is copied, not adopted")
	require.Equal(t, a.String(), ib.String())

	// Reserved kinds have metas of their own: compared by content.
	r1 := MustParse("cpus(eng):2;disk(reservations: [(DYNAMIC,eng,ops)])[id:v,path:data]:64", "*")
	r2 := MustParse("cpus(eng):2;disk(reservations: [(DYNAMIC,eng,ops)])[id:v,path:data]:64", "*")
	require.True(t, in.Intern(r1).Identical(in.Intern(r2)))
	require.True(t, in.Intern(Resources{}).IsEmpty())
}

// Values that differ in anything a reader could see are not shared: the
// order of entries, amounts, ranges, allocation roles, shared copies.
func TestInternerKeepsApart(t *testing.T) {
	twoCopies := MustParse("disk(reservations: [(DYNAMIC,db,ops)])[id:pg,path:data]<SHARED>:1024<2>", "*")
	pairs := [][2]Resources{
		{MustParse("cpus:1;mem:2", "*"), MustParse("mem:2;cpus:1", "*")},
		{MustParse("cpus:1;mem:2", "*"), MustParse("cpus:1;mem:3", "*")},
		{MustParse("ports:[1-5]", "*"), MustParse("ports:[1-6]", "*")},
		{MustParse("cpus:1", "*"), MustParse("cpus:1", "*").Allocate("a")},
		{MustParse("disk(reservations: [(DYNAMIC,db,ops)])[id:pg,path:data]<SHARED>:1024", "*"), twoCopies},
		{MustParse("cpus:1", "*"), MustParse("cpus(eng):1", "*")},
	}
	for _, p := range pairs {
		var in Interner
		x, y := in.Intern(p[0]), in.Intern(p[1])
		require.False(t, x.Identical(y), "%s and %s", p[0], p[1])
		require.Equal(t, p[1].String(), y.String())
		require.Equal(t, p[1].Copies(p[1].Slice()[0]), y.Copies(p[1].Slice()[0]))
	}
}

// What Intern hands out is frozen: changing a copy in place leaves the
// shared storage alone, and so does changing the value interned.
func TestInternerValuesStayPut(t *testing.T) {
	var in Interner
	src := MustParse("cpus:4;mem:512", "*")
	shared := in.Intern(src)
	mine := shared
	mine.Add(MustParse("cpus:1", "*"))
	src.Subtract(MustParse("mem:512", "*"))
	require.Equal(t, "cpus:4; mem:512", shared.String())
	require.Equal(t, "cpus:4; mem:512", in.Intern(MustParse("cpus:4;mem:512", "*")).String())
	require.True(t, in.Intern(MustParse("cpus:4;mem:512", "*")).Identical(shared))

	// A frozen value is adopted as it is.
	frozen := MustParse("cpus:8", "*").Frozen()
	require.True(t, in.Intern(frozen).Identical(frozen))
}

// The Interner remembers the last internerSize distinct values, most
// recently used first: a value used again stays, the least recent goes.
func TestInternerForgetsLeastRecent(t *testing.T) {
	var in Interner
	val := func(i int) Resources { return MustParse(fmt.Sprintf("cpus:%d", i+1), "*") }
	first := in.Intern(val(0))
	for i := 1; i < internerSize; i++ {
		in.Intern(val(i))
		in.Intern(val(0)) // keeps 0 the most recent
	}
	in.Intern(val(internerSize)) // forgets 1, the least recent
	require.True(t, in.Intern(val(0)).Identical(first))
	again := in.Intern(val(1))
	require.Equal(t, "cpus:2", again.String())
	for i := range in.recent {
		require.False(t, in.recent[i].IsEmpty(), "slot %d", i)
	}
	// 1 came back as a new storage, and pushed out the least recent (2).
	two := in.recent[internerSize-1]
	require.Equal(t, "cpus:4", two.String(), "the least recent is now 3")
}

func BenchmarkInterner(b *testing.B) {
	shapes := make([]Resources, 8)
	for i := range shapes {
		shapes[i] = MustParse(fmt.Sprintf("cpus:%d;mem:4096;disk:4096;ports:[31000-32000]", 8+i), "*")
	}
	b.Run("hit", func(b *testing.B) {
		var in Interner
		b.ReportAllocs()
		for i := range b.N {
			in.Intern(shapes[i%len(shapes)])
		}
	})
	b.Run("miss", func(b *testing.B) {
		var in Interner
		fresh := MustParse("cpus:1;mem:1;disk:1;ports:[1-2]", "*")
		b.ReportAllocs()
		for range b.N {
			in.recent = [internerSize]Resources{}
			for _, s := range shapes[:4] {
				in.Intern(s)
			}
			in.Intern(fresh)
		}
	})
}
