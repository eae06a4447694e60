package allocator

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// refuseRounds installs directly the refusal filters that k rounds of
// Mesos's DeclineOffers loop leave behind, without running them: every
// agent refused, with a year-long filter of everything it has, by k
// frameworks. In the loop, which frameworks an agent was offered to
// depends on the shuffles and the shares of each round; here they are k
// drawn at random for each agent (from a seeded source), so that, as in
// the loop, every framework has refused about agents·k/frameworks agents
// and a walk meets an agent's refusers anywhere in the sorted order.
func refuseRounds(tb testing.TB, a *Allocator, k int) {
	tb.Helper()
	ids := a.cs.Frameworks.Keys()
	if k > len(ids) {
		tb.Fatalf("%d rounds of refusals with %d frameworks", k, len(ids))
	}
	perm := make([]int, len(ids))
	for n, ag := range a.cs.AgentList {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		for i := range perm {
			perm[i] = i
		}
		for j := range k {
			pick := j + rng.IntN(len(perm)-j)
			perm[j], perm[pick] = perm[pick], perm[j]
			fw := a.cs.Frameworks.Get(ids[perm[j]])
			role := fw.Info.Roles[0]
			a.dec.AddRefusal(fw, ag, ag.Available.Allocate(role), MaxRefuse, a.opts.Clock())
		}
	}
}

// BenchmarkLateRounds times one round of Mesos's DeclineOffers loop after
// k rounds of refusals (installed by refuseRounds), the rounds the whole
// loop reaches only after running all the earlier ones: round 1 is the
// first round, round k+1 the one after k rounds of declines. Beside the
// whole loop at 10000 × 1000, it reaches beyond Mesos's grid: 50000
// agents and 5000 frameworks, whose whole loop would hold 250 million
// filters by its end. One run each (-benchtime 1x); setup is not timed, and its garbage is
// collected before the round.
func BenchmarkLateRounds(b *testing.B) {
	for _, c := range []struct{ agents, frameworks, refused int }{
		{10000, 1000, 0}, {10000, 1000, 250}, {10000, 1000, 500}, {10000, 1000, 750}, {10000, 1000, 990},
		{50000, 5000, 0}, {50000, 5000, 20}, {50000, 5000, 500},
	} {
		b.Run(fmt.Sprintf("agents=%d/frameworks=%d/round=%d", c.agents, c.frameworks, c.refused+1), func(b *testing.B) {
			offers := 0
			var cpu cpuClock
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				a, _ := declineSetup(b, c.agents, c.frameworks, "r", "")
				refuseRounds(b, a, c.refused)
				runtime.GC() // the setup's garbage is not the round's
				b.StartTimer()
				cpu.measure(func() { offers += len(a.AllocateAll().Offers) })
			}
			b.ReportMetric(float64(offers)/float64(b.N), "offers/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/round")
			cpu.report(b)
		})
	}
}

// TestRefuseRoundsIsTheLoopsState checks refuseRounds against what it
// stands for: after it, every agent is refused by exactly k frameworks,
// so a run offers every agent to one of the others, and after the last
// round every agent refused by every framework is offered to none.
func TestRefuseRoundsIsTheLoopsState(t *testing.T) {
	a, _ := declineSetup(t, 40, 8, "r", "")
	refuseRounds(t, a, 5)
	for _, ag := range a.cs.AgentList {
		id := ag.ID
		n, compact := 0, 0
		for fw := range a.cs.Frameworks.All() {
			if len(a.dec.RefusalsOn(fw, "r", a.cs.Agents.Get(id))) > 0 {
				n++
			}
			if _, ok := fw.Whole.On("r", int(a.cs.Agents.Get(id).Num)); ok {
				compact++
			}
		}
		// The first refusal narrows the agent's reference to what it has
		// available (the setup's agents run tasks); it and the others
		// refuse that reference, and are compact.
		if n != 5 || compact != 5 {
			t.Fatalf("agent %s refused by %d frameworks (%d compact filters), want 5 (5)", id, n, compact)
		}
	}
	res := a.AllocateAll()
	if len(res.Offers) != 40 {
		t.Fatalf("%d offers after 5 rounds of 8, want one an agent", len(res.Offers))
	}
	for _, o := range res.Offers {
		if filtered, _ := a.dec.IsFiltered(a.cs.Frameworks.Get(o.FrameworkID), "r", a.cs.Agents.Get(o.AgentID), o.Resources.Unallocate(), false, a.opts.Clock(), false); filtered {
			t.Fatalf("offer of %s to %s, which refused it", o.AgentID, o.FrameworkID)
		}
	}
	b, _ := declineSetup(t, 40, 8, "r", "")
	refuseRounds(t, b, 8)
	if res := b.AllocateAll(); len(res.Offers) != 0 {
		t.Fatalf("%d offers after every framework refused every agent", len(res.Offers))
	}
	if err := b.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
