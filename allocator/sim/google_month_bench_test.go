package sim

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"
)

var (
	flagMonthTasks = flag.Int("sim.month.tasks", 300_000, "tasks of BenchmarkGoogleMonth's synthetic trace")
	flagMonthDir   = flag.String("sim.month.dir", "", "directory BenchmarkGoogleMonth writes its trace's parts to and keeps them in (default: a temporary one)")
)

// BenchmarkGoogleMonth runs a synthetic trace of 29 days in 500 parts
// (googleMonth, -sim.month.tasks tasks) with DRF on 40 agents of 32 CPUs
// with an interval of a minute, as the lab does, two ways. read=all reads
// the parts as ReadGoogleFiles does, then runs the tasks read: it reports
// the peak of the heap in use while reading (read-peak-MB) and while
// running (run-peak-MB), sampled every few milliseconds; the heap the
// tasks read hold once the reader is gone (tasks-MB), and what the reader
// holds beside them after the last part (reader-MB), both after a
// collection; and the largest number of tasks the reader kept between
// parts, its runs under way and its tasks ended (entries). read=stream
// makes StreamGoogleFiles's first reading (read-peak-MB, and the tasks of
// the long runs it keeps, long), then runs the stream, which the run
// reads as its clock goes (run-peak-MB, and the most tasks the reading
// held, made and not yet given: entries). Both report the memory taken
// from the system (sys-MB), which a run of read=all alone sets. With
// -sim.month.dir the parts are kept, for the lab's peak resident memory
// on them:
//
//	go test ./allocator/sim -run XXX -bench GoogleMonth -benchtime 1x -args -sim.month.dir /tmp/month
//	go build -o /tmp/lab ./examples/lab
//	/usr/bin/time -v /tmp/lab -google '/tmp/month/part-*-of-00500.csv.gz' -agents '40x cpus:32;mem:131072' -interval 1m -configs drf
func BenchmarkGoogleMonth(b *testing.B) {
	m := googleMonth{Seed: 1, Parts: 500, Tasks: *flagMonthTasks, Days: 29}
	dir := *flagMonthDir
	if dir == "" {
		dir = b.TempDir()
	}
	var paths []string
	w := Workload{Agents: []AgentGroup{{Name: "g1", Count: 40, Resources: "cpus:32;mem:131072"}}}
	opts := RunOptions{Seed: 1, Interval: time.Minute, MaxSamples: 1}
	prepare := func(b *testing.B) {
		if paths != nil {
			return
		}
		if _, err := m.write(dir); err != nil {
			b.Fatal(err)
		}
		var err error
		if paths, err = googleFiles(gmPattern(dir, m.Parts)); err != nil {
			b.Fatal(err)
		}
	}
	report := func(b *testing.B, metrics ...monthMetric) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		for _, m := range append(metrics, monthMetric{mb(ms.Sys), "sys-MB"}) {
			b.ReportMetric(m.v, m.unit)
		}
	}
	b.Run(fmt.Sprintf("parts=%d/tasks=%d/read=all", m.Parts, m.Tasks), func(b *testing.B) {
		prepare(b)
		for b.Loop() {
			w.Tasks = nil
			runtime.GC()
			var r monthRead
			w.Tasks, r = readMonth(b, paths)
			peak := sampleHeap()
			start := time.Now()
			res, err := Run(w, Config{Name: "drf"}, opts)
			if err != nil {
				b.Fatal(err)
			}
			run, runPeak := time.Since(start), peak()
			report(b, monthMetric{float64(len(w.Tasks)), "tasks"}, monthMetric{float64(res.Summary.Intervals), "intervals"},
				monthMetric{float64(r.entries), "entries"}, monthMetric{r.time.Seconds(), "read-s"}, monthMetric{run.Seconds(), "run-s"},
				monthMetric{mb(r.peak), "read-peak-MB"}, monthMetric{mb(r.tasks), "tasks-MB"}, monthMetric{mb(r.reader), "reader-MB"},
				monthMetric{mb(runPeak), "run-peak-MB"})
		}
		w.Tasks = nil
	})
	b.Run(fmt.Sprintf("parts=%d/tasks=%d/read=stream", m.Parts, m.Tasks), func(b *testing.B) {
		prepare(b)
		for b.Loop() {
			runtime.GC()
			peak := sampleHeap()
			start := time.Now()
			s, err := StreamGoogleFiles(gmPattern(dir, m.Parts), GoogleOptions{})
			if err != nil {
				b.Fatal(err)
			}
			stats, err := s.Stats()
			if err != nil {
				b.Fatal(err)
			}
			read, readPeak := time.Since(start), peak()
			runtime.GC()
			peak = sampleHeap()
			start = time.Now()
			res, err := Run(Workload{Agents: w.Agents, Stream: s.Tasks}, Config{Name: "drf"}, opts)
			if err != nil {
				b.Fatal(err)
			}
			run, runPeak := time.Since(start), peak()
			report(b, monthMetric{float64(stats.Tasks), "tasks"}, monthMetric{float64(res.Summary.Intervals), "intervals"},
				monthMetric{float64(s.held), "entries"}, monthMetric{float64(len(s.plan.long)), "long"},
				monthMetric{read.Seconds(), "read-s"}, monthMetric{run.Seconds(), "run-s"},
				monthMetric{mb(readPeak), "read-peak-MB"}, monthMetric{mb(runPeak), "run-peak-MB"})
		}
	})
}

// monthMetric is a figure BenchmarkGoogleMonth reports.
type monthMetric struct {
	v    float64
	unit string
}

// monthRead is what readMonth measured.
type monthRead struct {
	time                time.Duration
	peak, tasks, reader uint64
	entries             int
}

// readMonth reads the parts, as ReadGoogleFiles does, and measures.
func readMonth(b *testing.B, paths []string) ([]Task, monthRead) {
	var r monthRead
	peak := sampleHeap()
	start := time.Now()
	g, err := newGoogleReader(GoogleOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range paths {
		if err := g.readFile(path); err != nil {
			b.Fatal(err)
		}
		r.entries = max(r.entries, len(g.runs)+len(g.ended))
	}
	r.time, r.peak = time.Since(start), peak()
	runtime.GC()
	held := heapInUse()
	tasks := g.finish() // and the reader is gone
	runtime.GC()
	r.tasks = heapInUse()
	r.reader = held - min(held, r.tasks)
	return tasks, r
}

func mb(n uint64) float64 { return float64(n) / (1 << 20) }

func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// sampleHeap samples the heap in use every 5 ms until the function it
// returns is called, which returns the largest sample.
func sampleHeap() func() uint64 {
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		peak := heapInUse()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				peak = max(peak, heapInUse())
			case <-stop:
				done <- max(peak, heapInUse())
				return
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}
