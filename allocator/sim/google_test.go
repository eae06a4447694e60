package sim_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
)

const (
	user1 = "fJYeclskJqPWsAT6TX_r9X5OiIZpSEb2PBGliYAOMxM"
	user2 = "ZtS6vYsDrbXQgBmS3xTKiPaXHUjvRWw1wZ94cfrkpFg"
	user3 = "_-HpMwZ8Ocu0w5tCqlJ3ZRZg6LyJrS2yrh1lO8m1mjsE"
)

// The sample holds, in thirty lines, every case the reader knows: see the
// comments of testdata/google_task_events.csv's generator in the test
// names below.
func TestReadGoogle(t *testing.T) {
	f, err := os.Open("testdata/google_task_events.csv")
	require.NoError(t, err)
	defer f.Close()
	tasks, stats, err := sim.ReadGoogle(f, sim.GoogleOptions{})
	require.NoError(t, err)
	// Line 19 schedules a task never submitted (a stray); line 30 ends a
	// run after the trace (unfinished).
	require.Equal(t, sim.GoogleStats{Parts: 1, Lines: 30, Tasks: 6, Unfinished: 2, NeverRan: 1, NoRequest: 1, Orphans: 1, Strays: 1, AfterTrace: 1}, stats)
	task := func(user, id string, submit, d time.Duration, res string, constraint bool) sim.Task {
		group, _, _ := strings.Cut(id, "-")
		return sim.Task{Framework: user, Role: user, ID: id, Submit: submit, Resources: qty(res), Duration: d, Group: group, DifferentMachines: constraint}
	}
	want := []sim.Task{
		// Submitted before the trace (0), scheduled at 600 s, finished at 900 s.
		task(user1, "6251639646-0", 0, 300*time.Second, "cpus:2;mem:4168.09", false),
		// Failed after 60 s, submitted again at 660 s, ran 300 s more.
		task(user1, "6251639646-1", 0, 60*time.Second, "cpus:2;mem:8192", false),
		task(user1, "6251639646-1.2", 660*time.Second, 300*time.Second, "cpus:2;mem:8192", false),
		// Its CPU request raised by an UPDATE_PENDING to 0.25; evicted after 80 s.
		task(user2, "6251812952-0", 700*time.Second, 80*time.Second, "cpus:8;mem:8192", true),
		// Lost after 1295 s.
		task(user2, "6251812952-1", 700*time.Second, 1295*time.Second, "cpus:4;mem:8192", true),
		// Finished the instant it was scheduled: a microsecond. The user's
		// name starts with '+': "_-".
		task(user3, "6252000000-2", 801*time.Second, time.Microsecond, "cpus:1;mem:2048", false),
	}
	require.Equal(t, len(want), len(tasks))
	for i := range want {
		require.True(t, want[i].Resources.Equal(tasks[i].Resources), "task %d: %s, want %s", i, tasks[i].Resources, want[i].Resources)
		tasks[i].Resources = want[i].Resources
		require.Equal(t, want[i], tasks[i])
	}
}

func TestReadGoogleOptions(t *testing.T) {
	line := "0,,1,0,,0,u,3,11,0.5,0.25,0,\n5000000,,1,0,,1,u,3,11,,,,\n6000000,,1,0,,4,u,3,11,,,,\n"
	tasks, _, err := sim.ReadGoogle(strings.NewReader(line), sim.GoogleOptions{
		CPUs: 4, Memory: 1000,
		Tenant: func(user string, class, priority int) (string, string) {
			return "fw-" + user, map[bool]string{true: "prod", false: "batch"}[priority >= 9 && class == 3]
		},
	})
	require.NoError(t, err)
	require.Len(t, tasks, 1)
	require.Equal(t, "fw-u", tasks[0].Framework)
	require.Equal(t, "prod", tasks[0].Role)
	require.Equal(t, "cpus:2; mem:250", tasks[0].Resources.String())
	require.Equal(t, time.Second, tasks[0].Duration)
	// A tiny request is a thousandth, not nothing.
	tiny := "0,,1,0,,0,u,0,0,0.0000001,0,0,0\n1,,1,0,,1,u,0,0,,,,\n2,,1,0,,4,u,0,0,,,,\n"
	tasks, _, err = sim.ReadGoogle(strings.NewReader(tiny), sim.GoogleOptions{})
	require.NoError(t, err)
	require.Equal(t, "cpus:0.001", tasks[0].Resources.String())

	_, _, err = sim.ReadGoogle(strings.NewReader(""), sim.GoogleOptions{CPUs: -1})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
	_, _, err = sim.ReadGoogle(strings.NewReader(line), sim.GoogleOptions{Tenant: func(string, int, int) (string, string) { return "f", "a b" }})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
	require.ErrorContains(t, err, `line 1: user "u": `)
}

func TestGoogleUser(t *testing.T) {
	require.Equal(t, "fJYecl_r9X5O", sim.GoogleUser("fJYecl/r9X5O="))
	require.Equal(t, "_-HpM", sim.GoogleUser("+HpM=="))
	require.Equal(t, "_.x", sim.GoogleUser(".x"))
	require.Equal(t, "_", sim.GoogleUser(""))
}

func TestReadGoogleErrors(t *testing.T) {
	ok := "0,,1,0,,0,u,0,0,0.5,0.5,0,0"
	field := func(i int, v string) string {
		f := strings.Split(ok, ",")
		f[i] = v
		return strings.Join(f, ",") + "\n"
	}
	cases := []struct{ name, text, msg string }{
		{"Fields", "0,,1,0\n", "line 1: wrong number of fields"},
		{"Timestamp", field(0, "-5"), `line 1: timestamp "-5": want microseconds`},
		{"TimestampFar", field(0, "9000000000000000000"), "more than"},
		{"Missing", field(1, "x"), `missing info "x"`},
		{"MissingBeyond2", field(1, "3"), `line 1: missing info "3": want a whole number up to 2`},
		{"Job", field(2, ""), `job ID "": missing`},
		{"Index", field(3, "1.5"), `task index "1.5"`},
		{"Machine", field(4, "m1"), `machine ID "m1"`},
		{"Type", field(5, "9"), `event type "9": want a whole number up to 8`},
		{"User", field(6, ""), "user: empty on a SUBMIT"},
		{"Class", field(7, "4"), `scheduling class "4"`},
		{"Priority", field(8, "12"), `priority "12"`},
		{"CPU", field(9, "1.5"), `CPU request "1.5": want a normalised request from 0 to 1`},
		{"Memory", field(10, "NaN"), `memory request "NaN"`},
		{"Disk", field(11, "-0.1"), `disk request "-0.1"`},
		{"Constraint", field(12, "2"), `different-machine constraint "2"`},
		{"BackInTime", ok + "\n" + "10,,1,0,,1,u,0,0,,,,\n" + "5,,1,0,,4,u,0,0,,,,\n", "line 3: timestamp 5 goes back: task 1-0 had an event at 10"},
		{"BackAfterEnd", ok + "\n" + "10,,1,0,,1,u,0,0,,,,\n" + "20,,1,0,,4,u,0,0,,,,\n" + "15,,1,0,,4,u,0,0,,,,\n", "line 4: timestamp 15 goes back: task 1-0 had an event at 20"},
		{"BackFromAfterTrace", ok + "\n" + "9223372036854775807,,1,0,,4,u,0,0,,,,\n" + "15,,1,0,,4,u,0,0,,,,\n", "line 3: timestamp 15 goes back: task 1-0 had an event at 9223372036854775807"},
		{"UserOpeningRun", "0,1,1,0,,0,,0,0,,,,\n", "line 1: user: empty on a SUBMIT"},
		{"Quote", "0,,1,0,,0,\"u,0,0,,,,\n", `line 1: extraneous or missing " in quoted-field`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := sim.ReadGoogle(strings.NewReader(tc.text), sim.GoogleOptions{})
			require.ErrorIs(t, err, sim.ErrInvalidTrace)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// Bad input gives an error naming the line, never a panic; what reads is
// a valid trace, and reads the same in two parts and from a fixed start at
// the first event.
func FuzzReadGoogle(f *testing.F) {
	if data, err := os.ReadFile("testdata/google_task_events.csv"); err == nil {
		f.Add(string(data))
		lines := strings.SplitAfter(string(data), "\n")
		f.Add(strings.Join(lines[:10], ""))
	}
	f.Add("0,,1,0,,0,u,0,0,0.5,0.5,0,0\n5,,1,0,,1,u,0,0,,,,\n9,,1,0,,4,u,0,0,,,,\n")
	f.Add("0,,1,0,,0,u,0,0,,,,\n9223372036854775807,,1,0,,4,u,0,0,,,,\n")
	f.Add("0,,1,0,,0,u,0,0,1,1,1,1\n0,,1,0,,1,u,0,0,,,,\n0,,1,0,,3,u,0,0,,,,\n0,,1,0,,0,u,0,0,,,,\n")
	f.Add(gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "2", gSubmit) + gline(0, 20, "", gSchedule) + gline(0, 20, "0", gSchedule) +
		gline(0, 25, "1", gUpdateRunning, "0.1", "") + gline(0, 50, "", gFinish) + gline(0, 50, "1", gFinish) + gline(0, 60, "", gSubmit, "0.5", "0.25") +
		gline(1, 1_500_000, "", gSchedule) + gline(0, gAfter, "", gKill))
	// Submitted again, and a repeated end, once forgotten (two days on).
	f.Add(gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule) + gline(0, 20, "", gFinish) +
		gline(0, 200_000, "", gSubmit, "0.5", "0.25") + gline(0, 200_010, "", gSchedule) + gline(0, 200_020, "", gEvict) +
		gline(0, 200_030, "", gSubmit, "0.5", "0.25") + gline(0, 200_040, "", gSchedule) + gline(0, 200_050, "", gFinish) +
		gline(1, 400_000, "", gFinish) + gline(0, 400_000, "1", gFinish))
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		tasks, stats, err := sim.ReadGoogle(strings.NewReader(text), sim.GoogleOptions{})
		if err != nil {
			require.ErrorIs(t, err, sim.ErrInvalidTrace)
			require.Regexp(t, `: (after )?line \d+: `, err.Error())
			return
		}
		require.Equal(t, stats.Tasks, len(tasks))
		ids := map[[2]string]bool{}
		for i, tk := range tasks {
			require.Positive(t, tk.Duration)
			require.False(t, tk.Resources.IsEmpty())
			require.GreaterOrEqual(t, tk.Submit, time.Duration(0))
			require.False(t, ids[[2]string{tk.Framework, tk.ID}], "task %q twice", tk.ID)
			ids[[2]string{tk.Framework, tk.ID}] = true
			if i > 0 {
				require.LessOrEqual(t, tasks[i-1].Submit, tk.Submit)
			}
		}
		// What it reads is a valid trace: it writes and reads back.
		var buf bytes.Buffer
		require.NoError(t, sim.WriteCSV(&buf, tasks))
		back, err := sim.ReadCSV(&buf)
		require.NoError(t, err)
		require.Equal(t, len(tasks), len(back))

		fixed, fixedStats, err := sim.ReadGoogle(strings.NewReader(text), sim.GoogleOptions{Start: stats.Start, FixedStart: true})
		require.NoError(t, err)
		require.Equal(t, tasks, fixed)
		require.Equal(t, stats, fixedStats)

		if strings.Contains(text, `"`) {
			return // a quoted field may hold a newline: a cut there is not between lines
		}
		lines := strings.SplitAfter(text, "\n")
		half := strings.Join(lines[:len(lines)/2], "")
		parts, partStats, err := sim.ReadGoogleParts(gReaders(half, text[len(half):]), sim.GoogleOptions{})
		require.NoError(t, err)
		require.Equal(t, tasks, parts)
		partStats.Parts = 1
		require.Equal(t, stats, partStats)
	})
}

// Event types of the task-events table.
const (
	gSubmit = iota
	gSchedule
	gEvict
	gFail
	gFinish
	gKill
	gLost
	gUpdatePending
	gUpdateRunning
)

// gAfter is the timestamp 2^63-1 in gline.
const gAfter = -1

// gline writes a line of the task-events table for task index i of job 1, of
// user u: at in seconds (gAfter for 2^63-1), the missing-info field, the
// event type, and the CPU and memory requests if given.
func gline(i int, at int64, missing string, kind int, req ...string) string {
	ts := fmt.Sprint(at * 1_000_000)
	if at == gAfter {
		ts = "9223372036854775807"
	}
	req = append(req, "", "")
	return fmt.Sprintf("%s,%s,1,%d,,%d,u,0,0,%s,%s,,0\n", ts, missing, i, kind, req[0], req[1])
}

// gBrief writes tasks as "ID submit+duration resources".
func gBrief(tasks []sim.Task) []string {
	out := []string{}
	for _, t := range tasks {
		out = append(out, fmt.Sprintf("%s %s+%s %s", t.ID, t.Submit, t.Duration, t.Resources))
	}
	return out
}

// One rule of the reader a case, on records written for it.
func TestReadGoogleRules(t *testing.T) {
	const half = "cpus:16; mem:32768" // requests of 0.5 and 0.25
	late := gline(9, 1_499_990, "", gFinish) +
		gline(0, 1_500_000, "", gSubmit, "0.5", "0.25") + gline(0, 1_500_010, "", gSchedule) + gline(0, 1_500_030, "", gFinish) +
		gline(1, 1_500_100, "", gSubmit, "0.5", "0.25") + gline(1, 1_500_100, "", gSchedule) + gline(1, 1_500_160, "", gFinish)
	resubmit := func(end int) string {
		return gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule) + gline(0, 20, "", end) +
			gline(0, 30, "", gSubmit, "0.5", "0.25") + gline(0, 40, "", gSchedule) + gline(0, 100, "", gFinish)
	}
	cases := []googleRule{
		{
			name:  "DuplicateSubmitPending", // with missing info and no requests: the run stays
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "2", gSubmit) + gline(0, 20, "", gSchedule) + gline(0, 50, "", gFinish),
			tasks: []string{"1-0 0s+30s " + half},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1, DuplicateSubmits: 1},
		},
		{
			name:  "DuplicateSubmitRunning",
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule) + gline(0, 20, "1", gSubmit) + gline(0, 50, "", gFinish),
			tasks: []string{"1-0 0s+40s " + half},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1, DuplicateSubmits: 1},
		},
		{
			name:  "DuplicateSubmitGivesRequest", // without missing info, as an update
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 5, "", gSubmit, "0.25") + gline(0, 10, "", gSchedule) + gline(0, 20, "", gFinish),
			tasks: []string{"1-0 0s+10s cpus:8; mem:32768"},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1, DuplicateSubmits: 1},
		},
		{
			name:  "MissingInfoNeverErases",
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 5, "0", gUpdatePending, "0.125", "0") + gline(0, 10, "", gSchedule) + gline(0, 20, "", gFinish),
			tasks: []string{"1-0 0s+10s " + half},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1},
		},
		{
			name:  "MissingInfoFillsUnknown",
			text:  gline(0, 0, "", gSubmit, "0.5", "") + gline(0, 5, "2", gUpdatePending, "0.125", "0.25") + gline(0, 10, "", gSchedule) + gline(0, 20, "", gFinish),
			tasks: []string{"1-0 0s+10s " + half},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1},
		},
		{
			name:  "UpdatePending",
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 5, "", gUpdatePending, "0.25") + gline(0, 10, "", gSchedule) + gline(0, 20, "", gFinish),
			tasks: []string{"1-0 0s+10s cpus:8; mem:32768"},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1},
		},
		{
			name:  "UpdateRunning",
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule) + gline(0, 15, "", gUpdateRunning, "0.75", "0.5") + gline(0, 20, "", gFinish),
			tasks: []string{"1-0 0s+10s cpus:24; mem:65536"},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1},
		},
		{
			name:  "DuplicateSchedule", // the run keeps its start
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule) + gline(0, 20, "0", gSchedule) + gline(0, 50, "", gFinish),
			tasks: []string{"1-0 0s+40s " + half},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1, DuplicateSchedules: 1},
		},
		{
			name:  "DuplicateEnds",
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule) + gline(0, 30, "", gFinish) + gline(0, 30, "1", gFinish) + gline(0, 40, "", gKill),
			tasks: []string{"1-0 0s+20s " + half},
			stats: sim.GoogleStats{Lines: 5, Tasks: 1, DuplicateEnds: 2},
		},
		{
			name:  "OrphanRepeated",
			text:  gline(0, 5, "", gFinish) + gline(0, 5, "1", gFinish),
			tasks: []string{},
			stats: sim.GoogleStats{Lines: 2, Orphans: 1, DuplicateEnds: 1, Start: 5 * time.Second},
		},
		{name: "ResubmitAfterEvict", text: resubmit(gEvict), tasks: []string{"1-0 0s+10s " + half, "1-0.2 30s+1m0s " + half}, stats: sim.GoogleStats{Lines: 6, Tasks: 2}},
		{name: "ResubmitAfterFail", text: resubmit(gFail), tasks: []string{"1-0 0s+10s " + half, "1-0.2 30s+1m0s " + half}, stats: sim.GoogleStats{Lines: 6, Tasks: 2}},
		{name: "ResubmitAfterFinish", text: resubmit(gFinish), tasks: []string{"1-0 0s+10s " + half, "1-0.2 30s+1m0s " + half}, stats: sim.GoogleStats{Lines: 6, Tasks: 2}},
		{name: "ResubmitAfterKill", text: resubmit(gKill), tasks: []string{"1-0 0s+10s " + half, "1-0.2 30s+1m0s " + half}, stats: sim.GoogleStats{Lines: 6, Tasks: 2}},
		{name: "ResubmitAfterLost", text: resubmit(gLost), tasks: []string{"1-0 0s+10s " + half, "1-0.2 30s+1m0s " + half}, stats: sim.GoogleStats{Lines: 6, Tasks: 2}},
		{
			name:  "ResubmitAfterNeverRan", // a run that made no task takes no number
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 5, "", gKill) + gline(0, 10, "", gSubmit, "0.5", "0.25") + gline(0, 20, "", gSchedule) + gline(0, 30, "", gFinish),
			tasks: []string{"1-0 10s+10s " + half},
			stats: sim.GoogleStats{Lines: 5, Tasks: 1, NeverRan: 1},
		},
		{
			name: "Strays",
			text: gline(0, 5, "", gSchedule) + gline(0, 6, "", gUpdateRunning, "0.5") +
				gline(0, 10, "", gSubmit, "0.5", "0.25") + gline(0, 20, "", gSchedule) + gline(0, 30, "", gFinish) + gline(0, 40, "", gSchedule),
			tasks: []string{"1-0 5s+10s " + half},
			stats: sim.GoogleStats{Lines: 6, Tasks: 1, Strays: 3, Start: 5 * time.Second},
		},
		{
			name:  "BeforeTrace", // timestamp 0: running when the trace began
			text:  gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 0, "", gSchedule) + gline(0, 600, "", gFinish),
			tasks: []string{"1-0 0s+10m0s " + half},
			stats: sim.GoogleStats{Lines: 3, Tasks: 1},
		},
		{
			name: "AfterTrace", // no end within the trace: unfinished, ran or not
			text: gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule) + gline(0, gAfter, "", gFinish) +
				gline(1, gAfter, "", gSubmit, "0.5", "0.25") +
				gline(2, 0, "", gSubmit, "0.5", "0.25") + gline(2, gAfter, "", gKill),
			tasks: []string{},
			stats: sim.GoogleStats{Lines: 6, Unfinished: 2, AfterTrace: 3},
		},
		{
			name:  "FirstEvent", // a late part: time zero at its first line, an orphan's end
			text:  late,
			tasks: []string{"1-0 10s+20s " + half, "1-1 1m50s+1m0s " + half},
			stats: sim.GoogleStats{Lines: 7, Tasks: 2, Orphans: 1, Start: 1_499_990 * time.Second},
		},
		{
			name:  "FixedStart",
			text:  late,
			opts:  sim.GoogleOptions{Start: 1_500_050 * time.Second, FixedStart: true},
			tasks: []string{"1-1 50s+1m0s " + half},
			stats: sim.GoogleStats{Lines: 7, Tasks: 1, Orphans: 1, BeforeStart: 1, Start: 1_500_050 * time.Second},
		},
		{
			name:  "FixedStartAtZero", // the trace's own time
			text:  late,
			opts:  sim.GoogleOptions{FixedStart: true},
			tasks: []string{"1-0 416h40m0s+20s " + half, "1-1 416h41m40s+1m0s " + half},
			stats: sim.GoogleStats{Lines: 7, Tasks: 2, Orphans: 1},
		},
		{
			name:  "FixedStartKeepsIDs", // the run after the start is still the second
			text:  resubmit(gEvict),
			opts:  sim.GoogleOptions{Start: 25 * time.Second, FixedStart: true},
			tasks: []string{"1-0.2 5s+1m0s " + half},
			stats: sim.GoogleStats{Lines: 6, Tasks: 1, BeforeStart: 1, Start: 25 * time.Second},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.check)
	}
}

// googleRule is a case of a rule of the reader: records, options, and the
// tasks (as gBrief writes them) and stats they give.
type googleRule struct {
	name  string
	text  string
	opts  sim.GoogleOptions
	tasks []string
	stats sim.GoogleStats
}

func (tc googleRule) check(t *testing.T) {
	tasks, stats, err := sim.ReadGoogle(strings.NewReader(tc.text), tc.opts)
	require.NoError(t, err)
	require.Equal(t, tc.tasks, gBrief(tasks))
	tc.stats.Parts = 1
	require.Equal(t, tc.stats, stats)
	// The stream of the trace in a file gives the same.
	path := filepath.Join(t.TempDir(), "part.csv")
	require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o644))
	streamed, streamStats := gStreamed(t, path, tc.opts)
	require.Equal(t, tasks, streamed)
	require.Equal(t, stats, streamStats)
}

// gStreamed reads the tasks and stats of StreamGoogleFiles.
func gStreamed(t *testing.T, pattern string, opts sim.GoogleOptions) ([]sim.Task, sim.GoogleStats) {
	t.Helper()
	s, err := sim.StreamGoogleFiles(pattern, opts)
	require.NoError(t, err)
	stats, err := s.Stats()
	require.NoError(t, err)
	var tasks []sim.Task
	for task, err := range s.Tasks() {
		require.NoError(t, err)
		tasks = append(tasks, task)
	}
	return tasks, stats
}

// The tenant of a user, class and priority is asked for once.
func TestReadGoogleTenantOnce(t *testing.T) {
	calls := 0
	text := gline(0, 0, "", gSubmit, "0.5") + gline(1, 0, "", gSubmit, "0.5") + gline(2, 0, "", gSubmit, "0.5") +
		strings.Replace(gline(3, 0, "", gSubmit, "0.5"), ",u,0,0,", ",u,1,0,", 1)
	for i := range 4 {
		text += gline(i, 1, "", gSchedule) + gline(i, 2, "", gFinish)
	}
	tasks, _, err := sim.ReadGoogle(strings.NewReader(text), sim.GoogleOptions{
		Tenant: func(user string, class, _ int) (string, string) { calls++; return user, fmt.Sprint("c", class) },
	})
	require.NoError(t, err)
	require.Equal(t, 2, calls)
	require.Equal(t, []string{"c0", "c0", "c0", "c1"}, []string{tasks[0].Role, tasks[1].Role, tasks[2].Role, tasks[3].Role})
}

// A part from late in the trace runs its tasks from the run's start, where
// the trace's own time would put them past a million intervals.
func TestReadGoogleLatePart(t *testing.T) {
	var text strings.Builder
	const n = 20
	for i := range n {
		at := int64(1_500_000 + 10*i)
		text.WriteString(gline(i, at, "", gSubmit, "0.25", "0.125") + gline(i, at+1, "", gSchedule) + gline(i, at+31, "", gFinish))
	}
	tasks, stats, err := sim.ReadGoogle(strings.NewReader(text.String()), sim.GoogleOptions{})
	require.NoError(t, err)
	require.Equal(t, 1_500_000*time.Second, stats.Start)
	require.Len(t, tasks, n)
	require.Equal(t, time.Duration(0), tasks[0].Submit)
	require.Equal(t, 190*time.Second, tasks[n-1].Submit)
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 2, Resources: "cpus:32;mem:131072"}}, Tasks: tasks}
	res, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 1})
	require.NoError(t, err)
	require.Equal(t, sim.StopDone, res.Stopped)
	require.Equal(t, n, res.Summary.Finished)
	require.Equal(t, 221, res.Summary.Intervals) // the last ends at 190 s + 30 s

	// In the trace's own time the first task waits 1,500,000 s.
	tasks, _, err = sim.ReadGoogle(strings.NewReader(text.String()), sim.GoogleOptions{FixedStart: true})
	require.NoError(t, err)
	require.Equal(t, 1_500_000*time.Second, tasks[0].Submit)
}
