package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/sim"
)

// defaultAgents is the cluster of a trace without -agents.
var defaultAgents = sim.AgentGroup{Name: "g1", Count: 10, Resources: "cpus:32;mem:131072"}

// chartSamples bounds the samples a configuration keeps for -svg: the
// chart draws means over at most 400 buckets of them.
const chartSamples = 4096

// run loads the workload, compares the configurations, prints the table
// and writes the files asked for. The intervals go to the -csv file as the
// runs make them, and each run keeps only the samples the chart needs
// (none without -svg), so that a run of any length holds a bounded
// number of them.
func run(w io.Writer, cfg config) error {
	work, opts, late, err := workload(w, cfg)
	if err != nil {
		return err
	}
	configs := make([]sim.Config, len(cfg.configs))
	for i, c := range cfg.configs {
		configs[i] = c.simConfig()
	}
	opts.MaxSamples = 1
	if cfg.svgPath != "" {
		opts.MaxSamples = chartSamples
	}
	var samples *os.File
	if cfg.csvPath != "" {
		if samples, err = os.Create(cfg.csvPath); err != nil {
			return err
		}
		opts.SamplesCSV = samples
	}
	cmp, err := sim.Compare(work, configs, opts)
	if samples != nil {
		if cerr := samples.Close(); err == nil {
			err = cerr
		}
	}
	if late != nil {
		if werr := late.warn(w); err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	if err := cmp.WriteTable(w); err != nil {
		return err
	}
	if samples != nil {
		fmt.Fprintf(w, "intervals written to %s\n", cfg.csvPath)
	}
	outputs := []struct {
		path, what string
		write      func(io.Writer) error
	}{
		{cfg.summary, "summary", cmp.WriteSummaryCSV},
		{cfg.svgPath, "chart", cmp.WriteSVG},
	}
	for _, out := range outputs {
		if out.path == "" {
			continue
		}
		if err := writeFile(out.path, out.write); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s written to %s\n", out.what, out.path)
	}
	return nil
}

// workload returns the workload and run options the command line asks
// for, and for a stream of tasks the count of those submitted too late,
// whose warning is written once the runs have read the stream.
func workload(w io.Writer, cfg config) (sim.Workload, sim.RunOptions, *lateStream, error) {
	opts := sim.RunOptions{Seed: cfg.seed, Interval: cfg.interval, Intervals: cfg.intervals}
	if cfg.timed {
		start := time.Now() // the command's clock: the sim package reads none
		opts.Stopwatch = func() time.Duration { return time.Since(start) }
	}
	if cfg.trace == "" && cfg.google == "" {
		if opts.Intervals == 0 {
			opts.Intervals = sim.BurstyIntervals
		}
		return sim.BurstyAndSteady(), opts, nil, nil
	}
	agents := []sim.AgentGroup(cfg.agents)
	if len(agents) == 0 {
		agents = []sim.AgentGroup{defaultAgents}
	}
	work := sim.Workload{Agents: agents}
	var err error
	if cfg.google != "" {
		err = readGoogle(w, cfg, &work)
	} else {
		work.Tasks, err = readTrace(cfg)
	}
	if err != nil {
		return sim.Workload{}, opts, nil, err
	}
	if work.Stream == nil {
		warnLate(w, work.Tasks, opts, false)
		return work, opts, nil, nil
	}
	late := &lateStream{stream: work.Stream}
	if last, ok := lastInterval(opts); ok {
		late.last = last
	} else {
		late.last = time.Duration(math.MaxInt64) // none is late
	}
	work.Stream = late.tasks
	return work, opts, late, nil
}

// readTrace reads the -trace file (gzipped if its name ends in .gz).
func readTrace(cfg config) ([]sim.Task, error) {
	path := cfg.trace
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	tasks, err := sim.ReadCSV(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tasks, nil
}

// writeFile writes a file with write, and says if closing it failed.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
