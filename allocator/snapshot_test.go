package allocator_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
	"github.com/stretchr/testify/require"
)

// snapshotOf runs a recorded event sequence through a Harness and saves
// its allocator: a state with agents, frameworks, offers, filters, tasks,
// quota and reservations.
func snapshotOf(tb testing.TB, opts allocatortest.Options, seed int64, events int) []byte {
	tb.Helper()
	s, err := allocatortest.ParseSequence(recorded)
	if err != nil {
		tb.Fatal(err)
	}
	opts.Allocator.Seed = seed
	return runAndSave(tb, opts, s.Events[:min(events, len(s.Events))])
}

// runAndSave runs events through a Harness made with opts and saves its
// allocator.
func runAndSave(tb testing.TB, opts allocatortest.Options, events []allocatortest.Event) []byte {
	tb.Helper()
	h, err := allocatortest.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	if err := h.Run(events); err != nil {
		tb.Fatal(err)
	}
	data, err := h.Allocator().Snapshot()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// resealed returns body with a valid checksum, so that Restore reads it.
func resealed(body []byte) []byte {
	out := bytes.Clone(body)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

func TestRestoreErrors(t *testing.T) {
	data := snapshotOf(t, allocatortest.Options{}, 7, 200)
	if _, err := allocator.Restore(data, allocator.RestoreOptions{}); err != nil {
		t.Fatalf("restore: %v", err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, allocator.ErrInvalidSnapshot},
		{"not a snapshot", []byte(`{"agents":[]}`), allocator.ErrInvalidSnapshot},
		{"another version", append([]byte("allot-snapshot\x01"), data[15:]...), allocator.ErrSnapshotVersion},
		{"damaged", func() []byte { d := bytes.Clone(data); d[len(d)/2] ^= 0x40; return d }(), allocator.ErrInvalidSnapshot},
		{"trailing bytes", resealed(append(bytes.Clone(data[:len(data)-4]), 0)), allocator.ErrInvalidSnapshot},
		{"body cut short", resealed(data[:len(data)*2/3]), allocator.ErrInvalidSnapshot},
	} {
		a, err := allocator.Restore(tc.data, allocator.RestoreOptions{})
		if !errors.Is(err, tc.want) || !errors.Is(err, allocator.ErrInvalidSnapshot) || a != nil {
			t.Errorf("%s: got %v, %v; want %v", tc.name, a, err, tc.want)
		}
	}
	for n := range len(data) {
		if a, err := allocator.Restore(data[:n], allocator.RestoreOptions{}); !errors.Is(err, allocator.ErrInvalidSnapshot) || a != nil {
			t.Fatalf("cut at %d of %d bytes: %v", n, len(data), err)
		}
	}

	// Sorters: another type than the one saved, and one that cannot be
	// saved.
	random := func(c sorter.Config) sorter.Sorter { return sorter.NewRandom(c) }
	if _, err := allocator.Restore(data, allocator.RestoreOptions{RoleSorter: random}); !errors.Is(err, allocator.ErrSnapshotSorter) {
		t.Errorf("restore with a random sorter: %v", err)
	}
	plain := func(c sorter.Config) sorter.Sorter { return struct{ sorter.Sorter }{sorter.NewDRF(c)} }
	a, _ := allocator.New(allocator.Options{RoleSorter: plain})
	if _, err := a.Snapshot(); !errors.Is(err, allocator.ErrSnapshotSorter) {
		t.Errorf("snapshot with a sorter that cannot be saved: %v", err)
	}
}

// TestRestoreKeepsFunctions checks that the host's functions are the
// restored allocator's: its clock and its journal.
func TestRestoreKeepsFunctions(t *testing.T) {
	data := snapshotOf(t, allocatortest.Options{}, 7, 120)
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var got []allocator.Entry
	a, err := allocator.Restore(data, allocator.RestoreOptions{
		Clock:   func() time.Time { return now },
		Journal: func(e allocator.Entry) { got = append(got, e) },
	})
	if err != nil {
		t.Fatal(err)
	}
	res := a.AllocateAll()
	if len(got) != 1 || got[0].Event != allocator.EventAllocateAll || !got[0].At.Equal(now) || got[0].Run != res.Stats.Run {
		t.Fatalf("journal %+v after run %d", got, res.Stats.Run)
	}
}

// FuzzRestore feeds Restore arbitrary bytes, and the same bytes resealed
// with a valid checksum so that the reader behind it is reached: no input
// may panic, and what is accepted must pass CheckInvariants, allocate, and
// save to the same bytes. Seeds are snapshots of recorded event sequences
// (and those under testdata/fuzz/FuzzRestore); run it longer with
//
//	go test -run XXX -fuzz FuzzRestore -fuzztime 5m ./allocator
func FuzzRestore(f *testing.F) {
	for _, n := range []int{0, 20, 200} {
		data := snapshotOf(f, allocatortest.Options{}, 7, n)
		f.Add(data)
		f.Add(data[:len(data)-4])
	}
	f.Add(snapshotOf(f, propertyConfigs[2].Options, 3, 200))
	f.Fuzz(func(t *testing.T, data []byte) {
		inputs := [][]byte{data}
		if len(data) > 4 {
			inputs = append(inputs, resealed(data[:len(data)-4]), resealed(data))
		}
		for _, in := range inputs {
			a, err := allocator.Restore(in, allocator.RestoreOptions{})
			if err != nil {
				if a != nil || !(errors.Is(err, allocator.ErrInvalidSnapshot) || errors.Is(err, allocator.ErrSnapshotSorter)) {
					t.Fatalf("%v (allocator %v)", err, a)
				}
				continue
			}
			if err := a.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
			again, err := a.Snapshot()
			if err != nil || !bytes.Equal(again, in) {
				t.Fatalf("restored snapshot saves other bytes (%v)", err)
			}
			a.AllocateAll()
			if err := a.CheckInvariants(); err != nil {
				t.Fatalf("after a run: %v", err)
			}
		}
	})
}

// The options of the offer order (MesosOfferOrder, WholeOffers) are saved
// after the others: a restored allocator runs with them, as the saved one
// did. With WholeOffers an offer to a framework that states demand is the
// whole agent, not one task's size. With MesosOfferOrder a decline puts
// nobody in a round, so the next run holds nobody back (with the rotation
// it counts the decliner held back, ReasonDeclined, before offering it
// the agent again), and the allocator saves no round, which a snapshot
// with that option may not hold.
func TestRestoreKeepsOfferOrder(t *testing.T) {
	agent := resources.MustParse("cpus:4;mem:4096", "*")
	task := resources.MustParseQuantities("cpus:1;mem:1024")
	for _, mesos := range []bool{false, true} {
		clock := allocator.NewManualClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		a, err := allocator.New(allocator.Options{Clock: clock.Now, MesosOfferOrder: mesos, WholeOffers: true})
		require.NoError(t, err)
		require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, agent, nil))
		require.NoError(t, a.AddFramework("f1", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
		data, err := a.Snapshot()
		require.NoError(t, err)
		b, err := allocator.Restore(data, allocator.RestoreOptions{Clock: clock.Now})
		require.NoError(t, err)
		for name, x := range map[string]*allocator.Allocator{"saved": a, "restored": b} {
			require.NoError(t, x.UpdateDemand("f1", "r", []allocator.Pending{{Resources: task, Count: 1}}))
			res := x.AllocateAll()
			require.Len(t, res.Offers, 1)
			o := res.Offers[0]
			require.True(t, o.Resources.Unallocate().Equal(agent), "%s: offered %s, want the whole agent", name, o.Resources)
			require.NoError(t, x.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{}))
			require.NoError(t, x.UpdateDemand("f1", "r", []allocator.Pending{{Resources: task, Count: 1}}))
			res = x.AllocateAll()
			require.Len(t, res.Offers, 1, "%s, mesos order %v", name, mesos)
			held := res.Stats.Skips[allocator.ReasonDeclined]
			if mesos {
				require.Zero(t, held, "%s: a decliner held back with Mesos's offer order", name)
			} else {
				require.Equal(t, 1, held, "%s: the decliner not held back with the rotation", name)
			}
			require.NoError(t, x.RecoverResources(o.FrameworkID, o.AgentID, res.Offers[0].Resources, &allocator.Filter{}))
			again, err := x.Snapshot()
			require.NoError(t, err)
			_, err = allocator.Restore(again, allocator.RestoreOptions{Clock: clock.Now})
			require.NoError(t, err, "%s, mesos order %v: saved after a decline", name, mesos)
		}
	}
}
