// Command drf shows Dominant Resource Fairness at work in the allocator.
//
// First, step by step on one agent: the DRF paper's example and a blog's
// offer trace, each as a table of who was offered what and the dominant
// shares after every step. Then, over time on a virtual clock: frameworks
// that keep launching tasks of 20 to 40 seconds on a small cluster, joining
// one after another, with uniform and with uneven demands, and with role
// weights. With -svg it writes a chart of the dominant shares over time,
// one small plot per framework so that equal shares stay visible. -h
// prints the usage.
//
//	go run ./examples/drf
//	go run ./examples/drf -svg shares.svg
//	go run ./examples/drf -h
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
	exitError = 1 // the run failed
	exitUsage = 2 // bad arguments
)

// epoch is where the virtual clock starts.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// config is what the command line asks for.
type config struct {
	svgPath string
	seed    uint64
	every   int
}

// command runs drf with the arguments args and returns its exit status.
// With -h or -help it prints the usage to stdout and succeeds; with bad
// arguments it prints what is wrong and the usage to stderr.
func command(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("drf", flag.ContinueOnError)
	var cfg config
	fs.StringVar(&cfg.svgPath, "svg", "", "write a chart of the dominant shares over time to `file`")
	fs.Uint64Var(&cfg.seed, "seed", 1, "the seed `n` of the task durations and the allocator's agent shuffles")
	fs.IntVar(&cfg.every, "every", 10, "print the simulations every `n` seconds")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: drf [-svg file] [-seed n] [-every n]

Drf shows Dominant Resource Fairness at work in the allocator: the DRF
paper's example and a blog's offer trace step by step, then simulations of
frameworks sharing a small cluster over time.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.SetOutput(io.Discard) // the usage is printed below, where it belongs
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		return exitOK
	case err == nil && fs.NArg() > 0:
		err = fmt.Errorf("unexpected arguments %q", fs.Args())
	case err == nil && cfg.every <= 0:
		err = fmt.Errorf("-every must be positive, got %d", cfg.every)
	}
	if err != nil {
		fmt.Fprintln(stderr, "drf:", err)
		fs.SetOutput(stderr)
		fs.Usage()
		return exitUsage
	}
	if err := run(stdout, cfg); err != nil {
		fmt.Fprintln(stderr, "drf:", err)
		return exitError
	}
	return exitOK
}

// run prints the traces and the simulations, and writes the chart.
func run(w io.Writer, cfg config) error {
	for _, tr := range traces {
		steps, err := runTrace(tr)
		if err != nil {
			return fmt.Errorf("%s: %w", tr.Title, err)
		}
		printTrace(w, tr, steps)
	}

	var results []simResult
	for _, sc := range scenarios {
		res, err := simulate(sc, cfg.seed)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.Title, err)
		}
		printSim(w, res, cfg.every)
		results = append(results, res)
	}

	if cfg.svgPath != "" {
		f, err := os.Create(cfg.svgPath)
		if err != nil {
			return err
		}
		if err := writeSVG(f, results); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(w, "chart written to %s\n", cfg.svgPath)
	}
	return nil
}
