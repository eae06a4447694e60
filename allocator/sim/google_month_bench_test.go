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

// BenchmarkGoogleMonth reads a synthetic trace of 29 days in 500 parts
// (googleMonth, -sim.month.tasks tasks) part by part, as ReadGoogleFiles
// does, and runs its tasks with DRF on 40 agents of 32 CPUs with an
// interval of a minute, as the lab does. It samples the heap in use every
// few milliseconds and reports its peak while reading (read-peak-MB) and
// while running (run-peak-MB); the heap the tasks read hold once the
// reader is gone (tasks-MB), and what the reader holds beside them after
// the last part (reader-MB), both after a collection; the memory taken
// from the system (sys-MB); and the largest number of tasks the reader
// kept between parts, its runs under way and its tasks ended (entries).
// With -sim.month.dir the parts are kept, for the lab's peak resident
// memory on them:
//
//	go test ./allocator/sim -run XXX -bench GoogleMonth -benchtime 1x -args -sim.month.dir /tmp/month
//	go build -o /tmp/lab ./examples/lab
//	/usr/bin/time -v /tmp/lab -google '/tmp/month/part-*-of-00500.csv.gz' -agents '40x cpus:32;mem:131072' -interval 1m -configs drf
func BenchmarkGoogleMonth(b *testing.B) {
	m := googleMonth{Seed: 1, Parts: 500, Tasks: *flagMonthTasks, Days: 29}
	b.Run(fmt.Sprintf("parts=%d/tasks=%d", m.Parts, m.Tasks), func(b *testing.B) {
		dir := *flagMonthDir
		if dir == "" {
			dir = b.TempDir()
		}
		if _, err := m.write(dir); err != nil {
			b.Fatal(err)
		}
		paths, err := googleFiles(gmPattern(dir, m.Parts))
		if err != nil {
			b.Fatal(err)
		}
		w := Workload{Agents: []AgentGroup{{Name: "g1", Count: 40, Resources: "cpus:32;mem:131072"}}}
		opts := RunOptions{Seed: 1, Interval: time.Minute, MaxSamples: 1}
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
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			for _, m := range []struct {
				v    float64
				unit string
			}{
				{float64(len(w.Tasks)), "tasks"}, {float64(res.Summary.Intervals), "intervals"}, {float64(r.entries), "entries"},
				{r.time.Seconds(), "read-s"}, {run.Seconds(), "run-s"}, {mb(r.peak), "read-peak-MB"}, {mb(r.tasks), "tasks-MB"},
				{mb(r.reader), "reader-MB"}, {mb(runPeak), "run-peak-MB"}, {mb(ms.Sys), "sys-MB"},
			} {
				b.ReportMetric(m.v, m.unit)
			}
		}
	})
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
