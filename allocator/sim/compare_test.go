package sim_test

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
)

// traceWorkload is the sample trace on four agents.
func traceWorkload(t *testing.T) sim.Workload {
	t.Helper()
	f, err := os.Open("testdata/tasks.csv")
	require.NoError(t, err)
	defer f.Close()
	tasks, err := sim.ReadCSV(f)
	require.NoError(t, err)
	return sim.Workload{Agents: []sim.AgentGroup{{Name: "agent", Count: 4, Resources: "cpus:8;mem:32768", Zones: []string{"a", "b"}}}, Tasks: tasks}
}

var threeConfigs = []sim.Config{
	{Name: "drf"},
	{Name: "usage 2m", RoleSorterWithClock: sim.Usage(2 * time.Minute)},
	{Name: "drf offer share 0.5", Options: allocator.Options{OfferShare: 0.5}},
}

// render writes everything a comparison writes.
func render(t *testing.T, c *sim.Comparison) string {
	t.Helper()
	var b bytes.Buffer
	for _, write := range []func(io.Writer) error{c.WriteTable, c.WriteSamplesCSV, c.WriteSummaryCSV, c.WriteSVG} {
		require.NoError(t, write(&b))
	}
	return b.String()
}

// Same workload, configurations and seed: the same bytes, every time; another
// seed draws other tasks and shuffles agents otherwise.
func TestCompareIsDeterministic(t *testing.T) {
	opts := sim.RunOptions{Seed: 7, Intervals: 600}
	w := sim.BurstyAndSteady()
	first, err := sim.Compare(w, threeConfigs, opts)
	require.NoError(t, err)
	second, err := sim.Compare(w, threeConfigs, opts)
	require.NoError(t, err)
	a, b := render(t, first), render(t, second)
	require.Equal(t, a, b)
	opts.Seed = 8
	other, err := sim.Compare(w, threeConfigs, opts)
	require.NoError(t, err)
	require.NotEqual(t, a, render(t, other))

	trace := traceWorkload(t)
	x, err := sim.Compare(trace, threeConfigs, sim.RunOptions{Seed: 1})
	require.NoError(t, err)
	y, err := sim.Compare(trace, threeConfigs, sim.RunOptions{Seed: 1})
	require.NoError(t, err)
	require.Equal(t, render(t, x), render(t, y))
}

func TestCompareConfigErrors(t *testing.T) {
	w := traceWorkload(t)
	for _, tc := range []struct {
		configs []sim.Config
		msg     string
	}{
		{nil, "no configuration"},
		{[]sim.Config{{Name: "a"}, {Name: "a"}}, `two configurations named "a"`},
		{[]sim.Config{{Name: "a,b"}}, `name "a,b"`},
		{[]sim.Config{{Name: "x", Options: allocator.Options{OfferShare: 2}}}, `"x"`},
	} {
		_, err := sim.Compare(w, tc.configs, sim.RunOptions{})
		require.ErrorIs(t, err, sim.ErrInvalidConfig)
		require.ErrorContains(t, err, tc.msg)
	}
}

// The table has a column per configuration and the rows in a fixed order;
// the CSV files have a line per interval and per figure; the chart is
// well-formed SVG with a line per series.
func TestCompareOutputs(t *testing.T) {
	var ticks int
	opts := sim.RunOptions{Seed: 1, Stopwatch: func() time.Duration { ticks++; return time.Duration(ticks) * time.Millisecond }}
	c, err := sim.Compare(traceWorkload(t), threeConfigs, opts)
	require.NoError(t, err)
	require.Equal(t, "4 agents (cpus:32; mem:131072); roles analytics, ml, web; 3 frameworks; 70 tasks; 0 events; until done of 1s; seed 1", c.Workload)

	var table strings.Builder
	require.NoError(t, c.WriteTable(&table))
	lines := strings.Split(table.String(), "\n")
	require.Equal(t, c.Workload, lines[0])
	require.Equal(t, "", lines[1])
	require.Regexp(t, `^\s+drf\s+usage 2m\s+drf offer share 0.5$`, lines[2])
	var labels []string
	for _, l := range lines[3:] {
		if l != "" {
			label, _, _ := strings.Cut(strings.TrimLeft(l, " "), "  ")
			labels = append(labels, label)
		}
	}
	roleRows := []string{"share", "weighted share", "tasks launched", "wait mean (s)", "wait p50 (s)", "wait p90 (s)", "wait p99 (s)", "wait max (s)"}
	want := []string{"intervals", "utilisation cpus", "utilisation mem", "jain index (contended)", "contended intervals",
		"tasks submitted", "tasks launched", "tasks finished", "tasks lost", "tasks unfinished", "offers", "offers declined",
		"allocation run mean", "allocation run max"}
	for _, role := range []string{"analytics", "ml", "web"} {
		want = append(want, "role "+role)
		want = append(want, roleRows...)
	}
	require.Equal(t, want, labels)
	require.Regexp(t, `\nallocation run mean\s+1ms\s+1ms\s+1ms\n`, table.String())
	require.Regexp(t, `\nintervals\s+248 \(done\)\s+248 \(done\)\s+248 \(done\)\n`, table.String())

	var samples bytes.Buffer
	require.NoError(t, c.WriteSamplesCSV(&samples))
	recs, err := csv.NewReader(&samples).ReadAll()
	require.NoError(t, err)
	require.Equal(t, "config,time_s,util_cpus,util_mem,share_analytics,share_ml,share_web,weighted_analytics,weighted_ml,weighted_web,pending_analytics,pending_ml,pending_web,contended,jain,running,finished,offers,declined,run_time_s", strings.Join(recs[0], ","))
	n := 0
	for _, r := range c.Results {
		n += len(r.Samples)
	}
	require.Len(t, recs, n+1)
	require.Equal(t, "drf", recs[1][0])
	require.Equal(t, "0.001", recs[1][len(recs[1])-1])

	var summary bytes.Buffer
	require.NoError(t, c.WriteSummaryCSV(&summary))
	recs, err = csv.NewReader(&summary).ReadAll()
	require.NoError(t, err)
	perConfig := 2 + 1 + 8 + 2 + 3*8 + 1
	require.Len(t, recs, 1+3*perConfig)
	require.Equal(t, []string{"drf", "utilisation", "cpus"}, recs[1][:3])
	require.Equal(t, []string{"drf", "run_time_mean_s", "", "0.001"}, recs[12])
	// The preempted count comes last, after the figures it was added to.
	require.Equal(t, []string{"drf", "preempted", "", "0"}, recs[perConfig])

	var svg bytes.Buffer
	require.NoError(t, c.WriteSVG(&svg))
	polylines := 0
	dec := xml.NewDecoder(&svg)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "polyline" {
			polylines++
		}
	}
	// utilisation: 2 resources x 3 configs; shares: 3 configs x 3 roles;
	// waits: 3 roles x 3 configs.
	require.Equal(t, 2*3+3*3+3*3, polylines)
}
