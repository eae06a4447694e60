package sim_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
)

// gReaders makes readers of texts.
func gReaders(texts ...string) []io.Reader {
	out := make([]io.Reader, len(texts))
	for i, s := range texts {
		out[i] = strings.NewReader(s)
	}
	return out
}

// gGzip compresses text.
func gGzip(t *testing.T, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(text))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// A run submitted in one part and ended in the next is one task; read
// apart, it is an unfinished run and an orphan end.
func TestReadGoogleParts(t *testing.T) {
	part1 := gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule) + gline(1, 20, "", gSubmit, "0.5", "0.25")
	part2 := gline(0, 30, "", gFinish) + gline(0, 30, "1", gFinish) + gline(1, 40, "", gSchedule) + gline(1, 45, "", gFinish)
	tasks, stats, err := sim.ReadGoogleParts(gReaders(part1, part2), sim.GoogleOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"1-0 0s+20s cpus:16; mem:32768", "1-1 20s+5s cpus:16; mem:32768"}, gBrief(tasks))
	require.Equal(t, sim.GoogleStats{Parts: 2, Lines: 7, Tasks: 2, DuplicateEnds: 1}, stats)

	_, stats, err = sim.ReadGoogle(strings.NewReader(part2), sim.GoogleOptions{})
	require.NoError(t, err)
	require.Equal(t, sim.GoogleStats{Parts: 1, Lines: 4, Orphans: 2, DuplicateEnds: 1, Strays: 1, Start: 30 * time.Second}, stats)

	// An error names the part and its line.
	_, _, err = sim.ReadGoogleParts(gReaders(part1, part2+"50,,1,0,,9,u,0,0,,,,0\n"), sim.GoogleOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
	require.EqualError(t, err, `part 2: sim: malformed trace: line 5: event type "9": want a whole number up to 8`)
	_, _, err = sim.ReadGoogleParts(nil, sim.GoogleOptions{Memory: -1})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
}

// The sample cut in three parts, anywhere between lines, reads as the
// whole.
func TestReadGoogleSampleInParts(t *testing.T) {
	data, err := os.ReadFile("testdata/google_task_events.csv")
	require.NoError(t, err)
	whole, wholeStats, err := sim.ReadGoogle(bytes.NewReader(data), sim.GoogleOptions{})
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	require.Len(t, lines, 31) // the last empty
	for _, cut := range [][2]int{{1, 2}, {7, 20}, {15, 29}, {29, 30}} {
		parts := gReaders(strings.Join(lines[:cut[0]], ""), strings.Join(lines[cut[0]:cut[1]], ""), strings.Join(lines[cut[1]:], ""))
		tasks, stats, err := sim.ReadGoogleParts(parts, sim.GoogleOptions{})
		require.NoError(t, err)
		require.Equal(t, whole, tasks, "cut %v", cut)
		stats.Parts = 1
		require.Equal(t, wholeStats, stats, "cut %v", cut)
	}
}

// Files named by a pattern are read in the order of their names, a .gz
// through gzip.
func TestReadGoogleFiles(t *testing.T) {
	dir := t.TempDir()
	part1 := gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule)
	part2 := gline(0, 30, "", gFinish) + gline(1, 40, "", gSubmit, "0.25", "0.25")
	part3 := gline(1, 50, "", gSchedule) + gline(1, 70, "", gFinish)
	// Written last to first: the names give the order.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "part-00002-of-00003.csv"), []byte(part3), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "part-00001-of-00003.csv.gz"), gGzip(t, part2), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "part-00000-of-00003.csv.gz"), gGzip(t, part1), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a part"), 0o644))

	tasks, stats, err := sim.ReadGoogleFiles(filepath.Join(dir, "part-*-of-00003.csv*"), sim.GoogleOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"1-0 0s+20s cpus:16; mem:32768", "1-1 40s+20s cpus:8; mem:32768"}, gBrief(tasks))
	require.Equal(t, sim.GoogleStats{Parts: 3, Lines: 6, Tasks: 2}, stats)

	// A name without pattern characters is one file.
	one := filepath.Join(dir, "part-00001-of-00003.csv.gz")
	tasks, stats, err = sim.ReadGoogleFiles(one, sim.GoogleOptions{})
	require.NoError(t, err)
	require.Empty(t, tasks)
	require.Equal(t, sim.GoogleStats{Parts: 1, Lines: 2, Orphans: 1, Unfinished: 1, Start: 30 * time.Second}, stats)

	_, _, err = sim.ReadGoogleFiles(filepath.Join(dir, "part-*-of-00500.csv.gz"), sim.GoogleOptions{})
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.ErrorContains(t, err, "matches no file")
	_, _, err = sim.ReadGoogleFiles(filepath.Join(dir, "missing.csv"), sim.GoogleOptions{})
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, _, err = sim.ReadGoogleFiles(filepath.Join(dir, "part-[.csv"), sim.GoogleOptions{})
	require.ErrorIs(t, err, filepath.ErrBadPattern)
}

// A file's error names the file and the line; a .gz that is not gzip, or
// is cut short, says so.
func TestReadGoogleFilesErrors(t *testing.T) {
	dir := t.TempDir()
	good := gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule)
	bad := filepath.Join(dir, "part-00001.csv")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "part-00000.csv"), []byte(good), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte(gline(0, 20, "", gUpdateRunning)+gline(0, 30, "", gUpdateRunning)+"5000000,,1,0,,4,u,0,0,,,,0\n"), 0o644))
	_, stats, err := sim.ReadGoogleFiles(filepath.Join(dir, "part-*.csv"), sim.GoogleOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
	require.EqualError(t, err, bad+": sim: malformed trace: line 3: timestamp 5000000 goes back: task 1-0 had an event at 30000000")
	require.Equal(t, 2, stats.Parts)
	require.Equal(t, 5, stats.Lines)

	notGzip := filepath.Join(dir, "plain.csv.gz")
	require.NoError(t, os.WriteFile(notGzip, []byte(good), 0o644))
	_, _, err = sim.ReadGoogleFiles(notGzip, sim.GoogleOptions{})
	require.EqualError(t, err, notGzip+": gzip: invalid header")

	z := gGzip(t, good+gline(0, 20, "", gFinish)+gline(0, 30, "", gSubmit, "0.5", "0.25")+gline(0, 40, "", gKill))
	cut := filepath.Join(dir, "cut.csv.gz")
	require.NoError(t, os.WriteFile(cut, z[:len(z)-6], 0o644)) // the trailer's size cut off
	_, _, err = sim.ReadGoogleFiles(cut, sim.GoogleOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
	require.EqualError(t, err, cut+": sim: malformed trace: after line 5: unexpected EOF")

	// Through OpenGoogleFile, as the lab reads the machine events.
	f, err := sim.OpenGoogleFile(filepath.Join(dir, "part-00000.csv"))
	require.NoError(t, err)
	data, err := io.ReadAll(f)
	require.NoError(t, errors.Join(err, f.Close()))
	require.Equal(t, good, string(data))
}
