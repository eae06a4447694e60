package declines

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// twinOffer is something offered or in use: on which agent (by index), to
// which framework, in which role.
type twinOffer struct {
	agent    int
	fw, role string
	text     string
}

// part returns a random part of rs (scalars in whole units), in the text
// format; "" when it came out empty.
func part(rng *rand.Rand, rs resources.Resources) string {
	var parts []string
	for r := range rs.All() {
		if n := int(r.Scalar.Float64()); n > 0 {
			if k := rng.IntN(n + 1); k > 0 {
				parts = append(parts, fmt.Sprintf("%s:%d", r.Name, k))
			}
		}
	}
	return strings.Join(parts, ";")
}

// TestTwinsAgree drives a Book and a cache-free twin, which keeps every
// filter in lists and trusts no bit, through the same random events: they
// must answer IsFiltered alike, hold the same filters, and the Book must
// keep its invariant throughout.
func TestTwinsAgree(t *testing.T) {
	var sum twinStats
	for seed := uint64(1); seed <= 50; seed++ {
		seeded(t, seed, func(t *testing.T, rng *rand.Rand) {
			st := runTwins(t, rng, 400)
			require.Positive(t, st.made, "no filter made")
			sum.add(st)
		})
	}
	// The runs must have been worth something.
	t.Logf("%+v", sum)
	require.Greater(t, sum.filtered, 500, "looks that found a filter")
	require.Greater(t, sum.compact, 1000, "steps with compact filters")
	require.Greater(t, sum.narrowed, 20, "references narrowed")
	require.Greater(t, sum.grown, 20, "references grown")
	require.Greater(t, sum.indexed, 1000, "steps with a valid index")
}

// twinStats counts what a run of the twins went through.
type twinStats struct {
	made, filtered, compact, narrowed, grown, indexed int
}

func (s *twinStats) add(o twinStats) {
	s.made += o.made
	s.filtered += o.filtered
	s.compact += o.compact
	s.narrowed += o.narrowed
	s.grown += o.grown
	s.indexed += o.indexed
}

func runTwins(t *testing.T, rng *rand.Rand, steps int) (st twinStats) {
	worlds := [2]*world{newWorld(t, false), newWorld(t, true)}
	agentIDs := []string{"a1", "a2", "a3"}
	totals := []string{"cpus:4;mem:64", "cpus:8;mem:128;disk:10", "cpus:2"}
	fwIDs := []string{"f1", "f2", "f3", "f4"}
	roleNames := []string{"r1", "r2"}
	interval := time.Duration(rng.IntN(3)) * time.Second
	for _, w := range worlds {
		w.b.AllocationInterval = interval
		for i := range agentIDs {
			w.agent(agentIDs[i], totals[i])
		}
		for _, id := range fwIDs {
			w.framework(id, roleNames...)
		}
	}
	now := t0
	var offered, used []twinOffer
	agentOf := func(w *world, i int) *cluster.Agent { return w.cs.Agents.Get(agentIDs[i]) }
	fwOf := func(w *world, id string) *cluster.Framework { return w.cs.Frameworks.Get(id) }
	both := func(f func(w *world)) {
		for _, w := range worlds {
			f(w)
		}
	}
	durations := []time.Duration{0, -1, time.Nanosecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 3 * time.Second, 10 * time.Second, time.Hour}
	step := 0
	type answer struct {
		Filtered bool
		Until    time.Time
	}
	look := func(fwID, role string, i int, candidate resources.Resources, withinRef, periodic bool) answer {
		var got [2]answer
		for k, w := range worlds {
			got[k].Filtered, got[k].Until = w.b.IsFiltered(fwOf(w, fwID), role, agentOf(w, i), candidate, withinRef, now, periodic)
		}
		require.Equal(t, got[1], got[0], "step %d: IsFiltered(%s, %s, %s, %v, withinRef %v) at %v, periodic %v", step, fwID, role, agentIDs[i], candidate, withinRef, now.Sub(t0), periodic)
		return got[0]
	}
	pick := func(list *[]twinOffer) twinOffer {
		k := rng.IntN(len(*list))
		o := (*list)[k]
		*list = slices.Delete(*list, k, k+1)
		return o
	}
	giveBack := func(o twinOffer) {
		both(func(w *world) { w.giveBack(agentOf(w, o.agent), alloc(o.text, o.role)) })
	}
	for step = range steps {
		gens := agentOf(worlds[0], 0).RefGen + agentOf(worlds[0], 1).RefGen + agentOf(worlds[0], 2).RefGen
		switch rng.IntN(14) {
		case 0, 1, 2: // an offer
			i := rng.IntN(len(agentIDs))
			avail := agentOf(worlds[0], i).Available
			text := avail.String()
			if rng.IntN(2) == 0 {
				text = part(rng, avail)
			}
			if avail.IsEmpty() || text == "" {
				continue
			}
			o := twinOffer{i, fwIDs[rng.IntN(len(fwIDs))], roleNames[rng.IntN(len(roleNames))], text}
			both(func(w *world) { w.take(agentOf(w, o.agent), o.text, o.role) })
			offered = append(offered, o)
		case 3, 4: // a decline of one offer, or of all a framework has on the agent
			if len(offered) == 0 {
				continue
			}
			o := pick(&offered)
			declined := alloc(o.text, o.role)
			if rng.IntN(2) == 0 {
				offered = slices.DeleteFunc(offered, func(p twinOffer) bool {
					if p.agent == o.agent && p.fw == o.fw {
						declined.Add(alloc(p.text, p.role))
						return true
					}
					return false
				})
			}
			d := durations[rng.IntN(len(durations))]
			refBefore := agentOf(worlds[0], o.agent).Ref
			both(func(w *world) { w.decline(fwOf(w, o.fw), agentOf(w, o.agent), declined, d, now) })
			if ref := agentOf(worlds[0], o.agent).Ref; !ref.Equal(refBefore) && refBefore.Contains(ref) {
				st.narrowed++
			}
		case 5: // an offer accepted: in use
			if len(offered) > 0 {
				used = append(used, pick(&offered))
			}
		case 6: // a task ends, or an offer is rescinded: back without a filter
			switch {
			case len(used) > 0 && rng.IntN(2) == 0:
				giveBack(pick(&used))
			case len(offered) > 0:
				giveBack(pick(&offered))
			}
		case 7, 8: // a look, as a run or a hold's expiry makes
			fwID, role, i := fwIDs[rng.IntN(len(fwIDs))], roleNames[rng.IntN(len(roleNames))], rng.IntN(len(agentIDs))
			ag := agentOf(worlds[0], i)
			var candidate resources.Resources
			withinRef := true
			switch rng.IntN(4) {
			case 0:
				candidate = ag.Available
			case 1:
				candidate = res(part(rng, ag.Available))
			case 2:
				candidate = res(part(rng, ag.Ref))
			default:
				candidate, withinRef = ag.Available.Plus(res("cpus:1")), false
			}
			if candidate.IsEmpty() {
				continue
			}
			if look(fwID, role, i, candidate, withinRef, rng.IntN(4) == 0).Filtered {
				st.filtered++
			}
		case 9: // a periodic run over every agent, role and framework
			for i := range agentIDs {
				for _, role := range roleNames {
					both(func(w *world) { agentOf(w, i).Refusers(role, now) })
					for _, fwID := range fwIDs {
						if ag := agentOf(worlds[0], i); !ag.Available.IsEmpty() {
							if look(fwID, role, i, ag.Available, true, true).Filtered {
								st.filtered++
							}
						}
					}
				}
			}
			both(func(w *world) { w.b.Batches++ })
		case 10: // time passes
			now = now.Add([]time.Duration{0, time.Nanosecond, 500 * time.Millisecond, time.Second, time.Second, 3 * time.Second}[rng.IntN(6)])
		case 11: // filters forgotten: a revive, a framework's roles changed, an agent's attributes changed
			fwID := fwIDs[rng.IntN(len(fwIDs))]
			switch rng.IntN(3) {
			case 0:
				role := roleNames[rng.IntN(len(roleNames))]
				both(func(w *world) {
					w.b.ForgetFilters(fwOf(w, fwID), role)
					w.b.LeaveRounds(fwOf(w, fwID))
				})
			case 1:
				both(func(w *world) { w.b.ForgetFilters(fwOf(w, fwID), "") })
			default:
				i := rng.IntN(len(agentIDs))
				both(func(w *world) {
					ag := agentOf(w, i)
					w.b.ForgetAgentFilters(ag)
					ag.Version++
					w.b.AgentChanged(ag)
				})
			}
		case 12: // a framework leaves a role's sorter, or comes back to it
			fwID, role := fwIDs[rng.IntN(len(fwIDs))], roleNames[rng.IntN(len(roleNames))]
			both(func(w *world) {
				if fw := fwOf(w, fwID); fw.Roles.Has(role, tables.Tracked) {
					w.untrack(fw, role)
				} else {
					w.track(fw, role)
				}
			})
		case 13: // a framework removed, and one of the same id added
			fwID := fwIDs[rng.IntN(len(fwIDs))]
			both(func(w *world) { w.removeFramework(fwOf(w, fwID)) })
			for _, list := range []*[]twinOffer{&offered, &used} {
				*list = slices.DeleteFunc(*list, func(o twinOffer) bool {
					if o.fw == fwID {
						giveBack(o)
						return true
					}
					return false
				})
			}
			both(func(w *world) { w.framework(fwID, roleNames...) })
		}
		if g := agentOf(worlds[0], 0).RefGen + agentOf(worlds[0], 1).RefGen + agentOf(worlds[0], 2).RefGen; g != gens {
			st.grown++
		}
		for _, w := range worlds {
			w.check(now)
		}
		for _, ag := range worlds[0].cs.AgentList {
			if ag.WholeRefused > 0 {
				st.compact++
			}
			for _, role := range ag.Refusals.Roles() {
				if idx := index(ag, role); idx != nil && idx.ValidAt(ag.RefGen, now) && idx.Skip.Count() > 0 {
					st.indexed++
				}
			}
		}
		require.Equal(t, worlds[1].allFilters(), worlds[0].allFilters(), "step %d: filters", step)
		for i := range agentIDs {
			a, b := agentOf(worlds[0], i), agentOf(worlds[1], i)
			requireRes(t, b.Ref, a.Ref, fmt.Sprintf("step %d: reference", step))
			require.Equal(t, b.RefGen, a.RefGen, "step %d: generation", step)
			require.Equal(t, worlds[1].b.RoundMembers(b), worlds[0].b.RoundMembers(a), "step %d: round", step)
		}
	}
	st.made = worlds[0].made
	return st
}
