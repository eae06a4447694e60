package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
)

func TestPlacement(t *testing.T) {
	var buf bytes.Buffer
	out, err := run(&buf)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	text := buf.String()

	// Six replicas at 1 s, one per agent, two per zone; the seventh waits.
	perZone := map[string]int{}
	agents := map[string]string{} // agent -> framework tasks, "service" once
	batchOn := map[string]int{}   // agent -> batch tasks
	batchSum := map[string]resources.Resources{}
	for _, l := range out.Tasks {
		switch l.Framework {
		case "service":
			if l.Second != 1 {
				t.Errorf("%s launched at %d s, want 1 s", l.Task, l.Second)
			}
			if agents[l.Agent] != "" {
				t.Errorf("two replicas on %s", l.Agent)
			}
			agents[l.Agent] = l.Task
			perZone[l.Zone]++
		case "batch":
			if l.Second != 2 {
				t.Errorf("%s launched at %d s, want 2 s", l.Task, l.Second)
			}
			batchOn[l.Agent]++
			s := batchSum[l.Agent]
			s.Add(l.Resources.Unallocate())
			batchSum[l.Agent] = s
		}
	}
	if got := fmt.Sprint(perZone); got != "map[us-east-1a:2 us-east-1b:2 us-east-1c:2]" {
		t.Errorf("replicas per zone: %s", got)
	}
	if got := fmt.Sprint(agents); got != "map[agent-1:web-1 agent-2:web-4 agent-4:web-2 agent-5:web-5 agent-7:web-3 agent-8:web-6]" {
		t.Errorf("replicas: %s", got)
	}
	if fmt.Sprint(out.Pending) != "[web-7]" || out.Waits["service"] != 1 || out.Waits["batch"] != 0 {
		t.Errorf("pending %v, waits %v; want web-7 only, once", out.Pending, out.Waits)
	}
	// web-7: the three agents without a replica are in full zones, the
	// six others have one.
	if got := fmt.Sprint(out.Reasons); got != "map[at most 2 per zone:3 unique host:6]" {
		t.Errorf("reasons: %s", got)
	}

	// 24 batch tasks at 2 s, packed six per agent on the agents the
	// replicas left with 6 cpus: agents 1, 2, 4 and 5 are full, and the
	// three agents without tasks stay free.
	if got := fmt.Sprint(batchOn); got != "map[agent-1:6 agent-2:6 agent-4:6 agent-5:6]" {
		t.Errorf("batch tasks per agent: %s", got)
	}
	for agent, sum := range batchSum {
		if sum.String() != "cpus:6; mem:12288" {
			t.Errorf("batch on %s uses %s, want cpus:6; mem:12288", agent, sum)
		}
	}
	for _, want := range []string{
		"1 s  service is offered 9 agents and launches 6 tasks:",
		"     web-7 waits: 3 offers: at most 2 per zone; 6 offers: unique host\n",
		"2 s  batch is offered 9 agents and launches 24 tasks:",
		"agent-1  us-east-1a batch   job-01 .. job-06 (6)       cpus:6; mem:12288\n",
		"agent-1  us-east-1a service web-1                      cpus:2; mem:2048; ports:[31000-31000]\n",
		"agent-3  us-east-1a -       -                          free: cpus:8; mem:16384; ports:[31000-31099]\n",
		"web-7 of service is pending\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "free: cpus:8; mem:16384"); n != 3 {
		t.Errorf("%d free agents, want 3:\n%s", n, text)
	}
}
