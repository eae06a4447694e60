package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
)

// The options of stated demand, reclaim and the preemption delay, in a
// configuration or for all of them by flag.
func TestPolicyOptions(t *testing.T) {
	cs, err := parseConfigs("drf,drf:demand:reclaim=guarantees:preemptdelay=3,usage:reclaim=fairshare", labConfig{halfLife: time.Minute})
	require.NoError(t, err)
	require.Equal(t, sim.Config{Name: "drf"}, cs[0].simConfig())
	second := cs[1].simConfig()
	require.True(t, second.StateDemand)
	require.Equal(t, allocator.ReclaimGuarantees, second.Options.Reclaim)
	require.Equal(t, 3, second.PreemptDelay)
	third := cs[2].simConfig()
	require.False(t, third.StateDemand)
	require.Equal(t, allocator.ReclaimFairShare, third.Options.Reclaim)

	// The flags are every configuration's, unless it says otherwise.
	cs, err = parseConfigs("drf,drf:preemptdelay=0", labConfig{stateDemand: true, preemptDelay: 2})
	require.NoError(t, err)
	require.True(t, cs[0].simConfig().StateDemand)
	require.Equal(t, 2, cs[0].simConfig().PreemptDelay)
	require.Zero(t, cs[1].simConfig().PreemptDelay)

	for _, tc := range []struct{ args []string }{
		{[]string{"-configs", "drf:reclaim=always"}},
		{[]string{"-configs", "drf:preemptdelay=-1"}},
		{[]string{"-configs", "drf:demand=yes"}},
		{[]string{"-preemptdelay", "-1"}},
	} {
		code, _, errOut := lab(tc.args...)
		require.Equal(t, exitUsage, code, "%q", tc.args)
		require.Contains(t, errOut, "Usage: lab")
	}
	_, _, errOut := lab("-configs", "drf:reclaim=always")
	require.Contains(t, errOut, `option "reclaim=always": want off, guarantees or fairshare`)
	_, _, errOut = lab("-preemptdelay", "-1")
	require.Contains(t, errOut, "-preemptdelay must be zero or more, got -1")

	// With -demand every configuration states its demand: reclaim has
	// something to make room for, and the summary counts the tasks ended.
	summary := filepath.Join(t.TempDir(), "summary.csv")
	code, out, errOut := lab("-trace", sampleTrace, "-agents", "4x cpus:8;mem:32768", "-demand", "-preemptdelay", "1",
		"-configs", "drf,drf:reclaim=fairshare", "-summary", summary)
	require.Equal(t, exitOK, code, errOut)
	preempted := row(t, out, "tasks preempted")
	require.Equal(t, "0", preempted[0])
	require.NotEqual(t, "0", preempted[1])
	sum, err := os.ReadFile(summary)
	require.NoError(t, err)
	require.Contains(t, string(sum), "\ndrf,preempted,,0\n")
	require.Contains(t, string(sum), "\ndrf:reclaim=fairshare,preempted,,"+preempted[1]+"\n")
}

// -csv streams every interval as the runs make them: the file is what the
// sim package writes of runs that keep every sample.
func TestCSVStreamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "samples.csv")
	code, _, errOut := lab("-trace", sampleTrace, "-agents", "4x cpus:8;mem:32768", "-configs", "drf,drf:demand:reclaim=fairshare", "-csv", path)
	require.Equal(t, exitOK, code, errOut)
	got, err := os.ReadFile(path)
	require.NoError(t, err)

	f, err := os.Open(sampleTrace)
	require.NoError(t, err)
	defer f.Close()
	tasks, err := sim.ReadCSV(f)
	require.NoError(t, err)
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "g1", Count: 4, Resources: "cpus:8;mem:32768"}}, Tasks: tasks}
	configs, err := parseConfigs("drf,drf:demand:reclaim=fairshare", labConfig{})
	require.NoError(t, err)
	cmp, err := sim.Compare(w, []sim.Config{configs[0].simConfig(), configs[1].simConfig()}, sim.RunOptions{Seed: 1, Interval: time.Second})
	require.NoError(t, err)
	var want bytes.Buffer
	require.NoError(t, cmp.WriteSamplesCSV(&want))
	require.Equal(t, want.String(), string(got))
	require.Equal(t, 1+248+263, strings.Count(string(got), "\n"))
}
