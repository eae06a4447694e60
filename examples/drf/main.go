// Command drf shows Dominant Resource Fairness at work in the allocator.
//
// First, step by step on one agent: the DRF paper's example and a blog's
// offer trace, each as a table of who was offered what and the dominant
// shares after every step. Then, over time on a virtual clock: frameworks
// that keep launching tasks of 20 to 40 seconds on a small cluster, joining
// one after another, with uniform and with uneven demands, and with role
// weights. With -svg it writes a chart of the dominant shares over time.
//
//	go run ./examples/drf
//	go run ./examples/drf -svg shares.svg
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "drf:", err)
		os.Exit(1)
	}
}

// epoch is where the virtual clock starts.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func run(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("drf", flag.ContinueOnError)
	fs.SetOutput(w)
	svgPath := fs.String("svg", "", "write a chart of the dominant shares over time to `file`")
	seed := fs.Uint64("seed", 1, "seed of the task durations and the allocator's agent shuffles")
	every := fs.Int("every", 10, "print the simulations every `n` seconds")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *every <= 0 {
		return fmt.Errorf("-every must be positive, got %d", *every)
	}

	for _, tr := range traces {
		steps, err := runTrace(tr)
		if err != nil {
			return fmt.Errorf("%s: %w", tr.Title, err)
		}
		printTrace(w, tr, steps)
	}

	var results []simResult
	for _, sc := range scenarios {
		res, err := simulate(sc, *seed)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.Title, err)
		}
		printSim(w, res, *every)
		results = append(results, res)
	}

	if *svgPath != "" {
		f, err := os.Create(*svgPath)
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
		fmt.Fprintf(w, "chart written to %s\n", *svgPath)
	}
	return nil
}
