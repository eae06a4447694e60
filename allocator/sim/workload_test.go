package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
	"github.com/allot-go/allot/offer/placement"
	"github.com/allot-go/allot/resources"
)

func TestWorkloadErrors(t *testing.T) {
	agents := []sim.AgentGroup{{Name: "a", Count: 2, Resources: "cpus:4;mem:4096"}}
	task := sim.Task{Framework: "f", ID: "t", Resources: qty("cpus:1"), Duration: time.Second}
	with := func(change func(t *sim.Task)) []sim.Task {
		tk := task
		change(&tk)
		return []sim.Task{tk}
	}
	gen := sim.Generator{Framework: "f", Count: 1, Arrival: sim.AllAtOnce{}, Size: sim.FixedSize("cpus:1"), Duration: sim.Fixed(1)}
	withGen := func(change func(g *sim.Generator)) []sim.Generator {
		g := gen
		change(&g)
		return []sim.Generator{g}
	}
	cases := []struct {
		name string
		w    sim.Workload
		msg  string
	}{
		{"NoAgents", sim.Workload{}, "no agents"},
		{"AgentCount", sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Resources: "cpus:1"}}}, `agent group "a": count 0`},
		{"AgentName", sim.Workload{Agents: []sim.AgentGroup{{Name: "a/b", Count: 1, Resources: "cpus:1"}}}, `agent group name "a/b"`},
		{"AgentResources", sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:x"}}}, `agent group "a": resources`},
		{"AgentNoScalar", sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "ports:[1-2]"}}}, "hold no scalar"},
		{"AgentTwice", sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:1"}, {Name: "a", Count: 1, Resources: "cpus:1"}}}, `agent "a-1" named twice`},
		{"TaskNoResources", sim.Workload{Agents: agents, Tasks: with(func(t *sim.Task) { t.Resources = resources.Quantities{} })}, `task "t" of framework "f": no resources`},
		{"TaskDuration", sim.Workload{Agents: agents, Tasks: with(func(t *sim.Task) { t.Duration = 0 })}, "duration 0s"},
		{"TaskSubmit", sim.Workload{Agents: agents, Tasks: with(func(t *sim.Task) { t.Submit = -time.Second })}, "submitted at -1s"},
		{"TaskID", sim.Workload{Agents: agents, Tasks: with(func(t *sim.Task) { t.ID = "" })}, "want a non-empty id"},
		{"TaskFramework", sim.Workload{Agents: agents, Tasks: with(func(t *sim.Task) { t.Framework = "a\nb" })}, `framework "a\nb"`},
		{"TaskRole", sim.Workload{Agents: agents, Tasks: with(func(t *sim.Task) { t.Role = "a//b" })}, "invalid role"},
		{"TaskGroup", sim.Workload{Agents: agents, Tasks: with(func(t *sim.Task) { t.DifferentMachines = true })}, "different machines without a group"},
		{"TaskTwice", sim.Workload{Agents: agents, Tasks: []sim.Task{task, task}}, `task "t" of framework "f" submitted twice`},
		{"TaskRoleNotSubscribed", sim.Workload{Agents: agents, Frameworks: []sim.Framework{{ID: "f", Roles: []string{"x"}}}, Tasks: with(func(t *sim.Task) { t.Role = "y" })}, `role "y" is not among framework "f"'s roles`},
		{"FrameworkTwice", sim.Workload{Agents: agents, Frameworks: []sim.Framework{{ID: "f"}, {ID: "f"}}}, `framework "f" declared twice`},
		{"FrameworkRefuse", sim.Workload{Agents: agents, Frameworks: []sim.Framework{{ID: "f", Refuse: -1}}}, "refuse -1ns"},
		{"FrameworkRole", sim.Workload{Agents: agents, Frameworks: []sim.Framework{{ID: "f", Roles: []string{"-x"}}}}, "starts with '-'"},
		{"RoleTwice", sim.Workload{Agents: agents, Roles: []sim.Role{{Name: "r"}, {Name: "r"}}}, `role "r" declared twice`},
		{"RoleWeight", sim.Workload{Agents: agents, Roles: []sim.Role{{Name: "r", Weight: -2}}}, "weight -2"},
		{"RoleQuota", sim.Workload{Agents: agents, Roles: []sim.Role{{Name: "r", Quota: allocator.Quota{Guarantees: qty("cpus:2"), Limits: resources.MustParseLimits("cpus:1")}}}}, `role "r"`},
		{"EventAgent", sim.Workload{Agents: agents, Events: []sim.Event{{Kind: sim.AgentFailure, Agent: "z"}}}, `event 0 (failure of "z" at 0s): unknown agent`},
		{"EventKind", sim.Workload{Agents: agents, Events: []sim.Event{{Agent: "a-1"}}}, "unknown kind 0"},
		{"EventWindow", sim.Workload{Agents: agents, Events: []sim.Event{{Kind: sim.AgentMaintenance, Agent: "a-1"}}}, "needs a length"},
		{"EventTime", sim.Workload{Agents: agents, Events: []sim.Event{{Kind: sim.AgentFailure, Agent: "a-1", For: -1}}}, "times must be"},
		{"GeneratorNoArrival", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Arrival = nil })}, "generator 0 (framework \"f\"): no arrival process"},
		{"GeneratorRate", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Arrival = sim.Poisson{} })}, "poisson rate 0"},
		{"GeneratorBursts", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Arrival = sim.Bursts{Size: 1} })}, "bursts of 1 every 0s"},
		{"GeneratorSpread", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) {
			g.Arrival = sim.Bursts{Size: 1, Every: time.Second, Spread: math.MaxInt64}
		})}, "times from 0 to"},
		{"GeneratorCount", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Count = 1 << 30 })}, "count 1073741824: want 0 to 10000000"},
		{"GeneratorNaN", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Duration = sim.Uniform{Min: math.NaN()} })}, "duration NaN s"},
		{"GeneratorScaleNaN", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Size.Scale = sim.Fixed(math.NaN()) })}, "no resources"},
		{"GeneratorWeights", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Size.Weights = []float64{1, 2} })}, "2 weights for 1 shapes"},
		{"GeneratorDuration", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Duration = sim.Fixed(-1) })}, "task 1: duration -1 s"},
		{"GeneratorChoice", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Duration = sim.Choice{} })}, "choice of 0 values"},
		{"GeneratorNoFramework", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Framework = "" })}, "no framework"},
		{"GeneratorNoShape", sim.Workload{Agents: agents, Generators: withGen(func(g *sim.Generator) { g.Size = sim.Size{} })}, "no task shape"},
		{"PlacementFilter", sim.Workload{Agents: agents, Frameworks: []sim.Framework{{ID: "f", Filters: []placement.Filter{{}}}}, Tasks: []sim.Task{task}}, `framework "f"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.Run(tc.w, sim.Config{Name: "drf"}, sim.RunOptions{Intervals: 2})
			require.ErrorIs(t, err, sim.ErrInvalidWorkload)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// Frameworks and roles that tasks name are made with the defaults; zones
// go round the agents; an empty role is the framework's first; a
// framework's rankers and filters apply to its tasks.
func TestWorkloadDefaults(t *testing.T) {
	w := sim.Workload{
		Agents: []sim.AgentGroup{{Name: "a", Count: 3, Resources: "cpus:1;mem:1024", Zones: []string{"z1", "z2"}, Attributes: map[string]string{"rack": "r1"}}},
		Roles:  []sim.Role{{Name: "gold", Weight: 3}},
		Frameworks: []sim.Framework{{ID: "spread", Roles: []string{"gold"},
			Rankers: []placement.Ranker{placement.Spread("zone")}, Filters: []placement.Filter{placement.AttributeEquals("rack", "r1")}}},
		Tasks: []sim.Task{
			{Framework: "spread", ID: "s1", Resources: qty("cpus:0.5"), Duration: time.Hour, Group: "g"},
			{Framework: "spread", ID: "s2", Resources: qty("cpus:0.5"), Duration: time.Hour, Group: "g"},
			{Framework: "spread", ID: "s3", Resources: qty("cpus:1"), Duration: time.Hour, Group: "h"},
			{Framework: "spread", ID: "s4", Resources: qty("cpus:1"), Duration: time.Hour, Group: "h"},
			{Framework: "plain", ID: "p1", Submit: 5 * time.Second, Resources: qty("mem:100"), Duration: time.Hour},
		},
	}
	res, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Intervals: 6})
	require.NoError(t, err)
	require.Equal(t, []string{"*", "gold"}, res.Roles) // "plain" names no role: "*"
	require.Equal(t, []float64{1, 3}, res.Weights)
	// s1 on a-1 (z1), s2 on a-2 (z2): spread over the zones rather than
	// packed on a-1, so s3 takes a-3 and s4 finds no whole CPU.
	s := res.Samples[0]
	require.Equal(t, 3, s.Running)
	require.Equal(t, []int{0, 1}, s.Pending)
	require.InDelta(t, 2.0/3, s.Utilisation[0], 1e-15)
	require.InDelta(t, 2.0/3, s.Share[1], 1e-15)
	require.InDelta(t, 2.0/9, s.WeightedShare[1], 1e-15)
	last := res.Samples[5]
	require.Equal(t, 4, last.Running)
	require.Equal(t, []int{0, 1}, last.Pending)
	require.InDelta(t, 100.0/3072, last.Share[0], 1e-15)
}

// Tasks that want different machines are never placed together, counting
// the group's running tasks from earlier intervals.
func TestWorkloadDifferentMachines(t *testing.T) {
	var ts []sim.Task
	for i, at := range []time.Duration{0, 0, time.Second, 2 * time.Second} {
		ts = append(ts, sim.Task{Framework: "f", ID: string(rune('a' + i)), Submit: at, Resources: qty("cpus:1"), Duration: time.Hour, Group: "job", DifferentMachines: true})
	}
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 3, Resources: "cpus:4"}}, Tasks: ts}
	res, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Intervals: 20})
	require.NoError(t, err)
	require.Equal(t, 3, res.Summary.Launched) // the fourth has no machine left
	require.Equal(t, 1, res.Samples[19].Pending[0])
	require.Equal(t, 3, res.Samples[19].Running)
}
