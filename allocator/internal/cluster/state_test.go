package cluster

import (
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// The calls package allocator makes on a State (agents.go, bookkeeping.go,
// unclaimed.go), in the same order, so that the tests drive State as the
// allocator does.

// addAgent is the allocator's addAgent past its checks: what frameworks not
// added yet use is the agent's unclaimed usage, what known ones use is
// their allocation.
func addAgent(s *State, id string, total resources.Resources, used map[string]resources.Resources) *Agent {
	ag := &Agent{ID: id, Total: s.Shape(total), Active: true, RefGen: 1}
	if unclaimed := s.UnknownUse(used); unclaimed != nil {
		ag.More().Unclaimed = unclaimed
	}
	s.NumberAgent(ag)
	s.Agents.Put(ag)
	i, _ := s.AgentPlace(id)
	s.AgentList = slices.Insert(s.AgentList, i, ag)
	addTotal(s, ag)
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if _, ok := s.Frameworks.Lookup(fwID); ok {
			track(s, ag, fwID, used[fwID], true)
		}
	}
	return ag
}

func addTotal(s *State, ag *Agent) {
	s.Totals.Add(ag.Total.Quantities())
	s.TotalsVersion++
	s.SetFlags(ag)
	recomputeAvailable(s, ag)
}

func removeTotal(s *State, ag *Agent) {
	s.Totals.Subtract(ag.Total.Quantities())
	s.TotalsVersion++
	if ag.HasRevocable || ag.HasShared {
		s.RevocableOrSharedAgents--
	}
	ag.HasRevocable, ag.HasShared = false, false
	s.FreeHeadroom.Subtract(ag.Headroom)
	ag.Headroom = resources.Quantities{}
	if ag.Rare != nil {
		s.Excess.Subtract(ag.Rare.Excess)
		ag.Rare.Excess = resources.Quantities{}
	}
}

func recomputeAvailable(s *State, ag *Agent) {
	s.Excess.Subtract(ag.Excess())
	used := s.MeasureUse(ag)
	if used.IsEmpty() {
		ag.Total = ag.Total.Frozen()
		ag.Available = ag.Total
	} else {
		ag.Available = ag.Total.Minus(used)
	}
	s.RefreshHeadroom(ag)
}

// track offers res (tagged with allocation roles) to the framework on ag,
// or allocates it (inUse), taking it from what is available.
func track(s *State, ag *Agent, fwID string, res resources.Resources, inUse bool) {
	if res.IsEmpty() {
		return
	}
	recompute := false
	for _, role := range res.AllocationRoles() {
		part := res.AllocatedTo(role)
		held := &ag.Offered
		if inUse {
			held = &ag.Allocated
		}
		held.Add(fwID, part)
		if nonShared := part.Unallocate().NonShared(); ag.Available.Contains(nonShared) {
			ag.Available.Subtract(nonShared)
		} else {
			recompute = true
		}
	}
	// An over-allocated agent's excess changes with what is held even when
	// it fits what is available (the total may be short of one kind and
	// not of another): it is measured again.
	if recompute || ag.OverAllocated {
		recomputeAvailable(s, ag)
		return
	}
	s.RefreshHeadroom(ag)
}

// untrack gives back res, which the framework is offered (or uses, when
// inUse) on ag.
func untrack(s *State, ag *Agent, fwID string, res resources.Resources, inUse bool) {
	held := &ag.Offered
	if inUse {
		held = &ag.Allocated
	}
	held.Set(fwID, held.Get(fwID).Minus(res))
	if ag.OverAllocated {
		recomputeAvailable(s, ag)
		return
	}
	ag.Available.AddUnallocated(res, false)
	s.RefreshHeadroom(ag)
}

// holdFor moves res from what the framework uses on ag to a hold.
func holdFor(ag *Agent, fwID string, res resources.Resources) {
	ag.Allocated.Set(fwID, ag.Allocated.Get(fwID).Minus(res))
	ag.More().Holds.Add(fwID, res.Clone(), t0)
}

// claim makes the usage ag reported for a framework its allocation.
func claim(s *State, ag *Agent, fwID string) {
	res := ag.Unclaimed()[fwID]
	delete(ag.Unclaimed(), fwID)
	ag.Allocated.Add(fwID, res)
	s.RefreshHeadroom(ag)
}

func updateTotal(s *State, ag *Agent, total resources.Resources) {
	if shaped := s.Shape(total); !shaped.Equal(ag.Total) {
		removeTotal(s, ag)
		ag.Total = shaped
		addTotal(s, ag)
	}
}

func removeAgent(s *State, ag *Agent) {
	removeTotal(s, ag)
	s.UnnumberAgent(ag)
	s.Agents.Delete(ag.ID)
	if i, ok := s.AgentPlace(ag.ID); ok {
		s.AgentList = slices.Delete(s.AgentList, i, i+1)
	}
}

func addFramework(s *State, id string, roles ...string) *Framework {
	fw := &Framework{ID: id, Info: FrameworkInfo{Roles: roles}, Tasks: map[string]*Task{}}
	fw.Roles.MarkOnly(tables.Subscribed, roles)
	s.Frameworks.Put(fw)
	return fw
}

// amountsOf adds to m the amounts of rs's scalar entries that keep
// accepts, read entry by entry.
func amountsOf(m map[string]resources.Scalar, rs resources.Resources, keep func(resources.Resource) bool) {
	for r := range rs.All() {
		if r.Type == resources.ScalarType && keep(r) {
			m[r.Name] += r.Scalar
		}
	}
}

func every(resources.Resource) bool { return true }

func nonShared(r resources.Resource) bool { return !r.Shared }

func headroomKind(r resources.Resource) bool { return !r.IsReserved() && !r.Revocable }

// usedOn returns, by name, the non-shared scalars everybody holds on ag:
// offered, allocated, held, and in use by frameworks not added yet.
func usedOn(ag *Agent) map[string]resources.Scalar {
	used := map[string]resources.Scalar{}
	for _, res := range ag.Offered.All() {
		amountsOf(used, res, nonShared)
	}
	for _, res := range ag.Allocated.All() {
		amountsOf(used, res, nonShared)
	}
	for _, h := range ag.Holds() {
		amountsOf(used, h.Res, nonShared)
	}
	for _, res := range ag.Unclaimed() {
		amountsOf(used, res, nonShared)
	}
	return used
}

// sumsRef is what State's sums should be, worked out from the agents'
// records.
type sumsRef struct {
	totals, headroom, excess map[string]resources.Scalar
	revocableOrShared        int
}

func refSums(t *testing.T, s *State) sumsRef {
	t.Helper()
	ref := sumsRef{totals: map[string]resources.Scalar{}, headroom: map[string]resources.Scalar{}, excess: map[string]resources.Scalar{}}
	for _, ag := range s.AgentList {
		total := map[string]resources.Scalar{}
		amountsOf(total, ag.Total, every)
		for name, v := range total {
			ref.totals[name] += v
		}
		agExcess := map[string]resources.Scalar{}
		for name, v := range usedOn(ag) {
			if v > total[name] {
				agExcess[name] = v - total[name]
				ref.excess[name] += v - total[name]
			}
		}
		requireAmounts(t, agExcess, ag.Excess(), "agent %s's excess", ag.ID)

		// The agent's headroom: its unreserved, non-revocable scalars less
		// what is held of them (by kind: there is one such kind a name).
		free := map[string]resources.Scalar{}
		amountsOf(free, ag.Total, headroomKind)
		usedFree := map[string]resources.Scalar{}
		for _, res := range ag.Offered.All() {
			amountsOf(usedFree, res, func(r resources.Resource) bool { return headroomKind(r) && !r.Shared })
		}
		for _, res := range ag.Allocated.All() {
			amountsOf(usedFree, res, func(r resources.Resource) bool { return headroomKind(r) && !r.Shared })
		}
		for _, h := range ag.Holds() {
			amountsOf(usedFree, h.Res, headroomKind)
		}
		for _, res := range ag.Unclaimed() {
			amountsOf(usedFree, res, func(r resources.Resource) bool { return headroomKind(r) && !r.Shared })
		}
		agHeadroom := map[string]resources.Scalar{}
		for name, v := range free {
			if left := v - usedFree[name]; left > 0 {
				agHeadroom[name] = left
				ref.headroom[name] += left
			}
		}
		requireAmounts(t, agHeadroom, ag.Headroom, "agent %s's headroom", ag.ID)

		for r := range ag.Total.All() {
			if r.Revocable || r.Shared {
				ref.revocableOrShared++
				break
			}
		}
	}
	return ref
}

// requireAmounts compares quantities with a plain reference, name by name.
func requireAmounts(t *testing.T, want map[string]resources.Scalar, got resources.Quantities, msgAndArgs ...any) {
	t.Helper()
	gotMap := map[string]resources.Scalar{}
	for name, v := range got.All() {
		gotMap[name] = v
	}
	for name, v := range want {
		if v == 0 {
			delete(want, name)
		}
	}
	require.Equal(t, want, gotMap, msgAndArgs...)
}

// requireSums checks State's invariant: each sum is the sum over the
// agents of what it counts; and that every agent is numbered, once.
func requireSums(t *testing.T, s *State) {
	t.Helper()
	ref := refSums(t, s)
	requireAmounts(t, ref.totals, s.Totals, "totals")
	requireAmounts(t, ref.headroom, s.FreeHeadroom, "free headroom")
	requireAmounts(t, ref.excess, s.Excess, "excess")
	require.Equal(t, ref.revocableOrShared, s.RevocableOrSharedAgents, "agents with revocable or shared resources")

	require.Equal(t, s.Agents.Len(), len(s.AgentList))
	require.True(t, slices.IsSortedFunc(s.AgentList, func(a, b *Agent) int {
		if a.ID < b.ID {
			return -1
		}
		return 1
	}), "agent list in id order, no duplicates")
	nums := map[int32]bool{}
	for _, ag := range s.AgentList {
		require.Same(t, ag, s.Agents.Get(ag.ID))
		require.Positive(t, ag.Num, "agent %s", ag.ID)
		require.False(t, nums[ag.Num], "number %d held twice", ag.Num)
		nums[ag.Num] = true
		require.Same(t, ag, s.AgentsByNum.At(int(ag.Num)))
	}
	held := 0
	for i := range s.AgentsByNum {
		if s.AgentsByNum.At(i) != nil {
			held++
		}
	}
	require.Equal(t, len(s.AgentList), held, "numbers held by agents that left")
}

// A few agents of different shapes, added and removed as the allocator
// does: the sums, worked out by hand.
func TestStateSumsByHand(t *testing.T) {
	s := &State{}
	addFramework(s, "f1", "web", "db")

	a1 := addAgent(s, "a1", res("cpus:4;mem:100"), nil)
	requireQty(t, qty("cpus:4;mem:100"), s.Totals)
	require.Equal(t, uint64(1), s.TotalsVersion)
	requireQty(t, qty("cpus:4;mem:100"), s.FreeHeadroom)
	requireQty(t, qty("cpus:4;mem:100"), a1.Headroom)
	require.True(t, s.Excess.IsEmpty())
	require.Equal(t, 0, s.RevocableOrSharedAgents)
	require.Nil(t, a1.Rare, "nothing rare about a plain agent")

	a2 := addAgent(s, "a2", res("cpus(web):2;cpus:1;mem:50"), nil)
	a3 := addAgent(s, "a3", res("cpus{REV}:8;mem:10"), nil)
	requireQty(t, qty("cpus:15;mem:160"), s.Totals)
	require.Equal(t, uint64(3), s.TotalsVersion)
	requireQty(t, qty("cpus:1;mem:50"), a2.Headroom, "reserved cpus are no headroom")
	requireQty(t, qty("mem:10"), a3.Headroom, "revocable cpus are no headroom")
	requireQty(t, qty("cpus:5;mem:160"), s.FreeHeadroom)
	require.Equal(t, 1, s.RevocableOrSharedAgents)
	requireSums(t, s)

	// Offered and allocated resources leave the headroom.
	track(s, a1, "f1", alloc("cpus:1;mem:30", "web"), false)
	track(s, a2, "f1", alloc("cpus(web):2;cpus:1", "web"), true)
	requireQty(t, qty("cpus:3;mem:70"), a1.Headroom)
	requireQty(t, qty("mem:50"), a2.Headroom)
	requireQty(t, qty("cpus:3;mem:130"), s.FreeHeadroom)
	requireQty(t, qty("cpus:15;mem:160"), s.Totals, "totals do not change with what is held")
	require.Equal(t, uint64(3), s.TotalsVersion)
	requireSums(t, s)

	// Given back, they return to it.
	untrack(s, a1, "f1", alloc("mem:30", "web"), false)
	requireQty(t, qty("cpus:3;mem:100"), a1.Headroom)
	requireQty(t, qty("cpus:3;mem:160"), s.FreeHeadroom)
	requireSums(t, s)

	removeAgent(s, a2)
	requireQty(t, qty("cpus:12;mem:110"), s.Totals)
	require.Equal(t, uint64(4), s.TotalsVersion)
	requireQty(t, qty("cpus:3;mem:110"), s.FreeHeadroom)
	require.Equal(t, 1, s.RevocableOrSharedAgents)
	requireSums(t, s)

	removeAgent(s, a3)
	require.Equal(t, 0, s.RevocableOrSharedAgents)
	requireQty(t, qty("cpus:4;mem:100"), s.Totals)
	requireQty(t, qty("cpus:3;mem:100"), s.FreeHeadroom)
	removeAgent(s, a1)
	require.True(t, s.Totals.IsEmpty(), "%v", s.Totals)
	require.True(t, s.FreeHeadroom.IsEmpty(), "%v", s.FreeHeadroom)
	require.True(t, s.Excess.IsEmpty(), "%v", s.Excess)
	require.Equal(t, uint64(6), s.TotalsVersion)
	require.Empty(t, s.AgentList)
	requireSums(t, s)
}

// An agent whose total drops below what is held there is over-allocated:
// the excess is its part of State.Excess until enough is given back.
func TestStateSumsOverAllocated(t *testing.T) {
	s := &State{}
	addFramework(s, "f1", "web")
	other := addAgent(s, "a0", res("cpus:1"), nil)
	ag := addAgent(s, "a1", res("cpus:8;mem:64"), nil)
	track(s, ag, "f1", alloc("cpus:6;mem:60", "web"), true)
	require.False(t, ag.OverAllocated)

	updateTotal(s, ag, res("cpus:4;mem:64"))
	require.True(t, ag.OverAllocated)
	requireQty(t, qty("cpus:2"), ag.Excess())
	requireQty(t, qty("cpus:2"), s.Excess)
	requireQty(t, qty("mem:4"), ag.Headroom)
	requireQty(t, qty("cpus:1;mem:4"), s.FreeHeadroom)
	requireQty(t, qty("cpus:5;mem:64"), s.Totals)
	require.Equal(t, uint64(4), s.TotalsVersion)
	requireSums(t, s)

	// Over-allocated in two names.
	updateTotal(s, ag, res("cpus:3;mem:50"))
	requireQty(t, qty("cpus:3;mem:10"), ag.Excess())
	requireQty(t, qty("cpus:3;mem:10"), s.Excess)
	require.True(t, ag.Headroom.IsEmpty())
	requireQty(t, qty("cpus:1"), s.FreeHeadroom)
	requireSums(t, s)

	// Giving back part of it shrinks the excess.
	untrack(s, ag, "f1", alloc("cpus:2;mem:10", "web"), true)
	require.True(t, ag.OverAllocated)
	requireQty(t, qty("cpus:1"), ag.Excess())
	requireQty(t, qty("cpus:1"), s.Excess)
	requireSums(t, s)

	// Enough: no longer over-allocated, no excess.
	untrack(s, ag, "f1", alloc("cpus:1", "web"), true)
	require.False(t, ag.OverAllocated)
	require.True(t, ag.Excess().IsEmpty(), "%v", ag.Excess())
	require.True(t, s.Excess.IsEmpty(), "%v", s.Excess)
	require.True(t, ag.Headroom.IsEmpty(), "%v", ag.Headroom)
	requireQty(t, qty("cpus:1"), s.FreeHeadroom)
	requireSums(t, s)

	// Usage beyond the total reported for a framework not added yet, and
	// then claimed, counts the same.
	a2 := addAgent(s, "a2", res("cpus:2"), map[string]resources.Resources{"f9": alloc("cpus:5", "web")})
	require.True(t, a2.OverAllocated)
	requireQty(t, qty("cpus:3"), a2.Excess())
	requireQty(t, qty("cpus:3"), s.Excess)
	requireSums(t, s)
	addFramework(s, "f9", "web")
	claim(s, a2, "f9")
	requireQty(t, qty("cpus:3"), s.Excess)
	requireSums(t, s)

	// Removing an over-allocated agent takes its excess with it.
	removeAgent(s, a2)
	require.True(t, s.Excess.IsEmpty(), "%v", s.Excess)
	removeAgent(s, other)
	requireSums(t, s)
}

// Random events on a few agents: after each, every sum is the sum over the
// agents of what it counts.
func TestStateSumsModel(t *testing.T) {
	totals := []string{
		"cpus:8;mem:1024",
		"cpus:4;mem:512;disk:100",
		"cpus(web):2;cpus:6;mem:256",
		"cpus{REV}:4;cpus:2;mem:128",
		"cpus:4;mem:64;disk(db)[id:v,path:p]<SHARED>:10",
		"cpus:1",
		"mem:10;gpus:1",
	}
	// What frameworks may hold, as a part of an agent's total.
	parts := []string{
		"cpus:1", "cpus:2;mem:64", "mem:200", "disk:50", "cpus(web):1", "cpus{REV}:2", "gpus:1", "cpus:3;mem:300",
		"disk(db)[id:v,path:p]<SHARED>:10",
	}
	roles := []string{"web", "db"}
	// What the steps reached, over all seeds: the model must reach each.
	var excess, overByKind, revocableOrShared, holds, claims int
	for seed := uint64(1); seed <= 20; seed++ {
		seeded(t, seed, func(t *testing.T, rng *rand.Rand) {
			s := &State{}
			addFramework(s, "f1", "web", "db")
			addFramework(s, "f2", "web", "db")
			fwIDs := []string{"f1", "f2", "f8", "f9"} // f8 and f9 are added later
			next := 0
			versions := uint64(0)
			for step := 0; step < 150; step++ {
				var ag *Agent
				if len(s.AgentList) > 0 {
					ag = s.AgentList[rng.IntN(len(s.AgentList))]
				}
				part := func() resources.Resources {
					role := roles[rng.IntN(len(roles))]
					switch p := parts[rng.IntN(len(parts))]; {
					case p == "cpus(web):1":
						return alloc(p, "web")
					case p == "disk(db)[id:v,path:p]<SHARED>:10":
						return alloc(p, "db")
					default:
						return alloc(p, role)
					}
				}
				switch op := rng.IntN(9); {
				case op == 0 || ag == nil:
					next++
					id := string(rune('a'+next%26)) + string(rune('0'+next/26))
					var used map[string]resources.Resources
					if rng.IntN(2) == 0 {
						used = map[string]resources.Resources{fwIDs[rng.IntN(len(fwIDs))]: part()}
						if rng.IntN(3) == 0 {
							used[fwIDs[rng.IntN(len(fwIDs))]] = resources.Resources{}
						}
					}
					addAgent(s, id, res(totals[rng.IntN(len(totals))]), used)
					versions++
				case op == 1:
					removeAgent(s, ag)
					versions++
				case op <= 3:
					track(s, ag, fwIDs[rng.IntN(2)], part(), rng.IntN(2) == 0)
				case op == 4:
					// Give back something held, if anything.
					fwID := fwIDs[rng.IntN(2)]
					inUse := rng.IntN(2) == 0
					held := ag.Offered.Get(fwID)
					if inUse {
						held = ag.Allocated.Get(fwID)
					}
					if !held.IsEmpty() {
						r := held.Slice()[rng.IntN(held.Len())]
						one, err := resources.New(r)
						require.NoError(t, err)
						untrack(s, ag, fwID, one, inUse)
					}
				case op == 5:
					if shaped := s.Shape(res(totals[rng.IntN(len(totals))])); !shaped.Equal(ag.Total) {
						updateTotal(s, ag, shaped)
						versions += 2
					}
				case op == 6:
					// Hold something f1 uses (never a shared volume).
					if used := ag.Allocated.Get("f1").NonShared(); !used.IsEmpty() {
						one, err := resources.New(used.Slice()[rng.IntN(used.Len())])
						require.NoError(t, err)
						holdFor(ag, "f1", one)
						holds++
					}
				case op == 7:
					for _, fwID := range []string{"f8", "f9"} {
						if _, ok := ag.Unclaimed()[fwID]; ok {
							if _, known := s.Frameworks.Lookup(fwID); !known {
								addFramework(s, fwID, "web", "db")
							}
							claim(s, ag, fwID)
							claims++
						}
					}
				default:
					recomputeAvailable(s, ag)
				}
				require.Equal(t, versions, s.TotalsVersion)
				requireSums(t, s)
				if !s.Excess.IsEmpty() {
					excess++
				}
				if s.RevocableOrSharedAgents > 0 {
					revocableOrShared++
				}
				for _, ag := range s.AgentList {
					if ag.OverAllocated && ag.Excess().IsEmpty() {
						overByKind++
					}
				}
			}
		})
	}
	t.Logf("steps with excess %d, over-allocated agents without excess %d, with revocable or shared agents %d; holds %d, claims %d",
		excess, overByKind, revocableOrShared, holds, claims)
	for _, n := range []int{excess, overByKind, revocableOrShared, holds, claims} {
		require.Positive(t, n)
	}
}

// Agents are numbered from 1 on entry; a removed agent's number goes to
// the next agent added, the last one given back first.
func TestNumberAgent(t *testing.T) {
	s := &State{}
	var ags []*Agent
	for _, id := range []string{"a1", "a2", "a3", "a4"} {
		ags = append(ags, addAgent(s, id, res("cpus:1"), nil))
	}
	for i, ag := range ags {
		require.Equal(t, int32(i+1), ag.Num)
		require.Same(t, ag, s.AgentsByNum.At(i+1))
	}
	require.Nil(t, s.AgentsByNum.At(0), "0 is nobody's")
	require.Nil(t, s.AgentsByNum.At(5))

	removeAgent(s, ags[1])
	require.Equal(t, int32(0), ags[1].Num, "a removed agent has no number")
	require.Nil(t, s.AgentsByNum.At(2))
	removeAgent(s, ags[3])
	require.Nil(t, s.AgentsByNum.At(4))
	require.Same(t, ags[0], s.AgentsByNum.At(1))
	require.Same(t, ags[2], s.AgentsByNum.At(3))
	requireSums(t, s)

	a5 := addAgent(s, "a5", res("cpus:1"), nil)
	require.Equal(t, int32(4), a5.Num, "the last number given back")
	a6 := addAgent(s, "a6", res("cpus:1"), nil)
	require.Equal(t, int32(2), a6.Num)
	a7 := addAgent(s, "a7", res("cpus:1"), nil)
	require.Equal(t, int32(5), a7.Num, "then a new one")
	require.Same(t, a5, s.AgentsByNum.At(4))
	require.Same(t, a6, s.AgentsByNum.At(2))
	require.Same(t, a7, s.AgentsByNum.At(5))
	requireSums(t, s)

	// Numbering and unnumbering by hand, as the allocator calls them.
	ag := &Agent{ID: "x"}
	s.NumberAgent(ag)
	require.Equal(t, int32(6), ag.Num)
	require.Same(t, ag, s.AgentsByNum.At(6))
	s.UnnumberAgent(ag)
	require.Equal(t, int32(0), ag.Num)
	require.Nil(t, s.AgentsByNum.At(6))
	s.NumberAgent(ag)
	require.Equal(t, int32(6), ag.Num)
}

func TestSetFlags(t *testing.T) {
	type flags struct{ reserved, shared, revocable, refined, gpus bool }
	cases := []struct {
		total string
		want  flags
	}{
		{"", flags{}},
		{"cpus:4;mem:10;ports:[1-10]", flags{}},
		{"cpus(web):4", flags{reserved: true}},
		{"cpus{REV}:4", flags{revocable: true}},
		{"disk(db)[id:v,path:p]<SHARED>:10", flags{reserved: true, shared: true}},
		{"cpus(reservations: [(STATIC,a),(DYNAMIC,a/b,p)]):4", flags{reserved: true, refined: true}},
		{"gpus:1", flags{gpus: true}},
		{"gpus(web):2", flags{reserved: true, gpus: true}},
		{"gpus:[1-2]", flags{}},
		{"gpus:{a,b}", flags{}},
		{"cpus:1;gpus:1;mem(web):3;disk(db)[id:v,path:p]<SHARED>:10;cpus{REV}:1", flags{reserved: true, shared: true, revocable: true, gpus: true}},
	}
	for _, c := range cases {
		t.Run(c.total, func(t *testing.T) {
			s := &State{}
			ag := &Agent{ID: "a1", Total: res(c.total)}
			s.SetFlags(ag)
			require.Equal(t, c.want, flags{ag.HasReserved, ag.HasShared, ag.HasRevocable, ag.HasRefined, ag.HasGPUs})
			n := 0
			if c.want.shared || c.want.revocable {
				n = 1
			}
			require.Equal(t, n, s.RevocableOrSharedAgents)

			// Set again from a plain total, every flag is cleared.
			ag.Total = res("cpus:1")
			s.SetFlags(ag)
			require.Equal(t, flags{}, flags{ag.HasReserved, ag.HasShared, ag.HasRevocable, ag.HasRefined, ag.HasGPUs})
			require.Equal(t, 0, s.RevocableOrSharedAgents)
		})
	}
}

// The count of agents with revocable or shared resources goes up when an
// agent gains either, down when it loses both, and not otherwise.
func TestSetFlagsCountsRevocableOrShared(t *testing.T) {
	s := &State{}
	a1 := &Agent{ID: "a1"}
	a2 := &Agent{ID: "a2"}
	steps := []struct {
		ag    *Agent
		total string
		want  int
	}{
		{a1, "cpus:1", 0},
		{a1, "cpus:1", 0},
		{a1, "cpus{REV}:1", 1},
		{a1, "cpus{REV}:2", 1},
		{a2, "disk(db)[id:v,path:p]<SHARED>:10", 2},
		{a1, "cpus{REV}:1;disk(db)[id:v,path:p]<SHARED>:10", 2},
		{a1, "disk(db)[id:v,path:p]<SHARED>:10", 2},
		{a2, "disk(db)[id:v,path:p]<SHARED>:10;cpus:1", 2},
		{a1, "cpus(web):1", 1},
		{a1, "cpus(web):1", 1},
		{a2, "cpus{REV}:1", 1},
		{a2, "", 0},
		{a2, "", 0},
	}
	for i, st := range steps {
		st.ag.Total = res(st.total)
		s.SetFlags(st.ag)
		require.Equal(t, st.want, s.RevocableOrSharedAgents, "step %d: %s %s", i, st.ag.ID, st.total)
	}
}

// RefreshHeadroom replaces the agent's share of the free headroom with its
// available unreserved, non-revocable scalars.
func TestRefreshHeadroom(t *testing.T) {
	s := &State{FreeHeadroom: qty("cpus:10;mem:100")} // other agents' shares
	ag := &Agent{ID: "a1"}
	s.RefreshHeadroom(ag)
	require.True(t, ag.Headroom.IsEmpty())
	requireQty(t, qty("cpus:10;mem:100"), s.FreeHeadroom)

	// A plain agent: everything scalar.
	ag.Available = res("cpus:4;mem:50;ports:[1-10]")
	s.RefreshHeadroom(ag)
	requireQty(t, qty("cpus:4;mem:50"), ag.Headroom)
	requireQty(t, qty("cpus:14;mem:150"), s.FreeHeadroom)

	// Again: the old share is replaced, not added to.
	ag.Available = res("cpus:1;disk:7")
	s.RefreshHeadroom(ag)
	requireQty(t, qty("cpus:1;disk:7"), ag.Headroom)
	requireQty(t, qty("cpus:11;mem:100;disk:7"), s.FreeHeadroom)

	// Reserved or revocable resources in the total: those available are
	// left out.
	ag.HasReserved = true
	ag.Available = res("cpus:2;cpus(web):3;mem(web):5;mem:1")
	s.RefreshHeadroom(ag)
	requireQty(t, qty("cpus:2;mem:1"), ag.Headroom)
	requireQty(t, qty("cpus:12;mem:101"), s.FreeHeadroom)

	ag.HasReserved, ag.HasRevocable = false, true
	ag.Available = res("cpus:2;cpus{REV}:3;mem:4")
	s.RefreshHeadroom(ag)
	requireQty(t, qty("cpus:2;mem:4"), ag.Headroom)
	requireQty(t, qty("cpus:12;mem:104"), s.FreeHeadroom)

	ag.HasReserved = true
	ag.Available = res("cpus(web):2;cpus{REV}:3;gpus:1")
	s.RefreshHeadroom(ag)
	requireQty(t, qty("gpus:1"), ag.Headroom)
	requireQty(t, qty("cpus:10;mem:100;gpus:1"), s.FreeHeadroom)

	// Nothing available: the share is gone.
	ag.Available = resources.Resources{}
	s.RefreshHeadroom(ag)
	require.True(t, ag.Headroom.IsEmpty())
	requireQty(t, qty("cpus:10;mem:100"), s.FreeHeadroom)
}

func TestMeasureUse(t *testing.T) {
	vol := "disk(db)[id:v,path:p]<SHARED>:10"
	s := &State{Excess: qty("cpus:100")} // other agents' excess
	ag := &Agent{ID: "a1", Total: res("cpus:4;mem:100;" + vol)}

	// Nothing held.
	require.True(t, s.MeasureUse(ag).IsEmpty())
	require.False(t, ag.OverAllocated)
	require.Nil(t, ag.Rare, "no rare part made")
	requireQty(t, qty("cpus:100"), s.Excess)

	// Offered, allocated, held and unclaimed all count, without their
	// allocation roles; shared volumes do not.
	ag.Offered.Set("f1", alloc("cpus:1", "web"))
	ag.Allocated.Set("f2", alloc("cpus:1;"+vol, "db"))
	ag.Allocated.Set("f3", alloc("mem:5", "web"))
	ag.More().Holds.Add("f1", alloc("mem:30", "web"), t0)
	ag.More().Unclaimed = map[string]resources.Resources{"f9": alloc("cpus:1;mem:20;"+vol, "db")}
	used := s.MeasureUse(ag)
	requireRes(t, res("cpus:3;mem:55"), used)
	require.False(t, ag.OverAllocated)
	require.True(t, ag.Excess().IsEmpty())
	requireQty(t, qty("cpus:100"), s.Excess)

	// Past the total: over-allocated, the excess added to State's.
	ag.Allocated.Set("f3", alloc("cpus:3;mem:5", "web"))
	used = s.MeasureUse(ag)
	requireRes(t, res("cpus:6;mem:55"), used)
	require.True(t, ag.OverAllocated)
	requireQty(t, qty("cpus:2"), ag.Excess())
	requireQty(t, qty("cpus:102"), s.Excess)

	// Measured again, as the allocator does it (the agent's excess taken
	// off State's first).
	ag.Offered.Set("f1", alloc("cpus:2;mem:50", "web"))
	s.Excess.Subtract(ag.Excess())
	used = s.MeasureUse(ag)
	requireRes(t, res("cpus:7;mem:105"), used)
	require.True(t, ag.OverAllocated)
	requireQty(t, qty("cpus:3;mem:5"), ag.Excess())
	requireQty(t, qty("cpus:103;mem:5"), s.Excess)

	// Back within the total: no excess left.
	ag.Offered.Set("f1", resources.Resources{})
	s.Excess.Subtract(ag.Excess())
	used = s.MeasureUse(ag)
	requireRes(t, res("cpus:5;mem:55"), used)
	require.True(t, ag.OverAllocated, "cpus:5 of cpus:4")
	requireQty(t, qty("cpus:1"), ag.Excess())
	ag.Allocated.Set("f3", alloc("mem:5", "web"))
	s.Excess.Subtract(ag.Excess())
	used = s.MeasureUse(ag)
	requireRes(t, res("cpus:2;mem:55"), used)
	require.False(t, ag.OverAllocated)
	require.True(t, ag.Excess().IsEmpty(), "%v", ag.Excess())
	requireQty(t, qty("cpus:100"), s.Excess)
}

// Over-allocation is by kind: reserved resources held beyond the agent's
// reservation make it over-allocated with no excess by name.
func TestMeasureUseByKind(t *testing.T) {
	s := &State{}
	ag := &Agent{ID: "a1", Total: res("cpus(web):2;cpus:10")}
	ag.Allocated.Set("f1", res("cpus(web):3").Allocate("web"))
	requireRes(t, res("cpus(web):3"), s.MeasureUse(ag))
	require.True(t, ag.OverAllocated)
	require.NotNil(t, ag.Rare)
	require.True(t, ag.Excess().IsEmpty(), "%v", ag.Excess())
	require.True(t, s.Excess.IsEmpty(), "%v", s.Excess)

	// Revocable resources are a kind of their own too.
	ag = &Agent{ID: "a2", Total: res("cpus:10")}
	ag.Offered.Set("f1", alloc("cpus{REV}:1", "web"))
	s.MeasureUse(ag)
	require.True(t, ag.OverAllocated)
	require.True(t, ag.Excess().IsEmpty())
}

// A shared volume held by anyone must be part of the total; it never adds
// to the excess.
func TestMeasureUseShared(t *testing.T) {
	vol := "disk(db)[id:v,path:p]<SHARED>:10"
	other := "disk(db)[id:w,path:p]<SHARED>:10"
	for _, c := range []struct {
		name  string
		total string
		set   func(ag *Agent)
		over  bool
	}{
		{"offered, in the total", "cpus:1;" + vol, func(ag *Agent) { ag.Offered.Set("f1", alloc(vol, "db")) }, false},
		{"offered, not in the total", "cpus:1;" + other, func(ag *Agent) { ag.Offered.Set("f1", alloc(vol, "db")) }, true},
		{"allocated, not in the total", "cpus:1", func(ag *Agent) { ag.Allocated.Set("f1", alloc(vol, "db")) }, true},
		{"allocated twice, one copy in the total", "cpus:1;" + vol, func(ag *Agent) {
			ag.Allocated.Set("f1", alloc(vol, "db"))
			ag.Allocated.Set("f2", alloc(vol, "db"))
		}, false},
		{"unclaimed, in the total", vol, func(ag *Agent) {
			ag.More().Unclaimed = map[string]resources.Resources{"f9": alloc(vol, "db")}
		}, false},
		{"unclaimed, not in the total", other, func(ag *Agent) {
			ag.More().Unclaimed = map[string]resources.Resources{"f9": alloc(vol, "db")}
		}, true},
		{"over-allocated otherwise", vol, func(ag *Agent) { ag.Allocated.Set("f1", alloc("cpus:1;"+vol, "db")) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &State{}
			ag := &Agent{ID: "a1", Total: res(c.total)}
			c.set(ag)
			s.MeasureUse(ag)
			require.Equal(t, c.over, ag.OverAllocated)
			if c.name != "over-allocated otherwise" {
				require.True(t, ag.Excess().IsEmpty(), "%v", ag.Excess())
				require.True(t, s.Excess.IsEmpty(), "%v", s.Excess)
				return
			}
			requireQty(t, qty("cpus:1"), ag.Excess())
			requireQty(t, qty("cpus:1"), s.Excess)
		})
	}
	// No rare part is made for a shared volume outside the total.
	ag := &Agent{ID: "a1", Total: res("cpus:1")}
	ag.Allocated.Set("f1", alloc(vol, "db"))
	(&State{}).MeasureUse(ag)
	require.True(t, ag.OverAllocated)
	require.Nil(t, ag.Rare)
}

// what returns quantities of one name.
func what(name string, v resources.Scalar) resources.Quantities {
	var q resources.Quantities
	q.SetScalar(name, v)
	return q
}

func TestCheckSums(t *testing.T) {
	const maxTotal = resources.MaxTotal
	units := resources.Units

	// An empty cluster takes an agent of MaxTotal, not one more.
	s := &State{}
	require.NoError(t, s.CheckSums())
	require.NoError(t, s.CheckSums(AgentChange{Total: what("cpus", maxTotal)}))
	err := s.CheckSums(AgentChange{Total: what("cpus", maxTotal+1)})
	require.ErrorIs(t, err, ErrOverflow)
	require.EqualError(t, err, "allocator: amounts too large: the cluster would hold 1000000000000000.001 of cpus (with what frameworks hold beyond agent totals), more than 1000000000000000")
	// What the agent's frameworks hold beyond its total counts too.
	require.NoError(t, s.CheckSums(AgentChange{Total: what("cpus", maxTotal-units(5)), Held: what("cpus", maxTotal)}))
	err = s.CheckSums(AgentChange{Total: what("cpus", maxTotal-units(5)), Held: what("cpus", maxTotal+1)})
	require.ErrorIs(t, err, ErrOverflow)
	require.NoError(t, s.CheckSums(AgentChange{Total: what("cpus", units(5)), Held: what("cpus", maxTotal)}))
	require.ErrorIs(t, s.CheckSums(AgentChange{Total: what("cpus", units(5)), Held: what("cpus", maxTotal+1)}), ErrOverflow)
	// Held within the total adds nothing.
	require.NoError(t, s.CheckSums(AgentChange{Total: what("cpus", maxTotal), Held: what("cpus", maxTotal)}))

	// The cluster's totals and excess count, name by name.
	s = &State{Totals: qty("cpus:1000;mem:10"), Excess: qty("cpus:10")}
	require.NoError(t, s.CheckSums(AgentChange{Total: what("cpus", maxTotal-units(1010))}))
	err = s.CheckSums(AgentChange{Total: what("cpus", maxTotal-units(1009))})
	require.ErrorIs(t, err, ErrOverflow)
	require.EqualError(t, err, "allocator: amounts too large: the cluster would hold 1000000000000001 of cpus (with what frameworks hold beyond agent totals), more than 1000000000000000")
	require.NoError(t, s.CheckSums(AgentChange{Total: what("mem", maxTotal-units(10))}))
	require.ErrorIs(t, s.CheckSums(AgentChange{Total: what("mem", maxTotal-units(9))}), ErrOverflow)
	require.NoError(t, s.CheckSums(AgentChange{Total: what("gpus", maxTotal)}))
	require.NoError(t, s.CheckSums(AgentChange{Total: qty("cpus:5"), Held: what("cpus", maxTotal-units(1010))}))
	require.ErrorIs(t, s.CheckSums(AgentChange{Total: qty("cpus:5"), Held: what("cpus", maxTotal-units(1009))}), ErrOverflow)

	// Several changes add up, however each one is within bounds.
	half := maxTotal / 2
	require.NoError(t, (&State{}).CheckSums(AgentChange{Total: what("cpus", half)}, AgentChange{Total: what("cpus", half)}))
	require.ErrorIs(t, (&State{}).CheckSums(AgentChange{Total: what("cpus", half)}, AgentChange{Total: what("cpus", half+1)}), ErrOverflow)
	require.ErrorIs(t, (&State{}).CheckSums(AgentChange{Total: qty("cpus:1"), Held: what("cpus", half)}, AgentChange{Total: qty("cpus:1"), Held: what("cpus", half+1)}), ErrOverflow)
	require.ErrorIs(t, (&State{}).CheckSums(
		AgentChange{Total: what("cpus", maxTotal)}, AgentChange{Total: what("cpus", maxTotal)}, AgentChange{Total: what("cpus", maxTotal)}), ErrOverflow)
	// Many changes past the bound: the sums stop growing at the first
	// that passes it, so they never wrap around.
	many := make([]AgentChange, 19)
	for i := range many {
		many[i] = AgentChange{Total: what("cpus", maxTotal)}
	}
	require.ErrorIs(t, (&State{}).CheckSums(many...), ErrOverflow)
	for i := range many {
		many[i] = AgentChange{Total: qty("cpus:1"), Held: what("cpus", maxTotal)}
	}
	require.ErrorIs(t, (&State{}).CheckSums(many...), ErrOverflow)
	// Past the bound, the later changes are not looked at.
	require.ErrorIs(t, (&State{}).CheckSums(AgentChange{Total: what("cpus", maxTotal+1)}, AgentChange{Total: what("mem", 1)}), ErrOverflow)
	require.ErrorIs(t, (&State{}).CheckSums(AgentChange{Total: qty("cpus:1"), Held: what("cpus", maxTotal+1)}, AgentChange{Total: what("mem", 1)}), ErrOverflow)

	// A change to an agent replaces what it counted: its total, its
	// excess, and it adds to what is held there.
	s = &State{}
	addFramework(s, "f1", "web")
	ag := addAgent(s, "a1", res("cpus:10;mem:10"), nil)
	s.Totals.Add(what("cpus", maxTotal-units(10))) // other agents' totals
	track(s, ag, "f1", alloc("cpus:4", "web"), true)
	require.NoError(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:10;mem:10")}))
	require.NoError(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:10"), Held: qty("cpus:6")}))
	require.ErrorIs(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:10"), Held: qty("cpus:7")}), ErrOverflow)
	require.ErrorIs(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:11")}), ErrOverflow)
	require.NoError(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:2")}), "held beyond the new total: still the old sum")
	require.NoError(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:2"), Held: qty("cpus:6")}))
	require.ErrorIs(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:2"), Held: qty("cpus:7")}), ErrOverflow)

	// Over-allocated, the agent's excess is in State's: the change takes
	// it out before putting the new one in.
	updateTotal(s, ag, res("cpus:1;mem:10"))
	requireQty(t, qty("cpus:3"), s.Excess)
	requireQty(t, what("cpus", maxTotal-units(9)).Plus(qty("mem:10")), s.Totals)
	require.NoError(t, s.CheckSums())
	require.NoError(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:1"), Held: qty("cpus:6")}))
	require.ErrorIs(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:1"), Held: qty("cpus:7")}), ErrOverflow)
	require.NoError(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:10")}))
	require.ErrorIs(t, s.CheckSums(AgentChange{Ag: ag, Total: qty("cpus:11")}), ErrOverflow)
	require.NoError(t, s.CheckSums(AgentChange{Ag: ag}), "the agent's total gone, what is held stays")
	// A new agent: the excess held elsewhere counts.
	require.NoError(t, s.CheckSums(AgentChange{Total: qty("cpus:6")}))
	require.ErrorIs(t, s.CheckSums(AgentChange{Total: qty("cpus:7")}), ErrOverflow)
	requireQty(t, qty("cpus:3"), s.Excess, "checking changes nothing")
	requireQty(t, what("cpus", maxTotal-units(9)).Plus(qty("mem:10")), s.Totals)
}

func TestAgentAndFramework(t *testing.T) {
	s := &State{}
	fw := addFramework(s, "f1", "web")
	ag := addAgent(s, "a1", res("cpus:1"), nil)

	got, err := s.Agent("a1")
	require.NoError(t, err)
	require.Same(t, ag, got)
	got, err = s.Agent("a2")
	require.Nil(t, got)
	require.True(t, errors.Is(err, ErrUnknownAgent))
	require.EqualError(t, err, `allocator: unknown agent: "a2"`)

	gotFw, err := s.Framework("f1")
	require.NoError(t, err)
	require.Same(t, fw, gotFw)
	gotFw, err = s.Framework("f2")
	require.Nil(t, gotFw)
	require.True(t, errors.Is(err, ErrUnknownFramework))
	require.EqualError(t, err, `allocator: unknown framework: "f2"`)
	_, err = s.Framework("a1")
	require.True(t, errors.Is(err, ErrUnknownFramework), "agents are not frameworks")
	_, err = s.Agent("f1")
	require.True(t, errors.Is(err, ErrUnknownAgent))
}

func TestActivateDeactivateAgent(t *testing.T) {
	s := &State{}
	ag := addAgent(s, "a1", res("cpus:1"), nil)
	other := addAgent(s, "a2", res("cpus:1"), nil)
	require.True(t, ag.Active)

	require.NoError(t, s.DeactivateAgent("a1"))
	require.False(t, ag.Active)
	require.True(t, other.Active)
	require.NoError(t, s.DeactivateAgent("a1"), "twice is fine")
	require.False(t, ag.Active)
	require.NoError(t, s.ActivateAgent("a1"))
	require.True(t, ag.Active)
	require.NoError(t, s.ActivateAgent("a1"))
	require.True(t, ag.Active)

	err := s.ActivateAgent("a3")
	require.True(t, errors.Is(err, ErrUnknownAgent))
	require.EqualError(t, err, `allocator: unknown agent: "a3"`)
	err = s.DeactivateAgent("a3")
	require.True(t, errors.Is(err, ErrUnknownAgent))
	require.EqualError(t, err, `allocator: unknown agent: "a3"`)
	require.True(t, ag.Active)
	require.True(t, other.Active)
}

func TestAgentPlace(t *testing.T) {
	s := &State{}
	i, ok := s.AgentPlace("a1")
	require.Equal(t, 0, i)
	require.False(t, ok)

	for _, id := range []string{"a3", "a1", "a5"} {
		addAgent(s, id, res("cpus:1"), nil)
	}
	var ids []string
	for _, ag := range s.AgentList {
		ids = append(ids, ag.ID)
	}
	require.Equal(t, []string{"a1", "a3", "a5"}, ids)
	for _, c := range []struct {
		id    string
		place int
		found bool
	}{
		{"a0", 0, false}, {"a1", 0, true}, {"a2", 1, false}, {"a3", 1, true},
		{"a4", 2, false}, {"a5", 2, true}, {"a6", 3, false}, {"", 0, false}, {"a10", 1, false},
	} {
		i, ok := s.AgentPlace(c.id)
		require.Equal(t, c.place, i, c.id)
		require.Equal(t, c.found, ok, c.id)
	}
}

func TestTask(t *testing.T) {
	s := &State{}
	fw := addFramework(s, "f1", "web")
	task := &Task{ID: "t1", Agent: "a1", Role: "web", Framework: fw}
	fw.Tasks["t1"] = task
	addFramework(s, "f2", "web").Tasks["t2"] = &Task{ID: "t2"}

	gotFw, gotTask, err := s.Task("f1", "t1")
	require.NoError(t, err)
	require.Same(t, fw, gotFw)
	require.Same(t, task, gotTask)

	gotFw, gotTask, err = s.Task("f1", "t2")
	require.Nil(t, gotFw)
	require.Nil(t, gotTask)
	require.True(t, errors.Is(err, ErrUnknownTask))
	require.EqualError(t, err, `allocator: unknown task: framework "f1", task "t2"`)

	gotFw, gotTask, err = s.Task("f3", "t1")
	require.Nil(t, gotFw)
	require.Nil(t, gotTask)
	require.True(t, errors.Is(err, ErrUnknownFramework))
	require.False(t, errors.Is(err, ErrUnknownTask))
	require.EqualError(t, err, `allocator: unknown framework: "f3"`)
}

// FrameworkOn names the unknown framework first, then the unknown agent.
func TestFrameworkOn(t *testing.T) {
	s := &State{}
	fw := addFramework(s, "f1", "web")
	ag := addAgent(s, "a1", res("cpus:1"), nil)

	gotFw, gotAg, err := s.FrameworkOn("f1", "a1")
	require.NoError(t, err)
	require.Same(t, fw, gotFw)
	require.Same(t, ag, gotAg)

	for _, c := range []struct {
		fwID, agentID string
		want          error
		msg           string
	}{
		{"f2", "a2", ErrUnknownFramework, `allocator: unknown framework: "f2"`},
		{"f2", "a1", ErrUnknownFramework, `allocator: unknown framework: "f2"`},
		{"f1", "a2", ErrUnknownAgent, `allocator: unknown agent: "a2"`},
	} {
		gotFw, gotAg, err := s.FrameworkOn(c.fwID, c.agentID)
		require.Nil(t, gotFw)
		require.Nil(t, gotAg)
		require.True(t, errors.Is(err, c.want), "%v", err)
		require.EqualError(t, err, c.msg)
	}
}

func TestFrameworkRoles(t *testing.T) {
	s := &State{}
	fw := addFramework(s, "f1", "web", "db", "batch")
	fw.Roles.Mark("old", tables.Tracked) // holds resources there, no longer subscribed

	gotFw, roles, err := s.FrameworkRoles("f1", nil)
	require.NoError(t, err)
	require.Same(t, fw, gotFw)
	require.Equal(t, []string{"batch", "db", "web"}, roles, "all its roles, in order")

	named := []string{"web", "db"}
	gotFw, roles, err = s.FrameworkRoles("f1", named)
	require.NoError(t, err)
	require.Same(t, fw, gotFw)
	require.Equal(t, []string{"web", "db"}, roles, "the roles named, as named")

	_, roles, err = s.FrameworkRoles("f1", []string{"web", "old"})
	require.Nil(t, roles)
	require.True(t, errors.Is(err, ErrRoleNotSubscribed))
	require.EqualError(t, err, `allocator: framework not subscribed to role: framework "f1", role "old"`)

	gotFw, roles, err = s.FrameworkRoles("f2", []string{"web"})
	require.Nil(t, gotFw)
	require.Nil(t, roles)
	require.True(t, errors.Is(err, ErrUnknownFramework))
	require.EqualError(t, err, `allocator: unknown framework: "f2"`)
}

func TestUnknownUse(t *testing.T) {
	s := &State{}
	addFramework(s, "f1", "web")
	require.Nil(t, s.UnknownUse(nil))
	require.Nil(t, s.UnknownUse(map[string]resources.Resources{"f1": alloc("cpus:1", "web")}), "only known frameworks")
	require.Nil(t, s.UnknownUse(map[string]resources.Resources{"f9": {}}), "nothing used")

	used := map[string]resources.Resources{
		"f1": alloc("cpus:1", "web"),
		"f8": {},
		"f9": alloc("cpus:2", "web").Plus(alloc("mem:3", "db")),
		"f7": alloc("disk:4", "db"),
	}
	got := s.UnknownUse(used)
	require.Len(t, got, 2)
	requireRes(t, alloc("cpus:2", "web").Plus(alloc("mem:3", "db")), got["f9"])
	requireRes(t, alloc("disk:4", "db"), got["f7"])

	// Whatever the order the map is read in.
	for range 100 {
		got := s.UnknownUse(used)
		require.Len(t, got, 2)
		requireRes(t, alloc("cpus:2", "web").Plus(alloc("mem:3", "db")), got["f9"])
		requireRes(t, alloc("disk:4", "db"), got["f7"])
	}

	// A copy: changing it leaves what was used alone.
	r := got["f9"]
	r.Add(alloc("cpus:1", "web"))
	requireRes(t, alloc("cpus:2", "web").Plus(alloc("mem:3", "db")), used["f9"])
}

func TestCheckReportedUse(t *testing.T) {
	s := &State{}
	addFramework(s, "f1", "web")
	addFramework(s, "f2", "web", "db")

	require.NoError(t, s.CheckReportedUse("a1", nil))
	require.NoError(t, s.CheckReportedUse("a1", map[string]resources.Resources{
		"f1": alloc("cpus:1", "web"),
		"f2": alloc("cpus:1", "web").Plus(res("mem(db):5").Allocate("db")),
		// A framework not added yet may use any role.
		"f9": alloc("cpus:1", "batch").Plus(alloc("mem:1", "other")),
		"f8": {},
	}))

	for _, c := range []struct {
		name string
		used map[string]resources.Resources
		want error
		msg  string
	}{
		{"known framework, role not subscribed",
			map[string]resources.Resources{"f1": alloc("cpus:1", "db")},
			ErrRoleNotSubscribed, `agent "a1", framework "f1": allocator: framework not subscribed to role: "db"`},
		{"known framework, no allocation role",
			map[string]resources.Resources{"f2": res("cpus:1")},
			ErrInvalidResources, `agent "a1", framework "f2": allocator: invalid resources: cpus:1 has no allocation role`},
		{"known framework, reserved for another role",
			map[string]resources.Resources{"f2": res("cpus(db):1").Allocate("web")},
			ErrInvalidResources, `agent "a1", framework "f2": allocator: invalid resources: cpus(allocated: web)(db):1 is reserved for another role`},
		{"unknown framework, no allocation role",
			map[string]resources.Resources{"f9": res("cpus:1")},
			ErrInvalidResources, `agent "a1", framework "f9" not added yet: allocator: invalid resources: cpus:1 has no allocation role`},
		{"unknown framework, reserved for another role",
			map[string]resources.Resources{"f9": res("cpus(db):1").Allocate("web")},
			ErrInvalidResources, `agent "a1", framework "f9" not added yet: allocator: invalid resources: cpus(allocated: web)(db):1 is reserved for another role`},
		{"unknown framework, empty id",
			map[string]resources.Resources{"": alloc("cpus:1", "web")},
			ErrInvalidID, `agent "a1": allocator: invalid id: empty framework id`},
		{"unknown framework, control character",
			map[string]resources.Resources{"f\n": alloc("cpus:1", "web")},
			ErrInvalidID, `agent "a1": allocator: invalid id: framework id "f\n" has control characters`},
		{"the first framework by id",
			map[string]resources.Resources{"f9": res("cpus:1"), "f2": alloc("cpus:1", "batch"), "f1": alloc("cpus:1", "web")},
			ErrRoleNotSubscribed, `agent "a1", framework "f2": allocator: framework not subscribed to role: "batch"`},
		{"the first framework by id, unknown first",
			map[string]resources.Resources{"f3": res("cpus:1"), "f2": alloc("cpus:1", "batch")},
			ErrRoleNotSubscribed, `agent "a1", framework "f2": allocator: framework not subscribed to role: "batch"`},
		{"the first framework by id, known first",
			map[string]resources.Resources{"f0": res("cpus:1"), "f2": alloc("cpus:1", "batch")},
			ErrInvalidResources, `agent "a1", framework "f0" not added yet: allocator: invalid resources: cpus:1 has no allocation role`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := s.CheckReportedUse("a1", c.used)
			require.True(t, errors.Is(err, c.want), "%v", err)
			require.EqualError(t, err, c.msg)
		})
	}

	// Invalid resources: the error says why.
	big := res("cpus:1000000000000000").Allocate("web")
	for _, fwID := range []string{"f1", "f9"} {
		err := s.CheckReportedUse("a1", map[string]resources.Resources{fwID: big.Plus(big)})
		require.True(t, errors.Is(err, ErrInvalidResources), "%v", err)
		require.True(t, errors.Is(err, resources.ErrInvalidScalar), "%v", err)
	}
}

func TestClaims(t *testing.T) {
	s := &State{}
	addAgent(s, "a1", res("cpus:4;mem:100"), map[string]resources.Resources{"f1": alloc("cpus:1", "web")})
	addAgent(s, "a2", res("cpus:4;mem:100"), map[string]resources.Resources{
		"f1": alloc("mem:5", "db"),
		"f2": alloc("cpus:2", "web"),
	})
	addAgent(s, "a3", res("cpus:4;mem:100"), nil)
	addAgent(s, "a4", res("cpus:4;mem:100"), map[string]resources.Resources{"f2": alloc("cpus:1", "batch")})

	claims, err := s.Claims("f1", []string{"web", "db"}, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"a1": true, "a2": true}, claims)

	claims, err = s.Claims("f3", []string{"web"}, map[string]resources.Resources{"a1": alloc("cpus:1", "web")})
	require.NoError(t, err)
	require.Nil(t, claims, "nothing to claim")

	// What used says for an agent with usage to claim must be that usage;
	// used for other agents is not looked at.
	claims, err = s.Claims("f1", []string{"web", "db"}, map[string]resources.Resources{
		"a1": alloc("cpus:1", "web"),
		"a3": alloc("cpus:3", "web"),
	})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"a1": true, "a2": true}, claims)

	claims, err = s.Claims("f1", []string{"web", "db"}, map[string]resources.Resources{"a2": alloc("mem:6", "db")})
	require.Nil(t, claims)
	require.True(t, errors.Is(err, ErrInvalidResources))
	require.EqualError(t, err, `allocator: invalid resources: framework "f1" on agent "a2": used mem(allocated: db):6, the agent reported mem(allocated: db):5`)
	_, err = s.Claims("f1", []string{"web", "db"}, map[string]resources.Resources{"a1": {}})
	require.True(t, errors.Is(err, ErrInvalidResources), "used nothing where the agent reported something")

	// The usage's roles must be the framework's.
	claims, err = s.Claims("f1", []string{"web"}, nil)
	require.Nil(t, claims)
	require.True(t, errors.Is(err, ErrRoleNotSubscribed))
	require.EqualError(t, err, `framework "f1": agent "a2" reported it uses mem(allocated: db):5: allocator: framework not subscribed to role: "db"`)
	_, err = s.Claims("f2", []string{"web"}, nil)
	require.True(t, errors.Is(err, ErrRoleNotSubscribed))
	require.EqualError(t, err, `framework "f2": agent "a4" reported it uses cpus(allocated: batch):1: allocator: framework not subscribed to role: "batch"`)

	claims, err = s.Claims("f2", []string{"web", "batch"}, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"a2": true, "a4": true}, claims)
}

func TestHeldInRole(t *testing.T) {
	s := &State{}
	addFramework(s, "f1", "web", "db")
	addFramework(s, "f2", "web")
	a1 := addAgent(s, "a1", res("cpus:10;mem:100"), nil)
	a2 := addAgent(s, "a2", res("cpus:10;mem:100"), nil)
	a3 := addAgent(s, "a3", res("cpus:10;mem:100"), nil)
	addAgent(s, "a4", res("cpus:10;mem:100"), nil)

	require.True(t, s.HeldInRole("f1", "web").IsEmpty())

	track(s, a1, "f1", alloc("cpus:1", "web").Plus(alloc("mem:7", "db")), false) // offered only
	require.True(t, a1.Offered.Has("f1"))
	require.False(t, a1.Allocated.Has("f1"))
	requireRes(t, alloc("cpus:1", "web"), s.HeldInRole("f1", "web"))
	requireRes(t, alloc("mem:7", "db"), s.HeldInRole("f1", "db"))

	track(s, a2, "f1", alloc("cpus:2;mem:3", "web"), true) // allocated only
	requireRes(t, alloc("cpus:3;mem:3", "web"), s.HeldInRole("f1", "web"))

	track(s, a3, "f1", alloc("cpus:4", "web"), true)
	holdFor(a3, "f1", alloc("cpus:4", "web")) // held only
	require.False(t, a3.Allocated.Has("f1"))
	require.False(t, a3.Offered.Has("f1"))
	requireRes(t, alloc("cpus:7;mem:3", "web"), s.HeldInRole("f1", "web"))

	// Other frameworks' holdings and other roles are not counted.
	track(s, a1, "f2", alloc("cpus:5", "web"), true)
	requireRes(t, alloc("cpus:7;mem:3", "web"), s.HeldInRole("f1", "web"))
	requireRes(t, alloc("cpus:5", "web"), s.HeldInRole("f2", "web"))
	require.True(t, s.HeldInRole("f2", "db").IsEmpty())
	require.True(t, s.HeldInRole("f1", "batch").IsEmpty())

	// Offered and allocated on one agent count both.
	track(s, a1, "f1", alloc("cpus:1", "web"), true)
	requireRes(t, alloc("cpus:8;mem:3", "web"), s.HeldInRole("f1", "web"))

	// A framework that is not known holds nothing, whatever the agents say.
	a1.Offered.Set("f9", alloc("cpus:1", "web"))
	require.True(t, s.HeldInRole("f9", "web").IsEmpty())
}

// Shape gives agents with equal totals one storage, without allocation
// roles, and never changes the caller's value.
func TestShape(t *testing.T) {
	s := &State{}
	first := res("cpus:4;mem:100")
	shaped := s.Shape(first)
	requireRes(t, res("cpus:4;mem:100"), shaped)
	again := s.Shape(res("cpus:4;mem:100"))
	require.True(t, again.Identical(shaped), "one storage for equal totals")
	require.False(t, s.Shape(res("cpus:4;mem:101")).Identical(shaped))

	for _, total := range []resources.Resources{
		alloc("cpus:4;mem:100", "web"),
		alloc("cpus:4", "web").Plus(alloc("mem:100", "db")),
		alloc("cpus:4", "web").Plus(res("mem:100")),
	} {
		before := total.String()
		got := s.Shape(total)
		requireRes(t, res("cpus:4;mem:100"), got, "from ", before)
		_, single := got.AllocationRole()
		require.True(t, single)
		require.Equal(t, []string{""}, got.AllocationRoles())
		require.True(t, got.Identical(shaped), "from %s", before)
		require.Equal(t, before, total.String(), "the caller's value changed")
	}
	require.True(t, s.Shape(resources.Resources{}).IsEmpty())
}

// OverAllocatedAgents counts each agent once while it holds more than its
// total: up when one goes over, unchanged while it stays over or within,
// down when it comes back within or is forgotten.
func TestOverAllocatedAgentsCounted(t *testing.T) {
	s := &State{}
	a1 := &Agent{ID: "a1", Total: res("cpus:4")}
	a2 := &Agent{ID: "a2", Total: res("cpus:4")}
	steps := []struct {
		ag   *Agent
		uses string
		want int
	}{
		{a1, "cpus:2", 0},
		{a1, "cpus:2", 0},
		{a1, "cpus:6", 1},
		{a1, "cpus:7", 1},
		{a2, "cpus:5", 2},
		{a1, "cpus:3", 1},
		{a1, "cpus:1", 1},
		{a2, "cpus:5", 1},
	}
	for i, st := range steps {
		st.ag.Allocated.Set("f1", alloc(st.uses, "web"))
		s.Excess.Subtract(st.ag.Excess())
		s.MeasureUse(st.ag)
		require.Equal(t, st.want, s.OverAllocatedAgents, "step %d: %s uses %s", i, st.ag.ID, st.uses)
	}
	s.Forget(a1)
	require.Equal(t, 1, s.OverAllocatedAgents, "a1 was within its total")
	s.Forget(a2)
	require.Equal(t, 0, s.OverAllocatedAgents)
}
