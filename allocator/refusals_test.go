package allocator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Mesos's DeclineOffers loop, small: every round each agent goes to a
// framework that has not refused it yet, until every framework has refused
// every agent; refused frameworks are stepped over through the refusal
// index, not visited one by one, and once nothing changes the agents cost
// nothing per framework.
func TestDeclineOffersLoopSkipsRefusers(t *testing.T) {
	const agents, frameworks = 300, 40
	a, clock := declineSetup(t, agents, frameworks, "r", "")
	refused := map[[2]string]bool{}
	visited := 0
	for round := range 2 * frameworks {
		res := a.AllocateAll()
		s := res.Stats
		switch {
		case round < frameworks:
			if s.Offers != agents {
				t.Fatalf("round %d: %d offers, want one per agent (%d)", round, s.Offers, agents)
			}
		case round == frameworks:
			if s.Offers != 0 {
				t.Fatalf("round %d: %d offers after every framework refused every agent", round, s.Offers)
			}
		default:
			if s.Offers != 0 || s.Unchanged != agents || s.Refused != 0 || s.Skips[ReasonFiltered] != 0 {
				t.Fatalf("round %d: %+v, want every agent skipped as unchanged", round, s)
			}
		}
		for _, o := range res.Offers {
			key := [2]string{o.FrameworkID, o.AgentID}
			if refused[key] {
				t.Fatalf("round %d: %s offered %s, which it refused for a year", round, o.FrameworkID, o.AgentID)
			}
			refused[key] = true
		}
		visited += s.Skips[ReasonFiltered]
		declineAll(t, a, res)
		clock.now = clock.now.Add(time.Second)
	}
	// Without the index a run visits about half of an agent's refusers:
	// agents × frameworks² / 4 in all. With it, at most a few per agent
	// and round before the index takes over.
	if limit := agents * frameworks * 4; visited > limit {
		t.Fatalf("refused frameworks visited %d times, want at most %d", visited, limit)
	}
	if err := a.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

// refuseAll makes every framework of a one-agent cluster refuse the agent
// whole, one run at a time, and returns the allocator, its clock and the
// time the first refusal expires.
func refuseAll(t *testing.T, frameworks int, refuse time.Duration) (*Allocator, *benchClock) {
	t.Helper()
	a, clock := declineSetup(t, 1, frameworks, "r", "")
	for range frameworks {
		res := a.AllocateAll()
		if len(res.Offers) != 1 {
			t.Fatalf("%d offers, want 1", len(res.Offers))
		}
		o := res.Offers[0]
		if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &Filter{Refuse: refuse}); err != nil {
			t.Fatal(err)
		}
	}
	if res := a.AllocateAll(); len(res.Offers) != 0 {
		t.Fatalf("offered %v after everyone refused", res.Offers)
	}
	return a, clock
}

// The refusal index forgets a framework whose filters are lifted, filters
// that no longer cover what the agent has, and filters that expired.
func TestRefusalIndexFollowsFilters(t *testing.T) {
	const frameworks = 12
	t.Run("revive", func(t *testing.T) {
		a, _ := refuseAll(t, frameworks, time.Hour)
		require.NoError(t, a.ReviveOffers("f0005"))
		res := a.AllocateAll()
		if len(res.Offers) != 1 || res.Offers[0].FrameworkID != "f0005" {
			t.Fatalf("after f0005 revived: %v", res.Offers)
		}
	})
	t.Run("deactivate and activate", func(t *testing.T) {
		a, _ := refuseAll(t, frameworks, time.Hour)
		require.NoError(t, a.DeactivateFramework("f0007"))
		require.NoError(t, a.ActivateFramework("f0007"))
		res := a.AllocateAll()
		if len(res.Offers) != 1 || res.Offers[0].FrameworkID != "f0007" {
			t.Fatalf("after f0007 came back: %v", res.Offers)
		}
	})
	t.Run("the agent grows", func(t *testing.T) {
		a, _ := refuseAll(t, frameworks, time.Hour)
		// The round-robin framework's task ends: the agent offers more
		// than anybody refused.
		ag := a.cs.Agents.Get("agent-00000")
		require.NoError(t, a.RecoverAllocated("f0000", ag.ID, ag.Allocated.Get("f0000"), nil))
		res := a.AllocateAll()
		if len(res.Offers) != 1 {
			t.Fatalf("after the agent grew: %v", res.Offers)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		a, clock := refuseAll(t, frameworks, 10*time.Second)
		clock.now = clock.now.Add(10*time.Second - time.Millisecond)
		if res := a.AllocateAll(); len(res.Offers) != 0 {
			t.Fatalf("offered before the expiry: %v", res.Offers)
		}
		clock.now = clock.now.Add(time.Millisecond) // the refusals' expiry
		res := a.AllocateAll()
		if len(res.Offers) != 1 {
			t.Fatalf("at the filters' expiry: %v", res.Offers)
		}
	})
	t.Run("agent attributes change", func(t *testing.T) {
		a, _ := refuseAll(t, frameworks, time.Hour)
		require.NoError(t, a.UpdateAgent("agent-00000", AgentInfo{Attributes: map[string]string{"rack": "r2"}}, nil))
		if res := a.AllocateAll(); len(res.Offers) != 1 {
			t.Fatalf("after the attributes changed: %v", res.Offers)
		}
	})
}
