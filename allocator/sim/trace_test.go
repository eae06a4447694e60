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

func TestReadCSV(t *testing.T) {
	f, err := os.Open("testdata/tasks.csv")
	require.NoError(t, err)
	defer f.Close()
	tasks, err := sim.ReadCSV(f)
	require.NoError(t, err)
	require.Len(t, tasks, 70)
	count := map[string]int{}
	for _, tk := range tasks {
		count[tk.Framework+"/"+tk.Role]++
	}
	require.Equal(t, map[string]int{"alice/analytics": 24, "bob/web": 36, "carol/ml": 10}, count)
	require.Equal(t, sim.Task{Framework: "alice", Role: "analytics", ID: "etl-1", Resources: qty("cpus:2;mem:4096"), Duration: 30 * time.Second}, tasks[0])
	last := tasks[len(tasks)-1]
	require.Equal(t, "api-36", last.ID)
	require.Equal(t, 175500*time.Millisecond, last.Submit)
	require.Equal(t, 30*time.Second, last.Duration)
}

func TestReadCSVErrors(t *testing.T) {
	const head = "time,framework,role,task,resources,duration\n"
	cases := []struct{ name, text, msg string }{
		{"Empty", "", "line 1: no header"},
		{"Header", "when,who\n", `line 1: wrong number of fields`},
		{"HeaderNames", "time,user,role,task,resources,duration\n", `line 1: header "time,user,role,task,resources,duration"`},
		{"Fields", head + "0,a,r,t,cpus:1\n", "line 2: wrong number of fields"},
		{"Time", head + "soon,a,r,t,cpus:1,1\n", `line 2: time "soon": want digits`},
		{"NegativeTime", head + "-1,a,r,t,cpus:1,1\n", `line 2: time "-1"`},
		{"Decimals", head + "1.0000000001,a,r,t,cpus:1,1\n", "more than nine decimals"},
		{"Exponent", head + "1e3,a,r,t,cpus:1,1\n", `time "1e3"`},
		{"Huge", head + "99999999999,a,r,t,cpus:1,1\n", "more than 1000000000 seconds"},
		{"Framework", head + "0,,r,t,cpus:1,1\n", `line 2: framework "": want a non-empty name`},
		{"Task", head + "0,a,r,,cpus:1,1\n", `line 2: task "": want a non-empty id`},
		{"Role", head + "0,a,r//x,t,cpus:1,1\n", "line 2: role: "},
		{"Resources", head + "0,a,r,t,cpus:x,1\n", `line 2: resources "cpus:x"`},
		{"NoResources", head + "0,a,r,t,,1\n", `line 2: resources "": none`},
		{"Ranges", head + "0,a,r,t,ports:[1-2],1\n", `line 2: resources "ports:[1-2]"`},
		{"Duration", head + "0,a,r,t,cpus:1,0\n", `line 2: duration "0": want above zero`},
		{"DurationText", head + "0,a,r,t,cpus:1,long\n", `line 2: duration "long"`},
		{"Twice", head + "0,a,r,t,cpus:1,1\n# comment\n1,a,r,t,cpus:1,1\n", `line 4: task "t" of framework "a" is already submitted on line 2`},
		{"Quote", head + "0,\"a,r,t,cpus:1,1\n", "line 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.ReadCSV(strings.NewReader(tc.text))
			require.ErrorIs(t, err, sim.ErrInvalidTrace)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// WriteCSV writes what ReadCSV reads back the same, exactly: times to the
// nanosecond, resources to the thousandth.
func TestCSVRoundTrip(t *testing.T) {
	tasks := []sim.Task{
		{Framework: "a,b", Role: "eng/web", ID: "t \"1\"", Submit: 1500*time.Millisecond + time.Nanosecond, Resources: qty("cpus:0.001;mem:3;gpus:1"), Duration: 1_000_000_000 * time.Second},
		{Framework: "f", ID: "t2", Resources: qty("disk:12.5"), Duration: time.Nanosecond},
	}
	var buf bytes.Buffer
	require.NoError(t, sim.WriteCSV(&buf, tasks))
	require.Equal(t, "time,framework,role,task,resources,duration\n"+
		"1.500000001,\"a,b\",eng/web,\"t \"\"1\"\"\",cpus:0.001; gpus:1; mem:3,1000000000\n"+
		"0,f,,t2,disk:12.5,0.000000001\n", buf.String())
	back, err := sim.ReadCSV(&buf)
	require.NoError(t, err)
	require.Equal(t, len(tasks), len(back))
	for i := range tasks {
		require.True(t, tasks[i].Resources.Equal(back[i].Resources))
		back[i].Resources = tasks[i].Resources
	}
	require.Equal(t, tasks, back)
}

// A generated workload kept as a trace runs the same as the generators.
func TestGeneratedTrace(t *testing.T) {
	w := sim.BurstyAndSteady()
	tasks, err := w.Expand(3)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, sim.WriteCSV(&buf, tasks))
	read, err := sim.ReadCSV(&buf)
	require.NoError(t, err)
	traced := sim.Workload{Agents: w.Agents, Roles: w.Roles, Tasks: read}
	opts := sim.RunOptions{Seed: 3, Intervals: 300}
	a, err := sim.Run(w, sim.Config{Name: "drf"}, opts)
	require.NoError(t, err)
	b, err := sim.Run(traced, sim.Config{Name: "drf"}, opts)
	require.NoError(t, err)
	require.Equal(t, a.Summary, b.Summary)
}

func FuzzReadCSV(f *testing.F) {
	seeds := []string{
		"time,framework,role,task,resources,duration\n0,alice,analytics,etl-1,cpus:2;mem:4096,30\n12.5,bob,,api,cpus:0.5,1.25\n",
		"time,framework,role,task,resources,duration\n# c\n0,\"a,b\",r,\"t\"\"\",cpus:1,1\n",
		"time,framework,role,task,resources,duration\n0,a,r,t,cpus:1,1\n0,a,r,t,cpus:1,1\n",
		"time,framework,role,task\n",
		"",
	}
	if data, err := os.ReadFile("testdata/tasks.csv"); err == nil {
		seeds = append(seeds, string(data))
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tasks, err := sim.ReadCSV(strings.NewReader(text))
		if err != nil {
			require.ErrorIs(t, err, sim.ErrInvalidTrace)
			require.Contains(t, err.Error(), "line ")
			return
		}
		var buf bytes.Buffer
		require.NoError(t, sim.WriteCSV(&buf, tasks))
		back, err := sim.ReadCSV(&buf)
		require.NoError(t, err, "the trace written back: %s", buf.String())
		require.Equal(t, len(tasks), len(back))
		for i := range tasks {
			require.True(t, tasks[i].Resources.Equal(back[i].Resources))
			require.Equal(t, tasks[i].Submit, back[i].Submit)
			require.Equal(t, tasks[i].Duration, back[i].Duration)
			require.Equal(t, tasks[i].ID, back[i].ID)
			require.Positive(t, tasks[i].Duration)
		}
	})
}
