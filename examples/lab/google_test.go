package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
)

// taskEvent writes a line of the task-events table for task index i of
// job 1, of user u: at in seconds, the event type (0 SUBMIT, 1 SCHEDULE,
// 4 FINISH), and the CPU and memory requests if given.
func taskEvent(i int, at int64, kind int, req ...string) string {
	req = append(req, "", "")
	return fmt.Sprintf("%d,,1,%d,,%d,u,0,0,%s,%s,,0\n", at*1_000_000, i, kind, req[0], req[1])
}

// writeGzip writes text to path through gzip.
func writeGzip(t *testing.T, path, text string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(text))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// A task submitted again two days after it finished is forgotten by then:
// its runs are numbered anew, and the line before the table says how many.
func TestGoogleRenumbered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "part-00000-of-00001.csv")
	run := func(at int64) string {
		return taskEvent(0, at, 0, "0.25", "0.125") + taskEvent(0, at+10, 1) + taskEvent(0, at+40, 4)
	}
	const days = 2 * 24 * 60 * 60
	require.NoError(t, os.WriteFile(path, []byte(run(0)+run(days)+run(days+100)), 0o644))
	code, out, errOut := lab("-google", path, "-agents", "2x cpus:16;mem:65536", "-configs", "drf", "-interval", "1m")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, ": 9 lines, 3 tasks; ")
	require.Contains(t, out, "; 2 renumbered, submitted again over a day after their end; ")
	require.Equal(t, []string{"3"}, row(t, out, "tasks finished"))
}

// -google reads the parts a pattern names as one trace: a run submitted in
// the first part and ended in the second is a task.
func TestGoogleParts(t *testing.T) {
	dir := t.TempDir()
	writeGzip(t, filepath.Join(dir, "part-00000-of-00002.csv.gz"),
		taskEvent(0, 0, 0, "0.25", "0.125")+taskEvent(0, 10, 1)+taskEvent(1, 20, 0, "0.25", "0.125")+taskEvent(1, 20, 0))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "part-00001-of-00002.csv"),
		[]byte(taskEvent(0, 40, 4)+taskEvent(0, 40, 4)+taskEvent(1, 50, 1)+taskEvent(1, 80, 4)), 0o644))
	pattern := filepath.Join(dir, "part-*-of-00002.csv*")
	code, out, errOut := lab("-google", pattern, "-agents", "2x cpus:16;mem:65536", "-configs", "drf")
	require.Equal(t, exitOK, code, errOut)
	require.True(t, strings.HasPrefix(out, pattern+" (2 parts): 8 lines, 2 tasks; left out: 0 unfinished, 0 never ran, 0 without request, 0 ends without submit, 0 before the start; "+
		"records ignored: 1 duplicate submits, 0 duplicate schedules, 1 duplicate ends, 0 without a run, 0 after the trace; "+
		"0 renumbered, submitted again over a day after their end; time zero at 0s of the trace\n\n"), out)
	require.Equal(t, []string{"2"}, row(t, out, "tasks finished"))
	require.Equal(t, []string{"51", "(done)"}, row(t, out, "intervals")) // the second, submitted at 20 s, runs 30 s

	code, _, errOut = lab("-google", filepath.Join(dir, "part-*-of-00500.csv.gz"))
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "matches no file")
	bad := filepath.Join(dir, "part-00001-of-00002.csv")
	require.NoError(t, os.WriteFile(bad, []byte(taskEvent(0, 40, 4)+"50,,1,0,,9,u,0,0,,,,0\n"), 0o644))
	code, _, errOut = lab("-google", pattern)
	require.Equal(t, exitError, code)
	require.Equal(t, "lab: "+bad+`: sim: malformed trace: line 2: event type "9": want a whole number up to 8`+"\n", errOut)
}

// A part from late in the trace (past a million seconds) runs its tasks
// from time zero; in the trace's own time they come after the run, and
// the lab warns.
func TestGoogleLatePart(t *testing.T) {
	var text strings.Builder
	for i := range 10 {
		at := int64(1_500_000 + 10*i)
		text.WriteString(taskEvent(i, at, 0, "0.25", "0.125") + taskEvent(i, at+1, 1) + taskEvent(i, at+21, 4))
	}
	part := filepath.Join(t.TempDir(), "part-00300-of-00500.csv")
	require.NoError(t, os.WriteFile(part, []byte(text.String()), 0o644))

	code, out, errOut := lab("-google", part, "-configs", "drf")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "; time zero at 416h40m0s of the trace\n\n")
	require.NotContains(t, out, "warning")
	require.Equal(t, []string{"10"}, row(t, out, "tasks finished"))
	require.Equal(t, []string{"111", "(done)"}, row(t, out, "intervals")) // the last ends at 90 s + 20 s

	code, out, errOut = lab("-google", part, "-configs", "drf", "-start", "0", "-intervals", "100")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "; time zero at 0s of the trace\n\nwarning: 10 of 10 tasks are submitted after the run's last interval (at 1m39s) and never run: "+
		"-intervals and -interval make the run longer, -start moves its time zero\n\n")
	require.Equal(t, []string{"0"}, row(t, out, "tasks finished"))

	code, out, errOut = lab("-google", part, "-configs", "drf", "-start", "1500050s")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, ": 30 lines, 5 tasks; left out: 0 unfinished, 0 never ran, 0 without request, 0 ends without submit, 5 before the start; ")
	require.Contains(t, out, "; time zero at 416h40m50s of the trace\n\n")
	require.Equal(t, []string{"5"}, row(t, out, "tasks finished"))
}

// The warning is for any trace.
func TestWarnLate(t *testing.T) {
	f, err := os.Open(sampleTrace)
	require.NoError(t, err)
	defer f.Close()
	tasks, err := sim.ReadCSV(f)
	require.NoError(t, err)
	late := 0
	for _, tk := range tasks {
		if tk.Submit.Seconds() > 9 {
			late++
		}
	}
	code, out, errOut := lab("-trace", sampleTrace, "-intervals", "10", "-configs", "drf")
	require.Equal(t, exitOK, code, errOut)
	require.True(t, strings.HasPrefix(out, fmt.Sprintf("warning: %d of 70 tasks are submitted after the run's last interval (at 9s) and never run: "+
		"-intervals and -interval make the run longer\n\n", late)), out)
	require.Equal(t, 44, late)
	_, out, _ = lab("-trace", sampleTrace, "-configs", "drf")
	require.NotContains(t, out, "warning")
}

// -machines makes the machine events the cluster: a machine removed is an
// agent failure, and so is a machine added late, until its addition.
func TestGoogleMachines(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "task_events.csv")
	require.NoError(t, os.WriteFile(tasks, []byte(taskEvent(0, 600, 0, "0.5", "0.25")+taskEvent(0, 610, 1)+taskEvent(0, 710, 4)), 0o644))
	machines := filepath.Join(dir, "machine_events.csv.gz")
	writeGzip(t, machines, "0,1,0,p,0.5,0.5\n0,2,0,p,0.5,0.5\n500000000,2,1,,,\n630000000,1,1,,,\n660000000,3,0,p,0.5,0.5\n700000000,3,2,p,1,1\n")
	code, out, errOut := lab("-google", tasks, "-machines", machines, "-configs", "drf")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "; time zero at 10m0s of the trace\n\n"+
		machines+": 6 lines, 2 machines as agents; left out: 1 gone before the start, 0 without capacity; as agent failures: 1 removals, 1 late additions; "+
		"ignored: 1 capacity changes, 0 repeats, 0 after the trace\n\n")
	require.Contains(t, out, "2 agents (cpus:32; mem:131072); roles u; 1 frameworks; 1 tasks; 2 events;")
	require.Equal(t, []string{"1"}, row(t, out, "tasks finished"))
	require.Equal(t, []string{"161", "(done)"}, row(t, out, "intervals")) // lost at 30 s, again at 60 s for 100 s

	code, _, errOut = lab("-google", tasks, "-machines", filepath.Join(dir, "missing.csv"))
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "no such file")
	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("0,1,0,p,0.5,0.5\n0,2,4,p,0.5,0.5\n"), 0o644))
	code, _, errOut = lab("-google", tasks, "-machines", bad)
	require.Equal(t, exitError, code)
	require.Equal(t, "lab: "+bad+`: sim: malformed trace: line 2: event type "4": want a whole number up to 2`+"\n", errOut)
}

// The new flags' bad uses are usage errors.
func TestGoogleBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-machines", "m.csv"}, "-machines is for a -google trace"},
		{[]string{"-trace", "t.csv", "-machines", "m.csv"}, "-machines is for a -google trace"},
		{[]string{"-google", "g.csv", "-machines", "m.csv", "-agents", "2x cpus:1"}, "-agents and -machines: give one cluster"},
		{[]string{"-start", "10s"}, "-start is for a -google trace"},
		{[]string{"-google", "g.csv", "-start", "soon"}, `invalid value "soon" for flag -start: "soon": want first, or a time of the trace such as 300h`},
		{[]string{"-google", "g.csv", "-start", "-5s"}, `"-5s": want first`},
	} {
		code, out, errOut := lab(tc.args...)
		require.Equal(t, exitUsage, code, "%q", tc.args)
		require.Contains(t, errOut, tc.msg)
		require.Contains(t, errOut, "Usage: lab")
		require.Empty(t, out)
	}
	// -start first is the default, and may be said.
	code, out, errOut := lab("-google", sampleGoogle, "-start", "first", "-configs", "drf")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, []string{"6"}, row(t, out, "tasks finished"))
}
