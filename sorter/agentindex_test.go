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
