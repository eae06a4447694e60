package examples_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The host loop of the README, line for line (TestREADMEHostLoop checks).
func Example_hostLoop() {
	a, _ := allocator.New(allocator.Options{Seed: 1})
	_ = a.AddAgent("agent-1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:8192", "*"), nil)
	_ = a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, true)
	for _, o := range a.Allocate().Offers { // call Allocate every interval and after events
		var ops []offer.Operation // launch a task of 1 CPU and 1 GB if it fits
		if task, ok := offer.PickTask(o.Resources, "web-1", resources.MustParseQuantities("cpus:1;mem:1024"), o.Role); ok {
			ops = append(ops, offer.Launch{Tasks: []offer.Task{task}})
		}
		err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, ops, &allocator.Filter{Refuse: 5 * time.Second}) // decline the rest for 5 s
		fmt.Println(o.FrameworkID, "launched", len(ops), "task on", o.AgentID, "error:", err)
	}
	// Output:
	// web launched 1 task on agent-1 error: <nil>
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
