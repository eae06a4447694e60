package resources

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestParseQuantities(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "{}"},
		{"{}", "{}"},
		{"cpus:1;mem:32", "cpus:1; mem:32"},
		{" mem : 32 ; cpus:1 ", "cpus:1; mem:32"},
		{"cpus:1;cpus:0.5", "cpus:1.5"},
		{"cpus:0;mem:1", "mem:1"},
		{"cpus:1.5015", "cpus:1.502"},
		{"zzz:1;aaa:2;cpus:3", "aaa:2; cpus:3; zzz:1"},
	}
	for _, tt := range tests {
		q, err := ParseQuantities(tt.in)
		if err != nil || q.String() != tt.want {
			t.Errorf("ParseQuantities(%q) = %v, %v; want %s", tt.in, q, err, tt.want)
			continue
		}
		back, err := ParseQuantities(q.String())
		if err != nil || !back.Equal(q) {
			t.Errorf("%s does not parse back: %v, %v", q, back, err)
		}
	}
	for _, bad := range []string{"cpus", "cpus:-1", "cpus:x", ":1", "a b:1", "cpus(r):1", "cpus:0.0001", "cpus:NaN"} {
		if _, err := ParseQuantities(bad); !errors.Is(err, ErrInvalidQuantities) {
			t.Errorf("ParseQuantities(%q) = %v, want ErrInvalidQuantities", bad, err)
		}
	}
}

func TestQuantitiesOf(t *testing.T) {
	q, err := QuantitiesOf(map[string]float64{"cpus": 1.5, "mem": 0, "gpus": 0.0001})
	if err != nil || q.String() != "cpus:1.5" {
		t.Errorf("QuantitiesOf = %v, %v", q, err)
	}
	for _, m := range []map[string]float64{{"cpus": -1}, {"cpus": math.NaN()}, {"cpus": math.Inf(1)}, {"": 1}} {
		if _, err := QuantitiesOf(m); !errors.Is(err, ErrInvalidQuantities) {
			t.Errorf("QuantitiesOf(%v) = %v", m, err)
		}
	}
}

func TestQuantitiesArithmetic(t *testing.T) {
	q := MustParseQuantities("cpus:4;mem:1024")
	p := MustParseQuantities("cpus:1;disk:10")
	if got := q.Plus(p).String(); got != "cpus:5; disk:10; mem:1024" {
		t.Errorf("q+p = %s", got)
	}
	// Subtraction saturates at zero and drops the name; absent is zero.
	if got := p.Minus(q).String(); got != "disk:10" {
		t.Errorf("p-q = %s", got)
	}
	if got := q.Minus(MustParseQuantities("cpus:4;gpus:1")).String(); got != "mem:1024" {
		t.Errorf("q-cpus:4 = %s", got)
	}
	if !q.Contains(MustParseQuantities("cpus:4")) || q.Contains(MustParseQuantities("cpus:4.001")) || q.Contains(MustParseQuantities("gpus:1")) {
		t.Error("Contains is wrong")
	}
	if !q.Contains(Quantities{}) || (Quantities{}).Contains(q) {
		t.Error("Contains with empty is wrong")
	}
	if got := q.Min(MustParseQuantities("cpus:2;mem:2048;gpus:1")).String(); got != "cpus:2; mem:1024" {
		t.Errorf("Min = %s", got)
	}
	if q.Float64("cpus") != 4 || q.Float64("gpus") != 0 || q.Scalar("never-seen-name") != 0 {
		t.Error("Get is wrong")
	}
	if !slices.Equal(q.Names(), []string{"cpus", "mem"}) || q.Len() != 2 || q.IsEmpty() {
		t.Error("Names/Len/IsEmpty are wrong")
	}
	var seen []string
	for name, v := range q.All() {
		seen = append(seen, name+"="+v.String())
	}
	if !slices.Equal(seen, []string{"cpus=4", "mem=1024"}) {
		t.Errorf("All = %v", seen)
	}

	c := q.Clone()
	c.Set("cpus", 0)
	c.Set("gpus", 2.0005)
	c.Set("foo", math.NaN())
	c.SetScalar("mem", -5)
	if c.String() != "gpus:2.001" || q.String() != "cpus:4; mem:1024" {
		t.Errorf("Set: %s (original %s)", c, q)
	}
	// In place, a value without all names grows; the clone is untouched.
	d := q.Clone()
	d.Add(p)
	d.Subtract(MustParseQuantities("disk:100"))
	if d.String() != "cpus:5; mem:1024" || q.String() != "cpus:4; mem:1024" {
		t.Errorf("in place: %s (original %s)", d, q)
	}
	d.Subtract(d)
	if !d.IsEmpty() {
		t.Errorf("d-d = %s", d)
	}
}

func TestDominantShare(t *testing.T) {
	total := MustParseQuantities("cpus:10;mem:100;gpus:4")
	tests := []struct {
		alloc    string
		excluded []string
		share    float64
		name     string
	}{
		{"cpus:1;mem:20", nil, 0.2, "mem"},
		{"cpus:5;mem:20", nil, 0.5, "cpus"},
		{"cpus:5;mem:50", nil, 0.5, "cpus"}, // tie: the smaller name
		{"gpus:1", nil, 0.25, "gpus"},
		{"gpus:4;cpus:1", []string{"gpus"}, 0.1, "cpus"},
		{"foo:100", nil, 0, "cpus"}, // names without a total do not count
		{"", nil, 0, "cpus"},
	}
	for _, tt := range tests {
		share, name := MustParseQuantities(tt.alloc).DominantShare(total, NewNameSet(tt.excluded...))
		if share != tt.share || name != tt.name {
			t.Errorf("DominantShare(%s, excluding %v) = %v, %s; want %v, %s", tt.alloc, tt.excluded, share, name, tt.share, tt.name)
		}
	}
	if share, name := MustParseQuantities("cpus:1").DominantShare(Quantities{}, NameSet{}); share != 0 || name != "" {
		t.Errorf("share of nothing = %v, %q", share, name)
	}
	ns := NewNameSet("gpus", "cpus", "gpus")
	if !ns.Has("gpus") || !ns.Has("cpus") || ns.Has("mem") || ns.Has("never-seen-name") {
		t.Error("NameSet is wrong")
	}
}

func TestLimits(t *testing.T) {
	l := MustParseLimits("cpus:10;mem:0")
	if l.String() != "cpus:10; mem:0" {
		t.Errorf("String = %s", l)
	}
	back, err := ParseLimits(l.String())
	if err != nil || !back.Equal(l) {
		t.Errorf("round trip: %v, %v", back, err)
	}
	if empty, err := ParseLimits((Limits{}).String()); err != nil || !empty.IsEmpty() {
		t.Errorf("unlimited round trip: %v, %v", empty, err)
	}
	if v, ok := l.Get("mem"); !ok || v != 0 {
		t.Error("a zero limit is not a limit")
	}
	if _, ok := l.Get("gpus"); ok {
		t.Error("absent name is limited")
	}
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"", true},
		{"cpus:10", true},
		{"cpus:10.001", false},
		{"mem:0.001", false},
		{"gpus:1000", true}, // absent is unlimited
	} {
		if got := l.Contains(MustParseQuantities(tt.q)); got != tt.want {
			t.Errorf("%s contains %s = %v, want %v", l, tt.q, got, tt.want)
		}
	}
	if got := l.Subtract(MustParseQuantities("cpus:4;gpus:1")).String(); got != "cpus:6; mem:0" {
		t.Errorf("Subtract = %s", got)
	}
	if got := l.Subtract(MustParseQuantities("cpus:40")).String(); got != "cpus:0; mem:0" {
		t.Errorf("Subtract saturates: %s", got)
	}
	if got := l.Cap(MustParseQuantities("cpus:40;mem:5;gpus:3")).String(); got != "cpus:10; gpus:3" {
		t.Errorf("Cap = %s", got)
	}
	if got := LimitsOf(MustParseQuantities("cpus:1")).String(); got != "cpus:1" {
		t.Errorf("LimitsOf = %s", got)
	}
	var m Limits
	m.Set("mem", -1)
	m.Set("cpus", Units(2))
	if m.String() != "cpus:2; mem:0" || !slices.Equal(m.Names(), []string{"cpus", "mem"}) {
		t.Errorf("Set = %s", m)
	}
	if _, err := ParseLimits("cpus:1;cpus:2"); !errors.Is(err, ErrInvalidQuantities) {
		t.Errorf("duplicate limit: %v", err)
	}
	if _, err := ParseLimits("cpus:-1"); !errors.Is(err, ErrInvalidQuantities) {
		t.Errorf("negative limit: %v", err)
	}
}

// TestHotPathsDoNotAllocate pins the design's promise: quantity arithmetic
// and containment of resources without volumes allocate nothing.
func TestHotPathsDoNotAllocate(t *testing.T) {
	total := MustParseQuantities("cpus:64;mem:262144;disk:1000000;gpus:8")
	q := MustParseQuantities("cpus:1;mem:1024;disk:100")
	acc := total.Clone()
	excluded := NewNameSet("gpus")
	limits := LimitsOf(total)
	agent := benchAgent()
	want := MustParse("cpus:1;mem:512;ports:[31005-31006]", "*")
	checks := map[string]func(){
		"Quantities.Add":               func() { acc.Add(q) },
		"Quantities.Subtract":          func() { acc.Subtract(q) },
		"Quantities.Contains":          func() { _ = total.Contains(q) },
		"Quantities.DominantShare":     func() { _, _ = q.DominantShare(total, excluded) },
		"Limits.Contains":              func() { _ = limits.Contains(q) },
		"Resources.Contains":           func() { _ = agent.Contains(want) },
		"Resources.ContainsQuantities": func() { _ = agent.ContainsQuantities(q) },
		"Resources.AddQuantitiesTo":    func() { agent.AddQuantitiesTo(&acc) },
	}
	for name, f := range checks {
		f() // warm up: Add may grow acc once
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times per run", name, n)
		}
	}
}

// TestQuantitiesAssign: the copy equals its source, reuses the receiver's
// storage when it is large enough, and shares none with the source.
func TestQuantitiesAssign(t *testing.T) {
	q := MustParseQuantities("cpus:4;mem:1024;disk:10")
	o := MustParseQuantities("gpus:1;mem:2")
	storage := &q.items[0]
	q.Assign(o)
	if !q.Equal(o) {
		t.Fatalf("after Assign q = %s, want %s", q, o)
	}
	if &q.items[0] != storage {
		t.Error("Assign did not reuse the receiver's storage")
	}
	q.Add(MustParseQuantities("mem:1"))
	if o.String() != "gpus:1; mem:2" {
		t.Errorf("a change of the copy changed the source: %s", o)
	}
	q.Assign(Quantities{})
	if !q.IsEmpty() {
		t.Errorf("Assign of empty left %s", q)
	}
}

func TestQuantitiesOverlaps(t *testing.T) {
	q := func(s string) Quantities { return MustParseQuantities(s) }
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"cpus:1;mem:2", "mem:5", true},
		{"cpus:1", "mem:5", false},
		{"", "mem:5", false},
		{"cpus:1;mem:2", "", false},
		{"cpus:1;gpus:1", "disk:1;gpus:2", true},
		{"cpus:1;disk:1", "gpus:1;mem:1", false},
		{"mem:1", "cpus:1;disk:1;mem:3", true},
	} {
		if got := q(tc.a).Overlaps(q(tc.b)); got != tc.want {
			t.Errorf("%q overlaps %q: %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := q(tc.b).Overlaps(q(tc.a)); got != tc.want {
			t.Errorf("%q overlaps %q: %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}
