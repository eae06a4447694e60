package sim_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
)

// The stream of the sample trace gives ReadGoogleFiles's tasks, in its
// order, with its stats, whatever the options; and a run of the stream is
// the run of the tasks read.
func TestStreamGoogleSample(t *testing.T) {
	const sample = "testdata/google_task_events.csv"
	for _, opts := range []sim.GoogleOptions{
		{},
		{Start: 650 * time.Second, FixedStart: true},
		{Remember: time.Second},
		{Remember: -1, CPUs: 16, Memory: 65536},
	} {
		want, wantStats, err := sim.ReadGoogleFiles(sample, opts)
		require.NoError(t, err)
		got, stats := gStreamed(t, sample, opts)
		require.Equal(t, want, got)
		require.Equal(t, wantStats, stats)
	}

	tasks, _, err := sim.ReadGoogleFiles(sample, sim.GoogleOptions{})
	require.NoError(t, err)
	s, err := sim.StreamGoogleFiles(sample, sim.GoogleOptions{})
	require.NoError(t, err)
	agents := []sim.AgentGroup{{Name: "m", Count: 2, Resources: "cpus:32;mem:131072"}}
	configs := []sim.Config{{Name: "drf"}, {Name: "demand", StateDemand: true}}
	want, err := sim.Compare(sim.Workload{Agents: agents, Tasks: tasks}, configs, sim.RunOptions{Seed: 1})
	require.NoError(t, err)
	got, err := sim.Compare(sim.Workload{Agents: agents, Stream: s.Tasks}, configs, sim.RunOptions{Seed: 1})
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// The stream's errors are ReadGoogleFiles's: they name the file and the
// line, from Stats and from the stream, which ends there.
func TestStreamGoogleErrors(t *testing.T) {
	_, err := sim.StreamGoogleFiles("testdata/google_task_events.csv", sim.GoogleOptions{CPUs: -1})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
	_, err = sim.StreamGoogleFiles(filepath.Join(t.TempDir(), "part-*.csv"), sim.GoogleOptions{})
	require.ErrorIs(t, err, os.ErrNotExist)

	path := filepath.Join(t.TempDir(), "part.csv")
	text := gline(0, 0, "", gSubmit, "0.5") + gline(0, 10, "", gSchedule) + gline(0, 5, "", gFinish)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	_, _, want := sim.ReadGoogleFiles(path, sim.GoogleOptions{})
	require.Error(t, want)
	s, err := sim.StreamGoogleFiles(path, sim.GoogleOptions{})
	require.NoError(t, err)
	_, err = s.Stats()
	require.Equal(t, want, err)
	n := 0
	for _, err := range s.Tasks() {
		require.Equal(t, want, err)
		n++
	}
	require.Equal(t, 1, n)
	_, err = sim.Run(sim.Workload{Agents: []sim.AgentGroup{{Name: "m", Count: 1, Resources: "cpus:1"}}, Stream: s.Tasks}, sim.Config{Name: "drf"}, sim.RunOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
	require.ErrorContains(t, err, path+": sim: malformed trace: line 3: timestamp")
}
