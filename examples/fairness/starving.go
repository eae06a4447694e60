package main

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The starving cluster: one agent, a framework that could use what is left
// of it, and five that decline every offer.
const (
	starvingAgent = "cpus:4;mem:256"
	// userTask takes all the agent's memory, so what is left is CPUs alone.
	userTask  = "cpus:1;mem:256"
	decliners = 5
	// declineFor is the decliners' refusal filter, Mesos's default: with
	// a run a second, a decliner's filter lasts as many runs as there are
	// decliners, so one of them is always free of its filter.
	declineFor = 5 * time.Second
)

// starving is what one play of the starving cluster saw.
type starving struct {
	// Runs is how many runs were made; Offered the runs (1 to Runs) in
	// which user was offered the leftover.
	Runs    int
	Offered []int
}

// First returns the first run in which user was offered the leftover, 0
// if none.
func (s starving) First() int {
	if len(s.Offered) == 0 {
		return 0
	}
	return s.Offered[0]
}

// LongestWait returns the most runs user waited for an offer of the
// leftover: from the start to its first offer, between two offers, or from
// its last offer to the end; Runs when it was never offered.
func (s starving) LongestWait() int {
	longest, last := 0, 0
	for _, run := range s.Offered {
		longest, last = max(longest, run-last), run
	}
	return max(longest, s.Runs-last)
}

// playStarving builds the starving cluster on an allocator with opts and
// makes runs runs of it, a second apart.
func playStarving(opts allocator.Options, runs int) (starving, error) {
	s := starving{Runs: runs}
	clock := allocator.NewManualClock(start)
	opts.Clock = clock.Now
	a, err := allocator.New(opts)
	if err != nil {
		return s, err
	}
	if err := a.AddAgent("agent-1", allocator.AgentInfo{}, resources.MustParse(starvingAgent, "*"), nil); err != nil {
		return s, err
	}
	// user comes first and launches its task on the whole agent, giving
	// back the rest without a filter: it wants it.
	if err := a.AddFramework("user", allocator.FrameworkInfo{Roles: []string{"u"}}, nil, allocator.Active); err != nil {
		return s, err
	}
	offers := a.AllocateAll().OffersTo("user")
	if len(offers) != 1 {
		return s, fmt.Errorf("user is offered %d offers, want the agent", len(offers))
	}
	task := offer.Task{ID: "user-1", Resources: resources.MustParse(userTask, "*").Allocate("u")}
	if err := a.Accept("user", "agent-1", offers[0].Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}, nil); err != nil {
		return s, err
	}
	for i := range decliners {
		id := fmt.Sprintf("d%d", i)
		if err := a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{"r" + id}}, nil, allocator.Active); err != nil {
			return s, err
		}
	}
	decline := &allocator.Filter{Refuse: declineFor}
	for run := 1; run <= runs; run++ {
		clock.Advance(time.Second)
		for _, o := range a.AllocateAll().Offers {
			if o.FrameworkID == "user" {
				s.Offered = append(s.Offered, run)
				// user gives the offer back unused, without a filter,
				// so that what is left stays the same from run to run.
				if err := a.RecoverResources("user", o.AgentID, o.Resources, nil); err != nil {
					return s, err
				}
				continue
			}
			if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, decline); err != nil {
				return s, err
			}
		}
	}
	return s, nil
}
