package sim_test

import (
	"bytes"
	"os"
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
	require.Equal(t, sim.GoogleStats{Lines: 30, Tasks: 6, Unfinished: 2, NeverRan: 1, NoRequest: 1, Orphans: 1}, stats)
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
		{"SubmitAfterTrace", field(0, "9223372036854775807"), "SUBMIT after the end of the trace"},
		{"Missing", field(1, "x"), `missing info "x"`},
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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := sim.ReadGoogle(strings.NewReader(tc.text), sim.GoogleOptions{})
			require.ErrorIs(t, err, sim.ErrInvalidTrace)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func FuzzReadGoogle(f *testing.F) {
	if data, err := os.ReadFile("testdata/google_task_events.csv"); err == nil {
		f.Add(string(data))
		lines := strings.SplitAfter(string(data), "\n")
		f.Add(strings.Join(lines[:10], ""))
	}
	f.Add("0,,1,0,,0,u,0,0,0.5,0.5,0,0\n5,,1,0,,1,u,0,0,,,,\n9,,1,0,,4,u,0,0,,,,\n")
	f.Add("0,,1,0,,0,u,0,0,,,,\n9223372036854775807,,1,0,,4,u,0,0,,,,\n")
	f.Add("0,,1,0,,0,u,0,0,1,1,1,1\n0,,1,0,,1,u,0,0,,,,\n0,,1,0,,3,u,0,0,,,,\n0,,1,0,,0,u,0,0,,,,\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		tasks, stats, err := sim.ReadGoogle(strings.NewReader(text), sim.GoogleOptions{})
		if err != nil {
			require.ErrorIs(t, err, sim.ErrInvalidTrace)
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
	})
}
