package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

func TestPendingIn(t *testing.T) {
	fw := &Framework{ID: "f1"}
	list, ok := fw.PendingIn("web")
	require.False(t, ok, "no demand stated")
	require.Nil(t, list)

	web := []Pending{{Resources: qty("cpus:1;mem:64"), Count: 3}, {Resources: qty("cpus:2"), Count: 0}}
	fw.Demand = map[string][]Pending{"web": web, "db": {}, "batch": nil}
	list, ok = fw.PendingIn("web")
	require.True(t, ok)
	require.Equal(t, web, list)
	require.Same(t, &web[0], &list[0], "the statement itself")

	list, ok = fw.PendingIn("db")
	require.True(t, ok, "a statement of nothing is a statement")
	require.Empty(t, list)
	list, ok = fw.PendingIn("batch")
	require.True(t, ok)
	require.Empty(t, list)

	list, ok = fw.PendingIn("other")
	require.False(t, ok)
	require.Nil(t, list)
}

func TestWaitsForNothing(t *testing.T) {
	fw := &Framework{ID: "f1"}
	require.False(t, fw.WaitsForNothing("web"), "no statement: not waiting for nothing")
	fw.Demand = map[string][]Pending{
		"empty":  {},
		"nil":    nil,
		"zero":   {{Resources: qty("cpus:1"), Count: 0}, {Resources: qty("mem:1"), Count: 0}},
		"one":    {{Resources: qty("cpus:1"), Count: 1}},
		"last":   {{Resources: qty("cpus:1"), Count: 0}, {Resources: qty("mem:1"), Count: 2}},
		"first":  {{Resources: qty("cpus:1"), Count: 5}, {Resources: qty("mem:1"), Count: 0}},
		"middle": {{Count: 0}, {Resources: qty("gpus:1"), Count: 1}, {Count: 0}},
	}
	for role, want := range map[string]bool{
		"empty": true, "nil": true, "zero": true,
		"one": false, "last": false, "first": false, "middle": false,
		"unstated": false,
	} {
		require.Equal(t, want, fw.WaitsForNothing(role), role)
	}
}

func TestSharedHeir(t *testing.T) {
	vol := res("disk(db)[id:s,path:p]<SHARED>:100").Allocate("db")
	other := res("disk(db)[id:o,path:p]<SHARED>:100").Allocate("db")
	r := vol.Slice()[0]
	mk := func(id, agent string, uses resources.Resources) *Task {
		return &Task{ID: id, Agent: agent, Role: "db", Uses: uses, Owns: uses}
	}
	ended := mk("t5", "a1", vol.Plus(alloc("cpus:1", "db")))
	fw := &Framework{ID: "f1", Tasks: map[string]*Task{}}
	add := func(ts ...*Task) {
		for _, t := range ts {
			fw.Tasks[t.ID] = t
			t.Framework = fw
		}
	}
	add(ended)
	require.Nil(t, fw.SharedHeir(ended, r), "the task itself is no heir")

	add(mk("t1", "a2", vol), mk("t2", "a1", other.Plus(alloc("cpus:1", "db"))), mk("t3", "a1", alloc("cpus:1", "db")))
	require.Nil(t, fw.SharedHeir(ended, r), "no other task on the agent uses it")

	t9 := mk("t9", "a1", vol.Plus(alloc("mem:5", "db")))
	add(t9)
	require.Same(t, t9, fw.SharedHeir(ended, r))
	t7 := mk("t7", "a1", vol.Plus(vol))
	add(t7)
	require.Same(t, t7, fw.SharedHeir(ended, r), "the first by id")
	t0 := mk("t0", "a1", vol)
	add(t0)
	require.Same(t, t0, fw.SharedHeir(ended, r))
	// Of the other volume, t2.
	require.Same(t, fw.Tasks["t2"], fw.SharedHeir(ended, other.Slice()[0]))
	// Ended elsewhere: only tasks of that agent.
	require.Same(t, fw.Tasks["t1"], fw.SharedHeir(mk("tx", "a2", vol), r))
	require.Nil(t, fw.SharedHeir(mk("tx", "a3", vol), r))
}

// A model test: the heir is the least id among the other tasks of the
// agent that use r, found by sorting.
func TestSharedHeirModel(t *testing.T) {
	vols := []resources.Resources{
		res("disk(db)[id:s,path:p]<SHARED>:100").Allocate("db"),
		res("disk(db)[id:u,path:p]<SHARED>:10").Allocate("db"),
	}
	for seed := uint64(1); seed <= 50; seed++ {
		seeded(t, seed, func(t *testing.T, rng *rand.Rand) {
			fw := &Framework{ID: "f1", Tasks: map[string]*Task{}}
			type mtask struct {
				id, agent string
				uses      [2]bool
			}
			var model []mtask
			for i := range 1 + rng.IntN(10) {
				m := mtask{id: fmt.Sprintf("t%02d", rng.IntN(100)*10+i), agent: fmt.Sprintf("a%d", rng.IntN(3))}
				uses := alloc("cpus:1", "db")
				for v := range vols {
					if rng.IntN(2) == 0 {
						m.uses[v] = true
						uses = uses.Plus(vols[v])
					}
				}
				model = append(model, m)
				fw.Tasks[m.id] = &Task{ID: m.id, Agent: m.agent, Role: "db", Uses: uses, Owns: uses, Framework: fw}
			}
			ended := model[rng.IntN(len(model))]
			for v := range vols {
				var cands []string
				for _, m := range model {
					if m.id != ended.id && m.agent == ended.agent && m.uses[v] {
						cands = append(cands, m.id)
					}
				}
				sort.Strings(cands)
				got := fw.SharedHeir(fw.Tasks[ended.id], vols[v].Slice()[0])
				if len(cands) == 0 {
					require.Nil(t, got, "volume %d", v)
				} else {
					require.NotNil(t, got, "volume %d", v)
					require.Equal(t, cands[0], got.ID, "volume %d", v)
					require.Same(t, fw.Tasks[cands[0]], got)
				}
			}
		})
	}
}

func TestReclaimable(t *testing.T) {
	tk := &Task{
		ID: "t1", Agent: "a1", Role: "db",
		Owns: res("cpus:2;mem:64;disk:100;cpus{REV}:1;mem(db):32;disk(db)[id:s,path:p]<SHARED>:50;disk(db)[id:v,path:p]:10;ports:[31000-31001]").Allocate("db"),
	}
	tk.Uses = tk.Owns
	want := qty("cpus:2;mem:64;disk:100")
	requireQty(t, want, tk.Reclaimable())
	// Worked out once: the part a task owns never changes.
	tk.Owns = alloc("cpus:9", "db")
	requireQty(t, want, tk.Reclaimable())

	// A task owning only reserved, revocable or shared resources frees
	// nothing that counts.
	tk2 := &Task{ID: "t2", Owns: res("cpus(db):1;cpus{REV}:1;disk(db)[id:s,path:p]<SHARED>:50").Allocate("db")}
	require.True(t, tk2.Reclaimable().IsEmpty())
	tk3 := &Task{ID: "t3"}
	require.True(t, tk3.Reclaimable().IsEmpty())
	// A task owning a shared volume that is not reserved: it is the
	// non-shared part that counts.
	tk4 := &Task{ID: "t4", Owns: alloc("cpus:1;disk[id:s,path:p]<SHARED>:50", "r")}
	requireQty(t, qty("cpus:1"), tk4.Reclaimable())
}

func TestFrameworkTable(t *testing.T) {
	var tab FrameworkTable
	require.Empty(t, tab.Keys())
	fw, ok := tab.Lookup("f1")
	require.False(t, ok)
	require.Nil(t, fw)

	ids := []string{"fz", "f1", "f10", "f2", "a"}
	for i, id := range ids {
		tab.Put(&Framework{ID: id, Num: i})
	}
	want := slices.Clone(ids)
	sort.Strings(want)
	require.Equal(t, want, tab.Keys())
	for i, id := range ids {
		fw, ok := tab.Lookup(id)
		require.True(t, ok, id)
		require.Equal(t, id, fw.ID)
		require.Equal(t, i, fw.Num)
	}
	_, ok = tab.Lookup("f3")
	require.False(t, ok)
	require.Equal(t, "f10", byFrameworkID{}.Of(&Framework{ID: "f10"}))
	tab.Delete("fz")
	require.Equal(t, []string{"a", "f1", "f10", "f2"}, tab.Keys())
}

func TestKeptPasses(t *testing.T) {
	require.False(t, NoPasses.Indexed)
	require.True(t, NoPassesIndexed.Indexed)
	require.Empty(t, NoPasses.Passes)
	require.Empty(t, NoPassesIndexed.Passes)
	require.Empty(t, NoPasses.Details)
	require.Equal(t, 14, NumReasons)
}
