package examples_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/offer/placement"
	"github.com/allot-go/allot/resources"
)

// The host loop of the README, line for line (TestREADMEHostLoop checks).
func Example_hostLoop() {
	a, _ := allocator.New(allocator.Options{Seed: 1}) // a nil Clock is the system clock
	check := func(err error) {
		if err != nil {
			fmt.Println("error:", err) // a host logs it, or refuses the request that caused it
		}
	}
	for _, id := range []string{"agent-1", "agent-2"} {
		check(a.AddAgent(id, allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:8192", "*"), nil))
	}
	pending := map[string][]placement.Task{} // each framework's tasks waiting for offers
	// What a framework waits for, as UpdateDemand takes it: its pending
	// tasks, those that need the same resources counted together.
	shapes := func(tasks []placement.Task) []allocator.Pending {
		var out []allocator.Pending
		for _, t := range tasks {
			if i := slices.IndexFunc(out, func(p allocator.Pending) bool { return p.Resources.Equal(t.Resources) }); i >= 0 {
				out[i].Count++
			} else {
				out = append(out, allocator.Pending{Resources: t.Resources, Count: 1})
			}
		}
		return out
	}
	for _, fw := range []string{"batch", "web"} {
		check(a.AddFramework(fw, allocator.FrameworkInfo{Roles: []string{fw}}, nil, allocator.Active))
		for i := range 5 {
			pending[fw] = append(pending[fw], placement.Task{ID: fmt.Sprintf("%s-%d", fw, i), Resources: resources.MustParseQuantities("cpus:1;mem:1024")})
		}
		check(a.UpdateDemand(fw, fw, shapes(pending[fw]))) // offers go where its tasks fit, sized to them
	}
	decline := &allocator.Filter{Refuse: 5 * time.Second}
	for interval := range 3 { // every allocation interval; events arrive in between
		// The periodic run over every agent; each framework places its
		// pending tasks on its own offers, launches, and declines the rest.
		res := a.AllocateAll()
		for _, fw := range []string{"batch", "web"} {
			placed, err := placement.Place(placement.Input{Tasks: pending[fw], Offers: res.OffersTo(fw)})
			check(err)
			for _, acc := range placed.Launches {
				check(a.Accept(fw, acc.Offer.AgentID, acc.Offer.Resources, acc.Operations(), decline))
				fmt.Println(interval, fw, "launched", len(acc.Launch.Tasks), "on", acc.Offer.AgentID)
			}
			for _, o := range placed.Unused {
				check(a.RecoverResources(fw, o.AgentID, o.Resources, decline))
			}
			// Its offers answered, it states what still waits; with
			// nothing left it is offered nothing until it states more.
			pending[fw] = placed.Unplaced(pending[fw])
			check(a.UpdateDemand(fw, fw, shapes(pending[fw])))
		}
		check(a.EndTask("web", fmt.Sprintf("web-%d", interval))) // a status update: a task finished
	}
	// Output:
	// 0 batch launched 2 on agent-1
	// 0 batch launched 2 on agent-2
	// 0 web launched 2 on agent-1
	// 0 web launched 2 on agent-2
	// 1 web launched 1 on agent-1
	// 2 batch launched 1 on agent-1
}

// TestREADMEHostLoop checks that the README shows Example_hostLoop's body.
func TestREADMEHostLoop(t *testing.T) {
	body := exampleBody(t, "readme_test.go", "func Example_hostLoop() {")
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := "```go\n" + body + "```\n"
	if !strings.Contains(string(readme), block) {
		t.Errorf("README.md lacks the host loop of Example_hostLoop; it should hold:\n%s", block)
	}
}

// exampleBody returns the lines of a function in file from after its first
// line to before "// Output:", one tab of indentation removed.
func exampleBody(t *testing.T, file, first string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == first:
			in = true
		case in && strings.TrimSpace(line) == "// Output:":
			return b.String()
		case in:
			b.WriteString(strings.TrimPrefix(line, "\t"))
			b.WriteByte('\n')
		}
	}
	t.Fatalf("%s: no %q ... // Output: in the file", file, first)
	return ""
}

// hostLoopUtilisation plays the README's host loop for 100 intervals on a
// manual clock: 10 agents of 32 CPUs, 4 frameworks that always want more
// 1-CPU tasks, tasks that end after 1 to 10 intervals, declines with a 5 s
// refusal. run is the allocation the loop calls each interval. It returns
// the least share of the CPUs in use over intervals 10 to 99.
func hostLoopUtilisation(t *testing.T, seed uint64, run func(*allocator.Allocator) allocator.Result) float64 {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Seed: int64(seed), Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := a.AddAgent(fmt.Sprintf("agent-%d", i), allocator.AgentInfo{}, resources.MustParse("cpus:32;mem:65536", "*"), nil); err != nil {
			t.Fatal(err)
		}
	}
	for f := range 4 {
		if err := a.AddFramework(fmt.Sprintf("fw-%d", f), allocator.FrameworkInfo{Roles: []string{fmt.Sprintf("role-%d", f)}}, nil, allocator.Active); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	need := resources.MustParseQuantities("cpus:1;mem:2048")
	ends := map[int][][2]string{} // interval -> (framework, task) ending then
	running, next, least := 0, 0, 1.0
	for interval := range 100 {
		for _, o := range run(a).Offers {
			var launch offer.Launch
			for left := o.Resources; ; {
				task, ok := offer.PickTask(left, fmt.Sprintf("t%d", next), need, o.Role)
				if !ok {
					break
				}
				next++
				launch.Tasks, left = append(launch.Tasks, task), left.Minus(task.Resources)
				end := interval + 1 + rng.IntN(10)
				ends[end] = append(ends[end], [2]string{o.FrameworkID, task.ID})
			}
			if err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, &allocator.Filter{Refuse: 5 * time.Second}); err != nil {
				t.Fatal(err)
			}
			running += len(launch.Tasks)
		}
		if interval >= 10 {
			least = min(least, float64(running)/320)
		}
		clock.Advance(time.Second)
		for _, e := range ends[interval+1] {
			if err := a.EndTask(e[0], e[1]); err != nil {
				t.Fatal(err)
			}
			running--
		}
	}
	return least
}

// TestREADMELoopKeepsClusterBusy: the README's loop (AllocateAll every
// interval) keeps at least 90% of the CPUs in use with demand above supply;
// a loop that ran only what events trigger (Allocate) would leave the
// cluster idle once the first tasks end.
func TestREADMELoopKeepsClusterBusy(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		got := hostLoopUtilisation(t, seed, (*allocator.Allocator).AllocateAll)
		t.Logf("seed %d: least utilisation %.3f", seed, got)
		if got < 0.9 {
			t.Errorf("seed %d: AllocateAll every interval: least utilisation %.2f, want >= 0.90", seed, got)
		}
		if got := hostLoopUtilisation(t, seed, (*allocator.Allocator).Allocate); got > 0.5 {
			t.Errorf("seed %d: Allocate every interval: least utilisation %.2f; the test no longer tells the two loops apart", seed, got)
		}
	}
}
