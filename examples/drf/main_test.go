package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const eps = 1e-9

// offersAndLaunches returns who was offered at each step, and who launched.
func offersAndLaunches(steps []traceStep) (offered, launched []string) {
	for _, s := range steps {
		offered = append(offered, s.To)
		if s.Launched {
			launched = append(launched, s.To)
		}
	}
	return offered, launched
}

// The paper's example (drf-theory §3.1). The allocator breaks ties by share,
// then by the number of offers a role has been charged with, then by role
// name. Step 1: both at 0 with no offers, so "a" (A) goes first by name.
// Step 6: both at 2/3 (the same float64), A has had 3 offers and B 2, so B
// is offered the leftover 4 GB first, declines with a refusal, and A
// declines it next. The tasks go A, B, A, B, A: the order the theory note
// gives for ties broken by name, and the same result as the paper's table.
func TestPaperExample(t *testing.T) {
	steps, err := runTrace(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	offered, launched := offersAndLaunches(steps)
	if want := []string{"A", "B", "A", "B", "A", "B", "A"}; !slices.Equal(offered, want) {
		t.Errorf("offers went to %v, want %v", offered, want)
	}
	if want := []string{"A", "B", "A", "B", "A"}; !slices.Equal(launched, want) {
		t.Errorf("tasks launched by %v, want %v", launched, want)
	}
	last := steps[len(steps)-1]
	if last.Tasks["A"] != 3 || last.Tasks["B"] != 2 {
		t.Errorf("final tasks A=%d B=%d, want 3 and 2", last.Tasks["A"], last.Tasks["B"])
	}
	for _, id := range []string{"A", "B"} {
		if math.Abs(last.Shares[id]-2.0/3) > eps {
			t.Errorf("final share of %s = %v, want 2/3", id, last.Shares[id])
		}
	}
	if last.Shares["A"] != last.Shares["B"] {
		t.Errorf("final shares %v and %v are not the same float64", last.Shares["A"], last.Shares["B"])
	}
	if got := cpuMem(last.Free); got != "<0 CPU, 4 GB>" {
		t.Errorf("free at the end = %s, want <0 CPU, 4 GB>", got)
	}
	// Per-step shares of the theory note's table, with A first.
	wantA := []float64{2.0 / 9, 2.0 / 9, 4.0 / 9, 4.0 / 9, 2.0 / 3}
	wantB := []float64{0, 1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3}
	for i := range wantA {
		if math.Abs(steps[i].Shares["A"]-wantA[i]) > eps || math.Abs(steps[i].Shares["B"]-wantB[i]) > eps {
			t.Errorf("step %d: shares A=%.4f B=%.4f, want %.4f and %.4f", i+1,
				steps[i].Shares["A"], steps[i].Shares["B"], wantA[i], wantB[i])
		}
	}
}

// The blog's trace (drf-theory §3.2, "Correct trace"): A first by name at
// 0/0; after that every step has a strict share order (0.25 < 0.30,
// 0.30 < 0.50, 0.50 < 0.60, 0.60 < 0.75), so the tie rules play no part.
// At step 6 A is offered the unusable <1 CPU, 1 GB> and declines with a
// refusal; so step 7 offers it to B, which declines too, and the next run
// offers nothing.
func TestBlogTrace(t *testing.T) {
	steps, err := runTrace(traces[1])
	if err != nil {
		t.Fatal(err)
	}
	offered, launched := offersAndLaunches(steps)
	if want := []string{"A", "B", "B", "A", "B", "A", "B"}; !slices.Equal(offered, want) {
		t.Errorf("offers went to %v, want %v", offered, want)
	}
	if want := []string{"A", "B", "B", "A", "B"}; !slices.Equal(launched, want) {
		t.Errorf("tasks launched by %v, want %v", launched, want)
	}
	wantOffered := []string{"<10 CPU, 20 GB>", "<7 CPU, 18 GB>", "<6 CPU, 13 GB>", "<5 CPU, 8 GB>", "<2 CPU, 6 GB>", "<1 CPU, 1 GB>", "<1 CPU, 1 GB>"}
	wantA := []float64{0.3, 0.3, 0.3, 0.6, 0.6, 0.6, 0.6}
	wantB := []float64{0, 0.25, 0.5, 0.5, 0.75, 0.75, 0.75}
	for i, s := range steps {
		if got := cpuMem(s.Offered); got != wantOffered[i] {
			t.Errorf("step %d offered %s, want %s", i+1, got, wantOffered[i])
		}
		if math.Abs(s.Shares["A"]-wantA[i]) > eps || math.Abs(s.Shares["B"]-wantB[i]) > eps {
			t.Errorf("step %d: shares A=%.4f B=%.4f, want %.2f and %.2f", i+1, s.Shares["A"], s.Shares["B"], wantA[i], wantB[i])
		}
	}
	last := steps[len(steps)-1]
	if last.Tasks["A"] != 2 || last.Tasks["B"] != 3 {
		t.Errorf("final tasks A=%d B=%d, want 2 and 3", last.Tasks["A"], last.Tasks["B"])
	}
}

func simulateNamed(t *testing.T, name string) simResult {
	t.Helper()
	for _, sc := range scenarios {
		if sc.Name == name {
			r, err := simulate(sc, 1)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("no scenario %q", name)
	return simResult{}
}

func sampleAt(r simResult, at time.Duration) sample {
	for _, s := range r.Samples {
		if s.T == at {
			return s
		}
	}
	return sample{}
}

// Three equal frameworks end at a third of the cluster each; two at a
// half each before the third joins.
func TestSharesConverge(t *testing.T) {
	r := simulateNamed(t, "join")
	if s := sampleAt(r, 50*time.Second); s.Tasks["A"] != 12 || math.Abs(s.Shares["A"]-1) > eps {
		t.Errorf("alone, A runs %d tasks at share %.3f; want the whole cluster: 12 tasks, share 1", s.Tasks["A"], s.Shares["A"])
	}
	var pair map[string]float64
	{
		sub := r
		sub.Samples = nil
		for _, s := range r.Samples {
			if s.T < 120*time.Second {
				sub.Samples = append(sub.Samples, s)
			}
		}
		pair = sub.MeanShares(90 * time.Second)
	}
	for _, id := range []string{"A", "B"} {
		if math.Abs(pair[id]-0.5) > 0.05 {
			t.Errorf("before C joins, %s's mean share = %.3f, want 1/2 ± 0.05", id, pair[id])
		}
	}
	mean := r.MeanShares(r.Scenario.Duration - time.Minute)
	for _, id := range []string{"A", "B", "C"} {
		if math.Abs(mean[id]-1.0/3) > 0.05 {
			t.Errorf("%s's mean share over the last minute = %.3f, want 1/3 ± 0.05", id, mean[id])
		}
	}
}

// With B's tasks of 2000 MB, B starts on the free rest of both agents the
// moment it joins; with 2500 MB nothing free fits, and B waits.
func TestBWaits(t *testing.T) {
	uneven := simulateNamed(t, "uneven")
	if first, ok := uneven.FirstTask["B"]; !ok || first != 10*time.Second {
		t.Errorf("2000 MB: B's first task at %v (%v), want at its join, 10s", first, ok)
	}
	if last := uneven.Last(); last.Tasks["A"] != 2 || last.Tasks["B"] != 2 {
		t.Errorf("2000 MB: final tasks A=%d B=%d, want 2 and 2", last.Tasks["A"], last.Tasks["B"])
	}

	waits := simulateNamed(t, "waits")
	first, ok := waits.FirstTask["B"]
	if !ok {
		t.Fatal("2500 MB: B never ran a task")
	}
	// A's first tasks start at 0 and last at least 20 s, so B, joining at
	// 10 s, cannot start before 20 s.
	if first < 20*time.Second {
		t.Errorf("2500 MB: B's first task at %v, want after A's first task ends, 20s or later", first)
	}
	if waits.Declined["B"] == 0 {
		t.Error("2500 MB: B declined no offer while waiting")
	}
	// Once running, one task per agent fits: never more than two in all.
	for _, s := range waits.Samples {
		if s.Tasks["A"]+s.Tasks["B"] > 2 {
			t.Fatalf("2500 MB at %v: %d tasks of A and %d of B on two agents", s.T, s.Tasks["A"], s.Tasks["B"])
		}
	}
}

// Weight 2 against 1: A ends with twice B's share.
func TestWeighted(t *testing.T) {
	r := simulateNamed(t, "weighted")
	mean := r.MeanShares(r.Scenario.Duration - time.Minute)
	if math.Abs(mean["A"]-2.0/3) > 0.05 || math.Abs(mean["B"]-1.0/3) > 0.05 {
		t.Errorf("mean shares A=%.3f B=%.3f, want 2/3 and 1/3 ± 0.05", mean["A"], mean["B"])
	}
}

// The chart is well-formed XML with one line per framework of every run,
// and the output does not depend on anything but the seed.
func TestRunWritesSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shares.svg")
	var out bytes.Buffer
	if err := run(&out, []string{"-svg", path}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "chart written to "+path) {
		t.Errorf("output does not report the chart:\n%s", out.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var root string
	lines, texts := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
				if se.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root namespace %q", se.Name.Space)
				}
			}
			switch se.Name.Local {
			case "polyline":
				lines++
			case "text":
				texts++
			}
		}
	}
	if root != "svg" {
		t.Errorf("root element %q, want svg", root)
	}
	want := 0
	for _, sc := range scenarios {
		want += len(sc.Frameworks)
	}
	if lines != want {
		t.Errorf("%d polylines, want one per framework and run: %d", lines, want)
	}
	if texts < 10*len(scenarios) {
		t.Errorf("only %d text elements: axes, labels and legends missing?", texts)
	}

	var again bytes.Buffer
	if err := run(&again, []string{"-svg", path + "2"}); err != nil {
		t.Fatal(err)
	}
	data2, _ := os.ReadFile(path + "2")
	if !bytes.Equal(data, data2) {
		t.Error("two runs with the same seed wrote different charts")
	}
	first := strings.ReplaceAll(out.String(), path, "X")
	second := strings.ReplaceAll(again.String(), path+"2", "X")
	if first != second {
		t.Error("two runs with the same seed printed different output")
	}
}

func TestRunRejectsBadArguments(t *testing.T) {
	for _, args := range [][]string{{"-every", "0"}, {"extra"}, {"-nosuch"}} {
		if err := run(io.Discard, args); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}
