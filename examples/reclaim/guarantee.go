package main

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// The first act: a cluster full of batch tasks, and a service role with a
// quota guarantee that arrives.
const (
	guaranteeAgents = 8
	batchSeed       = 7
)

var (
	webGuarantee = resources.MustParseQuantities("cpus:12;mem:12288")
	webReplica   = resources.MustParseQuantities("cpus:2;mem:2048")
	// guaranteeRoles are the roles whose shares the act follows.
	guaranteeRoles = []string{"batch", "web"}
)

// guaranteeAct is what the first act observed.
type guaranteeAct struct {
	// Batch are batch's tasks, in launch order; Small and Large count
	// those of 1 and 2 CPUs.
	Batch        []launched
	Small, Large int
	// Start are the roles' shares before the first run; Runs are the runs
	// with reclaim on, until a quiet one; Off the same number of runs with
	// reclaim off.
	Start     []float64
	Runs, Off []runRecord
	// MetAfter is the run after which web's replicas use its guarantee
	// (0: never).
	MetAfter int
	// Ended counts the tasks ended for web, Freed what they freed.
	Ended int
	Freed resources.Quantities
	// YoungestFirst counts the tasks that ending the youngest first would
	// have ended to cover the guarantee; OneCPU those it would take, had
	// batch run tasks of 1 CPU only.
	YoungestFirst, OneCPU int
}

// batchSizes returns the sizes of batch's tasks: 1 or 2 CPUs at random
// (from a fixed seed), 1 when the agent has 1 left.
func batchSizes() func(left float64) float64 {
	rng := rand.New(rand.NewPCG(batchSeed, 0))
	return func(left float64) float64 { return min(left, float64(1+rng.IntN(2))) }
}

// guaranteeCluster builds the act's cluster: batch's tasks fill it, web
// gets its guarantee and its framework subscribes.
func guaranteeCluster(mode allocator.Reclaim) (*cluster, *service, error) {
	c, err := newCluster(mode, guaranteeAgents)
	if err != nil {
		return nil, nil, err
	}
	if err := c.fill("spark", "batch", batchSizes()); err != nil {
		return nil, nil, err
	}
	if err := c.a.UpdateQuota("web", allocator.Quota{Guarantees: webGuarantee}); err != nil {
		return nil, nil, err
	}
	s := &service{id: "nginx", role: "web", replica: webReplica, want: replicasWanted()}
	return c, s, s.add(c)
}

// playGuarantee plays the act with reclaim on, then off.
func playGuarantee() (guaranteeAct, error) {
	var act guaranteeAct
	c, s, err := guaranteeCluster(allocator.ReclaimGuarantees)
	if err != nil {
		return act, err
	}
	act.countTasks(c)
	act.Start = c.shares(guaranteeRoles)
	if act.Runs, err = play(c, s, guaranteeRoles, 0); err != nil {
		return act, err
	}
	if act.sumUp(); act.MetAfter == 0 {
		return act, errors.New("web's guarantee was never met")
	}
	off, s, err := guaranteeCluster(allocator.ReclaimOff)
	if err != nil {
		return act, err
	}
	act.Off, err = play(off, s, guaranteeRoles, len(act.Runs))
	return act, err
}

func (act *guaranteeAct) countTasks(c *cluster) {
	act.Batch = c.tasks
	for _, t := range act.Batch {
		if t.cpus == 1 {
			act.Small++
		} else {
			act.Large++
		}
	}
}

// sumUp works out, from the runs, when the guarantee was met and what
// was ended for it, and what other orders would have ended.
func (act *guaranteeAct) sumUp() {
	for _, r := range act.Runs {
		if act.MetAfter == 0 && r.Running.Contains(webGuarantee) {
			act.MetAfter = r.Run
		}
		for _, p := range r.Chosen {
			act.Ended++
			act.Freed.Add(p.Frees)
		}
	}
	act.YoungestFirst = youngestFirst(act.Batch, webGuarantee)
	act.OneCPU = int(webGuarantee.Float64("cpus"))
}

// youngestFirst counts the tasks, youngest first, that must end to free
// need.
func youngestFirst(tasks []launched, need resources.Quantities) int {
	var freed resources.Quantities
	n := 0
	for i := len(tasks) - 1; i >= 0 && !freed.Contains(need); i-- {
		freed.Add(sized(tasks[i].cpus))
		n++
	}
	return n
}

// replicasWanted is how many replicas web runs: its guarantee's CPUs.
func replicasWanted() int {
	return int(webGuarantee.Float64("cpus") / webReplica.Float64("cpus"))
}

// offerCounts counts the offers made and the tasks chosen in runs.
func offerCounts(runs []runRecord) (offers, chosen int) {
	for _, r := range runs {
		offers += len(r.Offers)
		chosen += len(r.Chosen)
	}
	return offers, chosen
}

// print tells the act: the cluster, the runs, what they took, what the
// runs without reclaim did, and the shares.
func (act guaranteeAct) print(w io.Writer) {
	fmt.Fprintf(w, "\nAct 1. A guarantee reclaimed (Options.Reclaim = %s)\n\n", allocator.ReclaimGuarantees)
	fmt.Fprintf(w, "%d agents of %s, %s in all.\n", guaranteeAgents, agentTotal.Quantities(), clusterTotal(guaranteeAgents))
	fmt.Fprintf(w, "Framework spark of role batch fills them with %d tasks, %d of 1 CPU and\n", act.Small+act.Large, act.Small)
	fmt.Fprintf(w, "%d of 2 CPUs (2 GB a CPU), and suppresses offers. Role web gets a quota\n", act.Large)
	fmt.Fprintf(w, "guarantee of %s; its framework nginx subscribes, to run\n", webGuarantee)
	fmt.Fprintf(w, "%d replicas of %s, and states before every run the replicas it\n", replicasWanted(), webReplica)
	fmt.Fprintln(w, "waits to run.")
	fmt.Fprintln(w)
	for _, r := range act.Runs {
		printRun(w, r, "nginx", guaranteeRoles)
	}
	act.printOutcome(w)
	fmt.Fprintln(w, "\nShares after each run (run 0: before the first), with reclaim and without:")
	printTable(w, []column{
		{"batch", series(act.Start, act.Runs, 0)}, {"web", series(act.Start, act.Runs, 1)},
		{"batch (off)", series(act.Start, act.Off, 0)}, {"web (off)", series(act.Start, act.Off, 1)},
	})
}

// printOutcome tells how soon web's guarantee was met and at what cost,
// and what the runs without reclaim did.
func (act guaranteeAct) printOutcome(w io.Writer) {
	fmt.Fprintf(w, "\nweb's guarantee is met within %d runs: after run %d its replicas use\n", act.MetAfter, act.MetAfter)
	fmt.Fprintf(w, "%s. It took ending %d of batch's %d tasks, which freed\n", act.Runs[act.MetAfter-1].Running, act.Ended, act.Small+act.Large)
	fmt.Fprintf(w, "%s; the replicas' rooms held %s of it, the\n", act.Freed, act.Runs[0].Held)
	fmt.Fprintln(w, "rest went back to the pool. For each replica a run makes room on one agent:")
	fmt.Fprintln(w, "the fewest tasks whose ends free what the agent lacks, then those that free")
	fmt.Fprintln(w, "the least beyond it, then the youngest: here one task of 2 CPUs a replica,")
	fmt.Fprintf(w, "the youngest. Ending the youngest tasks first would have ended %d; had batch\n", act.YoungestFirst)
	fmt.Fprintf(w, "run tasks of 1 CPU only, %d.\n", act.OneCPU)
	offers, chosen := offerCounts(act.Off)
	fmt.Fprintf(w, "\nWithout reclaim (Options.Reclaim = %s), the same %d runs: %s to nginx,\n", allocator.ReclaimOff, len(act.Off), plural(offers, "offer"))
	fmt.Fprintf(w, "%s chosen, and web's share stays %s: web waits for batch's tasks\n", plural(chosen, "task"), shareText(act.Off[len(act.Off)-1].Shares[1]))
	fmt.Fprintln(w, "to end by themselves, as in Mesos.")
}
