// Command placement shows two frameworks placing their tasks on the offers
// the allocator makes them, with package offer/placement.
//
// Nine agents of cpus:8;mem:16384 and 100 ports, three in each of the
// zones us-east-1a, us-east-1b and us-east-1c. At 1 s framework "service"
// subscribes and deploys seven replicas of a web server (cpus:2;mem:2048
// and a port each), at most one per agent and two per zone, spread over
// the zones: six run, and the seventh waits, since every zone has its two.
// At 2 s framework "batch" subscribes with 24 tasks of cpus:1;mem:2048,
// packed on as few agents as possible: they fill the agents the replicas
// left half empty, and three agents stay free. Each framework launches what
// it placed, declines the rest for 5 s, and suppresses its offers once
// nothing of its is pending. The program prints what each framework was
// offered and placed, why a task waits, and what runs where.
//
//	go run ./examples/placement
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/offer/placement"
	"github.com/allot-go/allot/resources"
)

var (
	zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	agent = resources.MustParse("cpus:8;mem:16384;ports:[31000-31099]", "*")

	replica = resources.MustParseQuantities("cpus:2;mem:2048")
	job     = resources.MustParseQuantities("cpus:1;mem:2048")

	// The frameworks' policies: filters and rankers for all their tasks.
	policies = map[string]policy{
		"service": {
			filters: []placement.Filter{placement.UniqueHost(), placement.MaxPerValue("zone", 2)},
			rankers: []placement.Ranker{placement.Spread("zone")},
		},
		"batch": {
			rankers: []placement.Ranker{placement.BinPack("cpus", "mem")},
		},
	}

	epoch  = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	refuse = &allocator.Filter{Refuse: 5 * time.Second}
)

type policy struct {
	filters []placement.Filter
	rankers []placement.Ranker
}

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "placement:", err)
		os.Exit(1)
	}
}

// launched is a task that runs.
type launched struct {
	Framework, Task, Agent, Zone string
	Resources                    resources.Resources
	Second                       int
}

// outcome is what the run observed, for tests.
type outcome struct {
	// Tasks are the tasks launched, by agent, framework, then task.
	Tasks []launched
	// Waits counts, per framework, the times a task was left over, and
	// Reasons the reasons given, by filter or resource.
	Waits   map[string]int
	Reasons map[string]int
	// Pending are the tasks left pending at the end.
	Pending []string
}

func run(w io.Writer) (outcome, error) {
	out := outcome{Waits: map[string]int{}, Reasons: map[string]int{}}
	now := epoch
	a, err := allocator.New(allocator.Options{Clock: func() time.Time { return now }, Seed: 1})
	if err != nil {
		return out, err
	}
	// The host keeps each agent's attributes and total, as it gave them to
	// the allocator, for placement.
	agents := map[string]placement.Agent{}
	for i := range 9 {
		id := fmt.Sprintf("agent-%d", i+1)
		info := allocator.AgentInfo{Hostname: id, Attributes: map[string]string{"zone": zones[i/3]}}
		if err := a.AddAgent(id, info, agent, nil); err != nil {
			return out, err
		}
		agents[id] = placement.Agent{Attributes: placement.Attributes(info.Attributes), Total: agent.Quantities()}
	}
	pending := map[string][]placement.Task{}
	for i := range 7 {
		pending["service"] = append(pending["service"], placement.Task{
			ID: fmt.Sprintf("web-%d", i+1), Group: "web", Resources: replica, Ports: placement.Ports{Count: 1},
		})
	}
	for i := range 24 {
		pending["batch"] = append(pending["batch"], placement.Task{
			ID: fmt.Sprintf("job-%02d", i+1), Group: "etl", Resources: job,
		})
	}
	subscribe := map[int]string{1: "service", 2: "batch"}
	running := map[string][]placement.Running{}

	for second := 1; second <= 3; second++ {
		now = epoch.Add(time.Duration(second) * time.Second)
		if fw, ok := subscribe[second]; ok {
			if err := a.AddFramework(fw, allocator.FrameworkInfo{Roles: []string{fw}}, nil, allocator.Active); err != nil {
				return out, err
			}
			fmt.Fprintf(w, "%d s  %s subscribes with %d tasks\n", second, fw, len(pending[fw]))
		}
		offers := map[string][]offer.Offer{}
		for _, o := range a.AllocateAll().Offers {
			offers[o.FrameworkID] = append(offers[o.FrameworkID], o)
		}
		for _, fw := range []string{"batch", "service"} {
			if len(offers[fw]) == 0 {
				continue
			}
			res, err := placement.Place(placement.Input{
				Tasks:   pending[fw],
				Offers:  offers[fw],
				Agents:  agents,
				Running: running[fw],
				Filters: policies[fw].filters,
				Rankers: policies[fw].rankers,
			})
			if err != nil {
				return out, err
			}
			for _, acc := range res.Launches {
				if err := a.Accept(fw, acc.Offer.AgentID, acc.Offer.Resources, acc.Operations(), refuse); err != nil {
					return out, err
				}
			}
			for _, o := range res.Unused {
				if err := a.RecoverResources(fw, o.AgentID, o.Resources, refuse); err != nil {
					return out, err
				}
			}
			var placed []string
			for _, as := range res.Assignments {
				group := taskGroup(pending[fw], as.TaskID)
				running[fw] = append(running[fw], placement.Running{Group: group, AgentID: as.AgentID})
				out.Tasks = append(out.Tasks, launched{fw, as.TaskID, as.AgentID, agents[as.AgentID].Attributes["zone"], as.Resources, second})
				placed = append(placed, as.TaskID+"@"+as.AgentID)
			}
			fmt.Fprintf(w, "%d s  %s is offered %d agents and launches %d tasks: %s\n", second, fw, len(offers[fw]), len(placed), summary(placed))
			var left []placement.Task
			for _, u := range res.Unassigned {
				left = append(left, pending[fw][slices.IndexFunc(pending[fw], func(t placement.Task) bool { return t.ID == u.TaskID })])
				out.Waits[fw]++
				why := map[string]int{}
				for _, r := range u.Reasons {
					key := r.Filter
					if r.Resource != "" {
						key = "no " + r.Resource
					}
					why[key]++
					out.Reasons[key]++
				}
				fmt.Fprintf(w, "     %s waits: %s\n", u.TaskID, describeWhy(why))
			}
			pending[fw] = left
			if len(left) == 0 {
				if err := a.SuppressOffers(fw); err != nil {
					return out, err
				}
			}
		}
	}
	slices.SortFunc(out.Tasks, func(x, y launched) int {
		return strings.Compare(x.Agent+" "+x.Framework+" "+x.Task, y.Agent+" "+y.Framework+" "+y.Task)
	})
	fmt.Fprintf(w, "\nWhat runs where after 3 s:\n\n")
	printTable(w, a, agents, out.Tasks)
	for _, fw := range []string{"batch", "service"} {
		for _, t := range pending[fw] {
			out.Pending = append(out.Pending, t.ID)
			fmt.Fprintf(w, "%s of %s is pending\n", t.ID, fw)
		}
	}
	return out, nil
}

func taskGroup(tasks []placement.Task, id string) string {
	for _, t := range tasks {
		if t.ID == id {
			return t.Group
		}
	}
	return ""
}

// summary shortens a long list of placements.
func summary(placed []string) string {
	if len(placed) == 0 {
		return "-"
	}
	if len(placed) > 6 {
		return strings.Join(placed[:3], " ") + fmt.Sprintf(" ... (%d more)", len(placed)-3)
	}
	return strings.Join(placed, " ")
}

// describeWhy prints reason counts in name order: "2 offers: unique host".
func describeWhy(why map[string]int) string {
	keys := make([]string, 0, len(why))
	for k := range why {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d offers: %s", why[k], k))
	}
	return strings.Join(parts, "; ")
}

// printTable prints what runs where: one line per agent and framework,
// with the tasks and the sum of their resources, and a line for each agent
// where nothing runs, with what it has free.
func printTable(w io.Writer, a *allocator.Allocator, agents map[string]placement.Agent, tasks []launched) {
	fmt.Fprintf(w, "%-8s %-10s %-7s %-26s %s\n", "agent", "zone", "fw", "tasks", "resources")
	for _, v := range a.Agents() {
		zone := agents[v.ID].Attributes["zone"]
		var on []launched
		for _, t := range tasks {
			if t.Agent == v.ID {
				on = append(on, t)
			}
		}
		if len(on) == 0 {
			fmt.Fprintf(w, "%-8s %-10s %-7s %-26s %s\n", v.ID, zone, "-", "-", "free: "+v.Available.String())
			continue
		}
		for i := 0; i < len(on); {
			j := i
			var names []string
			var sum resources.Resources
			for ; j < len(on) && on[j].Framework == on[i].Framework; j++ {
				names = append(names, on[j].Task)
				sum.Add(on[j].Resources.Unallocate())
			}
			list := strings.Join(names, " ")
			if len(names) > 3 {
				list = fmt.Sprintf("%s .. %s (%d)", names[0], names[len(names)-1], len(names))
			}
			fmt.Fprintf(w, "%-8s %-10s %-7s %-26s %s\n", v.ID, zone, on[i].Framework, list, sum)
			i = j
		}
	}
}
