package main

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
	"github.com/allot-go/allot/sorter/sortertest"
)

// The variant passes the behaviours every sorter must have, and the DRF
// ordering rules (they use no reservation of a client's own, so charging
// is plain DRF there).
func TestConformance(t *testing.T) {
	sortertest.Run(t, NewBeyondReservation)
	t.Run("Fair", func(t *testing.T) { sortertest.RunFair(t, NewBeyondReservation) })
}

func TestChargesBeyondReservation(t *testing.T) {
	s := NewBeyondReservation(sorter.Config{})
	s.AddAgent("s1", resources.MustParseQuantities("cpus:10;mem:100"))
	for _, c := range []string{"db", "db/x", "web"} {
		if err := s.Add(c); err != nil {
			t.Fatal(err)
		}
		if err := s.Activate(c); err != nil {
			t.Fatal(err)
		}
	}
	// db's own reservation and db/x's use of its parent's are free; web
	// holding db's reservation (which the allocator never does) is not.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Allocated("db", "s1", resources.MustParse("cpus(db):5;mem:10", "*")))
	must(s.Allocated("db/x", "s1", resources.MustParse("cpus(db):3", "*")))
	must(s.Allocated("web", "s1", resources.MustParse("cpus(db):1", "*")))

	share := s.(interface{ ShareOf(string) float64 })
	if got := share.ShareOf("db/."); got != 0.1 {
		t.Errorf("db's own share = %v, want 0.1 (mem 10 of 100; its cpus are free)", got)
	}
	if got := share.ShareOf("db/x"); got != 0 {
		t.Errorf("db/x's share = %v, want 0", got)
	}
	if got := share.ShareOf("web"); got != 0.1 {
		t.Errorf("web's share = %v, want 0.1", got)
	}
	if got, want := s.AllocationQuantities("db"), resources.MustParseQuantities("cpus:5;mem:10"); !got.Equal(want) {
		t.Errorf("db holds %s, want everything it was given: %s", got, want)
	}
	// Order: db's subtree (0.1) ties web (0.1) on share; its count is 2
	// against web's 1, so web comes first.
	if got, want := s.Sort(), []string{"web", "db/x", "db"}; !slices.Equal(got, want) {
		t.Errorf("Sort() = %v, want %v", got, want)
	}
	if err := s.Unallocated("db", "s1", resources.MustParse("cpus(db):6", "*")); !errors.Is(err, sorter.ErrNotAllocated) {
		t.Errorf("giving back more than held: %v, want ErrNotAllocated", err)
	}
	must(s.Update("db", "s1", resources.MustParse("mem:10", "*"), resources.MustParse("mem(db):10", "*")))
	if got := share.ShareOf("db/."); got != 0 {
		t.Errorf("after reserving its mem, db's own share = %v, want 0", got)
	}
}

// In the allocator: DRF gives both shared agents to web; the variant
// splits them.
func TestPluggedIntoAllocator(t *testing.T) {
	var buf bytes.Buffer
	out, err := run(&buf)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	two := resources.MustParseQuantities("cpus:2;mem:4096")
	four := resources.MustParseQuantities("cpus:4;mem:8192")

	drf := out[sorters[0].name]
	if !drf["db"].Unreserved.IsEmpty() || !drf["web"].Unreserved.Equal(four) {
		t.Errorf("DRF: db holds %s unreserved, web %s; want nothing and %s", drf["db"].Unreserved, drf["web"].Unreserved, four)
	}
	if drf["db"].Share != 0.5 {
		t.Errorf("DRF: db's share %v, want 0.5: its reservation counts", drf["db"].Share)
	}
	variant := out[sorters[1].name]
	for _, role := range []string{"db", "web"} {
		if !variant[role].Unreserved.Equal(two) || variant[role].Share != 0.25 {
			t.Errorf("BeyondReservation: %s holds %s unreserved at share %v; want %s at 0.25", role, variant[role].Unreserved, variant[role].Share, two)
		}
	}
	if !variant["db"].Reserved.Equal(four) {
		t.Errorf("BeyondReservation: db holds %s reserved, want %s", variant["db"].Reserved, four)
	}
}
