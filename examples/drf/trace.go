package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// A trace drives the real allocator on one agent in the model DRF theory
// assumes: every allocation run offers the agent's free resources to the
// framework with the lowest dominant share; that framework launches one task
// if it fits and declines the rest without a filter. A framework whose task
// does not fit declines the whole offer with Mesos's default refusal (5 s),
// so the next run offers the remainder to the other framework; the trace
// ends when a run makes no offer. The clock moves one second per run.
//
// Tie rules: the allocator orders roles by dominant share, then by how many
// offers each has been charged with, then by role name. Each framework has
// its own role, "a" for A and "b" for B, so at the start (both 0, no offers
// yet) A goes first, as in the blog ("A starts first").
type trace struct {
	Title string
	// Agent is the agent's total; mem in MB.
	Agent      string
	Frameworks []demand
	// Note is printed under the table.
	Note string
}

// demand is a framework that runs tasks of one size.
type demand struct {
	ID, Role string
	Task     resources.Quantities
}

// traceStep is one allocation run of a trace.
type traceStep struct {
	N int
	// To is the framework offered the agent's free resources, Offered what
	// they were.
	To      string
	Offered resources.Quantities
	// Launched: To launched a task; otherwise it declined.
	Launched bool
	// Tasks and Shares are every framework's running tasks and dominant
	// share after the step; Free is what the agent has left.
	Tasks  map[string]int
	Shares map[string]float64
	Free   resources.Quantities
}

var traces = []trace{
	{
		Title: "The DRF paper's example: 9 CPUs, 18 GB; A runs tasks of <1 CPU, 4 GB>, B of <3 CPUs, 1 GB>",
		Agent: "cpus:9;mem:18432",
		Frameworks: []demand{
			{ID: "A", Role: "a", Task: resources.MustParseQuantities("cpus:1;mem:4096")},
			{ID: "B", Role: "b", Task: resources.MustParseQuantities("cpus:3;mem:1024")},
		},
		Note: "A ends with 3 tasks <3 CPUs, 12 GB> and B with 2 tasks <6 CPUs, 2 GB>: both at a dominant share of 2/3,\n" +
			"as in the paper. At step 6 the shares tie; B has been offered fewer times, so it is offered first.",
	},
	{
		Title: "The blog's trace: 10 CPUs, 20 GB; A runs tasks of <3 CPUs, 2 GB>, B of <1 CPU, 5 GB>",
		Agent: "cpus:10;mem:20480",
		Frameworks: []demand{
			{ID: "A", Role: "a", Task: resources.MustParseQuantities("cpus:3;mem:2048")},
			{ID: "B", Role: "b", Task: resources.MustParseQuantities("cpus:1;mem:5120")},
		},
		Note: "Offers go A, B, B, A, B, then the unusable <1 CPU, 1 GB> to A and to B: A ends with 2 tasks (0.60),\n" +
			"B with 3 (0.75); 90% of the CPUs and 95% of the memory are used.",
	},
}

// runTrace runs a trace to its end.
func runTrace(tr trace) ([]traceStep, error) {
	now := epoch
	a, err := allocator.New(allocator.Options{Clock: func() time.Time { return now }})
	if err != nil {
		return nil, err
	}
	total, err := resources.Parse(tr.Agent, "*")
	if err != nil {
		return nil, err
	}
	if err := a.AddAgent("agent", allocator.AgentInfo{Hostname: "agent"}, total, nil); err != nil {
		return nil, err
	}
	byID := map[string]demand{}
	for _, f := range tr.Frameworks {
		byID[f.ID] = f
		if err := a.AddFramework(f.ID, allocator.FrameworkInfo{Roles: []string{f.Role}}, nil, allocator.Active); err != nil {
			return nil, err
		}
	}
	tasks := map[string]int{}
	var steps []traceStep
	for n := 1; ; n++ {
		if n > 100 {
			return steps, fmt.Errorf("no end after %d steps", n-1)
		}
		offers := a.AllocateAll().Offers
		if len(offers) == 0 {
			return steps, nil
		}
		if len(offers) > 1 {
			return steps, fmt.Errorf("step %d: %d offers of one agent", n, len(offers))
		}
		o := offers[0]
		f := byID[o.FrameworkID]
		step := traceStep{N: n, To: f.ID, Offered: o.Resources.Quantities()}
		if task, ok := offer.PickTask(o.Resources, fmt.Sprintf("%s-%d", f.ID, tasks[f.ID]+1), f.Task, o.Role); ok {
			launch := offer.Launch{Tasks: []offer.Task{task}}
			if err := a.Accept(f.ID, o.AgentID, o.Resources, []offer.Operation{launch}, nil); err != nil {
				return steps, fmt.Errorf("step %d: %w", n, err)
			}
			tasks[f.ID]++
			step.Launched = true
		} else {
			refuse := &allocator.Filter{Refuse: allocator.DefaultRefuse}
			if err := a.RecoverResources(f.ID, o.AgentID, o.Resources, refuse); err != nil {
				return steps, fmt.Errorf("step %d: %w", n, err)
			}
		}
		step.Tasks, step.Shares = map[string]int{}, map[string]float64{}
		for _, fv := range a.Frameworks() {
			step.Tasks[fv.ID] = tasks[fv.ID]
			step.Shares[fv.ID], _ = fv.Allocated.Quantities().DominantShare(total.Quantities(), resources.NameSet{})
		}
		agent, _ := a.Agent("agent")
		step.Free = agent.Available.Quantities()
		steps = append(steps, step)
		now = now.Add(time.Second)
	}
}

// printTrace prints a trace as a table.
func printTrace(w io.Writer, tr trace, steps []traceStep) {
	fmt.Fprintln(w, tr.Title)
	fmt.Fprintln(w, strings.Repeat("=", len(tr.Title)))
	var head strings.Builder
	fmt.Fprintf(&head, "%4s  %-16s %-3s %-9s", "step", "offered", "to", "action")
	for _, f := range tr.Frameworks {
		fmt.Fprintf(&head, "  %s tasks  share", f.ID)
	}
	fmt.Fprintf(&head, "  %s", "free after")
	fmt.Fprintln(w, head.String())
	for _, s := range steps {
		action := "declines"
		if s.Launched {
			action = "launches"
		}
		fmt.Fprintf(w, "%4d  %-16s %-3s %-9s", s.N, cpuMem(s.Offered), s.To, action)
		for _, f := range tr.Frameworks {
			fmt.Fprintf(w, "  %7d  %5.3f", s.Tasks[f.ID], s.Shares[f.ID])
		}
		fmt.Fprintf(w, "  %s\n", cpuMem(s.Free))
	}
	fmt.Fprintln(w, tr.Note)
	fmt.Fprintln(w)
}

// cpuMem prints cpus and mem (MB) as <n CPU, m GB>.
func cpuMem(q resources.Quantities) string {
	return fmt.Sprintf("<%g CPU, %g GB>", q.Float64("cpus"), q.Float64("mem")/1024)
}
