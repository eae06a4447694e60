package sorter

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAgentIndexMatchesMap puts and removes agents at random, with enough
// of them for long probe runs and for growth, and checks every lookup
// against a map.
func TestAgentIndexMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var x agentIndex
	want := map[string]*agent{}
	for step := range 20000 {
		name := "agent" + strconv.Itoa(rng.IntN(3000))
		if a := want[name]; a != nil {
			if rng.IntN(3) == 0 {
				x.remove(a)
				delete(want, name)
			}
		} else {
			a := &agent{name: name}
			x.put(a)
			want[name] = a
		}
		if step%1000 == 0 || step > 19900 {
			if x.len() != len(want) {
				t.Fatalf("step %d: len %d, want %d", step, x.len(), len(want))
			}
			for i := range 3000 {
				name := "agent" + strconv.Itoa(i)
				if got := x.get(name); got != want[name] {
					t.Fatalf("step %d: get(%s) = %v, want %v", step, name, got, want[name])
				}
			}
			seen := 0
			x.all(func(a *agent) {
				if want[a.name] != a {
					t.Fatalf("step %d: all yields %s, not in the index", step, a.name)
				}
				seen++
			})
			if seen != len(want) {
				t.Fatalf("step %d: all yields %d agents, want %d", step, seen, len(want))
			}
		}
	}
	if got := (&agentIndex{}).get("a"); got != nil {
		t.Fatalf("empty index: get = %v", got)
	}
}

// The index doubles when a put would leave it more than four fifths full,
// from eight slots: probe runs stay short, and the table no larger than
// that needs.
func TestAgentIndexGrowsPastFourFifths(t *testing.T) {
	var x agentIndex
	for n := 1; n <= 200; n++ {
		x.put(&agent{name: "agent" + strconv.Itoa(n)})
		want := 8
		for 5*n > 4*want {
			want *= 2
		}
		if len(x.slots) != want {
			t.Fatalf("%d agents: %d slots, want %d", n, len(x.slots), want)
		}
	}
}
