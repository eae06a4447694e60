package main

import (
	"bytes"
	"io"
	"slices"
	"testing"

	"github.com/allot-go/allot/examples/internal/textcheck"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
	"github.com/allot-go/allot/sorter/sortertest"
)

// MaxMin has the behaviours every sorter must have. It is not a DRF sorter
// (it is flat, and orders by one resource first), so RunFair does not
// apply.
func TestConformance(t *testing.T) {
	sortertest.Run(t, NewMaxMin("gpus"))
}

func TestOrder(t *testing.T) {
	s := NewMaxMin("gpus")(sorter.Config{FairnessExcluded: resources.NewNameSet("gpus")})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	order := func(want ...string) {
		t.Helper()
		if got := s.Sort(); !slices.Equal(got, want) {
			t.Fatalf("Sort() = %q, want %q", got, want)
		}
	}
	s.AddAgent("s1", resources.MustParseQuantities("cpus:10;mem:100;gpus:4"))
	for _, c := range []string{"a", "b", "c", "d"} {
		must(s.Add(c))
		must(s.Activate(c))
	}
	order("a", "b", "c", "d") // all equal: by path
	must(s.Allocated("a", "s1", resources.MustParse("gpus:1", "")))
	order("b", "c", "d", "a") // a holds a GPU
	must(s.Allocated("b", "s1", resources.MustParse("cpus:5", "")))
	order("c", "d", "b", "a") // no GPUs: by dominant share, b's is 0.5
	must(s.Allocated("c", "s1", resources.MustParse("", "")))
	order("d", "c", "b", "a") // share 0 both: by allocation count
	must(s.Allocated("d", "s1", resources.MustParse("gpus:2", "")))
	order("c", "b", "a", "d") // d holds 2 GPUs, more than a's 1
	must(s.UpdateWeight("d", 4))
	order("c", "b", "d", "a") // d's 2 GPUs over weight 4 are less than a's 1
	must(s.Add("c/x"))
	must(s.Allocated("c/x", "s1", resources.MustParse("gpus:1", "")))
	must(s.Activate("c/x"))
	order("b", "d", "a", "c", "c/x") // c holds c/x's GPU too: 1, as a and c/x; then by path

	share := s.(sorter.Sharer)
	for path, want := range map[string]float64{"a": 0.25, "b": 0, "c": 0.25, "c/x": 0.25, "d": 0.125, "nope": 0} {
		if got := share.ShareOf(path); got != want {
			t.Errorf("ShareOf(%s) = %v, want %v", path, got, want)
		}
	}
}

// In the allocator: DRF, blind to GPUs, gives both GPU agents to vision;
// MaxMin gives one to each role, and reports the GPU shares.
func TestPluggedIntoAllocator(t *testing.T) {
	var buf bytes.Buffer
	out, err := run(&buf)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	want := map[string]map[string]held{
		sorters[0].name: {
			"speech": {Offers: []string{"cpu-1"}, Holds: resources.MustParseQuantities("cpus:16;mem:32768"), Share: 2.0 / 3},
			"vision": {Offers: []string{"gpu-1", "gpu-2"}, Holds: resources.MustParseQuantities("cpus:4;mem:8192;gpus:4"), Share: 4.0 / 24},
		},
		sorters[1].name: {
			"speech": {Offers: []string{"cpu-1", "gpu-1"}, Holds: resources.MustParseQuantities("cpus:18;mem:36864;gpus:2"), Share: 0.5},
			"vision": {Offers: []string{"gpu-2"}, Holds: resources.MustParseQuantities("cpus:2;mem:4096;gpus:2"), Share: 0.5},
		},
	}
	for name, roles := range want {
		for role, w := range roles {
			got := out[name][role]
			if !slices.Equal(got.Offers, w.Offers) || !got.Holds.Equal(w.Holds) || got.Share != w.Share {
				t.Errorf("%s: %s was offered %v, holds %s at share %v; want %v, %s at %v",
					name, role, got.Offers, got.Holds, got.Share, w.Offers, w.Holds, w.Share)
			}
		}
	}

	var again bytes.Buffer
	if _, err := run(&again); err != nil {
		t.Fatal(err)
	}
	if again.String() != buf.String() {
		t.Errorf("two runs printed different output:\n%s\n%s", buf.String(), again.String())
	}
}

// The output is the same on every run, prints no raw Go map, and prints
// resources with their names in order.
func TestOutput(t *testing.T) {
	textcheck.Run(t, func(w io.Writer) error { _, err := run(w); return err })
}
