package sorter_test

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

func TestAccountingFigures(t *testing.T) {
	a := sorter.NewAccounting(sorter.Config{FairnessExcluded: resources.NewNameSet("gpus")})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	a.AddAgent("s1", resources.MustParseQuantities("cpus:10;mem:100;gpus:2"))
	a.AddAgent("s2", resources.MustParseQuantities("cpus:10;mem:100"))
	if got, want := a.Pool(), resources.MustParseQuantities("cpus:20;mem:200;gpus:2"); !got.Equal(want) {
		t.Errorf("Pool() = %s, want %s", got, want)
	}
	for _, c := range []string{"eng/web", "eng", "ops"} {
		must(a.Add(c))
	}
	must(a.Activate("ops"))
	must(a.Activate("eng/web"))
	if got, want := a.AppendActive([]string{"x"}), []string{"x", "eng/web", "ops"}; !slices.Equal(got, want) {
		t.Errorf("AppendActive = %q, want %q", got, want)
	}
	must(a.Activate("eng"))
	if got, want := a.AppendActive(nil), []string{"eng", "eng/web", "ops"}; !slices.Equal(got, want) {
		t.Errorf("AppendActive after Activate(eng) = %q, want %q", got, want)
	}
	if !a.Active("eng") || a.Active("nope") {
		t.Errorf("Active(eng) = %v, Active(nope) = %v", a.Active("eng"), a.Active("nope"))
	}

	must(a.Allocated("eng", "s1", resources.MustParse("cpus:2;mem:10;gpus:2", "")))
	must(a.Allocated("eng/web", "s1", resources.MustParse("cpus:4", "")))
	must(a.Allocated("eng/web", "s2", resources.MustParse("cpus:4;mem:50", "")))
	must(a.Allocated("ops", "s2", resources.MustParse("", "")))
	for _, tc := range []struct {
		client, name string
		own, subtree float64
		count        uint64
	}{
		{"eng", "cpus", 2, 10, 1},
		{"eng", "gpus", 2, 2, 1},
		{"eng/web", "cpus", 8, 8, 2},
		{"eng/web", "mem", 50, 50, 2},
		{"ops", "cpus", 0, 0, 1},
		{"nope", "cpus", 0, 0, 0},
	} {
		if got := a.Quantity(tc.client, tc.name); got != tc.own {
			t.Errorf("Quantity(%s, %s) = %v, want %v", tc.client, tc.name, got, tc.own)
		}
		if got := a.SubtreeQuantity(tc.client, tc.name); got != tc.subtree {
			t.Errorf("SubtreeQuantity(%s, %s) = %v, want %v", tc.client, tc.name, got, tc.subtree)
		}
		if got := a.AllocationCount(tc.client); got != tc.count {
			t.Errorf("AllocationCount(%s) = %v, want %v", tc.client, got, tc.count)
		}
	}
	must(a.UpdateWeight("eng", 2))
	if a.Weight("eng") != 2 || a.Weight("ops") != 1 {
		t.Errorf("Weight(eng) = %v, Weight(ops) = %v; want 2 and 1", a.Weight("eng"), a.Weight("ops"))
	}
	// eng's subtree holds cpus 10 of 20 (gpus are excluded), at weight 2;
	// eng's own part holds cpus 2 of 20, at weight 1.
	for path, want := range map[string]float64{"eng": 0.25, "eng/.": 0.1, "eng/web": 0.4, "ops": 0, "nope": 0} {
		if got := a.DominantShare(path); got != want {
			t.Errorf("DominantShare(%s) = %v, want %v", path, got, want)
		}
	}

	accountingVersions(t, &a)
}

// accountingVersions goes on from the state TestAccountingFigures leaves:
// every change moves Version; failed calls and queries do not.
func accountingVersions(t *testing.T, a *sorter.Accounting) {
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	v := a.Version()
	for name, call := range map[string]func() error{
		"Add(ops)":            func() error { return a.Add("ops") },
		"Add(a//b)":           func() error { return a.Add("a//b") },
		"Remove(x)":           func() error { return a.Remove("x") },
		"Activate(x)":         func() error { return a.Activate("x") },
		"Deactivate(x)":       func() error { return a.Deactivate("x") },
		"UpdateWeight(ops,0)": func() error { return a.UpdateWeight("ops", 0) },
		"Unallocated":         func() error { return a.Unallocated("ops", "s1", resources.MustParse("cpus:1", "")) },
		"RemoveAgent(s9)":     func() error { return a.RemoveAgent("s9") },
	} {
		if err := call(); err == nil {
			t.Errorf("%s succeeded", name)
		}
		if a.Version() != v {
			t.Errorf("%s failed but changed Version", name)
		}
	}
	must(a.Activate("ops")) // already active: no change
	if a.Version() != v {
		t.Error("Activate of an active client changed Version")
	}
	// Version goes up, never down, so that a version saved with an order
	// tells whether anything changed since.
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Deactivate(ops)", func() error { return a.Deactivate("ops") }},
		{"Unallocated", func() error { return a.Unallocated("eng", "s1", resources.MustParse("gpus:1", "")) }},
		{"UpdateWeight", func() error { return a.UpdateWeight("ops", 3) }},
		{"RemoveAgent(s2)", func() error { return a.RemoveAgent("s2") }},
		{"AddAgent(s2)", func() error { a.AddAgent("s2", resources.MustParseQuantities("cpus:4")); return nil }},
		{"Add(tmp)", func() error { return a.Add("tmp") }},
		{"Allocated", func() error { return a.Allocated("tmp", "s2", resources.MustParse("cpus:1", "")) }},
		{"Remove(tmp)", func() error { return a.Remove("tmp") }},
	} {
		must(c.call())
		if a.Version() <= v {
			t.Errorf("%s moved Version from %d to %d, want it up", c.name, v, a.Version())
		}
		v = a.Version()
	}
	if got, want := a.AppendActive(nil), []string{"eng", "eng/web"}; !slices.Equal(got, want) {
		t.Errorf("AppendActive after Deactivate(ops) = %q, want %q", got, want)
	}
}

// The zero Accounting is ready to use.
func TestAccountingZeroValue(t *testing.T) {
	var a sorter.Accounting
	if a.Count() != 0 || a.Contains("a") || a.Active("a") || len(a.AppendActive(nil)) != 0 ||
		a.Quantity("a", "cpus") != 0 || a.SubtreeQuantity("a", "cpus") != 0 || a.DominantShare("a") != 0 ||
		a.Weight("a") != 1 || !a.Pool().IsEmpty() || a.Allocation("a") != nil {
		t.Fatal("a zero Accounting is not empty")
	}
	if err := a.Remove("a"); !errors.Is(err, sorter.ErrUnknownClient) {
		t.Fatalf("Remove on a zero Accounting: %v", err)
	}
	if err := a.Add("a"); err != nil {
		t.Fatal(err)
	}
	if !a.Contains("a") {
		t.Fatal("Add on a zero Accounting did not add")
	}
}

// DominantShare is the DRF sorter's ShareOf, after any sequence of calls.
func TestAccountingDominantShareIsDRFs(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			cfg := sorter.Config{FairnessExcluded: resources.NewNameSet("gpus")}
			a := sorter.NewAccounting(cfg)
			d := sorter.NewDRF(cfg)
			paths := []string{"a", "a/b", "a/b/c", "a/d", "e", "e/f"}
			agents := []string{"s1", "s2", "s3"}
			kinds := []string{"cpus:1", "mem:7", "cpus:2;mem:1", "gpus:1;cpus:0.5", "disk(r)[id:v,path:p]<SHARED>:10"}
			for step := range 300 {
				p := paths[rng.IntN(len(paths))]
				ag := agents[rng.IntN(len(agents))]
				r := resources.MustParse(kinds[rng.IntN(len(kinds))], "")
				var errA, errD error
				switch rng.IntN(8) {
				case 0:
					errA, errD = a.Add(p), d.Add(p)
				case 1:
					errA, errD = a.Remove(p), d.Remove(p)
				case 2, 3:
					errA, errD = a.Allocated(p, ag, r), d.Allocated(p, ag, r)
				case 4:
					errA, errD = a.Unallocated(p, ag, r), d.Unallocated(p, ag, r)
				case 5:
					w := float64(1 + rng.IntN(3))
					errA, errD = a.UpdateWeight(p, w), d.UpdateWeight(p, w)
				case 6:
					q := resources.MustParseQuantities(fmt.Sprintf("cpus:%d;mem:%d;gpus:%d;disk:100", 1+rng.IntN(8), 10+rng.IntN(50), rng.IntN(3)))
					a.AddAgent(ag, q)
					d.AddAgent(ag, q)
				case 7:
					errA, errD = a.Activate(p), d.Activate(p)
				}
				if (errA == nil) != (errD == nil) {
					t.Fatalf("step %d: Accounting error %v, DRF error %v", step, errA, errD)
				}
				for _, q := range append(slices.Clone(paths), "a/.", "a/b/.") {
					if ga, gd := a.DominantShare(q), d.ShareOf(q); ga != gd {
						t.Fatalf("step %d: DominantShare(%s) = %v, DRF's ShareOf = %v", step, q, ga, gd)
					}
				}
				for _, c := range paths {
					if qa, qd := a.AllocationQuantities(c), d.AllocationQuantities(c); !qa.Equal(qd) {
						t.Fatalf("step %d: AllocationQuantities(%s) = %s, DRF's = %s", step, c, qa, qd)
					}
				}
				if !slices.Equal(sortedCopy(a.AppendActive(nil)), sortedCopy(d.Sort())) {
					t.Fatalf("step %d: active %q, DRF sorts %q", step, a.AppendActive(nil), d.Sort())
				}
			}
		})
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.SortFunc(s, cmp.Compare)
	return s
}
