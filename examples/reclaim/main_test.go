package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/examples/internal/textcheck"
	"github.com/allot-go/allot/resources"
)

var update = flag.Bool("update", false, "rewrite testdata/output.txt and testdata/shares.svg")

// golden compares got with the file at path; -update rewrites the file.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from what the program makes now (go test -update rewrites it); got:\n%s", path, got)
	}
}

// story runs the program's logic once for the tests.
func playStory(t *testing.T) (story, string) {
	t.Helper()
	var buf bytes.Buffer
	s, err := run(&buf)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	return s, buf.String()
}

// cpuShare is n CPUs out of total, the dominant share of a role whose
// tasks use 2 GB a CPU.
func cpuShare(n, total int) float64 { return float64(n) / float64(total) }

func near(x, y float64) bool { return math.Abs(x-y) < 1e-9 }

func checkShares(t *testing.T, what string, got []float64, want ...float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d shares %v, want %v", what, len(got), got, want)
	}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Errorf("%s: share %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// Act 1: for each of nginx's six replicas, the youngest task of 2 CPUs
// not chosen yet is ended, and web's guarantee is met at the second run;
// without reclaim web gets nothing.
func TestGuarantee(t *testing.T) {
	s, _ := playStory(t)
	g := s.Guarantee
	const cpus = guaranteeAgents * 8 // 64
	if g.Small != 16 || g.Large != 24 || len(g.Batch) != 40 || g.Small+2*g.Large != cpus {
		t.Fatalf("batch runs %d tasks, %d of 1 CPU and %d of 2; want 40, 16 and 24, filling %d CPUs", len(g.Batch), g.Small, g.Large, cpus)
	}
	checkShares(t, "before", g.Start, 1, 0)
	if len(g.Runs) != 3 {
		t.Fatalf("%d runs, want 3 (choose, offer, quiet)", len(g.Runs))
	}

	// Run 1 chooses the six youngest tasks of 2 CPUs.
	var large []launched
	for _, task := range slices.Backward(g.Batch) {
		if task.cpus == 2 && len(large) < 6 {
			large = append(large, task)
		}
	}
	r1 := g.Runs[0]
	if len(r1.Chosen) != len(large) || len(r1.Offers) != 0 {
		t.Fatalf("run 1: %d chosen and %d offers, want %d and none", len(r1.Chosen), len(r1.Offers), len(large))
	}
	agents := map[string]bool{}
	for i, p := range r1.Chosen {
		// The names, as a comparable part of the preemption.
		type names struct{ fw, task, agent, role, forRole, forFw string }
		got := names{p.FrameworkID, p.TaskID, p.AgentID, p.Role, p.For, p.ForFramework}
		if want := (names{"spark", large[i].id, large[i].agent, "batch", "web", "nginx"}); got != want || p.Reason != allocator.PreemptForGuarantee {
			t.Errorf("run 1, choice %d: %+v (%s), want %+v (guarantee)", i, got, p.Reason, want)
		}
		if !p.Frees.Equal(sized(2)) || !p.ForTask.Equal(webReplica) {
			t.Errorf("run 1, choice %d frees %s for a task of %s, want %s for %s", i, p.Frees, p.ForTask, sized(2), webReplica)
		}
		// Each moves 2 of the 64 CPUs from batch to web.
		if !near(p.ForShare[1]-p.ForShare[0], cpuShare(2, cpus)) || !near(p.RoleShare[0]-p.RoleShare[1], cpuShare(2, cpus)) {
			t.Errorf("run 1, choice %d: shares %v and %v, want each to move by %v", i, p.ForShare, p.RoleShare, cpuShare(2, cpus))
		}
		agents[p.AgentID] = true
	}
	if first := r1.Chosen[0]; !near(first.ForShare[0], 0) || !near(first.RoleShare[0], 1) {
		t.Errorf("first choice: shares %v and %v, want from 0 and 1", first.ForShare, first.RoleShare)
	}
	// Each end holds its replica's room, cpus:2;mem:2048 of the
	// cpus:2;mem:4096 it frees; the rest goes back to the pool.
	if !r1.Held.Equal(webGuarantee) {
		t.Errorf("run 1: %s held for nginx, want %s", r1.Held, webGuarantee)
	}
	checkShares(t, "run 1", r1.Shares, cpuShare(52, cpus), cpuShare(12, cpus))

	// Run 2 offers them on the agents of the ended tasks, three replicas'
	// rooms on each; nginx runs its six replicas and gives back nothing.
	r2 := g.Runs[1]
	if len(r2.Chosen) != 0 || len(r2.Offers) != len(agents) || r2.Replicas != 6 {
		t.Fatalf("run 2: %d chosen, %d offers, %d replicas; want none, %d, 6", len(r2.Chosen), len(r2.Offers), r2.Replicas, len(agents))
	}
	three := resources.MustParseQuantities("cpus:6;mem:6144")
	for _, o := range r2.Offers {
		if !agents[o.AgentID] || o.FrameworkID != "nginx" || !o.Resources.Quantities().Equal(three) {
			t.Errorf("run 2: offer to %s of %s on %s, want nginx, %s on one of %v", o.FrameworkID, o.Resources, o.AgentID, three, agents)
		}
	}
	if !r2.Running.Equal(webGuarantee) || !r2.Returned.IsEmpty() || !r2.Held.IsEmpty() {
		t.Errorf("run 2: web runs %s, gave back %s, holds %s; want %s, nothing, nothing", r2.Running, r2.Returned, r2.Held, webGuarantee)
	}
	checkShares(t, "run 2", r2.Shares, cpuShare(52, cpus), cpuShare(12, cpus))
	if !g.Runs[2].quiet() {
		t.Errorf("run 3: %+v, want nothing chosen or offered", g.Runs[2])
	}

	if g.MetAfter != 2 || g.Ended != 6 || !g.Freed.Equal(sized(12)) || g.OneCPU != 12 {
		t.Errorf("met after %d runs, %d ended freeing %s, %d of 1 CPU; want 2, 6, %s, 12", g.MetAfter, g.Ended, g.Freed, g.OneCPU, sized(12))
	}
	// The youngest 8 tasks hold 12 CPUs or more, the youngest 7 fewer.
	youngest := func(n int) (sum float64) {
		for _, task := range g.Batch[len(g.Batch)-n:] {
			sum += task.cpus
		}
		return sum
	}
	if g.YoungestFirst != 8 || youngest(8) < 12 || youngest(7) >= 12 {
		t.Errorf("youngest first: %d tasks (the youngest 7 hold %g CPUs, 8 %g); want 8", g.YoungestFirst, youngest(7), youngest(8))
	}

	// Without reclaim: the same three runs, nothing for web.
	if len(g.Off) != 3 {
		t.Fatalf("%d runs without reclaim, want 3", len(g.Off))
	}
	for _, r := range g.Off {
		if !r.quiet() || !r.Running.IsEmpty() {
			t.Errorf("run %d without reclaim: %d chosen, %d offers, web runs %s; want nothing", r.Run, len(r.Chosen), len(r.Offers), r.Running)
		}
		checkShares(t, fmt.Sprintf("run %d without reclaim", r.Run), r.Shares, 1, 0)
	}
}

// Act 2: one of a's tasks is ended for b every other run until the
// shares are equal.
func TestFairShare(t *testing.T) {
	s, _ := playStory(t)
	f := s.Fair
	const cpus = fairAgents * 8 // 16
	if f.Tasks != 8 || len(f.Runs) != 9 || f.Ended != 4 {
		t.Fatalf("a ran %d tasks; %d runs, %d ended; want 8, 9, 4", f.Tasks, len(f.Runs), f.Ended)
	}
	checkShares(t, "before", f.Start, 1, 0)
	if f.Still != stillRuns {
		t.Errorf("%d of the %d runs after convergence were quiet, want all: a cluster left alone stays still", f.Still, stillRuns)
	}
	for _, r := range f.Runs {
		// b holds 2 CPUs more after every odd run, up to 8 of 16.
		b := 2 * min((r.Run+1)/2, 4)
		checkShares(t, fmt.Sprintf("run %d", r.Run), r.Shares, cpuShare(cpus-b, cpus), cpuShare(b, cpus))
		switch {
		case r.Run == 9:
			if !r.quiet() {
				t.Errorf("run 9: %+v, want quiet", r)
			}
		case r.Run%2 == 1:
			checkFairChoice(t, r, 8-r.Run/2, cpus)
		default:
			if len(r.Chosen) != 0 || len(r.Offers) != 1 || r.Replicas != 1 || !r.Offers[0].Resources.Quantities().Equal(fairTask) || r.Offers[0].AgentID != "agent-2" {
				t.Errorf("run %d: %d chosen, offers %v, %d tasks; want one offer of %s on agent-2 and one task", r.Run, len(r.Chosen), r.Offers, r.Replicas, fairTask)
			}
		}
	}
}

// checkFairChoice checks an odd run of act 2: task a-NN ended for b, b
// staying at or below a.
func checkFairChoice(t *testing.T, r runRecord, n, cpus int) {
	t.Helper()
	if len(r.Chosen) != 1 || len(r.Offers) != 0 {
		t.Fatalf("run %d: %d chosen and %d offers, want one and none", r.Run, len(r.Chosen), len(r.Offers))
	}
	p := r.Chosen[0]
	if p.TaskID != fmt.Sprintf("a-%02d", n) || p.AgentID != "agent-2" || p.Role != "a" || p.For != "b" || p.ForFramework != "fb" || p.Reason != allocator.PreemptForFairShare {
		t.Errorf("run %d: %s, want a-%02d on agent-2 for b (fair share)", r.Run, p, n)
	}
	if !p.ForTask.Equal(fairTask) {
		t.Errorf("run %d: chosen for a task of %s, want %s", r.Run, p.ForTask, fairTask)
	}
	before := 2 * (r.Run / 2)
	checkShares(t, fmt.Sprintf("run %d, b", r.Run), p.ForShare[:], cpuShare(before, cpus), cpuShare(before+2, cpus))
	checkShares(t, fmt.Sprintf("run %d, a", r.Run), p.RoleShare[:], cpuShare(cpus-before, cpus), cpuShare(cpus-before-2, cpus))
	if p.ForShare[1] > p.RoleShare[1] {
		t.Errorf("run %d: b ends above a: %v, %v", r.Run, p.ForShare, p.RoleShare)
	}
}

// The output is testdata/output.txt, the same on every run, and says the
// numbers the acts observed.
func TestOutput(t *testing.T) {
	out := textcheck.Run(t, func(w io.Writer) error { _, err := run(w); return err })
	golden(t, filepath.Join("testdata", "output.txt"), []byte(out))
	s, _ := playStory(t)
	g, f := s.Guarantee, s.Fair
	text := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"Framework spark of role batch fills them with 40 tasks, 16 of 1 CPU and 24 of 2 CPUs",
		"run 1 6 tasks chosen to end",
		"cpus:12; mem:12288 held for nginx",
		"run 2 nginx is offered cpus:6; mem:6144 on agent-7 and agent-8; it launches 6 tasks shares",
		"web's guarantee is met within 2 runs: after run 2 its replicas use cpus:12; mem:12288.",
		"It took ending 6 of batch's 40 tasks, which freed cpus:12; mem:24576; the replicas' rooms held cpus:12; mem:12288 of it",
		"Ending the youngest tasks first would have ended 8; had batch run tasks of 1 CPU only, 12.",
		"the same 3 runs: 0 offers to nginx, 0 tasks chosen, and web's share stays 0.0000",
		"4 of a's tasks were ended for b in 9 runs",
		"Then b's share equals a's (0.5000 and 0.5000)",
		"the cluster stays still: 100 of them chose nothing and offered nothing.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	for _, p := range append(slices.Clone(g.Runs[0].Chosen), f.Runs[0].Chosen...) {
		task, _, _ := strings.Cut(p.String(), ": frees ")
		if !strings.Contains(out, task) {
			t.Errorf("the output lacks %q", task)
		}
	}
	checkTable(t, out, "  run        batch          web  batch (off)    web (off)",
		series(g.Start, g.Runs, 0), series(g.Start, g.Runs, 1), series(g.Start, g.Off, 0), series(g.Start, g.Off, 1))
	checkTable(t, out, "  run            a            b", series(f.Start, f.Runs, 0), series(f.Start, f.Runs, 1))
}

var tableRow = regexp.MustCompile(`^ +(\d+)((?: +\d\.\d{4})+)$`)

// checkTable checks the rows below the table heading head: a row per run
// from 0, a share per column.
func checkTable(t *testing.T, out, head string, cols ...[]float64) {
	t.Helper()
	_, rest, ok := strings.Cut(out, head+"\n")
	if !ok {
		t.Fatalf("no table %q in the output", head)
	}
	lines := strings.Split(rest, "\n")
	for run := range cols[0] {
		m := tableRow.FindStringSubmatch(lines[run])
		if m == nil || m[1] != strconv.Itoa(run) {
			t.Fatalf("table %q, row %d: %q", head, run, lines[run])
		}
		got := strings.Fields(m[2])
		for i, col := range cols {
			if want := fmt.Sprintf("%.4f", col[run]); got[i] != want {
				t.Errorf("table %q, run %d, column %d: %s, want %s", head, run, i, got[i], want)
			}
		}
	}
	if next := lines[len(cols[0])]; tableRow.MatchString(next) {
		t.Errorf("table %q has a row too many: %q", head, next)
	}
}

// The chart is testdata/shares.svg: well-formed, with a line per role and
// act (four in act 1, reclaim on and off; two in act 2).
func TestChart(t *testing.T) {
	s, _ := playStory(t)
	var b bytes.Buffer
	if err := writeSVG(&b, charts(s)); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "shares.svg"), b.Bytes())
	if n := countElements(t, b.Bytes(), "polyline"); n != 6 {
		t.Errorf("%d lines, want 6", n)
	}
}

// countElements checks that data is well-formed XML and counts the
// elements named name.
func countElements(t *testing.T, data []byte, name string) int {
	t.Helper()
	n := 0
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == name {
			n++
		}
	}
}

// The command: -svg writes the chart, -h prints the usage, bad arguments
// exit 2 and a chart that cannot be written exits 1.
func TestCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shares.svg")
	var out, errOut bytes.Buffer
	if code := command([]string{"-svg", path}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.HasSuffix(out.String(), "\nchart written to "+path+"\n") {
		t.Errorf("the output does not end by naming the chart:\n%s", out.String())
	}
	chart, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := os.ReadFile(filepath.Join("testdata", "shares.svg")); !bytes.Equal(chart, want) {
		t.Error("-svg wrote a chart other than testdata/shares.svg")
	}
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"-h"}, exitOK, "Usage: reclaim"},
		{[]string{"-nosuch"}, exitUsage, ""},
		{[]string{"extra"}, exitUsage, ""},
		{[]string{"-svg", filepath.Join(t.TempDir(), "missing", "shares.svg")}, exitError, "Reclaim across roles"},
	} {
		out.Reset()
		errOut.Reset()
		if code := command(tc.args, &out, &errOut); code != tc.code || !strings.HasPrefix(out.String(), tc.out) {
			t.Errorf("reclaim %q: exit %d, output %q; want %d, %q", tc.args, code, out.String(), tc.code, tc.out)
		}
		if tc.code != exitOK && !strings.HasPrefix(errOut.String(), "reclaim: ") {
			t.Errorf("reclaim %q: stderr %q, want the error", tc.args, errOut.String())
		}
	}
}

// A host logs what a run chose with Preemption.String. In the second act
// one of a's tasks, the youngest, is chosen every other run.
func Example() {
	act, err := playFairShare()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range act.Runs {
		for _, p := range r.Chosen {
			fmt.Printf("run %d: %s\n", r.Run, p)
		}
	}
	// Output:
	// run 1: end task a-08 of fa (a) on agent-2 for b (fair share): frees cpus:2; mem:4096; shares 0→0.125 and 1→0.875
	// run 3: end task a-07 of fa (a) on agent-2 for b (fair share): frees cpus:2; mem:4096; shares 0.125→0.25 and 0.875→0.75
	// run 5: end task a-06 of fa (a) on agent-2 for b (fair share): frees cpus:2; mem:4096; shares 0.25→0.375 and 0.75→0.625
	// run 7: end task a-05 of fa (a) on agent-2 for b (fair share): frees cpus:2; mem:4096; shares 0.375→0.5 and 0.625→0.5
}
