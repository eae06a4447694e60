package sorter

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/allot-go/allot/resources"
)

func mustRes(text string) resources.Resources { return resources.MustParse(text, "") }

func mustQty(text string) resources.Quantities { return resources.MustParseQuantities(text) }

func TestErrors(t *testing.T) {
	d := NewDRF(Config{})
	_ = d.Add("a")
	cases := []struct {
		name string
		err  error
		want error
		text string
	}{
		{"unknown client", d.Activate("x"), ErrUnknownClient, `sorter: unknown client "x"`},
		{"duplicate", d.Add("a"), ErrDuplicateClient, `sorter: client already present "a"`},
		{"invalid path", d.Add("a//b"), ErrInvalidClient, `sorter: invalid client path "a//b"`},
		{"virtual path", d.Add("a/."), ErrInvalidClient, `sorter: invalid client path "a/."`},
		{"zero weight", d.UpdateWeight("a", 0), ErrInvalidWeight, ""},
		{"NaN weight", d.UpdateWeight("a", math.NaN()), ErrInvalidWeight, ""},
		{"infinite weight", d.UpdateWeight("a", math.Inf(1)), ErrInvalidWeight, ""},
		{"unknown agent", d.RemoveAgent("s1"), ErrUnknownAgent, `sorter: unknown agent "s1"`},
		{"not allocated", d.Unallocated("a", "s1", mustRes("cpus:1")), ErrNotAllocated, ""},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
		if c.text != "" && c.err.Error() != c.text {
			t.Errorf("%s: message %q, want %q", c.name, c.err, c.text)
		}
	}
}

// TestFloatShares pins the float semantics of shares: computed as
// allocation / total / weight from integer amounts and compared exactly,
// as Mesos does (its ChangeWeightOnSubtree test relies on it).
func TestFloatShares(t *testing.T) {
	t.Run("LastBitDecides", func(t *testing.T) {
		// (15/100)/3 = 0.049999999999999996 < (10/100)/2 = 0.05: a comes
		// first although it has been served more often.
		d := NewDRF(Config{})
		d.AddAgent("s1", mustQty("cpus:100"))
		for _, c := range []string{"a/x", "b"} {
			_ = d.Add(c)
			_ = d.Activate(c)
		}
		_ = d.UpdateWeight("a", 3)
		_ = d.UpdateWeight("b", 2)
		_ = d.Allocated("a/x", "s1", mustRes("cpus:10"))
		_ = d.Allocated("a/x", "s1", mustRes("cpus:5"))
		_ = d.Allocated("b", "s1", mustRes("cpus:10"))
		alloc, total, w := 15.0, 100.0, 3.0 // variables: constants would fold exactly
		if got := d.ShareOf("a"); got != alloc/total/w || got >= 0.05 {
			t.Fatalf("share of a = %v, want (15/100)/3 = %v, below 0.05", got, alloc/total/w)
		}
		if got := d.Sort(); !slices.Equal(got, []string{"a/x", "b"}) {
			t.Fatalf("Sort() = %q, want [a/x b]", got)
		}
	})
	t.Run("EqualAmountsTieExactly", func(t *testing.T) {
		// 0.1 + 0.2 reached in steps, and 0.3 at once, are the same
		// integer amount: the shares tie and the count decides.
		d := NewDRF(Config{})
		d.AddAgent("s1", mustQty("cpus:7"))
		for _, c := range []string{"a", "b"} {
			_ = d.Add(c)
			_ = d.Activate(c)
		}
		_ = d.Allocated("a", "s1", mustRes("cpus:0.1"))
		_ = d.Allocated("a", "s1", mustRes("cpus:0.2"))
		_ = d.Allocated("b", "s1", mustRes("cpus:0.3"))
		if d.ShareOf("a") != d.ShareOf("b") {
			t.Fatalf("shares %v and %v differ", d.ShareOf("a"), d.ShareOf("b"))
		}
		if got := d.Sort(); !slices.Equal(got, []string{"b", "a"}) {
			t.Fatalf("Sort() = %q, want [b a]: b has fewer allocations", got)
		}
		// Allocating and releasing 0.7 three times leaves exactly zero.
		for range 3 {
			_ = d.Allocated("a", "s1", mustRes("cpus:0.7"))
		}
		for range 3 {
			_ = d.Unallocated("a", "s1", mustRes("cpus:0.7"))
		}
		if d.ShareOf("a") != d.ShareOf("b") {
			t.Fatalf("after +0.7 and -0.7 three times: %v, want %v", d.ShareOf("a"), d.ShareOf("b"))
		}
	})
}

func TestShareOf(t *testing.T) {
	d := NewDRF(Config{})
	d.AddAgent("s1", mustQty("cpus:100;mem:100"))
	for _, c := range []string{"a", "a/b", "c"} {
		_ = d.Add(c)
	}
	_ = d.UpdateWeight("a", 2)
	_ = d.Allocated("a", "s1", mustRes("cpus:20"))
	_ = d.Allocated("a/b", "s1", mustRes("mem:40"))
	for path, want := range map[string]float64{
		"a":      0.4 / 2, // the subtree: cpus .2, mem .4
		"a/.":    0.2,     // the client a itself, weight 1
		"a/b":    0.4,
		"c":      0,
		"x":      0,
		"":       0,
		"a/b/.":  0,
		"a/b/c":  0,
		"c/.":    0,
		"a//b":   0,
		"a/./b/": 0,
	} {
		if got := d.ShareOf(path); got != want {
			t.Errorf("ShareOf(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestAllocatedKeepsCallerResources: the sorter keeps the Resources it is
// given without copying them, and must copy before changing them.
func TestAllocatedKeepsCallerResources(t *testing.T) {
	for _, s := range []Sorter{NewDRF(Config{}), NewRandom(Config{})} {
		r := mustRes("cpus:1;mem:10;ports:[1-10]")
		orig := r.Clone()
		_ = s.Add("a")
		_ = s.Add("b")
		_ = s.Allocated("a", "s1", r)
		_ = s.Allocated("b", "s1", r)
		_ = s.Allocated("a", "s1", mustRes("cpus:2;ports:[20-30]"))
		_ = s.Unallocated("b", "s1", mustRes("cpus:0.5;ports:[1-5]"))
		_ = s.Update("b", "s1", mustRes("mem:10"), mustRes("disk:1"))
		if !r.Equal(orig) || r.String() != orig.String() {
			t.Fatalf("%T changed the caller's resources: %s, was %s", s, r, orig)
		}
		if got := s.Allocation("a")["s1"]; !got.Equal(mustRes("cpus:3;mem:10;ports:[1-10,20-30]")) {
			t.Fatalf("%T: a holds %s", s, got)
		}
		if got := s.Allocation("b")["s1"]; !got.Equal(mustRes("cpus:0.5;disk:1;ports:[6-10]")) {
			t.Fatalf("%T: b holds %s", s, got)
		}
	}
}

func TestAllocationView(t *testing.T) {
	d := NewDRF(Config{})
	_ = d.Add("a")
	if got := d.Allocation("a"); got != nil {
		t.Fatalf("Allocation of a client holding nothing = %v", got)
	}
	_ = d.Allocated("a", "s1", mustRes("cpus:1"))
	_ = d.Allocated("a", "s2", mustRes("mem:1"))
	first := d.Allocation("a")
	if len(first) != 2 {
		t.Fatalf("Allocation = %v", first)
	}
	_ = d.Unallocated("a", "s2", mustRes("mem:1"))
	if got := d.Allocation("a"); len(got) != 1 || !got["s1"].Equal(mustRes("cpus:1")) {
		t.Fatalf("after Unallocated: Allocation = %v", got)
	}
}

// TestManyChangesBetweenSorts drives enough changes between two Sorts
// that the sorter rebuilds its orders instead of re-filing node by node,
// and checks the result against the reference.
func TestManyChangesBetweenSorts(t *testing.T) {
	seed := testSeed(t)
	rng := newRand(seed)
	d, r := NewDRF(Config{}), newRef(resources.NameSet{})
	var clients []string
	for i := range 60 {
		c := fmt.Sprintf("r%d/f%d", i%4, i)
		if i%7 == 0 {
			c = fmt.Sprintf("r%d", i%4)
		}
		if d.Contains(c) {
			continue
		}
		clients = append(clients, c)
		_, _ = d.Add(c), r.Add(c)
		_, _ = d.Activate(c), r.setActive(c, true)
	}
	total := mustQty("cpus:100;mem:1000")
	d.AddAgent("s1", total)
	r.AddAgent("s1", total)
	for round := range runs(50) {
		// Between 1 and 60 allocations before each Sort.
		for range 1 + rng.IntN(60) {
			c := clients[rng.IntN(len(clients))]
			res := mustRes(fmt.Sprintf("cpus:%d;mem:%d", rng.IntN(3), rng.IntN(30)))
			if err, want := d.Allocated(c, "s1", res), r.Allocated(c, "s1", res); (err == nil) != (want == nil) {
				t.Fatalf("seed %d round %d: Allocated(%s): %v, reference %v", seed, round, c, err, want)
			}
		}
		if err := compare(d, r); err != nil {
			t.Fatalf("seed %d round %d: %v", seed, round, err)
		}
	}
}

func TestAddAgentSameTotalKeepsOrder(t *testing.T) {
	d := NewDRF(Config{})
	d.AddAgent("s1", mustQty("cpus:10"))
	_ = d.Add("a")
	_ = d.Activate("a")
	d.Sort()
	d.AddAgent("s1", mustQty("cpus:10"))
	if d.t.rebuild || d.stale {
		t.Fatal("adding an agent with its current total invalidated the order")
	}
	d.AddAgent("s1", mustQty("cpus:20"))
	if !d.t.rebuild || !d.stale {
		t.Fatal("a new total did not invalidate the order")
	}
}

func TestDescribeInactiveAndVirtual(t *testing.T) {
	d := NewDRF(Config{})
	d.AddAgent("s1", mustQty("cpus:10"))
	for _, c := range []string{"a", "a/b", "c"} {
		_ = d.Add(c)
	}
	_ = d.Activate("a/b")
	_ = d.Allocated("a", "s1", mustRes("cpus:1"))
	_ = d.UpdateWeight("c", 2.5) // printed in full
	want := `pool cpus:10
a/ share=0.1 dominant=cpus weight=1 count=1 alloc={cpus:1}
  b share=0 dominant=cpus weight=1 count=0 alloc={}
  . share=0.1 dominant=cpus weight=1 count=1 alloc={cpus:1} inactive
c share=0 dominant=cpus weight=2.5 count=0 alloc={} inactive
`
	if got := d.Describe(); got != want {
		t.Fatalf("Describe() =\n%s\nwant\n%s", got, want)
	}
}

// TestManyHoldersOnOneAgent: an agent indexes its holders once there are
// many; the bookkeeping must not change.
func TestManyHoldersOnOneAgent(t *testing.T) {
	seed := testSeed(t)
	rng := newRand(seed)
	d, r := NewDRF(Config{}), newRef(resources.NameSet{})
	total := mustQty("cpus:1000;disk:1000")
	d.AddAgent("s1", total)
	r.AddAgent("s1", total)
	paths := []string{"a", "a/b", "c"}
	for i := range 30 {
		paths = append(paths, fmt.Sprintf("r%d/f%d", i%3, i))
	}
	vol := mustRes("disk(role1)[id:v,path:p]<SHARED>:10")
	for step := range runs(3000) {
		p := paths[rng.IntN(len(paths))]
		var got, want error
		switch rng.IntN(6) {
		case 0:
			got, want = d.Add(p), r.Add(p)
		case 1:
			got, want = d.Remove(p), r.Remove(p)
		case 2:
			got, want = d.Activate(p), r.setActive(p, true)
		case 3:
			got, want = d.Allocated(p, "s1", vol), r.Allocated(p, "s1", vol)
		case 4:
			got, want = d.Allocated(p, "s1", mustRes("cpus:1")), r.Allocated(p, "s1", mustRes("cpus:1"))
		case 5:
			got, want = d.Unallocated(p, "s1", mustRes("cpus:1")), r.Unallocated(p, "s1", mustRes("cpus:1"))
		}
		if (got == nil) != (want == nil) {
			t.Fatalf("seed %d step %d: %v, reference %v", seed, step, got, want)
		}
		if err := compare(d, r); err != nil {
			t.Fatalf("seed %d step %d: %v", seed, step, err)
		}
	}
	if a := d.t.agents.get("s1"); a == nil || (len(a.holders) > indexAbove && a.index == nil) {
		t.Fatalf("agent s1 not indexed")
	}
}
