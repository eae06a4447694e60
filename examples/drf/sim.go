package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The simulated cluster: 6 CPUs and 6.6 GB (6600 MB) on two agents.
var clusterAgents = []string{"cpus:3;mem:3300", "cpus:3;mem:3300"}

// simFramework is a framework of a simulation: it subscribes to Role at
// Join and from then on launches as many tasks of size Task as each offer
// holds.
type simFramework struct {
	ID, Role string
	Task     resources.Quantities
	Join     time.Duration
}

// scenario is one simulation run.
type scenario struct {
	Name, Title string
	Frameworks  []simFramework
	// Weights are role weights (default 1).
	Weights  map[string]float64
	Duration time.Duration
	// Note explains the outcome; it is printed under the table.
	Note string
}

func task(text string) resources.Quantities { return resources.MustParseQuantities(text) }

var scenarios = []scenario{
	{
		Name:  "join",
		Title: "A alone, then B joins at 60 s and C at 120 s; tasks of <0.5 CPU, 512 MB>",
		Frameworks: []simFramework{
			{ID: "A", Role: "a", Task: task("cpus:0.5;mem:512")},
			{ID: "B", Role: "b", Task: task("cpus:0.5;mem:512"), Join: 60 * time.Second},
			{ID: "C", Role: "c", Task: task("cpus:0.5;mem:512"), Join: 120 * time.Second},
		},
		Duration: 240 * time.Second,
		Note: "Each newcomer takes the slots freed by ending tasks until the shares meet: 1/2 each, then 1/3 each.\n" +
			"Offers are coarse-grained: when several tasks end on one agent in the same second, the framework\n" +
			"first in DRF order is offered all the free slots and takes them all; the shares even out again as\n" +
			"its tasks end.",
	},
	{
		Name:  "uneven",
		Title: "Uneven demands: A <2 CPUs, 1000 MB>, B <1 CPU, 2000 MB> joins at 10 s",
		Frameworks: []simFramework{
			{ID: "A", Role: "a", Task: task("cpus:2;mem:1000")},
			{ID: "B", Role: "b", Task: task("cpus:1;mem:2000"), Join: 10 * time.Second},
		},
		Duration: 150 * time.Second,
		Note: "Each agent runs one task of each framework: A's share is its CPUs (4 of 6), B's its memory\n" +
			"(4000 of 6600 MB).",
	},
	{
		Name:  "waits",
		Title: "B needs 2500 MB: A <2 CPUs, 1000 MB>, B <1 CPU, 2500 MB> joins at 10 s and waits",
		Frameworks: []simFramework{
			{ID: "A", Role: "a", Task: task("cpus:2;mem:1000")},
			{ID: "B", Role: "b", Task: task("cpus:1;mem:2500"), Join: 10 * time.Second},
		},
		Duration: 150 * time.Second,
		Note: "B's 2500 MB fit only on an agent without an A task, so B waits until one of A's tasks ends. Offers\n" +
			"count towards a share while they are outstanding: in a run where B is first offered the other\n" +
			"agent's unusable remainder, B's share passes A's, the agent that has just been freed goes to A,\n" +
			"and B waits again.",
	},
	{
		Name:  "weighted",
		Title: "Weighted: role a has weight 2, role b weight 1; tasks of <0.5 CPU, 512 MB>",
		Frameworks: []simFramework{
			{ID: "A", Role: "a", Task: task("cpus:0.5;mem:512")},
			{ID: "B", Role: "b", Task: task("cpus:0.5;mem:512")},
		},
		Weights:  map[string]float64{"a": 2},
		Duration: 150 * time.Second,
		Note: "Shares are divided by the role's weight: A runs 8 tasks (2/3), B 4 (1/3), and their weighted\n" +
			"shares are equal.",
	},
}

// sample is the state after the allocation run of one second.
type sample struct {
	T time.Duration
	// Tasks and Shares hold the frameworks that have joined: running
	// tasks and dominant share of the cluster.
	Tasks  map[string]int
	Shares map[string]float64
}

// simResult is the outcome of a simulation.
type simResult struct {
	Scenario scenario
	Samples  []sample // one per second, from 0 to Duration
	// FirstTask is when each framework launched its first task (absent if
	// it never did); Declined counts the offers it declined whole.
	FirstTask map[string]time.Duration
	Declined  map[string]int
}

// MeanShares returns each framework's dominant share averaged over the
// samples from `from` on.
func (r simResult) MeanShares(from time.Duration) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, s := range r.Samples {
		if s.T < from {
			continue
		}
		for id, v := range s.Shares {
			sum[id] += v
			n[id]++
		}
	}
	for id := range sum {
		sum[id] /= float64(n[id])
	}
	return sum
}

// Last returns the last sample.
func (r simResult) Last() sample { return r.Samples[len(r.Samples)-1] }

// running is a task in the simulation.
type running struct {
	framework, agent string
	resources        resources.Resources
	ends             time.Duration
}

// simulate runs a scenario second by second. Each second, tasks that ended
// give their resources back, frameworks due to join subscribe, and the
// allocator makes its periodic run over every agent; every framework
// offered resources launches as many tasks as fit and declines the rest
// with Mesos's default refusal of 5 s. Task durations are drawn from
// [20 s, 40 s] with the seed, which also seeds the allocator's shuffles.
func simulate(sc scenario, seed uint64) (simResult, error) {
	now := epoch
	a, err := allocator.New(allocator.Options{Clock: func() time.Time { return now }, Seed: int64(seed)})
	if err != nil {
		return simResult{}, err
	}
	var total resources.Quantities
	for i, text := range clusterAgents {
		r, err := resources.Parse(text, "*")
		if err != nil {
			return simResult{}, err
		}
		id := fmt.Sprintf("agent-%d", i+1)
		if err := a.AddAgent(id, allocator.AgentInfo{Hostname: id}, r, nil); err != nil {
			return simResult{}, err
		}
		total.Add(r.Quantities())
	}
	if len(sc.Weights) > 0 {
		if err := a.UpdateWeights(sc.Weights); err != nil {
			return simResult{}, err
		}
	}
	byID := map[string]simFramework{}
	for _, f := range sc.Frameworks {
		byID[f.ID] = f
	}
	rng := rand.New(rand.NewPCG(seed, 0x647266))
	res := simResult{Scenario: sc, FirstTask: map[string]time.Duration{}, Declined: map[string]int{}}
	var tasks []running
	launched := map[string]int{}
	refuse := &allocator.Filter{Refuse: allocator.DefaultRefuse}

	for t := time.Duration(0); t <= sc.Duration; t += time.Second {
		now = epoch.Add(t)
		kept := tasks[:0]
		for _, tk := range tasks {
			if tk.ends > t {
				kept = append(kept, tk)
				continue
			}
			if err := a.RecoverAllocated(tk.framework, tk.agent, tk.resources, nil); err != nil {
				return res, fmt.Errorf("at %s: %w", t, err)
			}
		}
		tasks = kept
		for _, f := range sc.Frameworks {
			if f.Join == t {
				if err := a.AddFramework(f.ID, allocator.FrameworkInfo{Roles: []string{f.Role}}, nil, allocator.Active); err != nil {
					return res, err
				}
			}
		}
		for _, o := range a.AllocateAll().Offers {
			f := byID[o.FrameworkID]
			var launch offer.Launch
			left := o.Resources
			for {
				id := fmt.Sprintf("%s-%d", f.ID, launched[f.ID]+len(launch.Tasks)+1)
				tk, ok := offer.PickTask(left, id, f.Task, o.Role)
				if !ok {
					break
				}
				launch.Tasks = append(launch.Tasks, tk)
				left = left.Minus(tk.Resources)
			}
			if len(launch.Tasks) == 0 {
				res.Declined[f.ID]++
				if err := a.RecoverResources(f.ID, o.AgentID, o.Resources, refuse); err != nil {
					return res, fmt.Errorf("at %s: %w", t, err)
				}
				continue
			}
			if err := a.Accept(f.ID, o.AgentID, o.Resources, []offer.Operation{launch}, refuse); err != nil {
				return res, fmt.Errorf("at %s: %w", t, err)
			}
			if _, ok := res.FirstTask[f.ID]; !ok {
				res.FirstTask[f.ID] = t
			}
			for _, tk := range launch.Tasks {
				d := time.Duration(20+rng.IntN(21)) * time.Second
				tasks = append(tasks, running{f.ID, o.AgentID, tk.Resources, t + d})
			}
			launched[f.ID] += len(launch.Tasks)
		}

		s := sample{T: t, Tasks: map[string]int{}, Shares: map[string]float64{}}
		for _, fv := range a.Frameworks() {
			s.Shares[fv.ID], _ = fv.Allocated.Quantities().DominantShare(total, resources.NameSet{})
			s.Tasks[fv.ID] = 0
		}
		for _, tk := range tasks {
			s.Tasks[tk.framework]++
		}
		res.Samples = append(res.Samples, s)
	}
	return res, nil
}

// printSim prints the running tasks and dominant shares every `every`
// seconds, and the mean shares over the last minute.
func printSim(w io.Writer, r simResult, every int) {
	sc := r.Scenario
	fmt.Fprintln(w, sc.Title)
	fmt.Fprintln(w, strings.Repeat("=", len(sc.Title)))
	var head strings.Builder
	fmt.Fprintf(&head, "%6s", "time")
	for _, f := range sc.Frameworks {
		fmt.Fprintf(&head, "  %s tasks  share", f.ID)
	}
	fmt.Fprintln(w, head.String())
	for _, s := range r.Samples {
		if s.T%(time.Duration(every)*time.Second) != 0 {
			continue
		}
		fmt.Fprintf(w, "%5ds", int(s.T/time.Second))
		for _, f := range sc.Frameworks {
			if _, ok := s.Shares[f.ID]; !ok {
				fmt.Fprintf(w, "  %7s  %5s", "-", "-")
				continue
			}
			fmt.Fprintf(w, "  %7d  %5.3f", s.Tasks[f.ID], s.Shares[f.ID])
		}
		fmt.Fprintln(w)
	}
	window := time.Minute
	mean := r.MeanShares(sc.Duration - window)
	var parts []string
	for _, f := range sc.Frameworks {
		parts = append(parts, fmt.Sprintf("%s %.3f", f.ID, mean[f.ID]))
	}
	fmt.Fprintf(w, "mean dominant shares over the last %s: %s\n", window, strings.Join(parts, ", "))
	for _, f := range sc.Frameworks {
		if first, ok := r.FirstTask[f.ID]; ok && first > f.Join {
			fmt.Fprintf(w, "%s joined at %s and waited %s for its first task (%d offers declined)\n",
				f.ID, f.Join, first-f.Join, r.Declined[f.ID])
		} else if !ok {
			fmt.Fprintf(w, "%s never launched a task\n", f.ID)
		}
	}
	fmt.Fprintln(w, sc.Note)
	fmt.Fprintln(w)
}
