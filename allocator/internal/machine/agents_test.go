package machine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// huge is an agent total of resources.MaxTotal cpus: the largest a sum of
// one name may reach.
func huge(t *testing.T) resources.Resources {
	r, err := resources.New(resources.ScalarResource("cpus", resources.MaxTotal))
	require.NoError(t, err)
	return r
}

// AddAgent refuses, before it changes anything, an invalid or known id,
// invalid resources, reported use in roles the framework does not hold,
// and amounts whose sums would pass resources.MaxTotal.
func TestAddAgentRefusesBadInput(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", 0, "r")
	w.clearPending()
	max := huge(t)
	tooMuch := max.Plus(max) // one entry of twice MaxTotal: not a valid resource
	used := func(fw string, r resources.Resources) map[string]resources.Resources {
		return map[string]resources.Resources{fw: r}
	}
	cases := []struct {
		name  string
		id    string
		total resources.Resources
		used  map[string]resources.Resources
		want  error
	}{
		{"empty id", "", res("cpus:1"), nil, cluster.ErrInvalidID},
		{"control character", "a\x01", res("cpus:1"), nil, cluster.ErrInvalidID},
		{"known id", "a1", res("cpus:1"), nil, cluster.ErrDuplicateAgent},
		{"invalid total", "a2", tooMuch, nil, cluster.ErrInvalidResources},
		{"a total past MaxTotal by name", "a2", max.Plus(res("cpus(r):1")), nil, cluster.ErrOverflow},
		{"the cluster past MaxTotal", "a2", max, nil, cluster.ErrOverflow},
		{"use in a role not subscribed", "a2", res("cpus:1"), used("f1", alloc("cpus:1", "other")), cluster.ErrRoleNotSubscribed},
		{"use without a role", "a2", res("cpus:1"), used("f9", res("cpus:1")), cluster.ErrInvalidResources},
		{"use by an invalid framework id", "a2", res("cpus:1"), used("", alloc("cpus:1", "r")), cluster.ErrInvalidID},
		{"use past MaxTotal", "a2", res("cpus:1"), map[string]resources.Resources{
			"f1": max.Allocate("r"), "f9": alloc("cpus:1", "r")}, cluster.ErrOverflow},
		{"use of one framework past MaxTotal", "a2", res("cpus:1"), used("f9", max.Allocate("r").Plus(alloc("cpus:1", "q"))), cluster.ErrOverflow},
		{"use beyond the total past MaxTotal", "a2", res("cpus:1"), used("f1", max.Allocate("r")), cluster.ErrOverflow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.AddAgent(tc.id, cluster.AgentInfo{}, tc.total, tc.used) })
		})
	}
}

// An added agent is listed in id order, numbered, counted in the totals,
// active and waiting for the next run; what it reports in use by a known
// framework is that framework's allocation, and what it reports for one
// not added yet is held aside, unclaimed.
func TestAddAgentTracksItAndItsUse(t *testing.T) {
	w := newWorld(t)
	w.framework("f1", 0, "r")
	w.agent("a3", "cpus:1;mem:64")
	w.clearPending()
	w.ok(w.m.AddAgent("a1", cluster.AgentInfo{Hostname: "h1"}, res("cpus:4;mem:4096"), map[string]resources.Resources{
		"f1": alloc("cpus:1;mem:1024", "r"),
		"f9": alloc("cpus:2", "q"),
	}))
	ag := w.cs.Agents.Get("a1")
	require.NotNil(t, ag)
	require.Equal(t, []string{"a1", "a3"}, agentIDs(w))
	require.Same(t, ag, w.cs.AgentsByNum.At(int(ag.Num)))
	require.True(t, ag.Active)
	require.Equal(t, "h1", ag.Info.Hostname)
	require.Equal(t, "a1", w.pending(), "the new agent waits for a run, alone")
	require.True(t, ag.Allocated.Get("f1").Equal(alloc("cpus:1;mem:1024", "r")), "f1 uses %s", ag.Allocated.Get("f1"))
	require.True(t, ag.Unclaimed()["f9"].Equal(alloc("cpus:2", "q")), "unclaimed %v", ag.Unclaimed())
	require.True(t, ag.Available.Equal(res("cpus:1;mem:3072")), "available %s", ag.Available)
	require.Equal(t, "cpus:5; mem:4160", w.cs.Totals.String())

	// Without use reported for frameworks not added, nothing is unclaimed.
	w.ok(w.m.AddAgent("a2", cluster.AgentInfo{}, res("cpus:1"), map[string]resources.Resources{"f1": alloc("cpus:1", "r")}))
	require.Nil(t, w.cs.Agents.Get("a2").Rare, "nothing rare about a2")
	require.Equal(t, "a1,a2", w.pending())
}

func agentIDs(w *world) []string {
	var out []string
	for _, ag := range w.cs.AgentList {
		out = append(out, ag.ID)
	}
	return out
}

// RemoveAgent refuses an unknown agent; a removed one leaves the list,
// its number, the totals, the agents waiting for a run, its frameworks'
// holdings and their tasks there, and its holds.
func TestRemoveAgent(t *testing.T) {
	w := newWorld(t)
	w.refuses(cluster.ErrUnknownAgent, func() error { return w.m.RemoveAgent("a1") })
	for _, id := range []string{"a1", "a2", "a3"} {
		w.agent(id, "cpus:2;mem:2048")
	}
	w.framework("f1", 0, "r")
	w.clearPending()
	offers := w.allocate()
	require.Len(t, offers, 3)
	w.launch(offers[1], "cpus:1;mem:1024", "t1") // on a2
	require.Equal(t, "a2", w.cs.Frameworks.Get("f1").Tasks["t1"].Agent)
	w.ok(w.m.RecoverHeld("f1", "a2", alloc("cpus:1;mem:1024", "r"), 10e9))
	require.Equal(t, "a2", w.pending())
	num := w.cs.Agents.Get("a2").Num

	w.ok(w.m.RemoveAgent("a2"))
	require.Equal(t, []string{"a1", "a3"}, agentIDs(w))
	require.Nil(t, w.cs.AgentsByNum.At(int(num)))
	require.Empty(t, w.pending())
	require.Empty(t, w.cs.Frameworks.Get("f1").Tasks)
	require.Equal(t, "cpus:4; mem:4096", w.cs.Totals.String())
	require.Equal(t, "cpus:4; mem:4096", w.rs.AllocationQuantities("r").String(), "f1 holds the offers on a1 and a3")
	w.refuses(cluster.ErrUnknownAgent, func() error { return w.m.RemoveAgent("a2") })

	// The first and the last of the list go as well.
	w.ok(w.m.RemoveAgent("a3"))
	require.Equal(t, []string{"a1"}, agentIDs(w))
	w.ok(w.m.RemoveAgent("a1"))
	require.Empty(t, agentIDs(w))
}

// UpdateAgent refuses an unknown agent and a total that is invalid or
// would take a sum past resources.MaxTotal.
func TestUpdateAgentRefusesBadInput(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	rest, err := resources.New(resources.ScalarResource("cpus", resources.MaxTotal-resources.Units(4)))
	require.NoError(t, err)
	w.ok(w.m.AddAgent("a2", cluster.AgentInfo{}, rest, nil))
	w.clearPending()
	max := huge(t)
	for name, tc := range inOrder(map[string]struct {
		id    string
		total resources.Resources
		want  error
	}{
		"unknown agent":             {"a9", res("cpus:1"), cluster.ErrUnknownAgent},
		"invalid total":             {"a1", max.Plus(max), cluster.ErrInvalidResources},
		"a total past MaxTotal":     {"a1", max.Plus(res("cpus(r):1")), cluster.ErrOverflow},
		"the cluster past MaxTotal": {"a1", res("cpus:5"), cluster.ErrOverflow},
	}) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.UpdateAgent(tc.id, cluster.AgentInfo{Hostname: "new"}, &tc.total) })
		})
	}
}

// UpdateAgent changes the agent's version, and makes it wait for a run,
// exactly when what it says of itself or its total changed; new
// attributes end the refusal filters on it (constraints may read them),
// any change ends its round of declines.
func TestUpdateAgentChanges(t *testing.T) {
	base := cluster.AgentInfo{Hostname: "h1", Attributes: map[string]string{"rack": "1", "zone": "a"}, Region: "eu"}
	with := func(change func(i *cluster.AgentInfo)) cluster.AgentInfo {
		i := base
		i.Attributes = map[string]string{"rack": "1", "zone": "a"}
		change(&i)
		return i
	}
	cases := []struct {
		name              string
		info              cluster.AgentInfo
		total             string // "": no new total
		changed, forgets  bool
		totals, available string
	}{
		{"nothing", with(func(*cluster.AgentInfo) {}), "", false, false, "cpus:4; mem:4096", "cpus:3; mem:3072"},
		{"the same total", with(func(*cluster.AgentInfo) {}), "cpus:4;mem:4096", false, false, "cpus:4; mem:4096", "cpus:3; mem:3072"},
		{"hostname", with(func(i *cluster.AgentInfo) { i.Hostname = "h2" }), "", true, false, "cpus:4; mem:4096", "cpus:3; mem:3072"},
		{"region", with(func(i *cluster.AgentInfo) { i.Region = "us" }), "", true, false, "cpus:4; mem:4096", "cpus:3; mem:3072"},
		{"capabilities", with(func(i *cluster.AgentInfo) { i.Capabilities = 1 }), "", true, false, "cpus:4; mem:4096", "cpus:3; mem:3072"},
		{"an attribute's value", with(func(i *cluster.AgentInfo) { i.Attributes["rack"] = "2" }), "", true, true, "cpus:4; mem:4096", "cpus:3; mem:3072"},
		{"an attribute more", with(func(i *cluster.AgentInfo) { i.Attributes["row"] = "x" }), "", true, true, "cpus:4; mem:4096", "cpus:3; mem:3072"},
		{"an attribute less", with(func(i *cluster.AgentInfo) { delete(i.Attributes, "zone") }), "", true, true, "cpus:4; mem:4096", "cpus:3; mem:3072"},
		{"an attribute renamed", with(func(i *cluster.AgentInfo) { delete(i.Attributes, "zone"); i.Attributes["zone2"] = "a" }), "", true, true, "cpus:4; mem:4096", "cpus:3; mem:3072"},
		{"the total", with(func(*cluster.AgentInfo) {}), "cpus:8;mem:4096", true, false, "cpus:8; mem:4096", "cpus:7; mem:3072"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.ok(w.m.AddAgent("a1", base, res("cpus:4;mem:4096"), nil))
			w.framework("f1", 0, "r")
			w.launch(w.offerTo("f1"), "cpus:1;mem:1024", "t1")
			w.framework("f2", 0, "q")
			// f2 declines everything with a filter, and joins the round.
			o := w.offerTo("f2")
			refuse := time5s
			w.ok(w.m.Decline("f2", "a1", o.Resources, &refuse))
			require.Equal(t, []string{"f2"}, w.dec.RoundMembers(w.cs.Agents.Get("a1")))
			w.clearPending()
			ag := w.cs.Agents.Get("a1")
			version, filters := ag.Version, w.filters()
			require.NotZero(t, filters)

			var total *resources.Resources
			if tc.total != "" {
				r := res(tc.total)
				total = &r
			}
			w.ok(w.m.UpdateAgent("a1", tc.info, total))
			require.Equal(t, tc.info.Hostname, ag.Info.Hostname)
			require.Equal(t, tc.info.Attributes, ag.Info.Attributes)
			require.Equal(t, tc.totals, w.cs.Totals.String())
			require.Equal(t, tc.available, ag.Available.String())
			if tc.changed {
				require.Greater(t, ag.Version, version)
				require.Equal(t, "a1", w.pending())
				require.Empty(t, w.dec.RoundMembers(ag), "a change ends the round")
			} else {
				require.Equal(t, version, ag.Version)
				require.Empty(t, w.pending())
				require.Equal(t, []string{"f2"}, w.dec.RoundMembers(ag))
			}
			if tc.total == "" && tc.changed {
				require.Equal(t, version+1, ag.Version, "one change, one version")
			}
			if tc.forgets {
				require.Zero(t, w.filters())
			} else {
				require.Equal(t, filters, w.filters())
			}
		})
	}
}

// AddResourceProvider refuses an unknown agent, invalid resources, use in
// roles not held, and sums past resources.MaxTotal; it adds the provider's
// resources to the agent's total and its reported use as AddAgent does.
func TestAddResourceProvider(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	rest, err := resources.New(resources.ScalarResource("cpus", resources.MaxTotal-resources.Units(10)))
	require.NoError(t, err)
	w.ok(w.m.AddAgent("a2", cluster.AgentInfo{}, rest, nil))
	w.framework("f1", 0, "r")
	w.clearPending()
	max := huge(t)
	used := func(fw string, r resources.Resources) map[string]resources.Resources {
		return map[string]resources.Resources{fw: r}
	}
	for name, tc := range inOrder(map[string]struct {
		agent string
		total resources.Resources
		used  map[string]resources.Resources
		want  error
	}{
		"unknown agent":                {"a9", res("disk:10"), nil, cluster.ErrUnknownAgent},
		"invalid resources":            {"a1", max.Plus(max), nil, cluster.ErrInvalidResources},
		"use in a role not subscribed": {"a1", res("disk:10"), used("f1", alloc("disk:1", "q")), cluster.ErrRoleNotSubscribed},
		"use past MaxTotal":            {"a1", res("disk:10"), used("f9", max.Allocate("r").Plus(alloc("cpus:1", "q"))), cluster.ErrOverflow},
		"a provider past MaxTotal":     {"a1", max.Plus(res("cpus(r):1")), nil, cluster.ErrOverflow},
		"the agent past MaxTotal":      {"a2", res("cpus:11"), nil, cluster.ErrOverflow},
		"the cluster past MaxTotal":    {"a1", res("cpus:7"), nil, cluster.ErrOverflow},
	}) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.AddResourceProvider(tc.agent, tc.total, tc.used) })
		})
	}

	w.t = t
	ag := w.cs.Agents.Get("a1")
	w.ok(w.m.AddResourceProvider("a1", res("disk:100"), used("f9", alloc("disk:10", "q"))))
	requireRes(t, res("cpus:4;disk:100;mem:4096"), ag.Total)
	require.True(t, ag.Unclaimed()["f9"].Equal(alloc("disk:10", "q")), "unclaimed %v", ag.Unclaimed())
	// A second provider adds to what is unclaimed, and to the known
	// framework's allocation.
	w.ok(w.m.AddResourceProvider("a1", res("disk:50;gpus:1"), map[string]resources.Resources{
		"f9": alloc("disk:5", "q"), "f7": alloc("gpus:1", "q"), "f1": alloc("disk:20", "r")}))
	requireRes(t, res("cpus:4;disk:150;gpus:1;mem:4096"), ag.Total)
	require.True(t, ag.Unclaimed()["f9"].Equal(alloc("disk:15", "q")), "unclaimed %v", ag.Unclaimed())
	require.True(t, ag.Unclaimed()["f7"].Equal(alloc("gpus:1", "q")), "unclaimed %v", ag.Unclaimed())
	require.True(t, ag.Allocated.Get("f1").Equal(alloc("disk:20", "r")), "f1 uses %s", ag.Allocated.Get("f1"))
	requireRes(t, res("cpus:4;disk:115;mem:4096"), ag.Available)
}

// A provider's use reported for a framework not added yet, on an agent
// that had none, is unclaimed.
func TestAddResourceProviderFirstUnclaimed(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.ok(w.m.AddResourceProvider("a1", res("disk:100"), map[string]resources.Resources{"f9": alloc("disk:10", "q")}))
	require.True(t, w.cs.Agents.Get("a1").Unclaimed()["f9"].Equal(alloc("disk:10", "q")))
}

// UpdateWhitelist: nil lets every agent be offered, a list (empty too)
// only the agents of those hostnames.
func TestUpdateWhitelist(t *testing.T) {
	w := newWorld(t)
	w.m.UpdateWhitelist([]string{"h1", "h2", "h1"})
	require.Equal(t, map[string]struct{}{"h1": {}, "h2": {}}, w.engine.Whitelist)
	w.m.UpdateWhitelist([]string{})
	require.NotNil(t, w.engine.Whitelist)
	require.Empty(t, w.engine.Whitelist)
	w.m.UpdateWhitelist(nil)
	require.Nil(t, w.engine.Whitelist)
}

// What frameworks together are reported to use on one agent is bounded
// too: two uses each within the agent's total can sum past MaxTotal.
func TestReportedUseSumsWithinMaxTotal(t *testing.T) {
	w := newWorld(t)
	w.framework("f1", 0, "r")
	half, err := resources.New(resources.ScalarResource("cpus", resources.MaxTotal/2+resources.Units(1)))
	require.NoError(t, err)
	used := map[string]resources.Resources{"f1": half.Allocate("r"), "f9": half.Allocate("r")}
	w.refuses(cluster.ErrOverflow, func() error { return w.m.AddAgent("a1", cluster.AgentInfo{}, huge(t), used) })
	w.agent("a1", "cpus:1")
	w.refuses(cluster.ErrOverflow, func() error { return w.m.AddResourceProvider("a1", res("disk:1"), used) })
}
