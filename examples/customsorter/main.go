// Command customsorter plugs a sorter of one's own into the allocator:
// MaxMin (sorter.go), which serves first the role that holds the fewest
// GPUs and orders the rest as DRF does. Its test runs it through the
// sortertest conformance kit, as any Sorter should be.
//
// The same cluster runs twice, with the library's DRF and with MaxMin as
// the role sorter, GPUs excluded from fairness both times. Role speech runs
// CPU jobs on a CPU agent; then two GPU agents join and role vision
// subscribes; both roles run GPU tasks wherever they are offered GPUs. DRF
// does not count GPUs, sees speech as the role holding more, and gives
// both GPU agents to vision. MaxMin gives one to each.
//
//	go run ./examples/customsorter
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "customsorter:", err)
		os.Exit(1)
	}
}

// outcome is, for each role sorter, what each role ended with.
type outcome map[string]map[string]held

// held is what a role ends with: the agents it was offered, in order, what
// it holds, and its share as the role sorter reports it.
type held struct {
	Offers []string
	Holds  resources.Quantities
	Share  float64
}

var sorters = []struct {
	name string
	new  sorter.Factory
}{
	{"DRF (sorter.NewDRF)", func(c sorter.Config) sorter.Sorter { return sorter.NewDRF(c) }},
	{"MaxMin on gpus (examples/customsorter)", NewMaxMin("gpus")},
}

// Tasks: a CPU job, and a GPU task.
var (
	cpuTask = resources.MustParseQuantities("cpus:4;mem:8192")
	gpuTask = resources.MustParseQuantities("cpus:1;mem:2048;gpus:1")
)

func run(w io.Writer) (outcome, error) {
	out := outcome{}
	for _, s := range sorters {
		fmt.Fprintf(w, "Role sorter: %s\n", s.name)
		roles, err := scenario(w, s.new)
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.name, err)
		}
		out[s.name] = roles
		fmt.Fprintln(w)
	}
	return out, nil
}

// scenario runs the cluster with the given role sorter.
func scenario(w io.Writer, roleSorter sorter.Factory) (map[string]held, error) {
	a, err := allocator.New(allocator.Options{Seed: 1, RoleSorter: roleSorter, FairnessExcludedResources: []string{"gpus"}})
	if err != nil {
		return nil, err
	}
	roles := map[string]held{}
	gpus := allocator.FrameworkInfo{Capabilities: offer.GPUResources}
	steps := []struct {
		note   string
		agents map[string]string
		role   string
	}{
		{"a CPU agent; speech subscribes", map[string]string{"cpu-1": "cpus:16;mem:32768"}, "speech"},
		{"two GPU agents join; vision subscribes", map[string]string{"gpu-1": "cpus:4;mem:16384;gpus:2", "gpu-2": "cpus:4;mem:16384;gpus:2"}, "vision"},
	}
	for _, st := range steps {
		fmt.Fprintf(w, "  %s\n", st.note)
		for _, id := range []string{"cpu-1", "gpu-1", "gpu-2"} {
			if text, ok := st.agents[id]; ok {
				if err := a.AddAgent(id, allocator.AgentInfo{}, resources.MustParse(text, "*"), nil); err != nil {
					return nil, err
				}
			}
		}
		gpus.Roles = []string{st.role}
		if err := a.AddFramework(st.role, gpus, nil, allocator.Active); err != nil {
			return nil, err
		}
		if err := allocate(w, a, roles); err != nil {
			return nil, err
		}
	}
	shares := map[string]float64{}
	for _, r := range a.Roles() {
		shares[r.Role] = r.Share
	}
	for _, f := range a.Frameworks() {
		h := roles[f.ID]
		h.Holds, h.Share = f.Allocated.Quantities(), shares[f.ID]
		roles[f.ID] = h
		fmt.Fprintf(w, "  %-6s holds %-38s share %.3f\n", f.ID, h.Holds, h.Share)
	}
	return roles, nil
}

// allocate runs one allocation; each framework runs as many tasks as fit
// in its offers, GPU tasks where there are GPUs, and declines the rest.
func allocate(w io.Writer, a *allocator.Allocator, roles map[string]held) error {
	for _, o := range a.Allocate().Offers {
		task := cpuTask
		if o.Resources.Quantities().Float64("gpus") > 0 {
			task = gpuTask
		}
		var launch offer.Launch
		for left := o.Resources; ; {
			t, ok := offer.PickTask(left, fmt.Sprintf("%s-%d", o.AgentID, len(launch.Tasks)+1), task, o.Role)
			if !ok {
				break
			}
			launch.Tasks = append(launch.Tasks, t)
			left = left.Minus(t.Resources)
		}
		h := roles[o.FrameworkID]
		h.Offers = append(h.Offers, o.AgentID)
		roles[o.FrameworkID] = h
		fmt.Fprintf(w, "  %s is offered %s on %s and runs %d tasks of %s\n", o.FrameworkID, o.Resources.Quantities(), o.AgentID, len(launch.Tasks), task)
		if err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, nil); err != nil {
			return err
		}
	}
	return nil
}
