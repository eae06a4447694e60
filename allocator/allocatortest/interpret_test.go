package allocatortest

import (
	"slices"
	"testing"

	"github.com/allot-go/allot/allocator"
)

// Every kind has a name and a handler: a Harness steps over an event
// whose kind has no handler as over an unknown kind, checking nothing the
// kind is for.
func TestEveryKindHasAHandler(t *testing.T) {
	for k := range NumKinds {
		if kindNames[k] == "" {
			t.Errorf("kind %d has no name in kindNames", k)
		}
		if handlers[k] == nil {
			t.Errorf("kind %s has no handler in handlers", k)
		}
	}
	for i, c := range badCases {
		if c == nil {
			t.Errorf("BadInput case %d has no call in badCases", i)
		}
	}
}

// Every kind of event the allocator takes (allocator.EventKinds) is
// reached by the random events: the sequences the configurations draw
// journal an entry of each kind (a call that fails journals nothing). And
// DecodeBiased, which the event fuzzer reads, has a byte for every kind.
func TestRandomEventsReachEveryEventKind(t *testing.T) {
	table := kindTable()
	for k := range NumKinds {
		if k != Corners && !slices.Contains(table[:], k) {
			t.Errorf("DecodeBiased reads no byte as %s", k)
		}
	}
	seen := map[allocator.EventKind]bool{}
	left := func() []allocator.EventKind {
		var out []allocator.EventKind
		for _, k := range allocator.EventKinds() {
			if !seen[k] {
				out = append(out, k)
			}
		}
		return out
	}
	for round := range 4 {
		for _, c := range Configs() {
			opts := c.Options
			opts.Fast = true
			opts.Allocator.Journal = func(e allocator.Entry) { seen[e.Event] = true }
			for i, s := range Sequences(int64(round), 3, c.Mix, 80) {
				if err := RunSequence(opts, s); err != nil {
					t.Fatalf("%s: sequence %d: %v\n%s", c.Name, i, err, s)
				}
			}
		}
		if len(left()) == 0 {
			return
		}
	}
	t.Errorf("the random events reach no %q", left())
}
