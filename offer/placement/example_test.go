package placement_test

import (
	"fmt"
	"strings"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/offer/placement"
	"github.com/allot-go/allot/resources"
)

// offersIn returns one offer to "web" per agent, each of the resources in
// text, and the agents' zones.
func offersIn(text string, zones ...string) ([]offer.Offer, map[string]placement.Agent) {
	var offers []offer.Offer
	agents := map[string]placement.Agent{}
	for i, zone := range zones {
		agent := fmt.Sprintf("agent-%d", i+1)
		offers = append(offers, offer.Offer{
			ID: fmt.Sprintf("o%d", i+1), FrameworkID: "web", AgentID: agent, Role: "web",
			Resources: resources.MustParse(text, "*").Allocate("web"),
		})
		agents[agent] = placement.Agent{Attributes: placement.Attributes{"zone": zone}}
	}
	return offers, agents
}

// Four replicas of a service: at most one per agent, at most two per zone,
// spread over the zones; one already runs in zone b.
func ExamplePlace() {
	offers, agents := offersIn("cpus:4;mem:8192;ports:[31000-31009]", "a", "a", "b", "c")
	agents["agent-9"] = placement.Agent{Attributes: placement.Attributes{"zone": "b"}}
	var tasks []placement.Task
	for i := 1; i <= 4; i++ {
		tasks = append(tasks, placement.Task{
			ID:          fmt.Sprintf("api-%d", i),
			Group:       "api",
			Resources:   resources.MustParseQuantities("cpus:1;mem:1024"),
			Ports:       placement.Ports{Count: 1},
			Constraints: []placement.Filter{placement.UniqueHost(), placement.MaxPerValue("zone", 2)},
			Preferences: []placement.Ranker{placement.Spread("zone")},
		})
	}
	res, err := placement.Place(placement.Input{
		Tasks:   tasks,
		Offers:  offers,
		Agents:  agents,
		Running: []placement.Running{{Group: "api", AgentID: "agent-9"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res)
	// Output:
	// api-1 -> o1 on agent-1 (score 1): cpus(allocated: web):1; mem(allocated: web):1024; ports(allocated: web):[31000-31000]
	// api-2 -> o4 on agent-4 (score 1): cpus(allocated: web):1; mem(allocated: web):1024; ports(allocated: web):[31000-31000]
	// api-3 -> o2 on agent-2 (score 0.5): cpus(allocated: web):1; mem(allocated: web):1024; ports(allocated: web):[31000-31000]
	// api-4 -> o3 on agent-3 (score 0.5): cpus(allocated: web):1; mem(allocated: web):1024; ports(allocated: web):[31000-31000]
}

// Batch tasks packed on as few agents as possible: the fullest agent
// that fits takes the next task.
func ExampleBinPack() {
	offers, _ := offersIn("cpus:4;mem:4096", "a", "a", "a")
	offers[1].Resources = resources.MustParse("cpus:2;mem:4096", "*").Allocate("web")
	var tasks []placement.Task
	for i := 1; i <= 4; i++ {
		tasks = append(tasks, placement.Task{ID: fmt.Sprintf("job-%d", i), Resources: resources.MustParseQuantities("cpus:1;mem:512")})
	}
	res, _ := placement.Place(placement.Input{
		Tasks:   tasks,
		Offers:  offers,
		Rankers: []placement.Ranker{placement.BinPack("cpus", "mem")},
	})
	for _, acc := range res.Launches {
		fmt.Println(acc.Offer.AgentID, acc.Launch)
	}
	for _, o := range res.Unused {
		fmt.Println(o.AgentID, "unused")
	}
	// Output:
	// agent-1 LAUNCH [job-3: cpus(allocated: web):1; mem(allocated: web):512] [job-4: cpus(allocated: web):1; mem(allocated: web):512]
	// agent-2 LAUNCH [job-1: cpus(allocated: web):1; mem(allocated: web):512] [job-2: cpus(allocated: web):1; mem(allocated: web):512]
	// agent-3 unused
}

// A custom filter and a custom ranker: tasks of group "gpu" only on
// agents with a GPU, and the others preferring agents without one, where
// more memory is left.
func ExamplePredicate() {
	offers, agents := offersIn("cpus:4;mem:4096", "a", "a", "a")
	offers[2].Resources = resources.MustParse("cpus:4;mem:4096;gpus:1", "*").Allocate("web")
	gpuOnly := placement.Predicate("gpu tasks on gpu agents", func(t placement.Task, c placement.Candidate) bool {
		return t.Group != "gpu" || c.Offered("gpus") > 0
	})
	spareGPUs := placement.Score("spare gpus", func(t placement.Task, c placement.Candidate) float64 {
		if c.Offered("gpus") > 0 {
			return 0
		}
		return c.Left("mem") / c.Offered("mem")
	})
	res, _ := placement.Place(placement.Input{
		Tasks: []placement.Task{
			{ID: "train", Group: "gpu", Resources: resources.MustParseQuantities("cpus:1;mem:1024;gpus:1")},
			{ID: "web-1", Resources: resources.MustParseQuantities("cpus:1;mem:3072")},
			{ID: "web-2", Resources: resources.MustParseQuantities("cpus:1;mem:1024")},
		},
		Offers:  offers,
		Agents:  agents,
		Filters: []placement.Filter{gpuOnly},
		Rankers: []placement.Ranker{spareGPUs},
	})
	for _, a := range res.Assignments {
		fmt.Println(a.TaskID, "on", a.AgentID)
	}
	// Output:
	// train on agent-3
	// web-1 on agent-1
	// web-2 on agent-2
}

// A task that fits nowhere says why, offer by offer.
func ExampleUnassigned() {
	offers, agents := offersIn("cpus:2;mem:2048", "a", "b", "c")
	offers[2].Resources = resources.MustParse("cpus:4;mem:8192", "*").Allocate("web")
	res, _ := placement.Place(placement.Input{
		Tasks: []placement.Task{{
			ID: "db", Resources: resources.MustParseQuantities("cpus:2;mem:4096"),
			Constraints: []placement.Filter{placement.AttributeIn("zone", "a", "b")},
		}},
		Offers: offers,
		Agents: agents,
	})
	for _, u := range res.Unassigned {
		for _, r := range u.Reasons {
			fmt.Println(u.TaskID+":", r)
		}
	}
	// Output:
	// db: o1 on agent-1: does not fit: mem: wants 4096, 2048 left
	// db: o2 on agent-2: does not fit: mem: wants 4096, 2048 left
	// db: o3 on agent-3: zone in {"a","b"}: zone is "c"
}

// The operations of an OfferLaunch go to the allocator's Accept as they are.
func ExampleAccept_Operations() {
	offers, _ := offersIn("cpus:4;cpus(web):1;mem:4096", "a")
	res, _ := placement.Place(placement.Input{
		Tasks:  []placement.Task{{ID: "t1", Resources: resources.MustParseQuantities("cpus:2;mem:1024")}},
		Offers: offers,
	})
	for _, acc := range res.Launches {
		var kinds []string
		for _, op := range acc.Operations() {
			kinds = append(kinds, op.String())
		}
		fmt.Println(acc.Offer.ID, strings.Join(kinds, ", "))
	}
	// Output:
	// o1 LAUNCH [t1: cpus(allocated: web)(web):1; cpus(allocated: web):1; mem(allocated: web):1024]
}
