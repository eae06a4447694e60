package sim

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// streamGoogle reads a stream of the parts with a window of the lines.
func streamGoogle(t *testing.T, pattern string, opts GoogleOptions, window int) ([]Task, GoogleStats, *GoogleStream) {
	t.Helper()
	s, err := StreamGoogleFiles(pattern, opts)
	require.NoError(t, err)
	s.window = window
	stats, err := s.Stats()
	require.NoError(t, err)
	var tasks []Task
	for task, err := range s.Tasks() {
		require.NoError(t, err)
		tasks = append(tasks, task)
	}
	return tasks, stats, s
}

// On a synthetic month in parts, the stream gives ReadGoogleFiles's tasks
// and stats whatever its window: every run under way longer than a
// window of one line, or none, and with tasks forgotten and numbered
// anew. With a window of a few thousand lines it holds a fraction of the
// tasks at once.
func TestStreamGoogleMonth(t *testing.T) {
	m := googleMonth{Seed: 3, Parts: 29, Tasks: 3000, Days: 29}
	dir := t.TempDir()
	_, err := m.write(dir)
	require.NoError(t, err)
	pattern := gmPattern(dir, m.Parts)
	for _, opts := range []GoogleOptions{
		{},
		{Remember: time.Minute}, // resubmissions come after a minute: numbered anew
		{Start: 5 * 24 * time.Hour, FixedStart: true, Remember: 2 * time.Minute},
	} {
		want, wantStats, err := ReadGoogleFiles(pattern, opts)
		require.NoError(t, err)
		if opts.Remember == time.Minute {
			require.Positive(t, wantStats.Renumbered)
		}
		for _, window := range []int{0, 1, 7, 300, googleStreamWindow} {
			got, stats, _ := streamGoogle(t, pattern, opts, window)
			require.Equal(t, wantStats, stats, "window %d", window)
			require.Equal(t, len(want), len(got), "window %d", window)
			require.Equal(t, want, got, "window %d", window)
		}
	}
	_, _, s := streamGoogle(t, pattern, GoogleOptions{}, 600)
	require.Less(t, s.held, 3352/10, "tasks held at once")
	require.Less(t, len(s.plan.long), 3352/10, "tasks of long runs")
	_, _, s = streamGoogle(t, pattern, GoogleOptions{}, googleStreamWindow)
	require.Empty(t, s.plan.long, "no run is longer than the window")
	require.Nil(t, s.plan.renumbered, "tasks are forgotten, none is submitted anew: no reading to renumber")
}

// The filter of forgotten tasks never misses a key added, and takes one
// not added for one added a few times in a thousand, in about two bytes a
// key.
func TestKeyFilter(t *testing.T) {
	var f keyFilter
	const n = 100_000
	for i := range uint64(n) {
		f.add([2]uint64{6_000_000_000 + i/10, i % 10})
	}
	for i := range uint64(n) {
		require.True(t, f.has([2]uint64{6_000_000_000 + i/10, i % 10}))
	}
	wrong := 0
	for i := range uint64(n) {
		if f.has([2]uint64{7_000_000_000 + i/10, i % 10}) {
			wrong++
		}
	}
	require.Less(t, wrong, n/250)
	bytes := 0
	for _, p := range f.parts {
		bytes += 8 * len(p.bits)
	}
	require.Less(t, bytes, 4*n)
}

// A table out of time order, runs of different tasks interleaved so that
// submissions come before ones read earlier, streams as it reads.
func TestStreamGoogleOutOfOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	type rec struct {
		key  float64 // the line's place
		line string
	}
	var recs []rec
	for i := range 400 {
		submit := int64(rng.IntN(5000))
		start := submit + int64(rng.IntN(30))
		end := start + 1 + int64(rng.IntN(2000))
		kinds := []int{gSubmit, gSchedule, gFinish}
		if rng.IntN(8) == 0 {
			kinds = kinds[:2] // under way at the end
		}
		place := rng.Float64() * 1000
		for k, kind := range kinds {
			at := []int64{submit, start, end}[k]
			place += rng.Float64() * 200 // after the task's record before
			recs = append(recs, rec{place, fmt.Sprintf("%d,,%d,%d,,%d,u%d,0,0,0.25,0.125,,0\n", at*1_000_000, 1+i%7, i, kind, i%5)})
		}
	}
	slices.SortStableFunc(recs, func(a, b rec) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	dir := t.TempDir()
	for p := range 3 {
		var b strings.Builder
		for _, r := range recs[p*len(recs)/3 : (p+1)*len(recs)/3] {
			b.WriteString(r.line)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", p)), []byte(b.String()), 0o644))
	}
	pattern := filepath.Join(dir, "part-*.csv")
	want, wantStats, err := ReadGoogleFiles(pattern, GoogleOptions{})
	require.NoError(t, err)
	require.Greater(t, len(want), 300)
	for _, window := range []int{0, 3, 50, googleStreamWindow} {
		got, stats, s := streamGoogle(t, pattern, GoogleOptions{}, window)
		require.Greater(t, len(s.plan.descents), 100)
		require.Equal(t, wantStats, stats)
		require.Equal(t, want, got, "window %d", window)
	}
}

// Whatever the records, the stream gives what ReadGoogleFiles gives (the
// same tasks in the same order, the same stats) with any window, or an
// error where it gives one; never a panic.
func FuzzStreamGoogle(f *testing.F) {
	if data, err := os.ReadFile("testdata/google_task_events.csv"); err == nil {
		lines := strings.SplitAfter(string(data), "\n")
		f.Add(strings.Join(lines[:min(len(lines), 40)], ""), uint8(3))
	}
	f.Add("0,,1,0,,0,u,0,0,0.5,0.5,0,0\n5,,1,0,,1,u,0,0,,,,\n9,,1,0,,4,u,0,0,,,,\n", uint8(0))
	f.Add("0,,1,0,,0,u,0,0,1,1,1,1\n0,,1,0,,1,u,0,0,,,,\n0,,1,0,,3,u,0,0,,,,\n0,,1,0,,0,u,0,0,,,,\n", uint8(1))
	f.Add("9,,1,0,,0,u,0,0,1,1,1,1\n3,,2,0,,0,u,0,0,1,1,1,1\n12,,2,0,,1,u,0,0,,,,\n20,,2,0,,4,u,0,0,,,,\n", uint8(2))
	f.Fuzz(func(t *testing.T, text string, window uint8) {
		path := filepath.Join(t.TempDir(), "part-00000-of-00001.csv")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		want, wantStats, wantErr := ReadGoogleFiles(path, GoogleOptions{})
		s, err := StreamGoogleFiles(path, GoogleOptions{})
		require.NoError(t, err)
		s.window = int(window % 16)
		stats, err := s.Stats()
		if wantErr != nil {
			require.Error(t, err, "ReadGoogleFiles: %v", wantErr)
			require.ErrorIs(t, err, ErrInvalidTrace)
			return
		}
		require.NoError(t, err)
		require.Equal(t, wantStats, stats)
		var got []Task
		for task, err := range s.Tasks() {
			require.NoError(t, err)
			got = append(got, task)
		}
		require.Equal(t, len(want), len(got))
		require.Equal(t, want, got)
	})
}
