package sim

import (
	"bufio"
	"compress/gzip"
	"container/heap"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// googleMonth is a synthetic task-events table of the Google trace's
// shape, drawn from a seed: jobs of several tasks arriving as a Poisson
// process over Days, each run of a task submitted, scheduled and ended,
// written in time order over Parts files part-NNNNN-of-MMMMM.csv.gz. It
// holds the records the reader has rules for: runs ended by FINISH (with a
// repeated FINISH with missing info now and then), EVICT, FAIL, KILL or
// LOST, and submitted again after an EVICT, FAIL or LOST; repeated SUBMITs,
// UPDATE_RUNNINGs, runs killed before they were scheduled, and runs under
// way when the trace ends, which have no end.
type googleMonth struct {
	Seed  uint64
	Parts int
	Tasks int // tasks (job and index), each one run or more
	Days  int
}

// googleMonth's shape: tasks a job, users, the mean wait before a run is
// scheduled, its mean duration and the mean delay before a run ended by
// an EVICT, FAIL or LOST is submitted again.
const (
	gmTasksPerJob = 10
	gmUsers       = 20
	gmWait        = 20 * time.Second
	gmDuration    = time.Hour
	gmResubmit    = time.Minute
	gmWindowOpens = 600 * time.Second // timestamps count from 600 s before the trace window
)

// gmRecord is one line of the table, due at at; seq orders lines of one
// instant in the order they were drawn.
type gmRecord struct {
	at   time.Duration
	seq  int
	line string
}

type gmQueue []gmRecord

func (q gmQueue) Len() int { return len(q) }
func (q gmQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q gmQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *gmQueue) Push(x any)   { *q = append(*q, x.(gmRecord)) }
func (q *gmQueue) Pop() any {
	old := *q
	r := old[len(old)-1]
	*q = old[:len(old)-1]
	return r
}

// gmWriter writes records into the part their time falls in, holding the
// records of jobs under way in a queue: a job's records all come at or
// after its arrival, so those before the next arrival can be written.
type gmWriter struct {
	dir      string
	m        googleMonth
	span     time.Duration // of a part
	end      time.Duration // of the trace: records after it are not written
	queue    gmQueue
	seq      int
	part     int // open, or -1
	f        *os.File
	zw       *gzip.Writer
	bw       *bufio.Writer
	lines    int
	firstErr error
}

// write writes the table into dir and returns the lines written.
func (m googleMonth) write(dir string) (int, error) {
	if m.Parts < 1 || m.Tasks < 1 || m.Days < 1 {
		return 0, fmt.Errorf("google month: parts %d, tasks %d, days %d: want each at least 1", m.Parts, m.Tasks, m.Days)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	total := time.Duration(m.Days) * 24 * time.Hour
	w := &gmWriter{dir: dir, m: m, span: total / time.Duration(m.Parts), end: gmWindowOpens + total, part: -1}
	rng := rand.New(rand.NewPCG(m.Seed, 0x600913))
	jobs := (m.Tasks + gmTasksPerJob - 1) / gmTasksPerJob
	gap := float64(total) / float64(jobs)
	at := gmWindowOpens
	for j, left := 0, m.Tasks; left > 0; j++ {
		at += time.Duration(rng.ExpFloat64() * gap)
		w.flush(at)
		n := min(left, 1+rng.IntN(2*gmTasksPerJob-1)) // a mean of gmTasksPerJob
		w.job(rng, 6_000_000_000+uint64(j), at, n)
		left -= n
	}
	w.flush(w.end)
	for p := w.part + 1; p < m.Parts; p++ { // the parts left empty
		w.open(p)
	}
	w.close()
	return w.lines, w.firstErr
}

// job draws the runs of a job's n tasks, submitted at at.
func (w *gmWriter) job(rng *rand.Rand, job uint64, at time.Duration, n int) {
	user := fmt.Sprintf("user%02d+/=", rng.IntN(gmUsers))
	class, prio := rng.IntN(4), rng.IntN(12)
	constraint := 0
	if rng.IntN(10) == 0 {
		constraint = 1
	}
	requests := []string{"0.03125", "0.0625", "0.125"}
	for i := range n {
		cpu, mem := requests[rng.IntN(3)], requests[rng.IntN(3)]
		rec := func(at time.Duration, missing string, kind int, cpu, mem string) {
			w.add(at, fmt.Sprintf("%d,%s,%d,%d,,%d,%s,%d,%d,%s,%s,0.001,%d", at/time.Microsecond, missing, job, i, kind, user, class, prio, cpu, mem, constraint))
		}
		submit := at
		for run := 0; run < 4; run++ {
			rec(submit, "", gSubmit, cpu, mem)
			if rng.IntN(50) == 0 {
				rec(submit+time.Second, "2", gSubmit, "", "")
			}
			if rng.IntN(50) == 0 { // killed before it ran
				rec(submit+gmDraw(rng, gmWait), "", gKill, "", "")
				break
			}
			start := submit + gmDraw(rng, gmWait)
			rec(start, "", gSchedule, cpu, mem)
			d := max(gmDraw(rng, gmDuration), time.Second)
			if rng.IntN(20) == 0 {
				rec(start+d/2, "", gUpdateRunning, requests[rng.IntN(3)], "")
			}
			end, kind := start+d, gFinish
			if rng.IntN(5) == 0 {
				kind = []int{gEvict, gFail, gKill, gLost}[rng.IntN(4)]
			}
			rec(end, "", kind, "", "")
			if kind == gFinish && rng.IntN(10) == 0 {
				rec(end, "1", gFinish, "", "")
			}
			if kind == gKill || kind == gFinish || rng.IntN(10) == 0 {
				break
			}
			submit = end + gmDraw(rng, gmResubmit)
		}
	}
}

// gmDraw draws an exponential time of the mean.
func gmDraw(rng *rand.Rand, mean time.Duration) time.Duration {
	return time.Duration(rng.ExpFloat64() * float64(mean))
}

// add queues a record; those after the trace are dropped, leaving their
// runs without an end.
func (w *gmWriter) add(at time.Duration, line string) {
	if at >= w.end {
		return
	}
	heap.Push(&w.queue, gmRecord{at: at, seq: w.seq, line: line})
	w.seq++
}

// flush writes the records due before at, each into its part.
func (w *gmWriter) flush(at time.Duration) {
	for len(w.queue) > 0 && w.queue[0].at < at {
		r := heap.Pop(&w.queue).(gmRecord)
		p := min(int((r.at-gmWindowOpens)/w.span), w.m.Parts-1)
		for w.part < p {
			w.open(w.part + 1)
		}
		w.bw.WriteString(r.line)
		w.bw.WriteByte('\n')
		w.lines++
	}
}

// open closes the part being written and starts part p.
func (w *gmWriter) open(p int) {
	w.close()
	w.part = p
	f, err := os.Create(filepath.Join(w.dir, fmt.Sprintf("part-%05d-of-%05d.csv.gz", p, w.m.Parts)))
	if err != nil {
		w.fail(err)
		w.bw = bufio.NewWriter(io.Discard) // the error is kept; the rest goes nowhere
		return
	}
	w.f, w.zw = f, gzip.NewWriter(f)
	w.bw = bufio.NewWriter(w.zw)
}

// close closes the part being written, if any.
func (w *gmWriter) close() {
	if w.f == nil {
		return
	}
	w.fail(w.bw.Flush())
	w.fail(w.zw.Close())
	w.fail(w.f.Close())
	w.f = nil
}

func (w *gmWriter) fail(err error) {
	if err != nil && w.firstErr == nil {
		w.firstErr = err
	}
}

// gmPattern is the glob of a googleMonth's parts in dir.
func gmPattern(dir string, parts int) string {
	return filepath.Join(dir, "part-*-of-"+fmt.Sprintf("%05d", parts)+".csv.gz")
}

// The generator writes the same parts for the same seed, each of its
// records read by the reader's rules, with runs that span parts; its
// repeats and resubmissions come within minutes, so that forgetting
// after a day changes nothing.
func TestGoogleMonth(t *testing.T) {
	m := googleMonth{Seed: 7, Parts: 29, Tasks: 3000, Days: 29}
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		lines, err := m.write(dir)
		require.NoError(t, err)
		require.Equal(t, 10722, lines)
	}
	paths, err := googleFiles(gmPattern(dirs[0], m.Parts))
	require.NoError(t, err)
	require.Len(t, paths, m.Parts)
	for _, path := range paths {
		a, err := os.ReadFile(path)
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], filepath.Base(path)))
		require.NoError(t, err)
		require.Equal(t, a, b, "%s differs", filepath.Base(path))
	}

	tasks, stats, err := ReadGoogleFiles(gmPattern(dirs[0], m.Parts), GoogleOptions{})
	require.NoError(t, err)
	require.Equal(t, GoogleStats{Parts: 29, Lines: 10722, Tasks: 3352, Start: 3354081774 * time.Microsecond, NeverRan: 78, DuplicateSubmits: 63, DuplicateEnds: 268}, stats)
	exact, exactStats, err := ReadGoogleFiles(gmPattern(dirs[0], m.Parts), GoogleOptions{Remember: -1})
	require.NoError(t, err)
	require.Equal(t, exact, tasks)
	require.Equal(t, exactStats, stats)

	_, alone, err := ReadGoogleFiles(paths[1], GoogleOptions{})
	require.NoError(t, err)
	require.Positive(t, alone.Orphans, "runs submitted in the first part end in the second")

	_, err = googleMonth{Seed: 7, Parts: 0, Tasks: 1, Days: 1}.write(t.TempDir())
	require.EqualError(t, err, "google month: parts 0, tasks 1, days 1: want each at least 1")
}
