package sorter

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
)

// snapshotSorter is a sorter that can be saved, with the queries the test
// compares.
type snapshotSorter interface {
	Sorter
	Charger
	Snapshotter
}

// snapshotOps applies one random operation to every sorter of ss; errors
// must agree.
func snapshotOp(t *testing.T, rng *rand.Rand, ss []snapshotSorter) {
	t.Helper()
	clients := []string{"a", "a/b", "a/b/c", "a/d", "b", "c", "f1", "f2"}
	agents := []string{"s1", "s2", "s3"}
	c := clients[rng.IntN(len(clients))]
	ag := agents[rng.IntN(len(agents))]
	q := resources.MustParseQuantities(fmt.Sprintf("cpus:%d;mem:%d", 1+rng.IntN(4), 1+rng.IntN(64)))
	shared := resources.MustParse(fmt.Sprintf("disk(reservations: [(DYNAMIC,r)])[id:v%d,path:d]<SHARED>:10", rng.IntN(2)), "*").Allocate("r")
	weight := float64(1 + rng.IntN(3))
	total := resources.MustParseQuantities(fmt.Sprintf("cpus:%d;mem:%d;disk:100", 8+rng.IntN(8), 256))
	var errs []error
	op := rng.IntN(13)
	for _, s := range ss {
		var err error
		switch op {
		case 0, 1:
			err = s.Add(c)
		case 2:
			err = s.Remove(c)
		case 3:
			err = s.Activate(c)
		case 4:
			err = s.Deactivate(c)
		case 5:
			err = s.UpdateWeight(c, weight)
		case 6, 7:
			err = s.Charge(c, q, op == 6)
		case 8:
			err = s.Discharge(c, s.AllocationQuantities(c))
		case 9:
			err = s.Allocated(c, ag, shared)
		case 10:
			err = s.Unallocated(c, ag, shared)
		case 11:
			s.AddAgent(ag, total)
		case 12:
			if al, ok := s.(Allowances); ok {
				err = al.SetAllowance(c, q)
			}
		}
		errs = append(errs, err)
	}
	for i := 1; i < len(errs); i++ {
		if (errs[i] == nil) != (errs[0] == nil) {
			t.Fatalf("operation %d on %q: errors %v and %v", op, c, errs[0], errs[i])
		}
	}
}

func sameSorters(t *testing.T, step int, x, y snapshotSorter) {
	t.Helper()
	if a, b := x.Sort(), y.Sort(); !slices.Equal(a, b) {
		t.Fatalf("%T step %d: orders %v and %v", x, step, a, b)
	}
	for _, c := range []string{"a", "a/b", "a/b/c", "a/d", "b", "c", "f1", "f2"} {
		var ia, ib int
		var oka, okb bool
		if xi, ok := x.(Indexed); ok {
			ia, oka = xi.Index(c)
			ib, okb = y.(Indexed).Index(c)
		}
		if ia != ib || oka != okb || !x.AllocationQuantities(c).Equal(y.AllocationQuantities(c)) {
			t.Fatalf("step %d: client %q: numbers %d/%v and %d/%v, holdings %s and %s", step, c, ia, oka, ib, okb,
				x.AllocationQuantities(c), y.AllocationQuantities(c))
		}
	}
}

// TestPropertySnapshotRoundTrip saves DRF and Random sorters at a random
// point of random operations, restores them into new sorters, and requires
// the same orders, numbers and holdings from both for the operations that
// follow.
func TestPropertySnapshotRoundTrip(t *testing.T) {
	seed := testSeed(t)
	for run := range runs(200) {
		rng := newRand(seed + int64(run))
		cfg := Config{Seed: int64(run), FairnessExcluded: resources.NewNameSet("gpus")}
		for _, make := range []func() snapshotSorter{
			func() snapshotSorter { return NewDRF(cfg) },
			func() snapshotSorter { return NewRandom(cfg) },
		} {
			orig := make()
			at, steps := rng.IntN(60), 60+rng.IntN(60)
			var copy snapshotSorter
			for step := range steps {
				if step == at {
					data, err := orig.MarshalBinary()
					if err != nil {
						t.Fatal(err)
					}
					copy = make()
					if err := copy.UnmarshalBinary(data); err != nil {
						t.Fatalf("run %d: %v", run, err)
					}
					if again, _ := copy.MarshalBinary(); !slices.Equal(again, data) {
						t.Fatalf("run %d: a restored sorter saves other bytes", run)
					}
				}
				if copy == nil {
					snapshotOp(t, rng, []snapshotSorter{orig})
					continue
				}
				snapshotOp(t, rng, []snapshotSorter{orig, copy})
				sameSorters(t, step, orig, copy)
			}
		}
	}
}

func TestSnapshotBadInput(t *testing.T) {
	d := NewDRF(Config{})
	_ = d.Add("a")
	_ = d.Add("a/b")
	_ = d.Charge("a/b", resources.MustParseQuantities("cpus:1"), true)
	data, _ := d.MarshalBinary()
	for i := range len(data) {
		if err := NewDRF(Config{}).UnmarshalBinary(data[:i]); !errors.Is(err, ErrInvalidSnapshot) {
			t.Fatalf("cut at %d: %v", i, err)
		}
	}
	if err := NewRandom(Config{}).UnmarshalBinary(data); !errors.Is(err, ErrInvalidSnapshot) {
		t.Fatalf("a DRF snapshot into a Random sorter: %v", err)
	}
	if err := d.UnmarshalBinary(data); !errors.Is(err, ErrInvalidSnapshot) {
		t.Fatalf("into a sorter that is not empty: %v", err)
	}
}

func FuzzSnapshot(f *testing.F) {
	d := NewDRF(Config{})
	_ = d.Add("a")
	_ = d.Add("a/b")
	_ = d.Activate("a/b")
	_ = d.UpdateWeight("a", 2)
	_ = d.Charge("a/b", resources.MustParseQuantities("cpus:1"), true)
	d.AddAgent("s", resources.MustParseQuantities("cpus:4"))
	data, _ := d.MarshalBinary()
	f.Add(data)
	one := NewDRF(Config{})
	_ = one.Add("x/y")
	_ = one.Activate("x/y")
	_ = one.Charge("x/y", resources.MustParseQuantities("cpus:1"), true)
	one.AddAgent("s", resources.MustParseQuantities("cpus:4"))
	data, _ = one.MarshalBinary()
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range []snapshotSorter{NewDRF(Config{}), NewRandom(Config{}), NewLazyDRF(Config{})} {
			if err := s.UnmarshalBinary(data); err != nil {
				if !errors.Is(err, ErrInvalidSnapshot) {
					t.Fatalf("error %v is not ErrInvalidSnapshot", err)
				}
				continue
			}
			_ = s.Sort()
		}
		// What a DRF sorter reads, a LazyDRF reads too, and the two answer
		// alike, before and after a client joins.
		p := &lazyPair{lazy: NewLazyDRF(Config{}), drf: NewDRF(Config{})}
		errL, errD := p.lazy.UnmarshalBinary(data), p.drf.UnmarshalBinary(data)
		if (errL == nil) != (errD == nil) {
			t.Fatalf("LazyDRF read it: %v; DRF: %v", errL, errD)
		}
		if errD != nil {
			return
		}
		var clients []string
		for l := range p.drf.t.leaves() {
			clients = append(clients, l.client())
		}
		if err := p.compare(clients); err != nil {
			t.Fatalf("restored: %v", err)
		}
		if err := p.both("Add", func(s lazyTarget) error {
			return s.Add("zz")
		}); err != nil {
			t.Fatal(err)
		}
		if err := p.compare(append(clients, "zz")); err != nil {
			t.Fatalf("after a client joined: %v", err)
		}
	})
}

// TestSnapshotHugeNumbering reads a snapshot whose client numbering claims
// 2^31 numbers for no client: the reader must refuse it before it sizes
// anything by that claim.
func TestSnapshotHugeNumbering(t *testing.T) {
	// 'S', version, kind; no weight, allowance, agent, client or inner
	// node; 2^31 numbers (a varint), none free.
	data := []byte{'S', snapshotVersion, 'D', 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x08, 0}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := NewDRF(Config{}).UnmarshalBinary(data)
	runtime.ReadMemStats(&after)
	// The count is above the most numbers a snapshot may claim, which is
	// also the most an int holds on a 32-bit platform.
	if !errors.Is(err, ErrInvalidSnapshot) || !strings.Contains(err.Error(), "client numbers 2147483648 is above 2147483647") {
		t.Fatalf("got %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("refusing the snapshot allocated %d bytes", grew)
	}
}
