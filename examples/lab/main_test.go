package main

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/examples/internal/textcheck"
)

var update = flag.Bool("update", false, "rewrite testdata/output.txt, testdata/bursty.svg and testdata/policies.svg")

// The sim package's sample traces.
const (
	sampleTrace  = "../../allocator/sim/testdata/tasks.csv"
	sampleGoogle = "../../allocator/sim/testdata/google_task_events.csv"
)

// lab runs the command and returns its exit status, stdout and stderr.
func lab(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := command(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// golden compares got with the file at path (-update rewrites it).
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test -update creates it")
	require.Equal(t, string(want), got, "output differs from %s (go test -update rewrites it)", path)
}

// row returns the figures of a line of the table, by its label.
func row(t *testing.T, table, label string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + `((?:  +\S+(?: \(\w+\))?)+)$`).FindStringSubmatch(table)
	require.NotNil(t, m, "no row %q in:\n%s", label, table)
	return strings.Fields(m[1])
}

// The demonstration, as a user runs it: DRF against the usage-history
// sorter, the table as in testdata/output.txt, the chart as in
// testdata/bursty.svg.
func TestDemonstration(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "bursty.svg")
	code, out, errOut := lab("-svg", svg)
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, errOut)
	table := strings.TrimSuffix(out, "chart written to "+svg+"\n")
	golden(t, filepath.Join("testdata", "output.txt"), table)

	// The figures the sim package's tests derive, as printed.
	require.Equal(t, []string{"drf", "usage"}, strings.Fields(strings.Split(table, "\n")[2]))
	require.Equal(t, []string{"0.914", "0.887"}, row(t, table, "utilisation cpus"))
	require.Equal(t, []string{"2297", "2237"}, row(t, table, "tasks finished"))
	require.Equal(t, []string{"129.0", "116.0"}, row(t, table, "  wait p50 (s)")) // bursty comes first
	require.Equal(t, []string{"282.0", "244.0"}, row(t, table, "  wait p90 (s)"))

	chart, err := os.ReadFile(svg)
	require.NoError(t, err)
	golden(t, filepath.Join("testdata", "bursty.svg"), string(chart))
	require.Equal(t, 2*2+2*2+2*2, countElements(t, chart, "polyline"))
}

// countElements checks that data is well-formed XML and counts the
// elements named name.
func countElements(t *testing.T, data []byte, name string) int {
	t.Helper()
	n := 0
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return n
		}
		require.NoError(t, err)
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == name {
			n++
		}
	}
}

// A trace, three configurations, every file.
func TestTrace(t *testing.T) {
	dir := t.TempDir()
	csvPath, summary, svg := filepath.Join(dir, "samples.csv"), filepath.Join(dir, "summary.csv"), filepath.Join(dir, "chart.svg")
	code, out, errOut := lab("-trace", sampleTrace, "-agents", "4x cpus:8;mem:32768",
		"-configs", "drf,usage:halflife=2m,drf:offershare=0.5:charge", "-csv", csvPath, "-summary", summary, "-svg", svg)
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(out, "\n")
	require.Equal(t, "4 agents (cpus:32; mem:131072); roles analytics, ml, web; 3 frameworks; 70 tasks; 0 events; until done of 1s; seed 1", lines[0])
	require.Equal(t, []string{"drf", "usage:halflife=2m", "drf:offershare=0.5:charge"}, strings.Fields(lines[2]))
	require.Equal(t, []string{"70", "70", "70"}, row(t, out, "tasks finished"))
	require.Equal(t, []string{"248", "(done)", "248", "(done)", "248", "(done)"}, row(t, out, "intervals"))
	require.Contains(t, out, "intervals written to "+csvPath+"\nsummary written to "+summary+"\nchart written to "+svg+"\n")
	samples, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	require.Equal(t, 1+248+248+248, strings.Count(string(samples), "\n"))
	sum, err := os.ReadFile(summary)
	require.NoError(t, err)
	require.Contains(t, string(sum), "\nusage:halflife=2m,finished,,70\n")
	chart, err := os.ReadFile(svg)
	require.NoError(t, err)
	require.Equal(t, 2*3+3*3+3*3, countElements(t, chart, "polyline"))
}

// -time measures every allocation run by the wall clock.
func TestTimed(t *testing.T) {
	code, out, errOut := lab("-trace", sampleTrace, "-configs", "drf,usage", "-time")
	require.Equal(t, exitOK, code, errOut)
	for _, label := range []string{"allocation run mean", "allocation run max"} {
		for _, d := range row(t, out, label) {
			require.Regexp(t, `^\d+(\.\d+)?(µs|ms|s)$`, d, label)
		}
	}
	_, untimed, _ := lab("-trace", sampleTrace, "-configs", "drf,usage")
	require.NotContains(t, untimed, "allocation run")
}

// The Google trace's sample: what was left out is said first.
func TestGoogle(t *testing.T) {
	code, out, errOut := lab("-google", sampleGoogle, "-configs", "drf,random", "-agents", "2x cpus:16;mem:65536")
	require.Equal(t, exitOK, code, errOut)
	require.True(t, strings.HasPrefix(out, sampleGoogle+": 30 lines, 6 tasks; left out: 2 unfinished, 1 never ran, 1 without request, 1 ends without submit, 0 before the start; "+
		"records ignored: 0 duplicate submits, 0 duplicate schedules, 0 duplicate ends, 1 without a run, 1 after the trace; "+
		"0 renumbered, submitted again over a day after their end; time zero at 0s of the trace\n\n"), out)
	require.Equal(t, []string{"6", "6"}, row(t, out, "tasks finished"))

	// Gzipped, as the trace is published.
	data, err := os.ReadFile(sampleGoogle)
	require.NoError(t, err)
	gzipped := filepath.Join(t.TempDir(), "part-00000-of-00500.csv.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err = zw.Write(data)
	require.NoError(t, errors.Join(err, zw.Close()))
	require.NoError(t, os.WriteFile(gzipped, buf.Bytes(), 0o644))
	code, zout, errOut := lab("-google", gzipped, "-configs", "drf,random", "-agents", "2x cpus:16;mem:65536")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, strings.ReplaceAll(out, sampleGoogle, gzipped), zout)
	code, _, errOut = lab("-google", sampleGoogle+"x.gz")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "no such file")
	notGzip := filepath.Join(t.TempDir(), "plain.csv.gz")
	require.NoError(t, os.WriteFile(notGzip, data, 0o644))
	code, _, errOut = lab("-google", notGzip)
	require.Equal(t, exitError, code)
	require.Equal(t, "lab: "+notGzip+": gzip: invalid header\n", errOut)
}

// -h and -help print the usage to stdout and succeed.
func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		code, out, errOut := lab(arg)
		require.Equal(t, exitOK, code)
		require.True(t, strings.HasPrefix(out, "Usage: lab"), out)
		require.Contains(t, out, "-configs string")
		require.Contains(t, out, "usage-history fairness")
		require.Empty(t, errOut)
	}
}

// Bad arguments print what is wrong and the usage to stderr, and exit 2;
// a trace that does not read exits 1 and names the line.
func TestBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
		{[]string{"-nosuch"}, "flag provided but not defined"},
		{[]string{"-configs", "fifo"}, `-configs: "fifo": sorter "fifo": want drf, usage or random`},
		{[]string{"-configs", "drf:halflife=1m"}, `option "halflife=1m"`},
		{[]string{"-configs", "drf:offershare=2"}, "want a part of an agent"},
		{[]string{"-configs", "drf,drf"}, `-configs: "drf" twice`},
		{[]string{"-intervals", "-1"}, "-intervals must be zero or more"},
		{[]string{"-interval", "0s"}, "-interval must be positive"},
		{[]string{"-trace", "a", "-google", "b"}, "give one trace"},
		{[]string{"-agents", "4 cpus:1"}, "want COUNTxRESOURCES"},
		{[]string{"-agents", "4x cpus:x"}, `"4x cpus:x"`},
		{[]string{"-agents", "4x cpus:1"}, "-agents is for a trace"},
	} {
		code, out, errOut := lab(tc.args...)
		require.Equal(t, exitUsage, code, "%q", tc.args)
		require.True(t, strings.HasPrefix(errOut, "lab: "), errOut)
		require.Contains(t, errOut, tc.msg)
		require.Contains(t, errOut, "Usage: lab")
		require.Empty(t, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("time,framework,role,task,resources,duration\n0,a,r,t,cpus:1,1\n5,a,r,u,cpus:1,never\n"), 0o644))
	code, _, errOut := lab("-trace", bad)
	require.Equal(t, exitError, code)
	require.Equal(t, "lab: "+bad+`: sim: malformed trace: line 3: duration "never": want digits, with up to nine decimals`+"\n", errOut)
	code, _, errOut = lab("-trace", filepath.Join(t.TempDir(), "missing.csv"))
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "no such file")
}

// The output is the same on every run, prints no raw Go map, and prints
// resources with their names in order.
func TestOutput(t *testing.T) {
	textcheck.Run(t, func(w io.Writer) error {
		code, out, errOut := lab("-trace", sampleTrace, "-agents", "4x cpus:8;mem:32768", "-configs", "drf,usage,random")
		if code != exitOK {
			return errors.New(errOut)
		}
		_, err := io.WriteString(w, out)
		return err
	})
}

// mainEnv makes the test binary run main instead of the tests (see
// TestMain), so that a test can run the command as a user does.
const mainEnv = "LAB_EXAMPLE_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
		os.Exit(exitOK)
	}
	os.Exit(m.Run())
}

// The command itself: lab -h exits 0 with the usage on stdout; a bad flag
// exits 2; a run prints the table.
func TestMainExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
		stdout string
	}{
		{[]string{"-h"}, exitOK, "Usage: lab"},
		{[]string{"-nosuch"}, exitUsage, ""},
		{[]string{"-trace", sampleTrace, "-configs", "drf"}, exitOK, "10 agents (cpus:320; mem:1310720)"},
	} {
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), mainEnv+"=1")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		status := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			status = exit.ExitCode()
		} else {
			require.NoError(t, err)
		}
		require.Equal(t, tc.status, status, "lab %q: stderr %q", tc.args, errOut.String())
		require.True(t, strings.HasPrefix(out.String(), tc.stdout), "lab %q: stdout %q", tc.args, out.String())
	}
}

// policiesArgs is the README's comparison of three policies on the sample
// trace: Mesos's offers, demand-aware offers, and reclaim for pending
// tasks (the trace has no quota: fair-share reclaim).
var policiesArgs = []string{"-trace", "allocator/sim/testdata/tasks.csv", "-agents", "4x cpus:8;mem:32768",
	"-configs", "drf,drf:demand,drf:demand:reclaim=fairshare"}

// policiesTable is the README's table of the comparison, from the
// command's output.
func policiesTable(t *testing.T, out string) string {
	t.Helper()
	of := func(role, label string) []string {
		section := out
		if role != "" {
			i := strings.Index(out, "\nrole "+role+"\n")
			require.GreaterOrEqual(t, i, 0, "no role %s in:\n%s", role, out)
			section = out[i+1:]
		}
		return row(t, section, label)
	}
	var b strings.Builder
	line := func(cells ...string) { b.WriteString("| " + strings.Join(cells, " | ") + " |\n") }
	line("policy", "Mesos's offers", "demand-aware offers", "reclaim for pending tasks")
	line("---", "--:", "--:", "--:")
	line(append([]string{"configuration"}, "`drf`", "`drf:demand`", "`drf:demand:reclaim=fairshare`")...)
	pair := func(label string, a, b []string, format string) {
		cells := []string{label}
		for i := range a {
			cells = append(cells, fmt.Sprintf(format, a[i], b[i]))
		}
		line(cells...)
	}
	single := func(label string, a []string) { line(append([]string{label}, a...)...) }
	intervals := of("", "intervals")
	single("intervals to run the trace (1 s)", []string{intervals[0], intervals[2], intervals[4]})
	pair("offers (declined)", of("", "offers"), of("", "offers declined"), "%s (%s)")
	single("CPU utilisation", of("", "utilisation cpus"))
	single("Jain's index (contended)", of("", "jain index (contended)"))
	single("tasks preempted", of("", "tasks preempted"))
	pair("web: wait p90 / max (s)", of("web", "  wait p90 (s)"), of("web", "  wait max (s)"), "%s / %s")
	pair("ml: wait p50 / p90 (s)", of("ml", "  wait p50 (s)"), of("ml", "  wait p90 (s)"), "%s / %s")
	pair("analytics: tasks launched / wait p99 (s)", of("analytics", "  tasks launched"), of("analytics", "  wait p99 (s)"), "%s / %s")
	return b.String()
}

// The README shows the command of the comparison, its figures as the
// command prints them and its chart, as in testdata/policies.svg.
func TestREADMEPolicies(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	quoted := make([]string, len(policiesArgs))
	for i, a := range policiesArgs {
		quoted[i] = a
		if strings.ContainsAny(a, " ;") {
			quoted[i] = "'" + a + "'"
		}
	}
	command := "go run ./examples/lab " + strings.Join(quoted, " ")
	if !strings.Contains(string(readme), "\n"+command+"\n") {
		t.Errorf("README.md lacks the command of the three policies on a line of its own: %s", command)
	}
	svg := filepath.Join(t.TempDir(), "policies.svg")
	args := append(slices.Clone(policiesArgs), "-svg", svg)
	args[1] = sampleTrace // the command runs from the module's root
	code, out, errOut := lab(args...)
	require.Equal(t, exitOK, code, errOut)
	table := policiesTable(t, out)
	if !strings.Contains(string(readme), table) {
		t.Errorf("README.md lacks the table of the three policies; it should hold:\n%s", table)
	}

	chart, err := os.ReadFile(svg)
	require.NoError(t, err)
	golden(t, filepath.Join("testdata", "policies.svg"), string(chart))
	// Utilisation: 2 resources x 3 configurations; shares: 3
	// configurations x 3 roles; waits: 3 roles x 3 configurations.
	require.Equal(t, 2*3+3*3+3*3, countElements(t, chart, "polyline"))
	require.True(t, strings.Contains(string(readme), "](examples/lab/testdata/policies.svg)\n"), "README.md shows testdata/policies.svg")
}
