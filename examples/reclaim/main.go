package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

func main() { os.Exit(command(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses of the command.
const (
	exitOK    = 0
	exitError = 1 // the story failed, or the chart was not written
	exitUsage = 2 // bad arguments
)

// command runs the story with the arguments args and returns its exit
// status.
func command(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reclaim", flag.ContinueOnError)
	svgPath := fs.String("svg", "", "write a chart of the roles' shares over the runs to `file`")
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
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err != nil {
		fmt.Fprintln(stderr, "reclaim:", err)
		fs.SetOutput(stderr)
		fs.Usage()
		return exitUsage
	}
	s, err := run(stdout)
	if err == nil && *svgPath != "" {
		err = writeChart(*svgPath, s)
		if err == nil {
			fmt.Fprintf(stdout, "\nchart written to %s\n", *svgPath)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "reclaim:", err)
		return exitError
	}
	return exitOK
}

const usage = `Usage: reclaim [-svg file]

Reclaim tells, run by run, how Options.Reclaim ends other roles' tasks to make
room for the pending tasks of a role below its quota guarantee or its fair
share.

Flags:
`

// story is what both acts observed.
type story struct {
	Guarantee guaranteeAct
	Fair      fairAct
}

// run plays both acts and tells them to w.
func run(w io.Writer) (story, error) {
	var s story
	var err error
	fmt.Fprint(w, intro)
	if s.Guarantee, err = playGuarantee(); err != nil {
		return s, fmt.Errorf("act 1: %w", err)
	}
	s.Guarantee.print(w)
	if s.Fair, err = playFairShare(); err != nil {
		return s, fmt.Errorf("act 2: %w", err)
	}
	s.Fair.print(w)
	return s, nil
}

const intro = `Reclaim across roles (Options.Reclaim): at the end of a run, tasks of other
roles are chosen to end (Result.Preemptions) to make room, on one agent, for a
task that a framework of a role owed resources states it waits for
(UpdateDemand); without stated demand nothing is chosen. The host ends them
(EndTask); what they free of the room is held for that framework and offered to
it at the next run. A run is one AllocateAll, a second apart on a manual clock;
before it the frameworks state their pending tasks, after it the host ends the
chosen tasks.
`

// writeChart writes the chart of s to path.
func writeChart(path string, s story) error {
	var b bytes.Buffer
	if err := writeSVG(&b, charts(s)); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// printRun tells what happened in run r: the tasks chosen (in the
// library's words), what is held for fw and its offers, then the shares
// of roles (the act's; the last is the role that takes).
func printRun(w io.Writer, r runRecord, fw string, roles []string) {
	var what []string
	if n := len(r.Chosen); n > 0 {
		what = append(what, fmt.Sprintf("%s chosen to end, and ended by the host:", plural(n, "task")))
		for _, p := range r.Chosen {
			// The library's line, cut in two to fit the page.
			task, frees, ok := strings.Cut(p.String(), ": frees ")
			what = append(what, "  "+task+":")
			if ok {
				what = append(what, "    frees "+frees)
			}
		}
	}
	if !r.Held.IsEmpty() {
		what = append(what, fmt.Sprintf("%s held for %s (it counts in %s's share)", r.Held, fw, roles[len(roles)-1]))
	}
	if len(r.Offers) > 0 {
		what = append(what, fmt.Sprintf("%s is offered %s;", fw, offersText(r.Offers)))
		launch := "it launches " + plural(r.Replicas, "task")
		if !r.Returned.IsEmpty() {
			launch += " and gives back " + r.Returned.String()
		}
		what = append(what, launch)
	}
	if len(what) == 0 {
		what = append(what, "nothing chosen, nothing offered")
	}
	fmt.Fprintf(w, "run %d  %s\n", r.Run, what[0])
	for _, line := range what[1:] {
		fmt.Fprintf(w, "       %s\n", line)
	}
	fmt.Fprintf(w, "       shares %s\n", sharesText(roles, r.Shares))
}

// offersText describes offers, those of the same resources together:
// "cpus:2; mem:4096 on agent-1 and agent-2".
func offersText(offers []offer.Offer) string {
	var order []string
	agents := map[string][]string{}
	for _, o := range offers {
		res := o.Resources.Quantities().String()
		if _, ok := agents[res]; !ok {
			order = append(order, res)
		}
		agents[res] = append(agents[res], o.AgentID)
	}
	var parts []string
	for _, res := range order {
		parts = append(parts, res+" on "+strings.Join(agents[res], " and "))
	}
	return strings.Join(parts, ", ")
}

// sharesText writes roles' shares: "batch 0.8125, web 0.1875".
func sharesText(roles []string, shares []float64) string {
	parts := make([]string, len(roles))
	for i, role := range roles {
		parts[i] = role + " " + shareText(shares[i])
	}
	return strings.Join(parts, ", ")
}

func shareText(v float64) string { return fmt.Sprintf("%.4f", v) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// clusterTotal is the total of n agents.
func clusterTotal(n int) resources.Quantities {
	var q resources.Quantities
	for range n {
		q.Add(agentTotal.Quantities())
	}
	return q
}

// column is a column of a shares table: its heading and a share per run,
// from run 0 (before the first run).
type column struct {
	head   string
	shares []float64
}

// series returns the shares of the i-th role of an act, from run 0.
func series(start []float64, runs []runRecord, i int) []float64 {
	out := []float64{start[i]}
	for _, r := range runs {
		out = append(out, r.Shares[i])
	}
	return out
}

// printTable prints the shares after every run, a column each.
func printTable(w io.Writer, cols []column) {
	fmt.Fprintf(w, "  %3s", "run")
	for _, c := range cols {
		fmt.Fprintf(w, "  %11s", c.head)
	}
	fmt.Fprintln(w)
	for run := range cols[0].shares {
		fmt.Fprintf(w, "  %3d", run)
		for _, c := range cols {
			fmt.Fprintf(w, "  %11s", shareText(c.shares[run]))
		}
		fmt.Fprintln(w)
	}
}
