package quota

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

func qty(s string) resources.Quantities { return resources.MustParseQuantities(s) }

// world is a cluster of one pool of free resources, built by hand: its
// totals, the free headroom, and a role tree whose consumption the tests
// set directly.
type world struct {
	cs   *cluster.State
	tree *roles.Tree
}

func newWorld(total, free string) *world {
	w := &world{cs: &cluster.State{}, tree: roles.NewTree()}
	w.cs.Totals = qty(total)
	w.cs.FreeHeadroom = qty(free)
	return w
}

// use counts q as allocated, unreserved, to role and its ancestors.
func (w *world) use(role, q string) { w.tree.TrackAllocatedUnreserved(role, qty(q), true) }

func (w *world) limit(role, limits string) {
	w.tree.Ensure(role).SetQuota(roles.Quota{Limits: resources.MustParseLimits(limits)})
}

func (w *world) capped(role string, required string, minAlloc ...string) (bool, bool) {
	var alts []resources.Quantities
	for _, m := range minAlloc {
		alts = append(alts, qty(m))
	}
	return CappedNow(w.cs, w.tree, w.tree.Ensure(role), qty(required), w.cs.Totals.Names(), alts)
}

func TestCappedByLimit(t *testing.T) {
	w := newWorld("cpus:4;mem:8", "cpus:2;mem:4")
	w.limit("a", "cpus:2;mem:4")
	w.use("a", "cpus:2;mem:4")
	capped, byLimit := w.capped("a", "", "cpus:0.01", "mem:32")
	require.True(t, capped)
	require.True(t, byLimit)
	require.Equal(t, ByLimit, CapOf(byLimit, resources.Quantities{}))

	// One name with room under the limit is room.
	w.tree.TrackAllocatedUnreserved("a", qty("mem:1"), false)
	capped, _ = w.capped("a", "", "cpus:0.01", "mem:32")
	require.False(t, capped, "a has mem:1 left under its limit and mem free")
}

func TestCappedByAnAncestorsLimit(t *testing.T) {
	w := newWorld("cpus:4", "cpus:2")
	w.limit("team", "cpus:2")
	w.use("team/x", "cpus:1")
	w.use("team/y", "cpus:1")
	capped, byLimit := w.capped("team/x", "", "cpus:0.01")
	require.True(t, capped, "team is at its limit: team/x can take nothing")
	require.True(t, byLimit)
	// A sibling outside the limited subtree is not capped.
	capped, _ = w.capped("other", "", "cpus:0.01")
	require.False(t, capped)
}

func TestCappedByHeadroom(t *testing.T) {
	w := newWorld("cpus:4;mem:8", "cpus:2;mem:4")
	// Everything free is held for others' guarantees.
	capped, byLimit := w.capped("a", "cpus:2;mem:4", "cpus:0.01")
	require.True(t, capped)
	require.False(t, byLimit)
	require.Equal(t, ByHeadroom, CapOf(byLimit, qty("cpus:2;mem:4")))
	// Some left beyond the headroom is room.
	capped, _ = w.capped("a", "cpus:2;mem:3", "cpus:0.01")
	require.False(t, capped)
}

// A limit is why a role is capped where it is enough to keep the role off
// (it leaves less than every minimum allocatable alternative) or needed to
// (the headroom alone would leave one). A resource at a limit that the
// headroom held for others' guarantees keeps as well, when other
// resources the headroom alone keeps meet the minimum, is no cap by the
// limit: lifting it would give the role nothing.
func TestCappedByALimitThatBinds(t *testing.T) {
	w := newWorld("cpus:4;mem:8", "cpus:2;mem:4")
	w.limit("a", "cpus:1")
	w.use("a", "cpus:1")
	capped, byLimit := w.capped("a", "cpus:2;mem:4", "cpus:0.01", "mem:1")
	require.True(t, capped)
	require.False(t, byLimit, "cpus and mem are held for others whatever a's limit")
	require.Equal(t, ByHeadroom, CapOf(byLimit, qty("cpus:2;mem:4")))

	// Held for others as well, but every alternative needs cpus: the
	// limit alone keeps a off, and is named first.
	capped, byLimit = w.capped("a", "cpus:2;mem:4", "cpus:0.01")
	require.True(t, capped)
	require.True(t, byLimit)

	// With cpus to spare beyond the headroom, a's limit keeps them.
	capped, byLimit = w.capped("a", "cpus:1;mem:4", "cpus:0.01", "mem:1")
	require.True(t, capped)
	require.True(t, byLimit)

	// A zero limit on the only thing free: why, if an alternative needs
	// it; if none does, nothing free is enough to offer.
	z := newWorld("cpus:4;gpus:1", "gpus:1")
	z.limit("a", "gpus:0")
	z.use("b", "cpus:4")
	capped, byLimit = z.capped("a", "", "cpus:0.01", "gpus:1")
	require.True(t, capped)
	require.True(t, byLimit, "a's zero limit keeps the free gpu")
	capped, byLimit = z.capped("a", "", "cpus:0.01")
	require.True(t, capped)
	require.False(t, byLimit, "the gpu alone is no offer: the limit keeps nothing that matters")
	require.Equal(t, ByMinAllocatable, CapOf(byLimit, resources.Quantities{}))
}

// A cap's cause moves as what is free is handed out, with nothing that
// could uncap the role: a's limit keeps it from the cpus, and is needed
// while cpus are spare beyond the headroom (the mem is all held for
// others); once a run has offered those cpus, the headroom alone keeps a
// off, and CauseNow says so.
func TestCauseNowAsTheSpareFalls(t *testing.T) {
	w := newWorld("cpus:4;mem:8", "cpus:2;mem:4")
	w.limit("a", "cpus:1")
	w.use("a", "cpus:1")
	a := w.tree.Get("a")
	mins := []resources.Quantities{qty("cpus:0.01"), qty("mem:1")}
	capped, byLimit := w.capped("a", "mem:4", "cpus:0.01", "mem:1")
	require.True(t, capped)
	require.True(t, byLimit)
	require.Equal(t, ByLimit, CauseNow(w.cs, a, qty("mem:4"), mins))

	w.cs.FreeHeadroom = qty("mem:4") // the spare cpus were offered
	require.Equal(t, ByHeadroom, CauseNow(w.cs, a, qty("mem:4"), mins))
	require.Equal(t, ByLimit, CauseNow(w.cs, a, qty("mem:4"), mins[:1]), "every alternative needs cpus: the limit alone keeps a off")
	require.Equal(t, ByMinAllocatable, CauseNow(w.cs, a, resources.Quantities{}, []resources.Quantities{qty("mem:8")}))
}

// A limit that leaves exactly what a minimum allocatable alternative asks
// for does not keep the role off: with the cpus free all held for others,
// the headroom is why a is capped, not its limit.
func TestALimitLeavingTheMinimumDoesNotBind(t *testing.T) {
	w := newWorld("cpus:4", "cpus:2")
	w.limit("a", "cpus:2")
	w.use("a", "cpus:1")
	capped, byLimit := w.capped("a", "cpus:2", "cpus:1")
	require.True(t, capped)
	require.False(t, byLimit, "a's limit leaves the cpus:1 asked for")
	// A hair more asked for, and the limit alone keeps a off.
	capped, byLimit = w.capped("a", "cpus:2", "cpus:1.001")
	require.True(t, capped)
	require.True(t, byLimit)
}

// The room a role has under its limits is the least any of them, its own
// or an ancestor's, leaves of a name; none at a limit reached or passed;
// unknown where none limits the name.
func TestRoomOf(t *testing.T) {
	w := newWorld("cpus:8;mem:8", "")
	w.limit("a", "cpus:4;mem:2")
	w.limit("a/b", "cpus:1;mem:6")
	w.use("a/b", "mem:1")
	w.use("a/c", "cpus:3.5")
	for _, c := range []struct {
		role, name string
		room       string
		limited    bool
	}{
		{"a/b", "cpus", "0.5", true}, // a's room, below a/b's cpus:1
		{"a/b", "mem", "1", true},    // a's room, below a/b's mem:5
		{"a/c", "cpus", "0.5", true},
		{"a/b/x", "mem", "1", true},
		{"a", "cpus", "0.5", true},
		{"a/b", "gpus", "0", false},
		{"z", "cpus", "0", false},
	} {
		room, limited := roomOf(w.tree.Ensure(c.role), c.name)
		require.Equal(t, c.limited, limited, "%s %s", c.role, c.name)
		require.Equal(t, c.room, room.String(), "%s %s", c.role, c.name)
	}
	// The nearest limit the least: a/b's cpus:1 below a's cpus:4.
	w.use("a/b", "cpus:0.25")
	w.limit("a", "cpus:8;mem:8")
	room, _ := roomOf(w.tree.Ensure("a/b"), "cpus")
	require.Equal(t, "0.75", room.String())
	// Over the limit: none, not less than none.
	w.use("a/b", "cpus:2")
	room, limited := roomOf(w.tree.Ensure("a/b"), "cpus")
	require.True(t, limited)
	require.Equal(t, "0", room.String())
}

func TestNothingFreeIsACapByMinAllocatable(t *testing.T) {
	w := newWorld("cpus:4", "")
	capped, byLimit := w.capped("a", "", "cpus:0.01")
	require.True(t, capped)
	require.Equal(t, ByMinAllocatable, CapOf(byLimit, resources.Quantities{}))
}

func TestWhatKeepsARoleUncapped(t *testing.T) {
	cases := map[string]func(w *world){
		"an unallocated reservation in the top-level subtree": func(w *world) {
			w.tree.TrackReserved("team/x", qty("cpus:1"), true)
		},
		"an agent with revocable or shared resources": func(w *world) { w.cs.RevocableOrSharedAgents = 1 },
		"an over-allocated agent":                     func(w *world) { w.cs.OverAllocatedAgents = 1 },
		"a framework's own minimum in the role": func(w *world) {
			fw := &cluster.Framework{ID: "f1", Info: cluster.FrameworkInfo{MinAllocatable: map[string][]resources.Quantities{"team/y": {qty("cpus:0.01")}}}}
			w.cs.Frameworks.Put(fw)
			w.tree.Ensure("team/y").Frameworks.Add("f1")
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorld("cpus:4", "")
			capped, _ := w.capped("team/y", "", "cpus:0.01")
			require.True(t, capped, "before the change")
			change(w)
			capped, _ = w.capped("team/y", "", "cpus:0.01")
			require.False(t, capped)
		})
	}
	t.Run("no minimum allocatable", func(t *testing.T) {
		w := newWorld("cpus:4", "")
		capped, _ := w.capped("a", "")
		require.False(t, capped, "without a minimum any crumb is offered")
	})
	t.Run("a minimum on resources the cluster lacks", func(t *testing.T) {
		w := newWorld("cpus:4", "")
		capped, _ := w.capped("a", "", "cpus:0.01", "gpus:1")
		require.False(t, capped, "an alternative of no scalar the cluster has")
	})
}

// active returns the roles rs orders, which are the active ones.
func active(rs *roles.TrackedSorter) []string {
	got := rs.Sort()
	slices.Sort(got)
	return got
}

func newSorter(t *testing.T, tree *roles.Tree, names ...string) *roles.TrackedSorter {
	rs := &roles.TrackedSorter{Sorter: sorter.NewDRF(sorter.Config{})}
	for _, n := range names {
		require.NoError(t, rs.Add(n))
		require.NoError(t, rs.Activate(n))
		tree.Ensure(n)
	}
	return rs
}

func TestParking(t *testing.T) {
	tree := roles.NewTree()
	rs := newSorter(t, tree, "a", "b", "c", "g")
	tree.Ensure("g").SetQuota(roles.Quota{Guarantees: qty("cpus:1")})
	p := NewParking()
	require.False(t, p.Current(), "a new parking has not parked yet")

	capped := map[string]bool{"a": true, "c": true, "g": true}
	p.Park(rs, tree, []string{"a", "b", "c", "g"}, func(n *roles.Node) bool { return capped[n.Path] })
	require.Equal(t, []string{"a", "c"}, p.Parked, "g has an unmet guarantee: never parked")
	require.Equal(t, []string{"b", "g"}, active(rs))
	require.True(t, p.Current())

	p.Uncapped()
	require.False(t, p.Current(), "an event that could uncap makes the parking stale")

	// c may take more again: it is let back, and its cap for the run
	// forgotten.
	tree.Get("c").CappedRun = 7
	back := p.Reconsider(rs, tree, func(n *roles.Node) bool { return n.Path != "c" })
	require.Equal(t, 1, back)
	require.Equal(t, []string{"a"}, p.Parked)
	require.Zero(t, tree.Get("c").CappedRun)
	require.Equal(t, []string{"b", "c", "g"}, active(rs))

	p.Add("b")
	require.NoError(t, rs.Deactivate("b"))
	p.Drop("a")
	require.Equal(t, []string{"b"}, p.Parked)

	// Parking anew lets every parked role back first.
	p.Park(rs, tree, []string{"a", "b", "c", "g"}, func(*roles.Node) bool { return false })
	require.Empty(t, p.Parked)
	require.Equal(t, []string{"b", "c", "g"}, active(rs), "a was dropped, not let back")

	p.Add("c")
	require.NoError(t, rs.Deactivate("c"))
	p.Unpark(rs)
	require.Empty(t, p.Parked)
	require.Equal(t, []string{"b", "c", "g"}, active(rs))
	require.False(t, p.Current(), "after Unpark the next run parks anew")
}

// Parked roles keep their causes while those are the causes found now;
// one that moved, whichever way, has the roles looked at again. A role
// gone from the tree is no cause.
func TestParkedReasonsHold(t *testing.T) {
	tree := roles.NewTree()
	p := Parking{Parked: []string{"a", "gone"}}
	now, asked := ByHeadroom, 0
	causeNow := func(n *roles.Node) Cause {
		require.Equal(t, "a", n.Path)
		asked++
		return now
	}
	for i, kept := range []Cause{ByLimit, ByHeadroom, ByMinAllocatable} {
		tree.Ensure("a").CappedBy = kept
		for j, found := range []Cause{ByLimit, ByHeadroom, ByMinAllocatable} {
			now = found
			free := qty(fmt.Sprintf("cpus:%d", 1+i*3+j)) // new figures each time
			require.Equal(t, kept == found, p.ReasonsHold(tree, free, qty("mem:1"), causeNow), "capped by %d, by %d now", kept, found)
		}
	}
	require.Equal(t, 9, asked)
}

// The causes are asked again only once the free or the required headroom
// has moved since they were last found; and after Unpark, in any case.
func TestParkedReasonsAskedWhereTheHeadroomMoved(t *testing.T) {
	tree := roles.NewTree()
	tree.Ensure("a").CappedBy = ByLimit
	p := Parking{Parked: []string{"a"}}
	now, asked := ByLimit, 0
	causeNow := func(*roles.Node) Cause { asked++; return now }
	free, required := qty("cpus:2;mem:4"), qty("mem:4")
	require.True(t, p.ReasonsHold(tree, free, required, causeNow))
	require.Equal(t, 1, asked, "nothing found yet")
	now = ByHeadroom // a cause that moved without the figures is not looked for
	require.True(t, p.ReasonsHold(tree, free, required, causeNow))
	require.Equal(t, 1, asked)
	require.False(t, p.ReasonsHold(tree, qty("mem:4"), required, causeNow), "the spare cpus were offered")
	require.Equal(t, 2, asked)
	require.False(t, p.ReasonsHold(tree, free, qty("cpus:1;mem:4"), causeNow), "more headroom required")
	require.Equal(t, 3, asked)

	now = ByLimit
	p.Found(free, required)
	p.Unpark(&roles.TrackedSorter{Sorter: sorter.NewDRF(sorter.Config{})})
	p.Parked = []string{"a"}
	require.True(t, p.ReasonsHold(tree, free, required, causeNow))
	require.Equal(t, 4, asked, "Unpark forgets the figures")
}

// toldSorter records what it is told of allowances.
type toldSorter struct {
	sorter.Sorter
	told map[string]resources.Quantities
	sets int
}

func (s *toldSorter) SetAllowance(path string, q resources.Quantities) error {
	s.sets++
	if q.IsEmpty() {
		delete(s.told, path)
	} else {
		s.told[path] = q.Clone()
	}
	return nil
}

func TestAllowances(t *testing.T) {
	tree := roles.NewTree()
	s := &toldSorter{told: map[string]resources.Quantities{}}
	tree.Ensure("team/x").SetQuota(roles.Quota{Guarantees: qty("cpus:2;mem:1")})
	tree.TrackReserved("team/x", qty("mem:4"), true)
	require.Equal(t, qty("cpus:2;mem:4"), Of(tree, "team/x"), "the larger of guarantee and reservations, name by name")
	require.Equal(t, qty("mem:4"), Of(tree, "team"))
	require.True(t, Of(tree, "nobody").IsEmpty())

	off := Allowances{}
	off.Sync(tree, s, "team/x")
	require.Zero(t, s.sets, "allowances not charged: nothing told")

	al := Allowances{On: true}
	al.Sync(tree, s, "team/x")
	want := map[string]resources.Quantities{"team/x": qty("cpus:2;mem:4"), "team": qty("mem:4")}
	require.Equal(t, want, s.told)
	sets := s.sets
	al.Sync(tree, s, "team/x")
	require.Equal(t, sets, s.sets, "nothing changed: nothing told again")

	tree.TrackReserved("team/x", qty("mem:4"), false)
	al.Sync(tree, s, "team/x")
	require.Equal(t, map[string]resources.Quantities{"team/x": qty("cpus:2;mem:1")}, s.told, "team's allowance went to zero")

	// A sorter that lost what it was told learns it all again.
	s.told = map[string]resources.Quantities{}
	al.Resync(tree, s)
	require.Equal(t, map[string]resources.Quantities{"team/x": qty("cpus:2;mem:1")}, s.told)

	// A sorter without allowances is told nothing.
	al.Sync(tree, sorter.NewRandom(sorter.Config{}), "team/x")
}

// TestEveryEventMakesTheParkingStale: an event that could uncap a role
// makes the parking stale whatever came before it (a new parking, one
// just parked, one let go by Unpark), and so does every later one, so
// that the next run looks at every parked role again.
func TestEveryEventMakesTheParkingStale(t *testing.T) {
	tree := roles.NewTree()
	rs := newSorter(t, tree, "a")
	p := NewParking()
	p.Uncapped()
	require.False(t, p.Current(), "a new parking stays stale until a run parks")

	p.Park(rs, tree, []string{"a"}, func(*roles.Node) bool { return true })
	require.True(t, p.Current())
	for range 3 {
		p.Uncapped()
		require.False(t, p.Current())
	}

	p.Unpark(rs)
	p.Uncapped()
	require.False(t, p.Current(), "let go by Unpark, then an event")
}
