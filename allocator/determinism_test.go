package allocator_test

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/allocatortest"
)

// generate returns n sequences drawn from a fixed seed.
func generate(t *testing.T, seed int64, n int, mix allocatortest.Mix, events int) []allocatortest.Sequence {
	t.Helper()
	p := gopter.DefaultGenParameters()
	p.Rng = rand.New(rand.NewSource(seed))
	g := allocatortest.GenSequence(mix, events)
	out := make([]allocatortest.Sequence, n)
	for i := range out {
		v, ok := g(p).Retrieve()
		if !ok {
			t.Fatal("generator gave no sequence")
		}
		out[i] = v.(allocatortest.Sequence)
	}
	return out
}

// replay runs s through a new harness and returns its log and the final
// Describe. With fast, the harness checks with Options.Fast and keeps its
// log.
func replay(t *testing.T, opts allocatortest.Options, s allocatortest.Sequence, fast bool) (string, string) {
	t.Helper()
	opts.Allocator.Seed = s.Seed
	opts.Fast, opts.Log = fast, fast
	h, err := allocatortest.New(opts)
	require.NoError(t, err)
	if err := h.Run(s.Events); err != nil {
		t.Fatalf("%v\nsequence:\n%s", err, s)
	}
	return h.Log(), h.Allocator().Describe()
}

// firstDifference shows where two texts part.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + al[i] + "\n  vs " + bl[i]
		}
	}
	return "one text is a prefix of the other"
}

// The same events and seed give byte-identical offers, logs and state,
// however often they are replayed, whether the harness checks everything
// after every step or checks with Options.Fast, and after a round trip
// through the sequence's text and byte forms.
func TestDeterminismReplay(t *testing.T) {
	n := 15
	if raceEnabled {
		n = 4
	}
	for _, c := range propertyConfigs {
		t.Run(c.Name, func(t *testing.T) {
			for i, s := range generate(t, 7, n, c.Mix, 80) {
				log1, desc1 := replay(t, c.Options, s, false)
				log2, desc2 := replay(t, c.Options, s, true)
				if log1 != log2 {
					t.Fatalf("sequence %d: two replays (the second with Fast) differ: %s\nsequence:\n%s", i, firstDifference(log1, log2), s)
				}
				if desc1 != desc2 {
					t.Fatalf("sequence %d: final states differ: %s\nsequence:\n%s", i, firstDifference(desc1, desc2), s)
				}
				if !strings.Contains(log1, "  offer ") && i == 0 {
					t.Logf("sequence %d made no offers", i)
				}

				parsed, err := allocatortest.ParseSequence(s.String())
				require.NoError(t, err)
				if log3, desc3 := replay(t, c.Options, parsed, true); log3 != log1 || desc3 != desc1 {
					t.Fatalf("sequence %d: replay from text differs: %s", i, firstDifference(log1, log3))
				}

				decoded := allocatortest.Decode(allocatortest.Encode(s))
				if decoded.String() != s.String() {
					t.Fatalf("sequence %d: byte coding does not round-trip:\n%s\nbecame\n%s", i, s, decoded)
				}
			}
		})
	}
}

// recorded is an event log written down once: every kind of event, with
// reservations, volumes, declines with filters across their expiry, quota,
// weights and maintenance.
const recorded = `seed 4242
add-agent 0 255 253 1
add-agent 1 22 140 4
add-agent 2 77 64 0
add-framework 0 3 7 4
add-framework 1 48 1 0
add-framework 2 4 15 68
allocate 0 0 0 0
operate 0 9 3 0
operate 0 3 7 16
accept 1 2 1 5
decline 0 0 5 0
allocate-all 0 0 0 0
quota 4 2 2 1
weights 0 2 3 1
advance 4 0 0 0
allocate 0 0 0 0
accept 0 3 3 2
allocate-all 0 0 0 0
recover 0 0 3 0
decline 1 1 7 0
operator-operate 2 0 2 64
operator-operate 2 8 3 64
suppress 1 0 0 0
revive 1 0 0 0
maintenance 0 10 1 0
allocate-all 0 0 0 0
respond-inverse 0 1 3 0
advance 8 0 0 0
allocate 0 0 0 0
operate 1 4 0 0
operate 2 5 9 0
operate 0 6 10 0
update-agent 2 2 0 0
update-framework 2 6 16 2
bad-input 7 0 0 0
bad-input 15 0 0 0
remove-agent 1 0 0 0
whitelist 5 3 2 0
allocate-all 0 0 0 0
pause-resume 0 1 0 0
allocate-all 0 0 0 0
add-resource-provider 0 1 3 0
deactivate-framework 0 0 0 0
activate-framework 0 0 0 0
remove-framework 1 0 0 0
advance 13 0 0 0
allocate-all 0 0 0 0
`

// A recorded event log replayed twice gives byte-identical offers and
// Describe output, and the log shows the events did what they say.
func TestDeterminismRecordedLog(t *testing.T) {
	s, err := allocatortest.ParseSequence(recorded)
	require.NoError(t, err)
	opts := propertyConfigs[0].Options
	log1, desc1 := replay(t, opts, s, false)
	log2, desc2 := replay(t, opts, s, true)
	if log1 != log2 {
		t.Fatalf("two replays differ: %s", firstDifference(log1, log2))
	}
	if desc1 != desc2 {
		t.Fatalf("final states differ: %s", firstDifference(desc1, desc2))
	}
	for _, want := range []string{"  offer ", "UpdateAllocation(", "UpdateAvailable(", "RecoverResources(", "UpdateQuota(", "-> error: "} {
		if !strings.Contains(log1, want) {
			t.Errorf("the log shows no %q:\n%s", want, log1)
		}
	}
	if bytes.Count([]byte(log1), []byte("  offer ")) < 5 {
		t.Errorf("too few offers:\n%s", log1)
	}
}
