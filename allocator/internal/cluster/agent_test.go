package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The rare part is nil until set, and its readers answer the zero value
// meanwhile, without making it.
func TestAgentRareNilSafe(t *testing.T) {
	ag := &Agent{ID: "a1"}
	require.Nil(t, ag.Unclaimed())
	require.True(t, ag.Excess().IsEmpty())
	require.Nil(t, ag.Inverse())
	require.Nil(t, ag.Holds())
	require.False(t, ag.Holds().Has("f1"))
	require.True(t, ag.Holds().Of("f1").IsEmpty())
	require.Nil(t, ag.Rare, "reading made the rare part")

	// Nor do the methods that read the holds make it.
	require.True(t, ag.Held("f1").IsEmpty())
	require.Empty(t, ag.FrameworkIDs())
	require.True(t, ag.HeldQuantities().IsEmpty())
	var q resources.Quantities
	ag.unclaimedQuantities(&q)
	require.True(t, q.IsEmpty())
	require.Nil(t, ag.Rare, "reading made the rare part")
}

func TestAgentMore(t *testing.T) {
	ag := &Agent{ID: "a1"}
	rare := ag.More()
	require.NotNil(t, rare)
	require.Same(t, rare, ag.Rare)
	require.Equal(t, AgentRare{}, *rare, "a new rare part is empty")
	// Made once: later calls return the same part, with what was set.
	rare.Excess = qty("cpus:2")
	rare.Unclaimed = map[string]resources.Resources{"f9": alloc("cpus:1", "r")}
	rare.Holds.Add("f1", alloc("mem:5", "r"), t0)
	rare.Inverse = map[string]*InverseState{"f2": {Outstanding: true}}
	require.Same(t, rare, ag.More())
	require.Same(t, rare, ag.More())

	requireQty(t, qty("cpus:2"), ag.Excess())
	require.Len(t, ag.Unclaimed(), 1)
	requireRes(t, alloc("cpus:1", "r"), ag.Unclaimed()["f9"])
	require.Len(t, ag.Holds(), 1)
	require.Equal(t, "f1", ag.Holds()[0].Framework)
	require.Len(t, ag.Inverse(), 1)
	require.True(t, ag.Inverse()["f2"].Outstanding)
}

func TestInverseState(t *testing.T) {
	ag := &Agent{ID: "a1"}
	st := ag.InverseState("f1")
	require.NotNil(t, st)
	require.Equal(t, InverseState{}, *st, "a new state is the zero one")
	require.NotNil(t, ag.Rare, "the state lives in the rare part")
	require.Len(t, ag.Inverse(), 1)
	require.Same(t, st, ag.Inverse()["f1"])

	st.Outstanding = true
	st.Status = 2
	require.Same(t, st, ag.InverseState("f1"), "made on first use only")
	require.Equal(t, InverseState{Outstanding: true, Status: 2}, *ag.InverseState("f1"))

	// Per framework.
	st2 := ag.InverseState("f2")
	require.NotSame(t, st, st2)
	require.Equal(t, InverseState{}, *st2)
	require.Len(t, ag.Inverse(), 2)
	require.Equal(t, InverseState{Outstanding: true, Status: 2}, *ag.InverseState("f1"))

	// An agent whose rare part exists without inverse states keeps the
	// rest of it.
	ag2 := &Agent{ID: "a2"}
	ag2.More().Holds.Add("f1", alloc("cpus:1", "r"), t0)
	rare := ag2.Rare
	st3 := ag2.InverseState("f3")
	require.Same(t, rare, ag2.Rare)
	require.Len(t, ag2.Holds(), 1)
	require.Len(t, ag2.Inverse(), 1)
	require.Same(t, st3, ag2.Inverse()["f3"])
}

func TestCapabilities(t *testing.T) {
	ag := &Agent{ID: "a1"}
	want := offer.MultiRole | offer.HierarchicalRole | offer.ReservationRefinement | offer.ResizeVolume
	require.Equal(t, want, ag.Capabilities(), "defaults when the agent declares none")
	require.True(t, ag.Capabilities().Has(offer.MultiRole))
	require.False(t, ag.Capabilities().Has(offer.SharedResources))

	ag.Info.Capabilities = offer.MultiRole
	require.Equal(t, offer.MultiRole, ag.Capabilities(), "declared ones as declared")
	ag.Info.Capabilities = offer.SharedResources | offer.HierarchicalRole
	require.Equal(t, offer.SharedResources|offer.HierarchicalRole, ag.Capabilities())
}

func TestOfferedOrUsedAndHeld(t *testing.T) {
	ag := &Agent{ID: "a1"}
	require.True(t, ag.OfferedOrUsed("f1").IsEmpty())
	require.True(t, ag.Held("f1").IsEmpty())

	ag.Offered.Set("f1", alloc("cpus:1;mem:64", "web"))
	ag.Allocated.Set("f1", alloc("cpus:2", "web").Plus(alloc("mem:32", "db")))
	ag.Allocated.Set("f2", alloc("cpus:4", "db"))
	requireRes(t, res("cpus(allocated: web):3;mem(allocated: web):64;mem(allocated: db):32"), ag.OfferedOrUsed("f1"))
	requireRes(t, alloc("cpus:4", "db"), ag.OfferedOrUsed("f2"))
	require.True(t, ag.OfferedOrUsed("f3").IsEmpty())
	// Without holds, held is offered or used.
	requireRes(t, res("cpus(allocated: web):3;mem(allocated: web):64;mem(allocated: db):32"), ag.Held("f1"))

	// Holds count towards held, not towards offered or used.
	ag.More().Holds.Add("f1", alloc("cpus:5", "web"), t0)
	ag.More().Holds.Add("f3", alloc("disk:7", "db"), t0)
	requireRes(t, res("cpus(allocated: web):8;mem(allocated: web):64;mem(allocated: db):32"), ag.Held("f1"))
	requireRes(t, alloc("cpus:4", "db"), ag.Held("f2"))
	requireRes(t, alloc("disk:7", "db"), ag.Held("f3"))
	require.True(t, ag.OfferedOrUsed("f3").IsEmpty())
	requireRes(t, res("cpus(allocated: web):3;mem(allocated: web):64;mem(allocated: db):32"), ag.OfferedOrUsed("f1"))

	// Neither changes what the agent keeps.
	requireRes(t, alloc("cpus:1;mem:64", "web"), ag.Offered.Get("f1"))
	requireRes(t, alloc("cpus:2", "web").Plus(alloc("mem:32", "db")), ag.Allocated.Get("f1"))
	requireRes(t, alloc("cpus:5", "web"), ag.Holds()[0].Res)
}

func TestFrameworkIDs(t *testing.T) {
	cases := []struct {
		name                 string
		offered, alloc, held []string
		want                 []string
	}{
		{"none", nil, nil, nil, nil},
		{"offered only", []string{"f3", "f1"}, nil, nil, []string{"f1", "f3"}},
		{"allocated only", nil, []string{"f2", "f1"}, nil, []string{"f1", "f2"}},
		{"both, apart", []string{"f3"}, []string{"f1"}, nil, []string{"f1", "f3"}},
		{"both, overlapping", []string{"f2", "f3"}, []string{"f1", "f2"}, nil, []string{"f1", "f2", "f3"}},
		{"held only", nil, nil, []string{"f5", "f4", "f5"}, []string{"f4", "f5"}},
		{"offered and held", []string{"f2"}, nil, []string{"f1"}, []string{"f1", "f2"}},
		{"allocated and held", nil, []string{"f2"}, []string{"f3", "f2"}, []string{"f2", "f3"}},
		{"all", []string{"f1", "f4"}, []string{"f2", "f4"}, []string{"f3", "f1"}, []string{"f1", "f2", "f3", "f4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ag := &Agent{ID: "a1"}
			for _, id := range c.offered {
				ag.Offered.Set(id, alloc("cpus:1", "r"))
			}
			for _, id := range c.alloc {
				ag.Allocated.Set(id, alloc("mem:1", "r"))
			}
			for _, id := range c.held {
				ag.More().Holds.Add(id, alloc("disk:1", "r"), t0)
			}
			got := ag.FrameworkIDs()
			if len(c.want) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, c.want, got)
		})
	}
}

// An agent's offered and allocated resources are kept per framework with
// no empty entry: a framework left with nothing is no longer among the
// agent's.
func TestAgentNoEmptyEntry(t *testing.T) {
	ag := &Agent{ID: "a1"}
	ag.Offered.Set("f1", alloc("cpus:1", "web"))
	ag.Allocated.Set("f2", alloc("cpus:2", "web"))
	ag.Allocated.Set("f1", alloc("mem:2", "web"))
	require.Equal(t, []string{"f1", "f2"}, ag.FrameworkIDs())
	ag.Offered.Set("f1", ag.Offered.Get("f1").Minus(alloc("cpus:1", "web")))
	require.Equal(t, 0, ag.Offered.Len())
	require.Equal(t, []string{"f1", "f2"}, ag.FrameworkIDs())
	ag.Allocated.Set("f1", resources.Resources{})
	require.False(t, ag.Allocated.Has("f1"))
	require.Equal(t, []string{"f2"}, ag.FrameworkIDs())
	require.True(t, ag.Held("f1").IsEmpty())
	requireQty(t, qty("cpus:2"), ag.HeldQuantities())
}

func TestHeldQuantities(t *testing.T) {
	ag := &Agent{ID: "a1"}
	require.True(t, ag.HeldQuantities().IsEmpty())
	// A shared volume is not counted (its disk is the agent's still);
	// the rest is, whatever its reservation or revocability.
	ag.Offered.Set("f1", res("cpus:1;mem:64;disk(db)[id:v,path:p]<SHARED>:100").Allocate("db"))
	ag.Allocated.Set("f1", res("cpus{REV}:2;disk(db)[id:w,path:p]:5").Allocate("db"))
	ag.Allocated.Set("f2", res("cpus(web):3;disk(db)[id:v,path:p]<SHARED>:100<2>").Allocate("web"))
	requireQty(t, qty("cpus:6;mem:64;disk:5"), ag.HeldQuantities())

	ag.More().Holds.Add("f3", alloc("gpus:1;mem:8", "r"), t0)
	ag.More().Holds.Add("f1", alloc("cpus:1", "r"), t0)
	requireQty(t, qty("cpus:7;mem:72;disk:5;gpus:1"), ag.HeldQuantities())

	ag.More().Unclaimed = map[string]resources.Resources{
		"f8": res("cpus:1;disk(db)[id:u,path:p]<SHARED>:50").Allocate("db"),
		"f9": alloc("mem:8;disk:2", "r"),
	}
	requireQty(t, qty("cpus:8;mem:80;disk:7;gpus:1"), ag.HeldQuantities())

	// What the agent keeps is unchanged.
	requireRes(t, res("cpus:1;mem:64;disk(db)[id:v,path:p]<SHARED>:100").Allocate("db"), ag.Offered.Get("f1"))
	requireRes(t, res("cpus:1;disk(db)[id:u,path:p]<SHARED>:50").Allocate("db"), ag.Unclaimed()["f8"])
}

func TestUnclaimedQuantities(t *testing.T) {
	ag := &Agent{ID: "a1"}
	q := qty("cpus:1")
	ag.unclaimedQuantities(&q)
	requireQty(t, qty("cpus:1"), q, "no rare part")

	ag.More().Excess = qty("cpus:9")
	ag.unclaimedQuantities(&q)
	requireQty(t, qty("cpus:1"), q, "no unclaimed usage")

	ag.More().Unclaimed = map[string]resources.Resources{
		"f1": res("cpus:2;mem:10;disk(db)[id:v,path:p]<SHARED>:100<3>").Allocate("db"),
		"f2": res("mem:5;cpus{REV}:1").Allocate("web"),
		"f3": res("disk(db)[id:v,path:p]<SHARED>:100").Allocate("db"),
	}
	ag.unclaimedQuantities(&q)
	requireQty(t, qty("cpus:4;mem:15"), q, "added to what q held")
	requireRes(t, res("cpus:2;mem:10;disk(db)[id:v,path:p]<SHARED>:100<3>").Allocate("db"), ag.Unclaimed()["f1"])
}

func TestInUse(t *testing.T) {
	ag := &Agent{ID: "a1"}
	require.True(t, ag.InUse().IsEmpty())
	ag.Offered.Set("f1", res("disk(db)[id:o,path:p]:9").Allocate("db"))
	ag.Allocated.Set("f1", res("cpus:1;disk:10;disk(db)[id:v1,path:p]:5").Allocate("db"))
	ag.Allocated.Set("f2", res("mem:8;disk(db)[id:v2,path:p]:6;disk(db)[id:s,path:p]<SHARED>:20").Allocate("db"))
	ag.Allocated.Set("f3", res("disk(db)[id:s,path:p]<SHARED>:20").Allocate("web"))
	// The volumes tasks use, without allocation roles: offered ones are not
	// in use, and a shared volume counts a copy per framework using it.
	want := res("disk(db)[id:v1,path:p]:5;disk(db)[id:v2,path:p]:6;disk(db)[id:s,path:p]<SHARED>:20<2>")
	got := ag.InUse()
	requireRes(t, want, got)
	require.Equal(t, []string{""}, got.AllocationRoles())
}

func TestRefIsAvailable(t *testing.T) {
	ag := &Agent{ID: "a1", Available: res("cpus:4;mem:256")}
	ag.RefIsAvailable()
	require.True(t, ag.Ref.Identical(ag.Available), "the reference is the available value itself")
	requireRes(t, res("cpus:4;mem:256"), ag.Ref)
	// Available changing in place leaves the reference as it was.
	ag.Available.Subtract(res("cpus:1"))
	requireRes(t, res("cpus:3;mem:256"), ag.Available)
	requireRes(t, res("cpus:4;mem:256"), ag.Ref)
	ag.Available.Add(res("cpus:3;disk:5"))
	requireRes(t, res("cpus:4;mem:256"), ag.Ref)
	ag.RefIsAvailable()
	requireRes(t, res("cpus:6;mem:256;disk:5"), ag.Ref)
}

func TestRefusers(t *testing.T) {
	now := t0
	mk := func(gen uint64, until time.Time, nums ...int) *refusals.Index {
		idx := &refusals.Index{}
		for _, n := range nums {
			idx.Mark(n, gen, until)
		}
		return idx
	}
	ag := &Agent{ID: "a1", RefGen: 3}
	require.Nil(t, ag.Refusers("web", now), "no index")

	web := mk(3, now.Add(time.Minute), 1, 2)
	db := mk(3, now.Add(time.Second), 5)
	ag.Refusals.Set("web", web)
	ag.Refusals.Set("db", db)
	require.Same(t, web, ag.Refusers("web", now))
	require.Same(t, db, ag.Refusers("db", now))
	require.Same(t, db, ag.Refusers("db", now.Add(time.Second-1)))
	require.Nil(t, ag.Refusers("batch", now))
	require.Equal(t, []string{"db", "web"}, ag.Refusals.Roles(), "valid indexes stay")

	// At the index's instant it no longer holds, and goes.
	require.Nil(t, ag.Refusers("db", now.Add(time.Second)))
	_, ok := ag.Refusals.Get("db")
	require.False(t, ok, "an index no longer valid is dropped")
	require.Equal(t, []string{"web"}, ag.Refusals.Roles())
	require.Same(t, web, ag.Refusers("web", now), "other roles' indexes stay")

	// A new generation of the reference voids the index, whatever the
	// time.
	ag.RefGen = 4
	require.Nil(t, ag.Refusers("web", now))
	_, ok = ag.Refusals.Get("web")
	require.False(t, ok)
	require.Empty(t, ag.Refusals.Roles())

	// An index of the current generation, but made of a zero expiry,
	// never holds.
	ag.Refusals.Set("web", &refusals.Index{Gen: 4})
	require.Nil(t, ag.Refusers("web", now))
	require.Empty(t, ag.Refusals.Roles())

	// A later instant, past the index's.
	late := mk(4, now.Add(time.Hour), 7)
	ag.Refusals.Set("web", late)
	require.Same(t, late, ag.Refusers("web", now.Add(59*time.Minute)))
	require.Nil(t, ag.Refusers("web", now.Add(2*time.Hour)))
	require.Empty(t, ag.Refusals.Roles())
}

func TestLikelyNobody(t *testing.T) {
	ag := &Agent{ID: "a1", Version: 7}
	require.False(t, ag.likelyNobody(), "no entry")
	ag.Nobody.First = NobodyEntry{Version: 7}
	require.False(t, ag.likelyNobody(), "the entry's role is unused")
	ag.Nobody.Role = "web"
	require.True(t, ag.likelyNobody())
	ag.Version = 8
	require.False(t, ag.likelyNobody(), "an entry of an older version")
	ag.Nobody.First.Version = 8
	require.True(t, ag.likelyNobody())
}

// prefetchAgents makes agents of every shape PrefetchAhead looks at: with
// a likely nobody entry or not, with a first refusal index (empty or not)
// or none.
func prefetchAgents(n int, rng *rand.Rand) []*Agent {
	agents := make([]*Agent, n)
	for i := range agents {
		ag := &Agent{ID: fmt.Sprintf("a%d", i), Version: uint64(i + 1), Available: res(fmt.Sprintf("cpus:%d;mem:64", i+1))}
		switch rng.IntN(3) {
		case 0:
			ag.Nobody.Role = "web"
			ag.Nobody.First.Version = ag.Version
		case 1:
			ag.Nobody.Role = "web"
			ag.Nobody.First.Version = ag.Version - 1
		}
		switch rng.IntN(3) {
		case 0:
			idx := &refusals.Index{}
			idx.Mark(rng.IntN(200), 1, t0)
			ag.Refusals.Set("web", idx)
		case 1:
			ag.Refusals.Set("web", &refusals.Index{})
		}
		agents[i] = ag
	}
	return agents
}

// PrefetchAhead is a hint: at any index of any list it neither panics nor
// changes anything.
func TestPrefetchAhead(t *testing.T) {
	type snap struct {
		ag  Agent
		idx *refusals.Index
	}
	for seed := uint64(1); seed <= 10; seed++ {
		seeded(t, seed, func(t *testing.T, rng *rand.Rand) {
			for n := 0; n <= 14; n++ {
				agents := prefetchAgents(n, rng)
				before := make([]snap, n)
				for i, ag := range agents {
					before[i].ag = *ag
					if idx := ag.Refusals.First; idx != nil {
						c := *idx
						c.Skip = slices.Clone(idx.Skip)
						before[i].idx = &c
					}
				}
				order := slices.Clone(agents)
				for i := 0; i < n+8; i++ {
					require.NotPanics(t, func() { PrefetchAhead(agents, i) }, "n %d, i %d", n, i)
				}
				for i := range agents {
					require.Same(t, order[i], agents[i])
					require.Equal(t, before[i].ag, *agents[i], "n %d: agent %d", n, i)
					require.Equal(t, before[i].idx, agents[i].Refusals.First, "n %d: agent %d", n, i)
				}
			}
		})
	}
	// Every agent likely nobody, or none: all shapes at every index.
	for _, nobody := range []bool{false, true} {
		agents := make([]*Agent, 9)
		for i := range agents {
			agents[i] = &Agent{ID: fmt.Sprintf("a%d", i)}
			if nobody {
				agents[i].Nobody.Role = "r"
			}
		}
		for i := range agents {
			require.NotPanics(t, func() { PrefetchAhead(agents, i) })
			agents[i].prefetch()
			agents[i].prefetchFirst()
		}
	}
}

// hint is one prefetch hint: the n bytes at p, or, when res is set, the
// entries of the resources res prints as.
type hint struct{ p, n uintptr }

// recordHints makes the agents' prefetch hints record themselves, instead
// of reaching the processor, until the test ends.
func recordHints(t *testing.T) *[]hint {
	var got []hint
	lines := prefetchLines
	prefetchLines = func(p unsafe.Pointer, n uintptr) { got = append(got, hint{p: uintptr(p), n: n}) }
	t.Cleanup(func() { prefetchLines = lines })
	return &got
}

// firstLines is what a visit reads first: the record from its available
// resources to the end of its nobody entries, which holds the version and
// the refusal indexes.
func firstLines(ag *Agent) hint {
	from := uintptr(unsafe.Pointer(&ag.Available))
	to := uintptr(unsafe.Pointer(&ag.Nobody)) + unsafe.Sizeof(ag.Nobody)
	return hint{p: from, n: to - from}
}

// wantHints is what the visit of agents[i] asks for ahead: six agents on,
// the first lines; four on, the whole record, the available resources and
// the first refusal index; two on, that index's bits, if it has any. Four
// and two on, nothing for an agent whose first nobody entry holds for its
// version; nothing for an agent past the end.
func wantHints(agents []*Agent, i int) []hint {
	var want []hint
	if i+6 < len(agents) {
		want = append(want, firstLines(agents[i+6]))
	}
	if i+4 < len(agents) {
		if ag := agents[i+4]; !(ag.Nobody.Role != "" && ag.Nobody.First.Version == ag.Version) {
			want = append(want, hint{p: uintptr(unsafe.Pointer(ag)), n: unsafe.Sizeof(Agent{})})
			if idx := ag.Refusals.First; idx != nil {
				want = append(want, hint{p: uintptr(unsafe.Pointer(idx)), n: unsafe.Sizeof(refusals.Index{})})
			}
		}
	}
	if i+2 < len(agents) {
		if ag := agents[i+2]; !(ag.Nobody.Role != "" && ag.Nobody.First.Version == ag.Version) {
			if idx := ag.Refusals.First; idx != nil && len(idx.Skip) > 0 {
				want = append(want, hint{p: uintptr(unsafe.Pointer(&idx.Skip[0])), n: uintptr(len(idx.Skip)) * 8})
			}
		}
	}
	return want
}

// PrefetchAhead asks for exactly the memory its doc names, at every index
// of lists of every length and of agents of every shape (the hints change
// nothing a run computes, so only they show it).
func TestPrefetchAheadAsksFor(t *testing.T) {
	got := recordHints(t)
	for seed := uint64(1); seed <= 10; seed++ {
		seeded(t, seed, func(t *testing.T, rng *rand.Rand) {
			for n := 0; n <= 14; n++ {
				agents := prefetchAgents(n, rng)
				for i := 0; i < n+8; i++ {
					*got = nil
					PrefetchAhead(agents, i)
					require.ElementsMatch(t, wantHints(agents, i), *got, "n %d, i %d", n, i)
				}
			}
		})
	}
}

// The three kinds of agent PrefetchAhead tells apart are all asked for as
// they should be: one whose nobody entry holds only its first lines, one
// whose entry is stale everything, one without an index no index.
func TestPrefetchAheadShapes(t *testing.T) {
	got := recordHints(t)
	idx := &refusals.Index{}
	idx.Mark(3, 1, t0)
	idx.Mark(150, 1, t0)
	require.Len(t, idx.Skip, 3)
	mk := func(id string, version, nobodyVersion uint64, idx *refusals.Index) *Agent {
		ag := &Agent{ID: id, Version: version, Available: res("cpus:1;mem:" + id)}
		ag.Nobody.Role = "web"
		ag.Nobody.First.Version = nobodyVersion
		if idx != nil {
			ag.Refusals.Set("web", idx)
		}
		return ag
	}
	nobody, stale, plain := mk("1", 5, 5, idx), mk("2", 5, 4, idx), mk("3", 5, 4, nil)
	for _, c := range []struct {
		name string
		ag   *Agent
		four []hint
		two  []hint
	}{
		{"nobody", nobody, nil, nil},
		{"stale", stale,
			[]hint{{p: uintptr(unsafe.Pointer(stale)), n: unsafe.Sizeof(*stale)}, {p: uintptr(unsafe.Pointer(idx)), n: unsafe.Sizeof(*idx)}},
			[]hint{{p: uintptr(unsafe.Pointer(&idx.Skip[0])), n: 24}}},
		{"no index", plain,
			[]hint{{p: uintptr(unsafe.Pointer(plain)), n: unsafe.Sizeof(*plain)}}, nil},
	} {
		agents := []*Agent{c.ag, c.ag, c.ag, c.ag, c.ag, c.ag, c.ag}
		first := firstLines(c.ag)
		// The first lines hold what the visit and the hints read first.
		for _, field := range []unsafe.Pointer{unsafe.Pointer(&c.ag.Available), unsafe.Pointer(&c.ag.Version), unsafe.Pointer(&c.ag.Refusals.First), unsafe.Pointer(&c.ag.Nobody.First.Version)} {
			require.True(t, uintptr(field) >= first.p && uintptr(field) < first.p+first.n, c.name)
		}
		*got = nil
		PrefetchAhead(agents, 0)
		require.ElementsMatch(t, append(append([]hint{first}, c.four...), c.two...), *got, c.name)
		*got = nil
		PrefetchAhead(agents, 2)
		require.ElementsMatch(t, append(slices.Clone(c.four), c.two...), *got, c.name)
		*got = nil
		PrefetchAhead(agents, 4)
		require.ElementsMatch(t, c.two, *got, c.name)
		*got = nil
		PrefetchAhead(agents, 5)
		require.Empty(t, *got, c.name)

		*got = nil
		c.ag.prefetch()
		require.Equal(t, []hint{{p: uintptr(unsafe.Pointer(c.ag)), n: unsafe.Sizeof(Agent{})}}, *got, c.name)
		*got = nil
		c.ag.prefetchFirst()
		require.Equal(t, []hint{first}, *got, c.name)
	}
}

func TestAgentTable(t *testing.T) {
	var tab AgentTable
	require.Empty(t, tab.Keys())
	_, ok := tab.Lookup("a1")
	require.False(t, ok)

	ids := []string{"a3", "a10", "a1", "b", "a2"}
	for _, id := range ids {
		tab.Put(&Agent{ID: id, Version: uint64(len(id))})
	}
	want := slices.Clone(ids)
	sort.Strings(want)
	require.Equal(t, want, tab.Keys())
	for _, id := range ids {
		ag, ok := tab.Lookup(id)
		require.True(t, ok, id)
		require.Equal(t, id, ag.ID)
	}
	ag, ok := tab.Lookup("zz")
	require.False(t, ok)
	require.Nil(t, ag)
	require.Equal(t, "a10", byAgentID{}.Of(&Agent{ID: "a10"}))

	// Replacing a record keeps one key.
	tab.Put(&Agent{ID: "a1", Version: 99})
	require.Equal(t, want, tab.Keys())
	ag, _ = tab.Lookup("a1")
	require.Equal(t, uint64(99), ag.Version)
	tab.Delete("a3")
	require.Equal(t, []string{"a1", "a10", "a2", "b"}, tab.Keys())
}

// A model test of the per-framework readers over random holdings: what
// each framework is offered, uses and is held for, kept in plain maps and
// a plain list.
func TestAgentHoldingsModel(t *testing.T) {
	fws := []string{"f1", "f2", "f3", "f4"}
	roles := []string{"web", "db"}
	for seed := uint64(1); seed <= 60; seed++ {
		seeded(t, seed, func(t *testing.T, rng *rand.Rand) {
			ag := &Agent{ID: "a1"}
			offered := map[string]amounts{}
			allocated := map[string]amounts{}
			type mhold struct {
				fw, role string
				cpus     int
			}
			var holds []mhold
			unclaimedCPUs := 0

			fill := func(into map[string]amounts, p interface {
				Set(string, resources.Resources)
			}) {
				for _, fw := range fws {
					if rng.IntN(2) == 0 {
						continue
					}
					a := amounts{}
					for _, role := range roles {
						a.add(role, "cpus", rng.IntN(3))
						a.add(role, "mem", rng.IntN(3))
					}
					if len(a) == 0 {
						continue
					}
					into[fw] = a
					r := a.resources()
					// A shared volume sometimes rides along; it counts
					// in what is held, not in the held quantities.
					if rng.IntN(3) == 0 {
						r = r.Plus(res("disk(db)[id:s,path:p]<SHARED>:50").Allocate("db"))
						a.add("db", "shared", 1)
					}
					p.Set(fw, r)
				}
			}
			fill(offered, &ag.Offered)
			fill(allocated, &ag.Allocated)
			for range rng.IntN(4) {
				h := mhold{fw: fws[rng.IntN(len(fws))], role: roles[rng.IntN(len(roles))], cpus: 1 + rng.IntN(3)}
				holds = append(holds, h)
				ag.More().Holds.Add(h.fw, alloc(fmt.Sprintf("cpus:%d", h.cpus), h.role), t0)
			}
			if rng.IntN(3) == 0 {
				unclaimedCPUs = 1 + rng.IntN(3)
				ag.More().Unclaimed = map[string]resources.Resources{"f9": alloc(fmt.Sprintf("cpus:%d", unclaimedCPUs), "web")}
			}

			// The reference sums.
			toRes := func(parts ...amounts) resources.Resources {
				sum := amounts{}
				var out resources.Resources
				for _, p := range parts {
					for role, byName := range p {
						for name, n := range byName {
							if name == "shared" {
								for range n {
									out = out.Plus(res("disk(db)[id:s,path:p]<SHARED>:50").Allocate(role))
								}
								continue
							}
							sum.add(role, name, n)
						}
					}
				}
				return sum.resources().Plus(out)
			}
			var ids []string
			wantQ := amounts{}
			for _, fw := range fws {
				hs := amounts{}
				for _, h := range holds {
					if h.fw == fw {
						hs.add(h.role, "cpus", h.cpus)
						wantQ.add("", "cpus", h.cpus)
					}
				}
				for _, a := range []amounts{offered[fw], allocated[fw]} {
					for _, byName := range a {
						wantQ.add("", "cpus", byName["cpus"])
						wantQ.add("", "mem", byName["mem"])
					}
				}
				_, o := offered[fw]
				_, u := allocated[fw]
				if o || u || len(hs) > 0 {
					ids = append(ids, fw)
				}
				requireRes(t, toRes(offered[fw], allocated[fw]), ag.OfferedOrUsed(fw), "offered or used by ", fw)
				requireRes(t, toRes(offered[fw], allocated[fw], hs), ag.Held(fw), "held by ", fw)
				require.Equal(t, len(hs) > 0, ag.Holds().Has(fw))
			}
			wantQ.add("", "cpus", unclaimedCPUs)
			if len(ids) == 0 {
				require.Empty(t, ag.FrameworkIDs())
			} else {
				require.Equal(t, ids, ag.FrameworkIDs())
			}
			requireQty(t, wantQ.resources().Quantities(), ag.HeldQuantities())
		})
	}
}
