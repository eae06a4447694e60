package allocator_test

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// fingerprintStates returns allocators in the states a few generated
// sequences leave them in.
func fingerprintStates(t testing.TB) []*allocator.Allocator {
	t.Helper()
	var out []*allocator.Allocator
	c := allocatortest.Configs()[0]
	for _, s := range allocatortest.Sequences(1, 8, c.Mix, 80) {
		opts := c.Options
		opts.Allocator.Seed = s.Seed
		h, err := allocatortest.New(opts)
		require.NoError(t, err)
		require.NoError(t, h.Run(s.Events))
		out = append(out, h.Allocator())
	}
	return out
}

func BenchmarkFingerprint(b *testing.B) {
	states := fingerprintStates(b)
	var fp allocator.Fingerprint
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		states[i%len(states)].Fingerprint(&fp)
	}
}

// A fingerprint follows the state: the same events give the same
// fingerprints, a step that changes what Describe renders changes the
// fingerprint, and the agents' parts change with their views.
func TestFingerprintFollowsState(t *testing.T) {
	for _, c := range allocatortest.Configs() {
		for _, s := range allocatortest.Sequences(3, 6, c.Mix, 60) {
			opts := c.Options
			opts.Allocator.Seed = s.Seed
			h1, err := allocatortest.New(opts)
			require.NoError(t, err)
			h2, err := allocatortest.New(opts)
			require.NoError(t, err)
			var fp1, fp2, prev allocator.Fingerprint
			h1.Allocator().Fingerprint(&prev)
			prevDesc := h1.Allocator().Describe()
			prevAgents := h1.Allocator().Agents()
			for i, ev := range s.Events {
				require.NoError(t, h1.Step(ev))
				require.NoError(t, h2.Step(ev))
				h1.Allocator().Fingerprint(&fp1)
				h2.Allocator().Fingerprint(&fp2)
				if !fp1.Equal(&fp2) {
					t.Fatalf("%s: step %d (%s): two runs of the same events give different fingerprints", c.Name, i+1, ev)
				}
				desc := h1.Allocator().Describe()
				if desc != prevDesc && fp1.Equal(&prev) {
					t.Fatalf("%s: step %d (%s): the state changed, the fingerprint did not:\n%s\nwas\n%s", c.Name, i+1, ev, desc, prevDesc)
				}
				agents := h1.Allocator().Agents()
				for _, v := range agents {
					j := slices.IndexFunc(prevAgents, func(w allocator.AgentView) bool { return w.ID == v.ID })
					k := slices.IndexFunc(prev.Agents, func(a allocator.AgentHash) bool { return a.ID == v.ID })
					l := slices.IndexFunc(fp1.Agents, func(a allocator.AgentHash) bool { return a.ID == v.ID })
					if j >= 0 && k >= 0 && fp1.Agents[l].Hash == prev.Agents[k].Hash && !sameAgentView(v, prevAgents[j]) {
						t.Fatalf("%s: step %d (%s): agent %s changed, its fingerprint did not", c.Name, i+1, ev, v.ID)
					}
				}
				prev, fp1 = fp1, prev
				prevDesc, prevAgents = desc, agents
			}
		}
	}
}

func sameAgentView(v, w allocator.AgentView) bool {
	same := func(a, b map[string]resources.Resources) bool {
		if len(a) != len(b) {
			return false
		}
		for k, r := range a {
			if o, ok := b[k]; !ok || !r.Equal(o) {
				return false
			}
		}
		return true
	}
	return v.ID == w.ID && v.Hostname == w.Hostname && v.Active == w.Active && v.OverAllocated == w.OverAllocated &&
		v.Total.Equal(w.Total) && v.Available.Equal(w.Available) && same(v.Offered, w.Offered) && same(v.Allocated, w.Allocated) &&
		same(v.Held, w.Held) && maps.Equal(v.HeldUntil, w.HeldUntil) && same(v.Unclaimed, w.Unclaimed) &&
		(v.Unavailability == nil) == (w.Unavailability == nil) && (v.Unavailability == nil || *v.Unavailability == *w.Unavailability)
}

// Every kind of change an event makes moves the fingerprint, in the part
// that holds it: the agent's, the refusal filters', or the rest.
func TestFingerprintCoversEveryChange(t *testing.T) {
	type part int
	const (
		agentPart part = 1 << iota
		restPart
		filtersPart
	)
	setup := func(t *testing.T) (*allocator.Allocator, *allocator.ManualClock) {
		clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
		require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{Hostname: "h1"}, res("cpus:4;mem:4096;disk(reservations: [(DYNAMIC,web,ops)])[id:s1,principal:ops,path:data]<SHARED>:100"), nil))
		require.NoError(t, a.AddAgent("a2", allocator.AgentInfo{Hostname: "h2"}, res("cpus:4;mem:4096"), nil))
		require.NoError(t, a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}, Capabilities: offer.SharedResources}, nil, allocator.Active))
		offers := a.Allocate().Offers
		require.Len(t, offers, 2)
		o := offers[0]
		task := offer.Task{ID: "t1", Resources: res("cpus:1").Allocate("web")}
		require.NoError(t, a.UpdateAllocation("web", o.AgentID, res("cpus:1").Allocate("web"), []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}))
		require.NoError(t, a.RecoverResources("web", offers[1].AgentID, offers[1].Resources, &allocator.Filter{Refuse: time.Minute}))
		require.NoError(t, a.UpdateUnavailability("a1", &offer.Unavailability{Start: clock.Now().Add(time.Hour), Duration: time.Hour}))
		a.AllocateAll()
		return a, clock
	}
	changes := []struct {
		name  string
		parts part
		do    func(*allocator.Allocator, *allocator.ManualClock) error
	}{
		{"deactivate agent", agentPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error { return a.DeactivateAgent("a2") }},
		{"maintenance window", agentPart, func(a *allocator.Allocator, c *allocator.ManualClock) error {
			return a.UpdateUnavailability("a2", &offer.Unavailability{Start: c.Now(), Duration: time.Hour})
		}},
		{"total", agentPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error {
			total := res("cpus:8;mem:4096")
			return a.UpdateAgent("a2", allocator.AgentInfo{Hostname: "h2"}, &total)
		}},
		{"offer declined", agentPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error {
			v, _ := a.Agent("a1")
			return a.RecoverResources("web", "a1", v.Offered["web"], nil)
		}},
		{"capabilities", restPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error {
			return a.UpdateFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}})
		}},
		{"suppress", restPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error { return a.SuppressOffers("web") }},
		{"deactivate framework", restPart | filtersPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error { return a.DeactivateFramework("web") }},
		{"quota", restPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error {
			return a.UpdateQuota("web", allocator.MustParseQuota("cpus:1"))
		}},
		{"weight", restPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error {
			return a.UpdateWeights(map[string]float64{"web": 2})
		}},
		{"pause", restPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error { a.Pause(); return nil }},
		{"whitelist", restPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error {
			a.UpdateWhitelist([]string{"h1"})
			return nil
		}},
		{"filter expires", filtersPart, func(_ *allocator.Allocator, c *allocator.ManualClock) error { c.Advance(2 * time.Minute); return nil }},
		{"task ends", agentPart | restPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error { return a.EndTask("web", "t1") }},
		{"inverse offer answered", restPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error {
			return a.UpdateInverseOffer("a1", "web", allocator.InverseAccepted, nil)
		}},
		{"usage of a framework not added yet", agentPart, func(a *allocator.Allocator, _ *allocator.ManualClock) error {
			return a.AddResourceProvider("a2", res("disk:100"), map[string]resources.Resources{"later": res("disk:100").Allocate("web")})
		}},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			a, clock := setup(t)
			var before, after allocator.Fingerprint
			a.Fingerprint(&before)
			require.NoError(t, c.do(a, clock))
			a.Fingerprint(&after)
			agentsMoved := !slices.Equal(before.Agents, after.Agents)
			if got := agentsMoved; got != (c.parts&agentPart != 0) {
				t.Errorf("agents' fingerprints moved: %v, want %v", got, c.parts&agentPart != 0)
			}
			if got := before.Rest != after.Rest; got != (c.parts&restPart != 0) {
				t.Errorf("the rest's fingerprint moved: %v, want %v", got, c.parts&restPart != 0)
			}
			if got := before.Filters != after.Filters; got != (c.parts&filtersPart != 0) {
				t.Errorf("the filters' fingerprint moved: %v, want %v", got, c.parts&filtersPart != 0)
			}
		})
	}
}
