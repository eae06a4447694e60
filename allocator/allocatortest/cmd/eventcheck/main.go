package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leanovate/gopter"

	"github.com/allot-go/allot/allocator/allocatortest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, allocatortest.Configs(), time.Now))
}

// command is the path that runs eventcheck, in the replay lines it prints.
const command = "go run ./allocator/allocatortest/cmd/eventcheck"

// flags are eventcheck's settings.
type flags struct {
	sequences int64
	duration  time.Duration
	workers   int
	seed      int64
	config    string
	events    int
	every     int
	progress  time.Duration
	gc        int
	sequence  int64
	replay    string
	profile   string
}

// run is eventcheck with its arguments, outputs, configurations and the
// clock its progress lines read (main passes the system clock).
func run(args []string, stdout, stderr io.Writer, configs []allocatortest.Config, clock func() time.Time) int {
	var f flags
	fs := flag.NewFlagSet("eventcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Int64Var(&f.sequences, "sequences", 1000000, "sequences to run")
	fs.DurationVar(&f.duration, "duration", 0, "stop after this long (0: no limit)")
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "sequences run at once")
	fs.Int64Var(&f.seed, "seed", 1, "the run's seed: sequence i is generated from it and i")
	fs.StringVar(&f.config, "config", "", "run one configuration only (default: all, in turn)")
	fs.IntVar(&f.events, "events", 80, "most events in a sequence")
	fs.IntVar(&f.every, "every", allocatortest.DefaultFullCheckEvery, "steps between two whole-state checks")
	fs.DurationVar(&f.progress, "progress", 10*time.Second, "time between progress lines; 0 prints none")
	fs.IntVar(&f.gc, "gc", 800, "the garbage collector's GOGC")
	fs.Int64Var(&f.sequence, "sequence", -1, "run only this sequence of the seed, checking everything, and print its log")
	fs.StringVar(&f.replay, "replay", "", "run this sequence text (or @file), checking everything, and print its log")
	fs.StringVar(&f.profile, "cpuprofile", "", "write a CPU profile of the run to this file")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eventcheck [flags]\n\nRuns the allocator's random-event properties on every core; see go doc ./allocator/allocatortest/cmd/eventcheck.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "eventcheck: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	}
	if f.config != "" {
		var only []allocatortest.Config
		var names []string
		for _, c := range configs {
			names = append(names, c.Name)
			if c.Name == f.config {
				only = append(only, c)
			}
		}
		if len(only) == 0 {
			fmt.Fprintf(stderr, "eventcheck: no configuration %q; there are %q\n", f.config, names)
			return 2
		}
		configs = only
	}
	if f.events < 1 || f.workers < 1 || f.every < 1 || f.sequences < 0 {
		fmt.Fprintf(stderr, "eventcheck: -events, -workers and -every must be positive, -sequences not negative\n")
		return 2
	}
	switch {
	case f.replay != "":
		text := f.replay
		if name, ok := strings.CutPrefix(text, "@"); ok {
			data, err := os.ReadFile(name)
			if err != nil {
				fmt.Fprintf(stderr, "eventcheck: %v\n", err)
				return 2
			}
			text = string(data)
		}
		s, err := allocatortest.ParseSequence(text)
		if err != nil {
			fmt.Fprintf(stderr, "eventcheck: %v\n", err)
			return 2
		}
		return replay(stdout, configs[0], s)
	case f.sequence >= 0:
		c, s := newGenerator(configs, f.seed, f.events).at(f.sequence)
		fmt.Fprintf(stdout, "sequence %d of seed %d, configuration %q:\n%s\n", f.sequence, f.seed, c.Name, s)
		return replay(stdout, c, s)
	}
	debug.SetGCPercent(f.gc)
	if f.profile != "" {
		out, err := os.Create(f.profile)
		if err != nil {
			fmt.Fprintf(stderr, "eventcheck: %v\n", err)
			return 2
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			fmt.Fprintf(stderr, "eventcheck: %v\n", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	return longRun(f, stdout, stderr, configs, clock)
}

// replay runs s on c with every check after every step, prints the log and
// the violation, if any, and returns the exit code.
func replay(out io.Writer, c allocatortest.Config, s allocatortest.Sequence) int {
	opts := c.Options
	opts.Allocator.Seed = s.Seed
	h, err := allocatortest.New(opts)
	if err != nil {
		fmt.Fprintf(out, "eventcheck: %v\n", err)
		return 2
	}
	err = h.Run(s.Events)
	if err == nil {
		err = h.Verify()
	}
	fmt.Fprint(out, h.Log())
	if err != nil {
		fmt.Fprintf(out, "violation (configuration %q):\n%v\n", c.Name, err)
		return 1
	}
	fmt.Fprintf(out, "no violation in %d events (configuration %q)\n", len(s.Events), c.Name)
	return 0
}

// generator makes sequence i of a run from the run's seed and i alone.
type generator struct {
	configs []allocatortest.Config
	seed    int64
	gens    []gopter.Gen
	params  *gopter.GenParameters
}

func newGenerator(configs []allocatortest.Config, seed int64, events int) *generator {
	g := &generator{configs: configs, seed: seed, params: gopter.DefaultGenParameters()}
	for _, c := range configs {
		g.gens = append(g.gens, allocatortest.GenSequence(c.Mix, events))
	}
	return g
}

// at returns sequence i and the configuration it runs on: the
// configurations are taken in turn.
func (g *generator) at(i int64) (allocatortest.Config, allocatortest.Sequence) {
	k := int(i % int64(len(g.configs)))
	g.params.Rng.Seed(mix(g.seed, i))
	v, _ := g.gens[k](g.params).Retrieve()
	return g.configs[k], v.(allocatortest.Sequence)
}

// mix makes a generator seed of the run's seed and a sequence's index
// (splitmix64's finaliser).
func mix(seed, i int64) int64 {
	z := uint64(seed)*0x9e3779b97f4a7c15 + uint64(i)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return int64(z ^ z>>31)
}

// found is a sequence that broke a property.
type found struct {
	index int64
	err   error
}

func longRun(f flags, stdout, stderr io.Writer, configs []allocatortest.Config, clock func() time.Time) int {
	var (
		next, done, events atomic.Int64
		stop               atomic.Bool
		mu                 sync.Mutex
		violations         []found
		wg                 sync.WaitGroup
	)
	start := clock()
	for range f.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := newGenerator(configs, f.seed, f.events)
			for !stop.Load() {
				i := next.Add(1) - 1
				if i >= f.sequences {
					return
				}
				c, s := g.at(i)
				opts := c.Options
				opts.Fast = true
				opts.FullCheckEvery = f.every
				err := allocatortest.RunSequence(opts, s)
				done.Add(1)
				events.Add(int64(len(s.Events)))
				if err != nil {
					mu.Lock()
					violations = append(violations, found{i, err})
					mu.Unlock()
					stop.Store(true)
					return
				}
			}
		}()
	}
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	var deadline <-chan time.Time
	if f.duration > 0 {
		timer := time.NewTimer(f.duration)
		defer timer.Stop()
		deadline = timer.C
	}
	var tick <-chan time.Time
	if f.progress > 0 {
		ticker := time.NewTicker(f.progress)
		defer ticker.Stop()
		tick = ticker.C
	}
	progress := func(w io.Writer) {
		d, n, elapsed := done.Load(), events.Load(), clock().Sub(start)
		mu.Lock()
		v := len(violations)
		mu.Unlock()
		line := fmt.Sprintf("eventcheck: %d of %d sequences (%.1f%%), %d events, %.0f events/s, %.0f sequences/s, %d violations, %s",
			d, f.sequences, 100*float64(d)/float64(max(f.sequences, 1)), n, float64(n)/elapsed.Seconds(), float64(d)/elapsed.Seconds(), v, elapsed.Round(time.Second))
		if d > 0 && d < f.sequences {
			left := time.Duration(float64(elapsed) * float64(f.sequences-d) / float64(d))
			line += fmt.Sprintf(", about %s left", left.Round(time.Second))
		}
		fmt.Fprintln(w, line)
	}
wait:
	for {
		select {
		case <-finished:
			break wait
		case <-deadline:
			stop.Store(true)
		case <-tick:
			progress(stderr)
		}
	}
	progress(stdout)
	if len(violations) == 0 {
		return 0
	}
	report(stdout, f, configs, violations)
	return 1
}

// report prints the violation of the first sequence among those found,
// shrunk, with the lines that replay it.
func report(stdout io.Writer, f flags, configs []allocatortest.Config, violations []found) {
	first := violations[0]
	for _, v := range violations[1:] {
		if v.index < first.index {
			first = v
		}
	}
	g := newGenerator(configs, f.seed, f.events)
	c, s := g.at(first.index)
	fmt.Fprintf(stdout, "\nviolation in sequence %d of seed %d (configuration %q):\n%v\n", first.index, f.seed, c.Name, first.err)
	opts := c.Options
	opts.FullCheckEvery = f.every
	shrunk := allocatortest.Shrink(opts, s, 20000)
	opts.Allocator.Seed = shrunk.Seed
	opts.Fast = true
	if err := allocatortest.RunSequence(opts, shrunk); err != nil && len(shrunk.Events) < len(s.Events) {
		fmt.Fprintf(stdout, "\nshrunk from %d to %d events:\n%v\n", len(s.Events), len(shrunk.Events), err)
	}
	fmt.Fprintf(stdout, "\nsequence:\n%s\nreplay with:\n  %s -config %s -replay '%s'\n", shrunk, command, quote(c.Name), shrunk.Line())
	config := ""
	if f.config != "" {
		config = " -config " + quote(f.config)
	}
	fmt.Fprintf(stdout, "or, not shrunk:\n  %s -seed %d%s -events %d -sequence %d\n", command, f.seed, config, f.events, first.index)
}

// quote quotes s for a shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
