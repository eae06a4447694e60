package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/examples/internal/textcheck"
	"github.com/allot-go/allot/resources"
)

func play(t *testing.T) (outcome, string) {
	t.Helper()
	var buf bytes.Buffer
	out, err := run(&buf)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	return out, buf.String()
}

// In Mesos's order user is never offered the CPUs; with the rotation it
// is offered them within six runs and then at least once every six runs
// (six frameworks may be offered the agent), to the end.
func TestStarving(t *testing.T) {
	out, _ := play(t)
	if out.Mesos.Runs != mesosRuns || len(out.Mesos.Offered) != 0 {
		t.Errorf("Mesos's order: user offered %d times in %d runs (first run %d), want never in %d", len(out.Mesos.Offered), out.Mesos.Runs, out.Mesos.First(), mesosRuns)
	}
	r := out.Rotation
	if r.Runs != rotationRuns || len(r.Offered) == 0 {
		t.Fatalf("rotation: user offered in runs %v of %d, want some of %d", r.Offered, r.Runs, rotationRuns)
	}
	const eligible = decliners + 1
	if r.First() > eligible || r.LongestWait() > eligible {
		t.Errorf("rotation: user offered in runs %v: first %d, longest wait %d, want both at most %d", r.Offered, r.First(), r.LongestWait(), eligible)
	}
	if len(r.Offered) < rotationRuns/eligible {
		t.Errorf("rotation: user offered %d times in %d runs, want at least %d", len(r.Offered), r.Runs, rotationRuns/eligible)
	}
}

// LongestWait counts the wait before the first offer and after the last.
func TestLongestWait(t *testing.T) {
	for _, c := range []struct {
		s    starving
		want int
	}{
		{starving{Runs: 20}, 20},
		{starving{Runs: 20, Offered: []int{6, 12, 18}}, 6},
		{starving{Runs: 20, Offered: []int{2, 3}}, 17},
		{starving{Runs: 20, Offered: []int{9, 10, 20}}, 10},
	} {
		if got := c.s.LongestWait(); got != c.want {
			t.Errorf("%+v: longest wait %d, want %d", c.s, got, c.want)
		}
	}
}

// progressiveFilling gives the DRF paper's answer on its example: 9 CPUs
// and 18 GB, A's tasks <1 CPU, 4 GB> and B's <3 CPUs, 1 GB>: A runs 3
// tasks and B 2, both at a dominant share of 2/3. On two agents of half
// the size each, fit on an agent counts: an agent holding a task of B
// (3 of its 4.5 CPUs) has room for one task of A beside it, so A runs 2.
func TestProgressiveFilling(t *testing.T) {
	users := []user{
		{"A", resources.MustParseQuantities("cpus:1;mem:4096")},
		{"B", resources.MustParseQuantities("cpus:3;mem:1024")},
	}
	if got := progressiveFilling(users, 1, resources.MustParseQuantities("cpus:9;mem:18432")); !slices.Equal(got, []int{3, 2}) {
		t.Errorf("one agent of 9 CPUs, 18 GB: %v, want [3 2]", got)
	}
	if got := progressiveFilling(users, 2, resources.MustParseQuantities("cpus:4.5;mem:9216")); !slices.Equal(got, []int{2, 2}) {
		t.Errorf("two agents of 4.5 CPUs, 9 GB: %v, want [2 2]", got)
	}
}

// With demand each user ends within one task of progressive filling, on
// the program's seed and on others; with Mesos's blind offers one user at
// least is further away, and the cluster has CPUs left over that nobody
// can use.
func TestGreedy(t *testing.T) {
	out, _ := play(t)
	want := progressiveFilling(greedyUsers, greedyAgents, resources.MustParseQuantities(greedyAgent))
	if !slices.Equal(out.DRF, want) {
		t.Fatalf("DRF %v, progressive filling %v", out.DRF, want)
	}
	if d := slices.Max(distance(out.Demand, out.DRF)); d > 1 {
		t.Errorf("with demand: tasks %v, DRF %v: %d tasks away, want at most 1", out.Demand, out.DRF, d)
	}
	if d := slices.Max(distance(out.Blind, out.DRF)); d <= 1 {
		t.Errorf("blind offers: tasks %v, DRF %v: %d tasks away; the example no longer tells the two apart", out.Blind, out.DRF, d)
	}
	cpus := float64(greedyAgents) * resources.MustParseQuantities(greedyAgent).Float64("cpus")
	if got := inUse(out.Blind).Float64("cpus"); got >= cpus {
		t.Errorf("blind offers use %g CPUs of %g, want CPUs stranded", got, cpus)
	}
	for s := int64(2); s <= 4; s++ {
		got, err := playGreedy(allocator.Options{Seed: s}, true, greedyRuns)
		if err != nil {
			t.Fatal(err)
		}
		if d := slices.Max(distance(got, out.DRF)); d > 1 {
			t.Errorf("seed %d, with demand: tasks %v, DRF %v: %d tasks away", s, got, out.DRF, d)
		}
	}
}

// The greedy plays have settled: three times as many runs launch nothing
// more.
func TestGreedySettled(t *testing.T) {
	out, _ := play(t)
	for _, c := range []struct {
		name   string
		opts   allocator.Options
		demand bool
		got    []int
	}{
		{"blind offers", allocator.Options{Seed: seed, MesosOfferOrder: true}, false, out.Blind},
		{"with demand", allocator.Options{Seed: seed}, true, out.Demand},
	} {
		longer, err := playGreedy(c.opts, c.demand, 3*greedyRuns)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(longer, c.got) {
			t.Errorf("%s: %v after %d runs, %v after %d", c.name, c.got, greedyRuns, longer, 3*greedyRuns)
		}
	}
}

// The tables print the numbers the plays computed.
func TestTables(t *testing.T) {
	out, text := play(t)
	row := func(prefix string) []string {
		t.Helper()
		for line := range strings.SplitSeq(text, "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
				return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(rest), -1)
			}
		}
		t.Fatalf("no line starts with %q:\n%s", prefix, text)
		return nil
	}
	for _, c := range []struct {
		prefix string
		s      starving
	}{{"Mesos's (MesosOfferOrder)", out.Mesos}, {"rotation after declines", out.Rotation}} {
		cells := row(c.prefix)
		if len(cells) != 4 || cells[0] != strconv.Itoa(c.s.Runs) || cells[3] != fmt.Sprintf("%d runs", c.s.LongestWait()) {
			t.Errorf("%s: row %q, want %d runs and a longest wait of %d", c.prefix, cells, c.s.Runs, c.s.LongestWait())
		}
		if n := len(c.s.Offered); cells[1] != fmt.Sprintf("%d times", n) && !(n == 1 && cells[1] == "once") {
			t.Errorf("%s: offered %q, want %d times", c.prefix, cells[1], n)
		}
	}
	if !strings.Contains(text, "in runs "+joinInts(out.Rotation.Offered)+".") {
		t.Errorf("output lacks the runs %v", out.Rotation.Offered)
	}
	lead := regexp.MustCompile(`^\d+`)
	for u, us := range greedyUsers {
		cells := row(us.Name + " ")
		if len(cells) != 4 || cells[0] != us.Task.String() {
			t.Fatalf("%s: row %q", us.Name, cells)
		}
		for i, want := range []int{out.DRF[u], out.Blind[u], out.Demand[u]} {
			if got := lead.FindString(cells[i+1]); got != strconv.Itoa(want) {
				t.Errorf("%s: column %d prints %q, want %d", us.Name, i+1, cells[i+1], want)
			}
		}
	}
	cells := row("farthest from DRF")
	if want := []string{fmt.Sprintf("%d tasks", slices.Max(distance(out.Blind, out.DRF))), plural(slices.Max(distance(out.Demand, out.DRF)), "task")}; !slices.Equal(cells, want) {
		t.Errorf("farthest from DRF: %q, want %q", cells, want)
	}
}

// The output is the same on every run, prints no raw Go map, and prints
// resources with their names in order.
func TestOutput(t *testing.T) {
	textcheck.Run(t, func(w io.Writer) error { _, err := run(w); return err })
}
