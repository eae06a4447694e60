// Command fairness shows two ways frameworks are kept from their fair
// share under Mesos's rules of offers, and what the allocator does about
// them: the rotation after declines (on by default; Mesos's order with
// Options.MesosOfferOrder) and demand, the pending tasks a framework
// states with UpdateDemand.
//
//	go run ./examples/fairness
//
// A run is one AllocateAll, a second apart on a manual clock, with seed 1.
//
// The starving cluster. One agent of cpus:4;mem:256. Framework user (role
// u) runs a task of cpus:1;mem:256, which takes all the memory, and could
// use the 3 CPUs left; it gives each offer of them back unused, so that
// what is left stays the same from run to run, and the program counts the
// runs in which it is offered them. Five frameworks d0 to d4, each in a
// role of its own, decline every offer with a 5 s refusal filter. They
// hold nothing, so they come before user in DRF order, and with five of
// them one is always free of its filter: in Mesos's order user is never
// offered the CPUs (2000 runs). With the rotation, a framework that
// declined the agent is offered it again only after every other framework
// that may be offered it has been: user is offered the CPUs within six
// runs, and again at least every six runs (six frameworks may be offered
// the agent).
//
// The greedy cluster. Six agents of cpus:16;mem:32768 and four users, a
// role and a framework each, that want to run as many tasks of their
// shape as they can get: cache <1 CPU, 4 GB>, render <3 CPUs, 1 GB>, web
// <2 CPUs, 2 GB> and batch <1 CPU, 1 GB>. Every framework launches as many
// of its tasks as fit in each offer and declines the rest for 5 s; tasks
// never end. In Mesos's order, without demand, offers are blind: an agent
// goes whole to the first framework in DRF order, which fills it with its
// own tasks, and what one user's tasks leave of an agent (CPUs without
// memory, or memory without CPUs) may be of no use to anybody. With
// demand, each framework states its pending tasks when it subscribes and
// again after it has answered each run's offers; the allocator then hands
// each agent out a task at a time, to the user of lowest dominant share
// whose task fits, which is the DRF paper's progressive filling. The
// program works out progressive filling itself (progressiveFilling in
// greedy.go: a task at a time to the user of lowest dominant share whose
// task still fits on some agent, on the first agent where it fits) and
// prints each user's tasks under both and how far each is from it.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// start is the manual clock's first reading.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	seed = 1
	// mesosRuns and rotationRuns are how many runs the starving cluster
	// makes in Mesos's order (long enough to show user waits for ever) and
	// with the rotation.
	mesosRuns    = 2000
	rotationRuns = 20
)

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fairness:", err)
		os.Exit(1)
	}
}

// outcome is what the program saw, for its tests.
type outcome struct {
	// Mesos and Rotation are the starving cluster in Mesos's order and
	// with the rotation.
	Mesos, Rotation starving
	// DRF is each greedy user's tasks by progressive filling; Blind in
	// Mesos's order without demand; Demand with demand stated.
	DRF, Blind, Demand []int
}

// run plays both clusters and prints what they did to w.
func run(w io.Writer) (outcome, error) {
	var out outcome
	var err error
	mesos := allocator.Options{Seed: seed, MesosOfferOrder: true}
	rotation := allocator.Options{Seed: seed}
	if out.Mesos, err = playStarving(mesos, mesosRuns); err != nil {
		return out, fmt.Errorf("starving cluster, Mesos's order: %w", err)
	}
	if out.Rotation, err = playStarving(rotation, rotationRuns); err != nil {
		return out, fmt.Errorf("starving cluster, rotation: %w", err)
	}
	out.DRF = progressiveFilling(greedyUsers, greedyAgents, resources.MustParseQuantities(greedyAgent))
	if out.Blind, err = playGreedy(mesos, false, greedyRuns); err != nil {
		return out, fmt.Errorf("greedy cluster, blind offers: %w", err)
	}
	if out.Demand, err = playGreedy(rotation, true, greedyRuns); err != nil {
		return out, fmt.Errorf("greedy cluster, demand: %w", err)
	}
	fmt.Fprint(w, intro)
	printStarving(w, out.Mesos, out.Rotation)
	printGreedy(w, out.DRF, out.Blind, out.Demand)
	return out, nil
}

const intro = `Two clusters, each under Mesos's order of offers (Options.MesosOfferOrder)
and under the allocator's default. A run is one AllocateAll, a second apart
on a manual clock.

`

// printStarving prints the starving cluster's table.
func printStarving(w io.Writer, mesos, rotation starving) {
	fmt.Fprintf(w, `1. The starving cluster: one agent of %s. user runs a task of
   %s and could use the CPUs left; d0 to d%d, each in a role of its
   own, decline every offer for %g s.

`, resources.MustParseQuantities(starvingAgent), resources.MustParseQuantities(userTask), decliners-1, declineFor.Seconds())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "   order\truns\tuser offered\tfirst\tlongest wait")
	for _, row := range []struct {
		name string
		s    starving
	}{
		{"Mesos's (MesosOfferOrder)", mesos},
		{"rotation after declines", rotation},
	} {
		first := "never"
		if row.s.First() > 0 {
			first = fmt.Sprintf("run %d", row.s.First())
		}
		fmt.Fprintf(tw, "   %s\t%d\t%s\t%s\t%s\n", row.name, row.s.Runs, times(len(row.s.Offered)), first, plural(row.s.LongestWait(), "run"))
	}
	tw.Flush()
	if len(rotation.Offered) > 0 {
		fmt.Fprintf(w, "\n   With the rotation, user is offered the CPUs in runs %s.\n", joinInts(rotation.Offered))
	}
}

// printGreedy prints the greedy cluster's table: each user's tasks by
// progressive filling, with blind offers and with demand (with how far
// they are from progressive filling), then the largest distance and what
// the tasks use.
func printGreedy(w io.Writer, drf, blind, demand []int) {
	fmt.Fprintf(w, `
2. The greedy cluster: %d agents of %s. Each user runs as many
   tasks as fit in every offer it gets and declines the rest for 5 s.
   DRF is progressive filling, worked out by the program.

`, greedyAgents, resources.MustParseQuantities(greedyAgent))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "   user    task\tDRF\tMesos's blind offers\twith demand")
	for u, us := range greedyUsers {
		fmt.Fprintf(tw, "   %-7s %s\t%d\t%s\t%s\n", us.Name, us.Task, drf[u], withDiff(blind[u], drf[u]), withDiff(demand[u], drf[u]))
	}
	fmt.Fprintf(tw, "   farthest from DRF\t\t%s\t%s\n", plural(slices.Max(distance(blind, drf)), "task"), plural(slices.Max(distance(demand, drf)), "task"))
	var total resources.Quantities
	for range greedyAgents {
		total.Add(resources.MustParseQuantities(greedyAgent))
	}
	for _, name := range []string{"cpus", "mem"} {
		fmt.Fprintf(tw, "   %s in use, of %g\t%g\t%g\t%g\n", name, total.Float64(name), inUse(drf).Float64(name), inUse(blind).Float64(name), inUse(demand).Float64(name))
	}
	tw.Flush()
}

// inUse is what tasks (a count per greedy user) use.
func inUse(tasks []int) resources.Quantities {
	var q resources.Quantities
	for u, n := range tasks {
		for range n {
			q.Add(greedyUsers[u].Task)
		}
	}
	return q
}

// withDiff writes n and how far it is from want: "16 (+2)".
func withDiff(n, want int) string {
	if n == want {
		return fmt.Sprintf("%d", n)
	}
	return fmt.Sprintf("%d (%+d)", n, n-want)
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
