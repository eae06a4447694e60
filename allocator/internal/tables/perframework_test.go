package tables

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

func res(text string) resources.Resources { return resources.MustParse(text, "*") }

// checkPerFramework compares p with want (what each framework holds, never
// an empty value) through every reading method, and checks the layout: no
// empty entry, the inline framework never also in the map, the inline place
// used before any map is made.
func checkPerFramework(t *testing.T, p *PerFramework, want map[string]resources.Resources, ids []string, msg string) {
	t.Helper()
	require.Equal(t, len(want), p.Len(), msg)
	require.Equal(t, slices.Sorted(maps.Keys(want)), p.IDs(), msg)
	for _, id := range ids {
		w, in := want[id]
		require.Equal(t, in, p.Has(id), "%s: has %q", msg, id)
		got := p.Get(id)
		require.True(t, got.Equal(w), "%s: get %q = %v, want %v", msg, id, got, w)
	}
	seen := map[string]bool{}
	for id, r := range p.All() {
		require.False(t, seen[id], "%s: %q yielded twice", msg, id)
		seen[id] = true
		w, in := want[id]
		require.True(t, in, "%s: all yields %q, which holds nothing", msg, id)
		require.True(t, r.Equal(w), "%s: all %q = %v, want %v", msg, id, r, w)
	}
	require.Len(t, seen, len(want), msg)
	clone := p.Clone()
	require.Len(t, clone, len(want), msg)
	for id, r := range clone {
		require.True(t, r.Equal(want[id]), "%s: clone %q", msg, id)
	}

	// Layout: the invariant of the inline place.
	if p.Fw == "" {
		require.True(t, p.first.IsEmpty(), "%s: an unused inline place holds %v", msg, p.first)
	} else {
		require.False(t, p.first.IsEmpty(), "%s: an empty inline entry", msg)
		_, dup := p.More[p.Fw]
		require.False(t, dup, "%s: %q both inline and in the map", msg, p.Fw)
	}
	for id, r := range p.More {
		require.NotEmpty(t, id, msg)
		require.False(t, r.IsEmpty(), "%s: an empty entry for %q in the map", msg, id)
	}
}

// The first framework is kept inline: one framework costs no map; the map
// holds the others, and an entry stays where it is kept.
func TestPerFrameworkLayout(t *testing.T) {
	var p PerFramework
	ids := []string{"", "a", "b", "c"}
	checkPerFramework(t, &p, nil, ids, "empty")

	p.Set("b", res("cpus:1"))
	require.Equal(t, "b", p.Fw, "the first framework is inline")
	require.Nil(t, p.More, "one framework makes no map")
	checkPerFramework(t, &p, map[string]resources.Resources{"b": res("cpus:1")}, ids, "one")

	p.Set("b", res("cpus:2"))
	require.Equal(t, "b", p.Fw)
	require.Nil(t, p.More, "replacing the inline entry makes no map")
	checkPerFramework(t, &p, map[string]resources.Resources{"b": res("cpus:2")}, ids, "replaced")

	p.Set("a", res("mem:10"))
	require.Equal(t, "b", p.Fw)
	require.Len(t, p.More, 1)
	checkPerFramework(t, &p, map[string]resources.Resources{"a": res("mem:10"), "b": res("cpus:2")}, ids, "two")

	p.Remove("b")
	require.Empty(t, p.Fw, "removing the inline entry frees its place")
	checkPerFramework(t, &p, map[string]resources.Resources{"a": res("mem:10")}, ids, "inline removed")

	// a stays in the map; setting it again does not move it inline.
	p.Set("a", res("mem:20"))
	require.Empty(t, p.Fw)
	checkPerFramework(t, &p, map[string]resources.Resources{"a": res("mem:20")}, ids, "a kept in the map")

	// A new framework takes the free inline place.
	p.Set("c", res("disk:5"))
	require.Equal(t, "c", p.Fw)
	checkPerFramework(t, &p, map[string]resources.Resources{"a": res("mem:20"), "c": res("disk:5")}, ids, "c inline")

	// Setting nothing removes, inline and in the map.
	p.Set("c", resources.Resources{})
	p.Set("a", resources.Resources{})
	checkPerFramework(t, &p, nil, ids, "emptied")
	require.Empty(t, p.Fw)

	p.Remove("absent")
	checkPerFramework(t, &p, nil, ids, "removal of an absent framework")
}

func TestPerFrameworkAdd(t *testing.T) {
	var p PerFramework
	p.Add("a", resources.Resources{})
	checkPerFramework(t, &p, nil, []string{"a"}, "adding nothing")
	p.Add("a", res("cpus:1"))
	p.Add("a", res("cpus:2;mem:3"))
	p.Add("b", res("mem:1"))
	p.Add("b", resources.Resources{})
	checkPerFramework(t, &p, map[string]resources.Resources{"a": res("cpus:3;mem:3"), "b": res("mem:1")}, []string{"a", "b"}, "sums")
}

func TestPerFrameworkAllStops(t *testing.T) {
	var p PerFramework
	p.Set("a", res("cpus:1"))
	p.Set("b", res("cpus:2"))
	p.Set("c", res("cpus:3"))
	for stopAt := 1; stopAt <= 3; stopAt++ {
		n := 0
		for range p.All() {
			n++
			if n == stopAt {
				break
			}
		}
		require.Equal(t, stopAt, n)
	}
	// The inline one alone.
	var q PerFramework
	q.Set("a", res("cpus:1"))
	for id := range q.All() {
		require.Equal(t, "a", id)
		break
	}
}

// Clone copies: changing the clone leaves p alone.
func TestPerFrameworkClone(t *testing.T) {
	var p PerFramework
	p.Set("a", res("cpus:1"))
	p.Set("b", res("cpus:2"))
	c := p.Clone()
	c["a"] = res("mem:1")
	delete(c, "b")
	c["z"] = res("cpus:9")
	checkPerFramework(t, &p, map[string]resources.Resources{"a": res("cpus:1"), "b": res("cpus:2")}, []string{"a", "b", "z"}, "after the clone changed")
}

// A randomized model: a PerFramework reads as a map of non-empty values
// would, whatever the order of sets, adds and removals.
func TestPerFrameworkModel(t *testing.T) {
	const seed = 20240601
	rng := rand.New(rand.NewPCG(seed, 1))
	ids := []string{"f0", "f1", "f2", "f3", "f4"}
	values := []resources.Resources{{}, res("cpus:1"), res("mem:2"), res("cpus:0.5;mem:1"), res("disk:3")}
	for round := range 200 {
		var p PerFramework
		want := map[string]resources.Resources{}
		for step := range 40 {
			id := ids[rng.IntN(len(ids))]
			v := values[rng.IntN(len(values))]
			var op string
			switch rng.IntN(4) {
			case 0, 1:
				op = "set"
				p.Set(id, v)
				if v.IsEmpty() {
					delete(want, id)
				} else {
					want[id] = v
				}
			case 2:
				op = "add"
				p.Add(id, v)
				if sum := want[id].Plus(v); !sum.IsEmpty() {
					want[id] = sum
				}
			case 3:
				op = "remove"
				p.Remove(id)
				delete(want, id)
			}
			checkPerFramework(t, &p, want, ids, fmt.Sprintf("seed %d round %d step %d: %s %s %v", seed, round, step, op, id, v))
		}
	}
}
