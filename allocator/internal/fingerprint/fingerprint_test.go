package fingerprint

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

func agent() *cluster.Agent {
	ag := &cluster.Agent{ID: "a1", Active: true, Total: resources.MustParse("cpus:4;mem:1024", "*")}
	ag.Available = ag.Total
	return ag
}

// TestAgentCoversItsView: every part of an agent's view moves its hash,
// and an agent built alike hashes alike.
func TestAgentCoversItsView(t *testing.T) {
	base := Agent(agent())
	require.Equal(t, base, Agent(agent()))
	changes := map[string]func(ag *cluster.Agent){
		"id":             func(ag *cluster.Agent) { ag.ID = "a2" },
		"hostname":       func(ag *cluster.Agent) { ag.Info.Hostname = "h" },
		"active":         func(ag *cluster.Agent) { ag.Active = false },
		"over-allocated": func(ag *cluster.Agent) { ag.OverAllocated = true },
		"total":          func(ag *cluster.Agent) { ag.Total = resources.MustParse("cpus:5;mem:1024", "*") },
		"available":      func(ag *cluster.Agent) { ag.Available = resources.MustParse("cpus:3;mem:1024", "*") },
		"offered": func(ag *cluster.Agent) {
			ag.Offered.Set("f1", resources.MustParse("cpus:1", "*").Allocate("r"))
		},
		"allocated": func(ag *cluster.Agent) {
			ag.Allocated.Set("f1", resources.MustParse("cpus:1", "*").Allocate("r"))
		},
		"offered to another framework": func(ag *cluster.Agent) {
			ag.Offered.Set("f2", resources.MustParse("cpus:1", "*").Allocate("r"))
		},
	}
	seen := map[uint64]string{base: "base"}
	for name, change := range changes {
		ag := agent()
		change(ag)
		h := Agent(ag)
		if other, dup := seen[h]; dup {
			t.Errorf("%s hashes as %s", name, other)
		}
		seen[h] = name
	}
	// Offered and allocated are told apart.
	off, alloc := agent(), agent()
	off.Offered.Set("f1", resources.MustParse("cpus:1", "*").Allocate("r"))
	alloc.Allocated.Set("f1", resources.MustParse("cpus:1", "*").Allocate("r"))
	require.NotEqual(t, Agent(off), Agent(alloc))
}

func TestRestCoversQuotaWeightsAndPause(t *testing.T) {
	cs, tree := &cluster.State{}, roles.NewTree()
	base := Rest(false, nil, tree, cs)
	require.NotEqual(t, base, Rest(true, nil, tree, cs), "paused")
	require.NotEqual(t, base, Rest(false, map[string]struct{}{}, tree, cs), "an empty whitelist is not none")
	tree.Weights["r"] = 2
	tree.Ensure("r")
	weighted := Rest(false, nil, tree, cs)
	require.NotEqual(t, base, weighted)
	tree.Get("r").SetQuota(roles.Quota{Guarantees: resources.MustParseQuantities("cpus:1")})
	require.NotEqual(t, weighted, Rest(false, nil, tree, cs))
}

func TestReclaimCoversChoices(t *testing.T) {
	st := reclaim.NewState()
	base := Reclaim(&st)
	st.Groups++
	require.NotEqual(t, base, Reclaim(&st))
	st.TookAt["r"] = 3
	withTook := Reclaim(&st)
	st.TookAt["r"] = 4
	require.NotEqual(t, withTook, Reclaim(&st))
}

// TestAgentCoversEveryDetailOfItsResources: agents whose totals differ in
// any detail of a resource (its reservations and their labels, its
// provider, the role it is allocated to, a disk's source, persistence and
// volume) hash apart; the same total built again hashes alike.
func TestAgentCoversEveryDetailOfItsResources(t *testing.T) {
	const volume = "disk(reservations: [(DYNAMIC,db,ops)])"
	totals := []string{
		"cpus:4",
		"cpus(r):4",
		"cpus(s):4",
		"cpus(reservations: [(DYNAMIC,web,ops,{team: a})]):4",
		"cpus(reservations: [(DYNAMIC,web,ops,{team: b})]):4",
		"cpus(reservations: [(DYNAMIC,web,ops,{})]):4",
		"cpus(reservations: [(DYNAMIC,web,dev,{team: a})]):4",
		"mem(provider: rp1):64",
		"mem(provider: rp2):64",
		"cpus(allocated: r):4",
		"cpus(allocated: s):4",
		"disk[MOUNT:/mnt/ssd]:4096",
		"disk[MOUNT:/mnt/hdd]:4096",
		"disk[BLOCK(id:a)]:4096",
		"disk[BLOCK(id:b)]:4096",
		"disk[PATH:/mnt/ssd]:4096",
		volume + "[id:pg,principal:ops,path:data]:1024",
		volume + "[id:pg2,principal:ops,path:data]:1024",
		volume + "[id:pg,principal:dev,path:data]:1024",
		volume + "[id:pg,principal:ops,path:logs]:1024",
		volume + "[id:pg,principal:ops,path:data,mode:RO]:1024",
		volume + "[id:pg,principal:ops]:1024",
		volume + "[MOUNT:/mnt/ssd,id:pg,principal:ops,path:data]:1024",
	}
	with := func(total string) *cluster.Agent {
		ag := agent()
		ag.Total = resources.MustParse(total, "*")
		ag.Available = ag.Total
		return ag
	}
	seen := map[uint64]string{}
	for _, total := range totals {
		h := Agent(with(total))
		require.Equal(t, h, Agent(with(total)), "%s built again", total)
		if other, dup := seen[h]; dup {
			t.Errorf("%s hashes as %s", total, other)
		}
		seen[h] = total
	}
}

// TestRestCoversInverseOfferStatuses: an agent's inverse-offer status to a
// framework moves the hash; a framework with none yet (status 0) hashes
// as one never sent any.
func TestRestCoversInverseOfferStatuses(t *testing.T) {
	cs, tree := &cluster.State{}, roles.NewTree()
	ag := agent()
	cs.Agents.Put(ag)
	none := Rest(false, nil, tree, cs)
	ag.InverseState("f1")
	require.Equal(t, none, Rest(false, nil, tree, cs), "no status yet")
	ag.InverseState("f1").Status = 1
	accepted := Rest(false, nil, tree, cs)
	require.NotEqual(t, none, accepted)
	ag.InverseState("f1").Status = 2
	require.NotEqual(t, accepted, Rest(false, nil, tree, cs))
	require.NotEqual(t, none, Rest(false, nil, tree, cs))
}
