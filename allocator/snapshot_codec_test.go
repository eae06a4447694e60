package allocator_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/allot-go/allot/allocator"
)

// TestRestoreOneEncoding checks that Restore accepts a snapshot only in
// the one form Snapshot writes for the state it describes, so that every
// snapshot it accepts saves back to the same bytes. It changes each byte
// of the hand-built state's snapshot in turn to a few values and restores
// the results, resealed: those refused must be refused with
// ErrInvalidSnapshot (or ErrSnapshotSorter, when a sorter's saved type is
// the damaged part); those accepted must keep the invariants, save to
// what was read, and run. Then come inputs in forms Snapshot never
// writes, which read as states that would save otherwise.
func TestRestoreOneEncoding(t *testing.T) {
	check := func(t *testing.T, in []byte) bool {
		t.Helper()
		a, err := allocator.Restore(in, allocator.RestoreOptions{})
		if err != nil {
			if !(errors.Is(err, allocator.ErrInvalidSnapshot) || errors.Is(err, allocator.ErrSnapshotSorter)) || a != nil {
				t.Fatalf("%v (allocator %v)", err, a)
			}
			return false
		}
		if err := a.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
		if again, err := a.Snapshot(); err != nil || !bytes.Equal(again, in) {
			t.Fatalf("an accepted snapshot saves other bytes (%v)", err)
		}
		a.AllocateAll()
		return true
	}
	data := handBuiltSnapshot(t)
	body := data[:len(data)-4]
	accepted := 0
	for i := len("allot-snapshot") + 1; i < len(body); i++ {
		for _, v := range []byte{0, 1, 0x80, body[i] ^ 1} {
			if v == body[i] {
				continue
			}
			m := bytes.Clone(body)
			m[i] = v
			if check(t, resealed(m)) {
				accepted++
			}
		}
	}
	t.Logf("%d changed snapshots accepted", accepted)

	a, err := allocator.New(allocator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	unset := bytes.Clone(empty[:len(empty)-4])
	// magic, version 2, seed 0, no fairness exclusions, then the flag of
	// unset minimum allocatable resources, which Snapshot never sets.
	if i := len("allot-snapshot") + 3; unset[i] == 0 {
		unset[i] = 1
	} else {
		t.Fatalf("byte %d of an empty allocator's snapshot is %d", i, unset[i])
	}
	for _, tc := range []struct{ name, body string }{
		{"minimum allocatable resources unset", string(unset)},
		// A varint in two bytes where one does (0xb9 0x00 is 57).
		{"overlong varint", "allot-snapshot\x020\x00\x00\x02\x01\x00\x0400000\x01\x00\x030000\xd60\x0000000000\x00\x00\x00\x14pcg:00000000000000000000000\x00\x00\x00\x00\x000\xb9\x00000000000000000000\x00\x00\x00\x00\x00\x00\x00\v*sorter.DRF0\nS\x01D\x00\x00\x00\x00\x00\x00\x00\x000\x00\x000\x00\x00\x00"},
		// The same inside the minimum allocatable quantities, which are
		// in package resources' binary form.
		{"overlong varint in quantities", "allot-snapshot\x020\x00\x00\x02\x01\x00\x0400000\x01\x00\x03000\xfa\x00\xd60\x0000000000\x00\x00\x00\x14pcg:00000000000000000000000\x00\x00\x00\x00\x0009000000000000000000\x00\x00\x00\x00\x00\x00\x00\v*sorter.DRF0\nS\x01D\x00\x00\x00\x00\x00\x00\x00\x000\x00\x000\x00\x00\x00"},
	} {
		if check(t, resealed([]byte(tc.body))) {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}
