package fingerprint

import (
	"hash/maphash"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// host16 is a hostname of exactly 16 bytes, the longest string hashed
// without the process's key.
const host16 = "node-0123456789a"

// detailedAgent is an agent whose resources use every part of a
// resource's encoding: a reservation with labels and one without, a
// provider, a disk with a source, a persistent volume, and resources
// offered to a framework (allocated to a role). Its strings are all of at
// most 16 bytes; long, when set, is a longer hostname.
func detailedAgent(long string) *cluster.Agent {
	ag := &cluster.Agent{ID: "a1", Active: true}
	ag.Info.Hostname = host16
	if long != "" {
		ag.Info.Hostname = long
	}
	ag.Total = resources.MustParse("cpus:4;mem(provider: rp1):1024;"+
		"cpus(reservations: [(DYNAMIC,web,ops,{team: a})]):2;"+
		"mem(reservations: [(STATIC,db)]):512;"+
		"disk[MOUNT:/mnt/ssd]:4096;"+
		"disk(reservations: [(DYNAMIC,db,ops)])[id:pg,principal:ops,path:data]:1024", "*")
	ag.Available = ag.Total
	ag.Offered.Set("f1", resources.MustParse("cpus:1", "*").Allocate("web"))
	return ag
}

// TestTheKeyEntersOnlyThroughLongStrings: the process's key enters a hash
// only through strings longer than 16 bytes (and whitelisted hosts), so a
// state whose strings are all shorter hashes alike whatever the key, and
// one with a longer string does not.
func TestTheKeyEntersOnlyThroughLongStrings(t *testing.T) {
	saved := fingerprintSeed
	t.Cleanup(func() { fingerprintSeed = saved })
	const long = "node-0123456789ab" // 17 bytes
	short, withLong := Agent(detailedAgent("")), Agent(detailedAgent(long))
	cs, tree := &cluster.State{}, roles.NewTree()
	white := map[string]struct{}{"h1": {}}
	whitelisted := Rest(false, white, tree, cs)

	fingerprintSeed = maphash.MakeSeed()
	require.Equal(t, short, Agent(detailedAgent("")), "strings of at most 16 bytes are hashed without the key")
	require.NotEqual(t, withLong, Agent(detailedAgent(long)), "a longer string is hashed with the key")
	require.NotEqual(t, whitelisted, Rest(false, white, tree, cs), "whitelisted hosts are hashed with the key")
}

// TestHashesOfShortStringStates pins the hashes of states whose strings
// are all of at most 16 bytes (no whitelisted host): package doc says
// they hash alike in every process and on every architecture, so these
// values hold on every build of this encoding. A change of one means the
// encoding changed (a field, a presence flag, the order of the writes):
// hashes printed by an earlier build, in a failing test's state dump say,
// no longer compare with new ones.
func TestHashesOfShortStringStates(t *testing.T) {
	require.Equal(t, uint64(0xd6d32bf026618262), Agent(agent()), "a plain agent")
	require.Equal(t, uint64(0xb3aeccadaab482e0), Agent(detailedAgent("")), "an agent using every part of a resource's encoding")

	cs, tree := &cluster.State{}, roles.NewTree()
	require.Equal(t, uint64(0x95580122b52792cc), Rest(false, nil, tree, cs), "an empty cluster, no whitelist")
	require.Equal(t, uint64(0x2ac74a2cf16aaf1d), Rest(true, map[string]struct{}{}, tree, cs), "paused, an empty whitelist")
	tree.Weights["web"] = 2
	tree.Ensure("web")
	tree.Get("web").SetQuota(roles.Quota{Guarantees: resources.MustParseQuantities("cpus:1")})
	fw := &cluster.Framework{ID: "f1", Active: true}
	cs.Frameworks.Put(fw)
	require.Equal(t, uint64(0x71007db89f146833), Rest(false, nil, tree, cs), "a weighted role with quota and a framework")
}
