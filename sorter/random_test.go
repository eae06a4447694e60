package sorter

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestRandomSameSeedSameOrders(t *testing.T) {
	draw := func(seed int64) [][]string {
		s := NewRandom(Config{Seed: seed})
		for i := range 20 {
			c := fmt.Sprintf("r%d/f%d", i%3, i)
			_ = s.Add(c)
			_ = s.Activate(c)
			_ = s.UpdateWeight(c, float64(1+i%4))
		}
		var out [][]string
		for range 50 {
			out = append(out, slices.Clone(s.Sort()))
		}
		return out
	}
	a, b, c := draw(1), draw(1), draw(2)
	if !slices.EqualFunc(a, b, slices.Equal[[]string]) {
		t.Fatal("the same seed gave different orders")
	}
	if slices.EqualFunc(a, c, slices.Equal[[]string]) {
		t.Fatal("seeds 1 and 2 gave the same 50 orders")
	}
}

// firstShares sorts n times and returns how often each client came first.
func firstShares(s *Random, n int) map[string]float64 {
	out := map[string]float64{}
	for range n {
		out[s.Sort()[0]] += 1 / float64(n)
	}
	return out
}

// TestRandomWeights checks the relative weights statistically: the first
// client is client i with probability equal to its relative weight, the
// product down its path of w / Σ w over its active siblings. The tolerance
// is six standard deviations of the sample frequency.
func TestRandomWeights(t *testing.T) {
	seed := testSeed(t)
	const n = 20000
	check := func(name string, s *Random, want map[string]float64) {
		t.Helper()
		got := firstShares(s, n)
		for c, p := range want {
			if tol := 6 * math.Sqrt(p*(1-p)/n); math.Abs(got[c]-p) > tol {
				t.Errorf("%s: %s first %.4f of the time, want %.4f ± %.4f (seed %d)", name, c, got[c], p, tol, seed)
			}
		}
	}
	s := NewRandom(Config{Seed: seed})
	for _, c := range []string{"a", "b", "x/c", "x/d", "idle"} {
		_ = s.Add(c)
	}
	for _, c := range []string{"a", "b", "x/c", "x/d"} {
		_ = s.Activate(c)
	}
	check("equal weights", s, map[string]float64{"a": 1.0 / 3, "b": 1.0 / 3, "x/c": 1.0 / 6, "x/d": 1.0 / 6, "idle": 0})

	_ = s.UpdateWeight("b", 3)
	_ = s.UpdateWeight("x", 2)
	_ = s.UpdateWeight("x/d", 3)
	check("weights", s, map[string]float64{"a": 1.0 / 6, "b": 3.0 / 6, "x/c": 2.0 / 6 / 4, "x/d": 2.0 / 6 * 3 / 4})

	// Inactive siblings take no weight: with b off, a and x share.
	_ = s.Deactivate("b")
	check("inactive sibling", s, map[string]float64{"a": 1.0 / 3, "b": 0, "x/c": 2.0 / 3 / 4, "x/d": 2.0 / 3 * 3 / 4})

	// A client with children competes through its virtual leaf, weight 1.
	_ = s.Add("x")
	_ = s.Activate("x")
	check("virtual leaf", s, map[string]float64{"a": 1.0 / 3, "x": 2.0 / 3 / 5, "x/c": 2.0 / 3 / 5, "x/d": 2.0 / 3 * 3 / 5})

	// Nor within a subtree: with x/c off, x's share goes whole to x and
	// x/d, and a keeps its third.
	_ = s.Deactivate("x/c")
	check("inactive sibling in a subtree", s, map[string]float64{"a": 1.0 / 3, "x": 2.0 / 3 / 4, "x/c": 0, "x/d": 2.0 / 3 * 3 / 4})
}

// Weights are scaled by the largest active one before they are summed,
// not by an inactive sibling's: one of 1e300 that is off leaves a and b,
// of 1e-300 each, their even chances rather than shares that underflow.
func TestRandomScaleSkipsInactiveWeights(t *testing.T) {
	seed := testSeed(t)
	s := NewRandom(Config{Seed: seed})
	for _, c := range []string{"a", "b", "off"} {
		_ = s.Add(c)
	}
	_ = s.Activate("a")
	_ = s.Activate("b")
	_ = s.UpdateWeight("a", 1e-300)
	_ = s.UpdateWeight("b", 1e-300)
	_ = s.UpdateWeight("off", 1e300)
	const n = 2000
	got := firstShares(s, n)
	if tol := 6 * math.Sqrt(0.25/n); math.Abs(got["a"]-0.5) > tol || math.Abs(got["b"]-0.5) > tol {
		t.Errorf("a first %.4f, b %.4f of the time, want 0.5 each ± %.4f (seed %d)", got["a"], got["b"], tol, seed)
	}
}

// TestRandomSubtreesNotTogether: unlike DRF, the random sorter shuffles the
// leaves, so a subtree's clients need not come out together.
func TestRandomSubtreesNotTogether(t *testing.T) {
	s := NewRandom(Config{Seed: testSeed(t)})
	for _, c := range []string{"x/a", "x/b", "y"} {
		_ = s.Add(c)
		_ = s.Activate(c)
	}
	for range 1000 {
		if got := s.Sort(); got[1] == "y" {
			return
		}
	}
	t.Fatal("y never came between x/a and x/b in 1000 draws")
}

func TestRandomIgnoresAllocations(t *testing.T) {
	s := NewRandom(Config{Seed: testSeed(t)})
	s.AddAgent("s1", mustQty("cpus:10"))
	for _, c := range []string{"a", "b"} {
		_ = s.Add(c)
		_ = s.Activate(c)
	}
	_ = s.Allocated("a", "s1", mustRes("cpus:10"))
	got := firstShares(s, 4000)
	if math.Abs(got["a"]-0.5) > 6*math.Sqrt(0.25/4000) {
		t.Fatalf("a first %.3f of the time, want 0.5 whatever it holds", got["a"])
	}
}

func TestRandomExtremeWeights(t *testing.T) {
	s := NewRandom(Config{Seed: testSeed(t)})
	for _, c := range []string{"a", "b", "c"} {
		_ = s.Add(c)
		_ = s.Activate(c)
	}
	_ = s.UpdateWeight("a", math.MaxFloat64)
	_ = s.UpdateWeight("b", math.MaxFloat64)
	_ = s.UpdateWeight("c", math.SmallestNonzeroFloat64)
	got := firstShares(s, 4000)
	if math.Abs(got["a"]-0.5) > 6*math.Sqrt(0.25/4000) || got["c"] != 0 {
		t.Fatalf("first: %v, want a and b half each, c never", got)
	}
}
