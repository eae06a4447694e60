// Command lab compares allocation policies on one workload, through the
// allocator/sim package: the demonstration workload (a bursty tenant next
// to a steady one, see sim.BurstyAndSteady), a trace in the sim package's
// CSV format, or the task events of the Google cluster trace (2011), its
// parts read as one trace and its machine events as the cluster. It
// prints a table with a column per configuration, and writes the
// intervals (as the runs make them) and the summary as CSV and a chart as
// SVG on request. A configuration is a sorter and options: the
// allocator's, and whether frameworks state their demand and how soon the
// host ends the tasks reclaim chooses. -h prints the usage.
//
//	go run ./examples/lab
//	go run ./examples/lab -configs drf,usage:halflife=10m,drf:offershare=0.5 -svg lab.svg
//	go run ./examples/lab -trace tasks.csv -agents '4x cpus:8;mem:32768'
//	go run ./examples/lab -trace tasks.csv -agents '4x cpus:8;mem:32768' -configs drf,drf:demand,drf:demand:reclaim=fairshare
//	go run ./examples/lab -google part-00000-of-00500.csv.gz -agents '100x cpus:16;mem:65536'
//	go run ./examples/lab -google 'task_events/part-0020?-of-00500.csv.gz' -machines machine_events/part-00000-of-00001.csv.gz
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() { os.Exit(command(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses of the command.
const (
	exitOK    = 0 // done, or -h: the usage was asked for
	exitError = 1 // the run failed: a trace that does not read, a file not written
	exitUsage = 2 // bad arguments
)

// config is what the command line asks for.
type config struct {
	configs      []labConfig
	halfLife     time.Duration
	demand       bool
	preemptDelay int
	trace        string
	google       string
	machines     string
	start        googleStart
	agents       agentFlags
	interval     time.Duration
	intervals    int
	seed         uint64
	csvPath      string
	summary      string
	svgPath      string
	timed        bool
}

const usage = `Usage: lab [-configs list] [-demand] [-preemptdelay n]
           [-trace file | -google pattern [-machines file] [-start at]]
           [-agents spec]... [-interval d] [-intervals n] [-seed n] [-time]
           [-csv file] [-summary file] [-svg file]

Lab runs one workload through the allocator with several configurations, on
the same tasks and seed, and prints a table with a column per configuration:
utilisation, Jain's fairness index, tasks and offers, and per role its shares
and its waits (p50, p90, p99). Without -trace or -google the workload is the
demonstration: a bursty tenant next to a steady one on 20 agents, for half
an hour.

A configuration is a role sorter and options, joined by colons:

  drf                  the DRF sorter (the allocator's default)
  usage                usage-history fairness (sorter.Usage), with -halflife
  random               the weighted random sorter
  ...:halflife=10m     the usage sorter's half-life
  ...:offershare=0.5   Options.OfferShare
  ...:charge           Options.ChargeBeyondAllowance
  ...:reservedfirst    Options.ReservedFirst
  ...:demand           frameworks state what they wait for before every run
                       (sim.Config.StateDemand; -demand for every configuration)
  ...:reclaim=R        Options.Reclaim: off, guarantees or fairshare; runs end other
                       roles' tasks to make room, only for demand stated (add demand)
  ...:preemptdelay=N   the intervals the host takes to end a task a run chose to end
                       (sim.Config.PreemptDelay; -preemptdelay for every configuration)

Mesos's offers, demand-aware offers and reclaim for pending tasks, side by side:

  lab -trace allocator/sim/testdata/tasks.csv -agents '4x cpus:8;mem:32768' \
      -configs drf,drf:demand,drf:demand:reclaim=fairshare

-csv writes every interval as the runs go, holding none of them; -svg draws
from at most 4096 intervals of each configuration, evenly spaced.

Flags:
`

// command runs lab with the arguments args and returns its exit status.
// With -h or -help it prints the usage to stdout and succeeds; with bad
// arguments it prints what is wrong and the usage to stderr.
func command(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lab", flag.ContinueOnError)
	cfg, configs := config{}, "drf,usage"
	fs.StringVar(&configs, "configs", configs, "the configurations to compare, comma-separated (see above)")
	fs.DurationVar(&cfg.halfLife, "halflife", 5*time.Minute, "the usage sorter's half-life `d`, unless a configuration says")
	fs.BoolVar(&cfg.demand, "demand", false, "in every configuration, frameworks state what they wait for before every allocation run\n(sim.Config.StateDemand; :demand turns it on in one)")
	fs.IntVar(&cfg.preemptDelay, "preemptdelay", 0, "the intervals `n` the host takes to end a task a run chose to end (sim.Config.PreemptDelay),\nunless a configuration says (:preemptdelay=n)")
	fs.StringVar(&cfg.trace, "trace", "", "run the tasks of `file`, a trace in the sim package's CSV format")
	fs.StringVar(&cfg.google, "google", "", "run the tasks of the task events of the Google cluster trace (2011): the files `pattern`\nnames (a glob, such as 'task_events/part-0020?-of-00500.csv.gz', or one file), read in\nthe order of their names as one trace; a name ending in .gz is read as gzip, as the\ntrace is published")
	fs.StringVar(&cfg.machines, "machines", "", "the cluster of a -google trace: `file` of the trace's machine events (.gz read as gzip),\na machine an agent; removals and late additions are agent failures (instead of -agents)")
	fs.Var(&cfg.start, "start", "the instant `at` of a -google trace that is the run's time zero: first, its first event\n(the default), or a time of the trace such as 300h (0: the trace's own time); tasks\nsubmitted before it are left out")
	fs.Var(&cfg.agents, "agents", "the cluster of a trace: `spec` is COUNTxRESOURCES, such as '10x cpus:32;mem:131072'\n(repeat for agents of several shapes; default 10x cpus:32;mem:131072)")
	fs.DurationVar(&cfg.interval, "interval", time.Second, "the allocation interval `d`")
	fs.IntVar(&cfg.intervals, "intervals", 0, "run `n` intervals (0: 1800 for the demonstration, until done for a trace)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "the seed `n` of the generated tasks and of the allocator")
	fs.StringVar(&cfg.csvPath, "csv", "", "write every interval of every configuration to `file` as CSV, as the runs make them")
	fs.StringVar(&cfg.summary, "summary", "", "write the summaries to `file` as CSV")
	fs.StringVar(&cfg.svgPath, "svg", "", "write a chart (utilisation, shares, waits) to `file`")
	fs.BoolVar(&cfg.timed, "time", false, "time every allocation run by the wall clock (the figures then vary from run to run)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	fs.SetOutput(io.Discard) // the usage is printed below, where it belongs
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		return exitOK
	}
	if err == nil {
		err = cfg.check(fs.Args(), configs)
	}
	if err != nil {
		fmt.Fprintln(stderr, "lab:", err)
		fs.SetOutput(stderr)
		fs.Usage()
		return exitUsage
	}
	if err := run(stdout, cfg); err != nil {
		fmt.Fprintln(stderr, "lab:", err)
		return exitError
	}
	return exitOK
}

// check checks the arguments that flag does not, and parses the
// configurations.
func (c *config) check(rest []string, configs string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected arguments %q", rest)
	case c.trace != "" && c.google != "":
		return errors.New("-trace and -google: give one trace")
	case c.intervals < 0:
		return fmt.Errorf("-intervals must be zero or more, got %d", c.intervals)
	case c.interval <= 0:
		return fmt.Errorf("-interval must be positive, got %s", c.interval)
	case c.halfLife < 0:
		return fmt.Errorf("-halflife must be zero or more, got %s", c.halfLife)
	case c.preemptDelay < 0:
		return fmt.Errorf("-preemptdelay must be zero or more, got %d", c.preemptDelay)
	case len(c.agents) > 0 && c.trace == "" && c.google == "":
		return errors.New("-agents is for a trace; the demonstration has its own cluster")
	case c.machines != "" && c.google == "":
		return errors.New("-machines is for a -google trace")
	case c.machines != "" && len(c.agents) > 0:
		return errors.New("-agents and -machines: give one cluster")
	case c.start.fixed && c.google == "":
		return errors.New("-start is for a -google trace")
	}
	var err error
	c.configs, err = parseConfigs(configs, labConfig{halfLife: c.halfLife, stateDemand: c.demand, preemptDelay: c.preemptDelay})
	return err
}
