package allocator_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
)

// views renders everything an allocator shows: Describe and every view,
// the ids and resources of outstanding offers, the ledger, the last run's
// statistics and skips, inverse-offer answers.
func views(a *allocator.Allocator) string {
	var b strings.Builder
	b.WriteString(a.Describe())
	for _, v := range a.Agents() {
		u := v.Unavailability
		v.Unavailability = nil
		fmt.Fprintf(&b, "agent %v", v)
		if u != nil {
			fmt.Fprintf(&b, " unavailable %v", *u)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "roles %v\n", a.Roles())
	fws := a.Frameworks()
	fmt.Fprintf(&b, "frameworks %v\nfilters %v\noffers %v\n", fws, a.Filters(), a.Offers())
	for _, f := range fws {
		fmt.Fprintf(&b, "tasks of %s %v skips %v\n", f.ID, a.Tasks(f.ID), a.Skips(f.ID))
	}
	fmt.Fprintf(&b, "last run %+v paused %v inverse %v\n", a.LastRun(), a.Paused(), a.InverseOfferStatuses())
	return b.String()
}

// throughJSON encodes an entry and decodes it again, as a host that logs
// the journal does.
func throughJSON(t *testing.T, e allocator.Entry) allocator.Entry {
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("marshal %s: %v", e.Event, err)
	}
	if bytes.ContainsRune(data, '\n') {
		t.Fatalf("entry %s spans lines", data)
	}
	var back allocator.Entry
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("unmarshal %s: %v", data, err)
	}
	again, _ := json.Marshal(back)
	if !bytes.Equal(again, data) {
		t.Fatalf("entry changed through JSON:\n%s\n%s", data, again)
	}
	return back
}

// snapshotCheck runs the sequence through a Harness up to split, saves
// its allocator, restores it, and replays the journal of the same events
// into a fresh allocator; then it runs the rest of the sequence through the
// harness and feeds its journal to the restored and the replayed
// allocators. After every step all three must show the same views, and
// every run of the restored and replayed allocators the same offers and
// inverse offers. It returns what went wrong, or "".
func snapshotCheck(t *testing.T, opts allocatortest.Options, s allocatortest.Sequence, split int) string {
	var journal []allocator.Entry
	opts.Fast = true // the harness's own checks are not what this property is about
	opts.Allocator.Seed = s.Seed
	opts.Allocator.Journal = func(e allocator.Entry) { journal = append(journal, throughJSON(t, e)) }
	h, err := allocatortest.New(opts)
	if err != nil {
		return err.Error()
	}
	split %= len(s.Events) + 1
	for _, e := range s.Events[:split] {
		if err := h.Step(e); err != nil {
			return err.Error()
		}
	}
	orig := h.Allocator()
	data, err := orig.Snapshot()
	if err != nil {
		return fmt.Sprintf("snapshot: %v", err)
	}
	with := allocator.RestoreOptions{Clock: h.Now, RoleSorter: opts.Allocator.RoleSorter, FrameworkSorter: opts.Allocator.FrameworkSorter}
	restored, err := allocator.Restore(data, with)
	if err != nil {
		return fmt.Sprintf("restore after %d events: %v", split, err)
	}
	if again, err := restored.Snapshot(); err != nil || !bytes.Equal(again, data) {
		return fmt.Sprintf("the restored allocator saves other bytes (%v)", err)
	}
	fresh := opts.Allocator
	fresh.Clock, fresh.Journal = h.Now, nil
	replayed, err := allocator.New(fresh)
	if err != nil {
		return err.Error()
	}
	for i, e := range journal {
		if _, err := replayed.Apply(e); err != nil {
			return fmt.Sprintf("replay of entry %d (%s): %v", i, e.Event, err)
		}
	}
	journal = journal[:0]
	want := views(orig)
	if got := views(restored); got != want {
		return fmt.Sprintf("after %d events, restored views differ:\n%s\n--- original ---\n%s", split, got, want)
	}
	if got := views(replayed); got != want {
		return fmt.Sprintf("after %d events, replayed views differ:\n%s\n--- original ---\n%s", split, got, want)
	}
	for i, e := range s.Events[split:] {
		if err := h.Step(e); err != nil {
			return err.Error()
		}
		for _, entry := range journal {
			r1, err1 := restored.Apply(entry)
			r2, err2 := replayed.Apply(entry)
			if err1 != nil || err2 != nil {
				return fmt.Sprintf("step %d: %s: restored %v, replayed %v", split+i, entry.Event, err1, err2)
			}
			if a, b := fmt.Sprintf("%v %v %+v", r1.Offers, r1.InverseOffers, r1.Stats), fmt.Sprintf("%v %v %+v", r2.Offers, r2.InverseOffers, r2.Stats); a != b {
				return fmt.Sprintf("step %d: runs differ:\nrestored %s\nreplayed %s", split+i, a, b)
			}
		}
		journal = journal[:0]
		want := views(orig)
		if got := views(restored); got != want {
			return fmt.Sprintf("step %d (%s): restored views differ:\n%s\n--- original ---\n%s", split+i, e, got, want)
		}
		if got := views(replayed); got != want {
			return fmt.Sprintf("step %d (%s): replayed views differ:\n%s\n--- original ---\n%s", split+i, e, got, want)
		}
	}
	if err := restored.CheckInvariants(); err != nil {
		return err.Error()
	}
	return ""
}

// TestPropertySnapshotRestore saves an allocator at a random point of a
// random event sequence, restores it, and feeds the rest of the sequence
// to both (and to an allocator replayed from the journal): offers,
// inverse offers and views must be identical throughout. Replay a failure
// with -allocator.seed.
func TestPropertySnapshotRestore(t *testing.T) {
	for _, c := range propertyConfigs {
		t.Run(c.Name, func(t *testing.T) {
			p := parameters(t)
			p.MinSuccessfulTests = max(p.MinSuccessfulTests/3, 5)
			props := gopter.NewProperties(p)
			props.Property("a restored allocator goes on as the saved one", prop.ForAll(
				func(s allocatortest.Sequence, split int) string {
					if msg := snapshotCheck(t, c.Options, s, split); msg != "" {
						return fmt.Sprintf("%s\nsplit %d, sequence:\n%s", msg, split%(len(s.Events)+1), s)
					}
					return ""
				},
				allocatortest.GenSequence(c.Mix, *eventsFlag), gen.IntRange(0, 1<<20)))
			props.TestingRun(t)
		})
	}
}
