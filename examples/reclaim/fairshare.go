package main

import (
	"fmt"
	"io"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// The second act: two roles of the same weight, one holding the whole
// cluster when the other arrives.
const fairAgents = 2

var (
	// fairTask is the size of every task of the act, a's and b's.
	fairTask = resources.MustParseQuantities("cpus:2;mem:4096")
	// fairRoles are the roles whose shares the act follows.
	fairRoles = []string{"a", "b"}
)

// fairAct is what the second act observed.
type fairAct struct {
	// Tasks counts a's tasks when b arrives.
	Tasks int
	// Start are the roles' shares before the first run; Runs are the runs
	// until a quiet one.
	Start []float64
	Runs  []runRecord
	// Ended counts the tasks ended for b.
	Ended int
	// Still counts the runs after the quiet one (stillRuns of them, b
	// stating what it still waits for before each) in which nothing was
	// chosen and nothing offered.
	Still int
}

// stillRuns is how many runs the act goes on after its quiet one: a
// cluster left alone under fair-share reclaim stays still, with b still
// waiting for more than its share.
const stillRuns = 100

// playFairShare plays the act with fair-share reclaim.
func playFairShare() (fairAct, error) {
	var act fairAct
	c, err := newCluster(allocator.ReclaimFairShare, fairAgents)
	if err != nil {
		return act, err
	}
	if err := c.fill("fa", "a", func(float64) float64 { return fairTask.Float64("cpus") }); err != nil {
		return act, err
	}
	act.Tasks = len(c.tasks)
	s := &service{id: "fb", role: "b", replica: fairTask}
	if err := s.add(c); err != nil {
		return act, err
	}
	act.Start = c.shares(fairRoles)
	if act.Runs, err = play(c, s, fairRoles, 0); err != nil {
		return act, err
	}
	for _, r := range act.Runs {
		act.Ended += len(r.Chosen)
	}
	after, err := play(c, s, fairRoles, stillRuns)
	if err != nil {
		return act, err
	}
	for _, r := range after {
		if r.quiet() {
			act.Still++
		}
	}
	return act, nil
}

// print tells the act: the cluster, the runs, why they stopped, and the
// shares.
func (act fairAct) print(w io.Writer) {
	fmt.Fprintf(w, "\nAct 2. Fair shares reclaimed (Options.Reclaim = %s)\n\n", allocator.ReclaimFairShare)
	fmt.Fprintf(w, "%d agents of %s, %s in all.\n", fairAgents, agentTotal.Quantities(), clusterTotal(fairAgents))
	fmt.Fprintf(w, "Framework fa of role a fills them with %d tasks of %s and\n", act.Tasks, fairTask)
	fmt.Fprintln(w, "suppresses offers. Role b, of the same weight and without a guarantee,")
	fmt.Fprintf(w, "arrives: its framework fb waits for as many tasks of %s as\n", fairTask)
	fmt.Fprintln(w, "the cluster holds, states those not running before every run, and launches")
	fmt.Fprintln(w, "them on what it is offered.")
	fmt.Fprintln(w)
	for _, r := range act.Runs {
		printRun(w, r, "fb", fairRoles)
	}
	last := act.Runs[len(act.Runs)-1]
	fmt.Fprintf(w, "\n%d of a's tasks were ended for b in %d runs, one every other run: the run\n", act.Ended, len(act.Runs))
	fmt.Fprintln(w, "after an end offers b what it freed, and a role offered something in a run")
	fmt.Fprintf(w, "has nothing chosen for it. Then b's share equals a's (%s and %s):\n", shareText(last.Shares[1]), shareText(last.Shares[0]))
	fmt.Fprintln(w, "one more task would take b above a, so nothing more is chosen.")
	fmt.Fprintf(w, "Left alone for %d runs more, b stating what it still waits for before\n", stillRuns)
	fmt.Fprintf(w, "each, the cluster stays still: %d of them chose nothing and offered nothing.\n", act.Still)
	fmt.Fprintln(w, "\nShares after each run (run 0: before the first):")
	printTable(w, []column{{"a", series(act.Start, act.Runs, 0)}, {"b", series(act.Start, act.Runs, 1)}})
}
