// Command replicated runs an allocator on three replicas that agree on its
// input through etcd's raft (go.etcd.io/raft/v3), and shows a failover that
// loses nothing.
//
// The journal of the allocator (allocator.Entry) is the replicated log: the
// leader stamps every event with its clock and proposes it; once raft has
// committed it, every replica applies it (Allocator.Apply), allocation runs
// included, so every replica's allocator holds the same state. The leader
// serves the offers: frameworks answer what its allocator has outstanding.
// Every 25 entries each replica takes a raft snapshot of its allocator
// (Allocator.Snapshot) and compacts its log; a replica that falls behind
// the compacted log is sent the snapshot and rebuilds its allocator from it
// (allocator.Restore).
//
// The run: six agents, three frameworks (web with a quota guarantee, batch
// with weight 2, etl that declines everything) and twelve allocation
// intervals. In round 4 replica 3 is cut off; in round 7 it comes back and
// is sent a snapshot. In round 8 the leader fails right after a run, its
// offers unanswered; replica 2 is elected and the frameworks answer those
// very offers through it. At the end every replica's state is compared
// with an allocator that applied the same events and never failed.
//
//	go run ./examples/replicated
//
// This module has its own go.mod so that the library's does not depend on
// raft.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

const (
	rounds        = 12
	cutRound      = 4 // replica 3 is cut off
	backRound     = 7 // replica 3 comes back
	failRound     = 8 // the leader fails after the run
	snapshotEvery = 25
)

var frameworks = []struct {
	id, role string
	task     resources.Quantities // what each task needs; empty: declines everything
	tasks    int                  // tasks launched per offer
}{
	{"web", "web", resources.MustParseQuantities("cpus:1;mem:1024"), 2},
	{"batch", "batch", resources.MustParseQuantities("cpus:2;mem:2048"), 1},
	{"etl", "analytics", resources.Quantities{}, 0},
}

// outcome is what the run found, for its test.
type outcome struct {
	oldLeader, newLeader uint64
	// heldOver are the offers the old leader made that were outstanding
	// when it failed; answered those of them the new leader's frameworks
	// answered.
	heldOver, answered []string
	// compactions and restores per replica.
	compactions, restores map[uint64]int
	// applied is the index every replica up has applied.
	applied uint64
	// same is whether every replica up holds what an allocator that
	// applied the same events and never failed holds.
	same bool
}

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "replicated:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) (*outcome, error) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	opts := allocator.Options{Seed: 42}
	c, err := newCluster(3, opts, clock, snapshotEvery)
	if err != nil {
		return nil, err
	}
	out := &outcome{compactions: map[uint64]int{}, restores: map[uint64]int{}}
	leader, err := c.campaign(1)
	if err != nil {
		return nil, err
	}
	out.oldLeader = leader.id
	fmt.Fprintf(w, "replica %d leads\n", leader.id)

	// The cluster.
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("agent-%d", i)
		info := allocator.AgentInfo{Hostname: fmt.Sprintf("host-%d", i)}
		if err := c.propose(allocator.Entry{Event: allocator.EventAddAgent, Agent: id, AgentInfo: &info, Resources: resources.MustParse("cpus:8;mem:16384", "*")}); err != nil {
			return nil, err
		}
	}
	for _, f := range frameworks {
		info := allocator.FrameworkInfo{Roles: []string{f.role}}
		if err := c.propose(allocator.Entry{Event: allocator.EventAddFramework, Framework: f.id, FrameworkInfo: &info, Active: true}); err != nil {
			return nil, err
		}
	}
	quota := allocator.MustParseQuota("cpus:8;mem:8192")
	if err := c.propose(allocator.Entry{Event: allocator.EventUpdateQuota, Role: "web", Quota: quota}); err != nil {
		return nil, err
	}
	if err := c.propose(allocator.Entry{Event: allocator.EventUpdateWeights, Weights: map[string]float64{"batch": 2}}); err != nil {
		return nil, err
	}

	for round := 1; round <= rounds; round++ {
		clock.Advance(time.Second)
		switch round {
		case cutRound:
			c.disconnect(3)
			fmt.Fprintf(w, "round %d: replica 3 is cut off\n", round)
		case backRound:
			c.reconnect(3)
			for range 5 {
				if err := c.tick(); err != nil {
					return nil, err
				}
			}
			r3 := c.replicas[3]
			fmt.Fprintf(w, "round %d: replica 3 is back: it was sent a snapshot %d time(s) and has applied up to %d, as the leader has (%d)\n",
				round, r3.restores, r3.applied, c.leader().applied)
		}
		if err := c.propose(allocator.Entry{Event: allocator.EventAllocateAll}); err != nil {
			return nil, err
		}
		leader := c.leader()
		if round == failRound {
			for _, o := range leader.alloc.Offers() {
				out.heldOver = append(out.heldOver, o.ID)
			}
			c.kill(leader.id)
			fmt.Fprintf(w, "round %d: leader %d fails after the run, with %d offers unanswered: %s\n", round, leader.id, len(out.heldOver), strings.Join(out.heldOver, " "))
			if leader, err = c.campaign(2); err != nil {
				return nil, err
			}
			out.newLeader = leader.id
			fmt.Fprintf(w, "round %d: replica %d is elected; its allocator holds %d outstanding offers\n", round, leader.id, len(leader.alloc.Offers()))
		}
		answered, err := serve(c, leader, round)
		if err != nil {
			return nil, err
		}
		if round == failRound {
			for _, id := range answered {
				for _, h := range out.heldOver {
					if id == h {
						out.answered = append(out.answered, id)
					}
				}
			}
			fmt.Fprintf(w, "round %d: the frameworks answer %d of them through replica %d\n", round, len(out.answered), leader.id)
		}
		fmt.Fprintf(w, "round %d: %d offers answered, %d tasks running\n", round, len(answered), running(leader.alloc))
	}
	if err := c.settle(); err != nil {
		return nil, err
	}

	ref, err := reference(c, opts, clock)
	if err != nil {
		return nil, err
	}
	out.same = true
	want := views(ref)
	for _, r := range c.live() {
		out.compactions[r.id], out.restores[r.id] = r.compactions, r.restores
		if out.applied == 0 {
			out.applied = r.applied
		} else if r.applied != out.applied {
			return nil, fmt.Errorf("replica %d applied up to %d, another up to %d", r.id, r.applied, out.applied)
		}
		if got := views(r.alloc); got != want {
			out.same = false
			fmt.Fprintf(w, "replica %d differs from the reference:\n%s\n--- reference ---\n%s", r.id, got, want)
		}
	}
	r1 := c.replicas[1]
	out.compactions[1], out.restores[1] = r1.compactions, r1.restores
	for _, r := range c.live() {
		fmt.Fprintf(w, "replica %d: applied up to %d, log compacted %d times, allocator restored from a snapshot %d times\n", r.id, r.applied, r.compactions, r.restores)
	}
	fmt.Fprintf(w, "every replica holds what an allocator that never failed holds: %v\n", out.same)
	return out, nil
}

// serve has the frameworks answer every offer the leader's allocator has
// outstanding: web and batch launch tasks and decline the rest for 3 s, etl
// declines everything for 2 s. Every third round, each framework's oldest
// task ends. It returns the ids of the offers answered.
func serve(c *Cluster, leader *Replica, round int) ([]string, error) {
	var answered []string
	for _, o := range leader.alloc.Offers() {
		answered = append(answered, o.ID)
		var e allocator.Entry
		for _, f := range frameworks {
			if f.id != o.FrameworkID {
				continue
			}
			if f.tasks == 0 {
				e = allocator.Entry{Event: allocator.EventRecoverResources, Framework: o.FrameworkID, Agent: o.AgentID, Resources: o.Resources, Filter: &allocator.Filter{Refuse: 2 * time.Second}}
				break
			}
			var launch offer.Launch
			left := o.Resources
			for i := range f.tasks {
				task, ok := offer.PickTask(left, fmt.Sprintf("%s-t%d", o.ID, i), f.task, o.Role)
				if !ok {
					break
				}
				launch.Tasks = append(launch.Tasks, task)
				left = left.Minus(task.Resources)
			}
			e = allocator.Entry{Event: allocator.EventAccept, Framework: o.FrameworkID, Agent: o.AgentID, Resources: o.Resources,
				Operations: []offer.Operation{launch}, Filter: &allocator.Filter{Refuse: 3 * time.Second}}
			if len(launch.Tasks) == 0 { // no task fits: decline
				e = allocator.Entry{Event: allocator.EventRecoverResources, Framework: o.FrameworkID, Agent: o.AgentID, Resources: o.Resources, Filter: &allocator.Filter{Refuse: 3 * time.Second}}
			}
		}
		if err := c.propose(e); err != nil {
			return nil, err
		}
	}
	if round%3 == 0 {
		for _, f := range frameworks {
			if tasks := leader.alloc.Tasks(f.id); len(tasks) > 0 {
				if err := c.propose(allocator.Entry{Event: allocator.EventEndTask, Framework: f.id, Task: tasks[0].ID}); err != nil {
					return nil, err
				}
			}
		}
	}
	return answered, nil
}

func running(a *allocator.Allocator) int {
	n := 0
	for _, f := range frameworks {
		n += len(a.Tasks(f.id))
	}
	return n
}

// reference applies every committed event, in order, to an allocator that
// never failed, and checks that each gave what it gave on the replicas.
func reference(c *Cluster, opts allocator.Options, clock *allocator.ManualClock) (*allocator.Allocator, error) {
	opts.Clock = clock.Now
	ref, err := allocator.New(opts)
	if err != nil {
		return nil, err
	}
	for _, i := range c.indexes() {
		var e allocator.Entry
		if err := json.Unmarshal(c.committed[i].entry, &e); err != nil {
			return nil, err
		}
		res, err := ref.Apply(e)
		if got := render(res, err); got != c.committed[i].result {
			return nil, fmt.Errorf("entry %d gave %s on the reference, %s on the replicas", i, got, c.committed[i].result)
		}
	}
	return ref, nil
}

// views renders what an allocator shows: its state, outstanding offers,
// filters, tasks and last run.
func views(a *allocator.Allocator) string {
	var b strings.Builder
	b.WriteString(a.Describe())
	fmt.Fprintf(&b, "offers %v\nfilters %v\nlast run %+v\n", a.Offers(), a.Filters(), a.LastRun())
	for _, f := range a.Frameworks() {
		fmt.Fprintf(&b, "%+v tasks %v\n", f, a.Tasks(f.ID))
	}
	fmt.Fprintf(&b, "agents %v\nroles %v\n", a.Agents(), a.Roles())
	return b.String()
}
