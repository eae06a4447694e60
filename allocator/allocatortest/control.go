package allocatortest

import (
	"bytes"
	"time"

	"github.com/allot-go/allot/allocator"
)

// The handlers of the events that act on the allocator as a whole: the
// virtual clock (Advance), the whitelist, pausing (PauseResume), snapshots
// (SnapshotRestore); and Corners, which the generators expand before any
// harness sees it.

func (h *Harness) onAdvance(ev Event, s Views, eff *effects) {
	table := []time.Duration{0, time.Millisecond, 500 * time.Millisecond, 999 * time.Millisecond, time.Second,
		1001 * time.Millisecond, 2 * time.Second, 4999 * time.Millisecond, 5 * time.Second, 5001 * time.Millisecond,
		10 * time.Second, 30 * time.Second, time.Minute, time.Hour, 24 * time.Hour, allocator.MaxRefuse + 24*time.Hour}
	d := table[int(ev.Args[0])%len(table)]
	h.now = h.now.Add(d)
	h.record(eff, nil, "advance %s to +%s", d, h.now.Sub(h.start))
}

func (h *Harness) onWhitelist(ev Event, s Views, eff *effects) {
	x := ev.Args
	// A restriction lasts a few steps; then the harness lifts it.
	steps := int(x[2]%16) + 1
	switch m := x[0] % 8; {
	case m < 4:
		h.a.UpdateWhitelist(nil)
		h.whitelist, h.whitelistLeft = nil, 0
		h.record(eff, nil, "UpdateWhitelist(none)")
	case m == 4:
		h.a.UpdateWhitelist([]string{})
		h.whitelist, h.whitelistLeft = map[string]bool{}, steps
		h.record(eff, nil, "UpdateWhitelist([]) for %d steps", steps)
	default:
		hosts := []string{}
		h.whitelist, h.whitelistLeft = map[string]bool{}, steps
		for i, id := range h.agentIDs {
			if x[1]&(1<<(i%8)) != 0 {
				hosts = append(hosts, "host-"+id)
				h.whitelist["host-"+id] = true
			}
		}
		h.a.UpdateWhitelist(hosts)
		h.record(eff, nil, "UpdateWhitelist(%q) for %d steps", hosts, steps)
	}
}

func (h *Harness) onPauseResume(ev Event, s Views, eff *effects) {
	x := ev.Args
	// A pause lasts a few steps; then the harness resumes.
	if x[0]%4 == 0 {
		h.a.Pause()
		h.paused, h.pauseLeft = true, int(x[1]%8)+1
		h.record(eff, nil, "Pause() for %d steps", h.pauseLeft)
	} else {
		h.a.Resume()
		h.paused, h.pauseLeft = false, 0
		h.record(eff, nil, "Resume()")
	}
}

// onSnapshotRestore saves the harness's allocator and restores the
// snapshot into a new one, which must hold the same state and save the
// same bytes. The harness
// carries on with its own allocator (others may hold it: a Runner, a test
// comparing it with a copy); that a restored allocator goes on as the
// saved one is the allocator's own property test's concern.
func (h *Harness) onSnapshotRestore(ev Event, s Views, eff *effects) {
	data, err := h.a.Snapshot()
	if err != nil {
		h.record(eff, err, "Snapshot()")
		return
	}
	restored, err := allocator.Restore(data, h.restoreOptions())
	if err != nil {
		h.record(eff, err, "Restore(Snapshot())")
		return
	}
	var before, after allocator.Fingerprint
	h.a.Fingerprint(&before)
	restored.Fingerprint(&after)
	if !before.Equal(&after) {
		eff.fail("the restored allocator's fingerprint differs from the saved one's")
	} else if again, err := restored.Snapshot(); err != nil || !bytes.Equal(again, data) {
		// What the fingerprint and Describe do not cover (statements of
		// demand, rounds of declines, caches) is in the bytes.
		eff.fail("the restored allocator saves other bytes (%d, was %d; %v)", len(again), len(data), err)
	} else if want, got := h.a.Describe(), restored.Describe(); got != want {
		eff.fail("the restored allocator differs from the saved one:\n%s\nwas:\n%s", got, want)
	} else {
		// From now on it takes the same events and must give the same
		// results (twin.go).
		h.addRestoredTwin(restored)
	}
	h.record(eff, nil, "Snapshot(), Restore")
}

// onCorners steps over a Corners event as over nothing: GenSequence,
// Decode and DecodeBiased expand it into its corner's events, but a host
// may write one down.
func (h *Harness) onCorners(ev Event, s Views, eff *effects) {
	h.record(eff, nil, "corners (the generators expand them)")
}
