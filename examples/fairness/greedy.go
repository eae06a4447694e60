package main

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The greedy cluster: equal agents, and users (a role and a framework
// each) that want to run as many tasks of one shape as they can get.
const (
	greedyAgents = 6
	greedyAgent  = "cpus:16;mem:32768"
	// greedyRuns is how many runs a play makes: the frameworks have
	// launched all they ever will well before (main_test.go checks).
	greedyRuns = 20
	// wanted is how many tasks each user has pending at the start: more
	// than the cluster holds.
	wanted = 1000
)

// user is one user of the greedy cluster: its name, also its role's and
// its framework's, and what each of its tasks needs.
type user struct {
	Name string
	Task resources.Quantities
}

// greedyUsers are the users, tasks heavy on memory, heavy on CPUs, even,
// and small. The first two are the DRF paper's.
var greedyUsers = []user{
	{"cache", resources.MustParseQuantities("cpus:1;mem:4096")},
	{"render", resources.MustParseQuantities("cpus:3;mem:1024")},
	{"web", resources.MustParseQuantities("cpus:2;mem:2048")},
	{"batch", resources.MustParseQuantities("cpus:1;mem:1024")},
}

// progressiveFilling is DRF's answer for the greedy cluster, worked out
// without the allocator: the DRF paper's progressive filling, one task at
// a time, on agents rather than one pool. Each step gives one task to the
// user of lowest dominant share (over the cluster's total; ties to the
// user with fewer tasks, then to the first in the list) among the users
// whose task still fits on some agent, and places it on the first agent
// where it fits; it stops when no user's task fits anywhere. On equal
// agents which agent takes a task changes nothing but where the room is
// left. It returns each user's tasks.
func progressiveFilling(users []user, agents int, agent resources.Quantities) []int {
	free := make([]resources.Quantities, agents)
	var total resources.Quantities
	for i := range free {
		free[i] = agent.Clone()
		total.Add(agent)
	}
	tasks := make([]int, len(users))
	used := make([]resources.Quantities, len(users))
	for {
		next, on := -1, -1
		var lowest float64
		for u := range users {
			fits := -1
			for i := range free {
				if free[i].Contains(users[u].Task) {
					fits = i
					break
				}
			}
			if fits < 0 {
				continue
			}
			share, _ := used[u].DominantShare(total, resources.NameSet{})
			if next < 0 || share < lowest || share == lowest && tasks[u] < tasks[next] {
				next, on, lowest = u, fits, share
			}
		}
		if next < 0 {
			return tasks
		}
		tasks[next]++
		used[next].Add(users[next].Task)
		free[on].Subtract(users[next].Task)
	}
}

// playGreedy runs the greedy cluster on an allocator with opts for runs
// runs, a second apart, and returns each user's tasks. Every framework
// launches as many of its tasks as fit in each offer it gets and declines
// the rest for 5 s. With demand, each framework states its pending tasks
// (UpdateDemand) when it subscribes and again after it has answered each
// run's offers.
func playGreedy(opts allocator.Options, demand bool, runs int) ([]int, error) {
	clock := allocator.NewManualClock(start)
	opts.Clock = clock.Now
	a, err := allocator.New(opts)
	if err != nil {
		return nil, err
	}
	for i := 1; i <= greedyAgents; i++ {
		if err := a.AddAgent(fmt.Sprintf("agent-%d", i), allocator.AgentInfo{}, resources.MustParse(greedyAgent, "*"), nil); err != nil {
			return nil, err
		}
	}
	tasks := make([]int, len(greedyUsers))
	// state states user u's demand, with demand on: the tasks it wants
	// and has not launched.
	state := func(u int) error {
		if !demand {
			return nil
		}
		return a.UpdateDemand(greedyUsers[u].Name, greedyUsers[u].Name, []allocator.Pending{{Resources: greedyUsers[u].Task, Count: wanted - tasks[u]}})
	}
	index := map[string]int{}
	for u, us := range greedyUsers {
		index[us.Name] = u
		if err := a.AddFramework(us.Name, allocator.FrameworkInfo{Roles: []string{us.Name}}, nil, allocator.Active); err != nil {
			return nil, err
		}
		if err := state(u); err != nil {
			return nil, err
		}
	}
	decline := &allocator.Filter{Refuse: 5 * time.Second}
	for range runs {
		for _, o := range a.AllocateAll().Offers {
			u := index[o.FrameworkID]
			var launch offer.Launch
			for left := o.Resources; ; {
				task, ok := offer.PickTask(left, fmt.Sprintf("%s-%d", o.FrameworkID, tasks[u]+len(launch.Tasks)), greedyUsers[u].Task, o.Role)
				if !ok {
					break
				}
				launch.Tasks, left = append(launch.Tasks, task), left.Minus(task.Resources)
			}
			var ops []offer.Operation
			if len(launch.Tasks) > 0 {
				ops = append(ops, launch)
			}
			if err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, ops, decline); err != nil {
				return nil, err
			}
			tasks[u] += len(launch.Tasks)
		}
		for u := range greedyUsers {
			if err := state(u); err != nil {
				return nil, err
			}
		}
		clock.Advance(time.Second)
	}
	return tasks, nil
}

// distance returns how many tasks each user of got is away from want.
func distance(got, want []int) []int {
	d := make([]int, len(got))
	for i := range got {
		d[i] = got[i] - want[i]
		if d[i] < 0 {
			d[i] = -d[i]
		}
	}
	return d
}
