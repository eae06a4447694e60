package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-go/allot/examples/internal/textcheck"
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
	var out, errOut bytes.Buffer
	if code := command([]string{"-svg", path}, &out, &errOut); code != exitOK {
		t.Fatalf("exit status %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "chart written to "+path) {
		t.Errorf("output does not report the chart:\n%s", out.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	panels := readSVG(t, data)
	if len(panels) != len(scenarios) {
		t.Fatalf("%d panels, want one per run: %d", len(panels), len(scenarios))
	}
	for _, sc := range scenarios {
		p := panels[sc.Name]
		var ids []string
		for _, s := range p.series {
			ids = append(ids, s.title)
		}
		var want []string
		for _, f := range sc.Frameworks {
			want = append(want, f.ID)
			// The legend names the framework and its role.
			if !slices.ContainsFunc(p.texts, func(s string) bool { return strings.HasPrefix(s, f.ID+" (role "+f.Role) }) {
				t.Errorf("%s: no legend for %s in %q", sc.Name, f.ID, p.texts)
			}
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%s: lines for %v, want one per framework: %v", sc.Name, ids, want)
		}
	}
	if n := strings.Count(string(data), "<text"); n < 10*len(scenarios) {
		t.Errorf("only %d text elements: axes, labels and legends missing?", n)
	}

	var again, errAgain bytes.Buffer
	if code := command([]string{"-svg", path + "2"}, &again, &errAgain); code != exitOK {
		t.Fatalf("exit status %d: %s", code, errAgain.String())
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

// Every framework's line is visible: no two lines of a panel share any
// stretch of the x axis, so equal shares cannot hide one another.
func TestSVGSeriesApart(t *testing.T) {
	var results []simResult
	for _, sc := range scenarios {
		results = append(results, simulateNamed(t, sc.Name))
	}
	var buf bytes.Buffer
	if err := writeSVG(&buf, results); err != nil {
		t.Fatal(err)
	}
	// The join run has stretches where all three shares are equal.
	join := simulateNamed(t, "join")
	equal := false
	for _, s := range join.Samples {
		if len(s.Shares) == 3 && s.Shares["A"] == s.Shares["B"] && s.Shares["B"] == s.Shares["C"] {
			equal = true
		}
	}
	if !equal {
		t.Fatal("no moment of equal shares in the join run: the test shows nothing")
	}
	for name, p := range readSVG(t, buf.Bytes()) {
		for i, a := range p.series {
			if len(a.xs) < 2 {
				t.Errorf("%s: %s has %d points", name, a.title, len(a.xs))
			}
			for _, b := range p.series[i+1:] {
				if slices.Min(a.xs) <= slices.Max(b.xs) && slices.Min(b.xs) <= slices.Max(a.xs) {
					t.Errorf("%s: the lines of %s (x %.0f to %.0f) and %s (x %.0f to %.0f) overlap",
						name, a.title, slices.Min(a.xs), slices.Max(a.xs), b.title, slices.Min(b.xs), slices.Max(b.xs))
				}
			}
		}
	}
}

// svgPanel is what a test reads of one panel of the chart.
type svgPanel struct {
	series []svgSeries
	texts  []string
}

// svgSeries is one polyline: its title and the x of its points.
type svgSeries struct {
	title string
	xs    []float64
}

// readSVG parses the chart and returns its panels by id.
func readSVG(t *testing.T, data []byte) map[string]*svgPanel {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	panels := map[string]*svgPanel{}
	var cur *svgPanel
	var line *svgSeries
	var root, inText string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
				if tok.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root namespace %q", tok.Name.Space)
				}
			}
			inText = tok.Name.Local
			attr := func(name string) string {
				for _, a := range tok.Attr {
					if a.Name.Local == name {
						return a.Value
					}
				}
				return ""
			}
			switch tok.Name.Local {
			case "g":
				cur = &svgPanel{}
				panels[attr("id")] = cur
			case "polyline":
				if cur == nil {
					t.Fatal("a polyline outside every panel")
				}
				line = &svgSeries{}
				for _, pt := range strings.Fields(attr("points")) {
					xs, _, _ := strings.Cut(pt, ",")
					x, err := strconv.ParseFloat(xs, 64)
					if err != nil {
						t.Fatalf("point %q: %v", pt, err)
					}
					line.xs = append(line.xs, x)
				}
			}
		case xml.CharData:
			switch {
			case inText == "title" && line != nil:
				line.title += string(tok)
			case inText == "text" && cur != nil:
				cur.texts = append(cur.texts, string(tok))
			}
		case xml.EndElement:
			inText = ""
			if tok.Name.Local == "polyline" {
				cur.series = append(cur.series, *line)
				line = nil
			}
		}
	}
	if root != "svg" {
		t.Errorf("root element %q, want svg", root)
	}
	return panels
}

// -h and -help print the usage to stdout and succeed.
func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		var out, errOut bytes.Buffer
		if code := command([]string{arg}, &out, &errOut); code != exitOK {
			t.Errorf("%s: exit status %d, want %d", arg, code, exitOK)
		}
		if !strings.HasPrefix(out.String(), "Usage: drf") || !strings.Contains(out.String(), "-svg file") {
			t.Errorf("%s: stdout is not the usage:\n%s", arg, out.String())
		}
		if errOut.Len() > 0 {
			t.Errorf("%s: stderr %q, want nothing", arg, errOut.String())
		}
	}
}

// Bad arguments print what is wrong and the usage to stderr, and exit 2.
func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{{"-every", "0"}, {"extra"}, {"-nosuch"}} {
		var out, errOut bytes.Buffer
		if code := command(args, &out, &errOut); code != exitUsage {
			t.Errorf("%q: exit status %d, want %d", args, code, exitUsage)
		}
		if !strings.HasPrefix(errOut.String(), "drf: ") || !strings.Contains(errOut.String(), "Usage: drf") {
			t.Errorf("%q: stderr lacks the error or the usage:\n%s", args, errOut.String())
		}
		if out.Len() > 0 {
			t.Errorf("%q: printed %q to stdout", args, out.String())
		}
	}
}

// mainEnv makes the test binary run main instead of the tests (see
// TestMain), so that a test can run the command as a user does.
const mainEnv = "DRF_EXAMPLE_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
		os.Exit(exitOK)
	}
	os.Exit(m.Run())
}

// The command itself: drf -h exits 0 with the usage on stdout; a bad flag
// exits 2.
func TestMainExitStatus(t *testing.T) {
	for _, tc := range []struct {
		arg    string
		status int
		stdout string
	}{
		{"-h", exitOK, "Usage: drf"},
		{"-nosuch", exitUsage, ""},
	} {
		cmd := exec.Command(os.Args[0], tc.arg)
		cmd.Env = append(os.Environ(), mainEnv+"=1")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		status := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			status = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != tc.status || !strings.HasPrefix(out.String(), tc.stdout) {
			t.Errorf("drf %s: exit status %d, stdout %q; want %d and %q (stderr %q)", tc.arg, status, out.String(), tc.status, tc.stdout, errOut.String())
		}
	}
}

// The output is the same on every run and prints no raw Go map.
func TestOutput(t *testing.T) {
	textcheck.Run(t, func(w io.Writer) error { return run(w, config{seed: 1, every: 10}) })
}
