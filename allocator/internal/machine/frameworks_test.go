package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// badInfos are framework infos ValidateInfo refuses, all with
// ErrInvalidRole.
func badInfos() map[string]cluster.FrameworkInfo {
	c := func(op uint8) map[string]cluster.Constraints {
		return map[string]cluster.Constraints{"r": {{{Attribute: "rack", Op: op, Value: "1"}}}}
	}
	return map[string]cluster.FrameworkInfo{
		"no roles":                         {},
		"an invalid role":                  {Roles: []string{"r", "a//b"}},
		"an unsubscribed suppressed role":  {Roles: []string{"r"}, SuppressedRoles: []string{"q"}},
		"minimum for an unsubscribed role": {Roles: []string{"r"}, MinAllocatable: map[string][]resources.Quantities{"q": {qty("cpus:1")}}},
		"constraints of another role":      {Roles: []string{"r"}, Constraints: map[string]cluster.Constraints{"q": nil}},
		"operator zero":                    {Roles: []string{"r"}, Constraints: c(cluster.OpExists - 1)},
		"operator past the last":           {Roles: []string{"r"}, Constraints: c(cluster.OpNotEquals + 1)},
	}
}

// ValidateInfo takes every operator from the first to the last, and what
// is said of subscribed roles.
func TestValidateInfoAcceptsEveryOperator(t *testing.T) {
	for op := cluster.OpExists; op <= cluster.OpNotEquals; op++ {
		require.NoError(t, ValidateInfo(cluster.FrameworkInfo{Roles: []string{"r", "q"}, SuppressedRoles: []string{"q"},
			MinAllocatable: map[string][]resources.Quantities{"r": {qty("cpus:1")}},
			Constraints:    map[string]cluster.Constraints{"r": {{{Attribute: "rack", Op: op, Value: "1"}}}}}), "operator %d", op)
	}
}

// AddFramework refuses, before it changes anything, an invalid or known
// id, an invalid info, use in roles it does not subscribe to or that
// differs from what its agents reported, and sums past MaxTotal.
func TestAddFrameworkRefusesBadInput(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.ok(w.m.AddAgent("a2", cluster.AgentInfo{}, res("cpus:4;mem:4096"), map[string]resources.Resources{"f9": alloc("cpus:1", "r")}))
	w.framework("f1", 0, "r")
	w.clearPending()
	max := huge(t)
	info := cluster.FrameworkInfo{Roles: []string{"r"}}
	on := func(agent string, r resources.Resources) map[string]resources.Resources {
		return map[string]resources.Resources{agent: r}
	}
	type attempt struct {
		id   string
		info cluster.FrameworkInfo
		used map[string]resources.Resources
		want error
	}
	cases := map[string]attempt{
		"empty id":                           {"", info, nil, cluster.ErrInvalidID},
		"known id":                           {"f1", info, nil, cluster.ErrDuplicateFramework},
		"use in a role not subscribed":       {"f2", info, on("a1", alloc("cpus:1", "q")), cluster.ErrRoleNotSubscribed},
		"use reserved for another role":      {"f2", info, on("a1", res("cpus(q):1").Allocate("r")), cluster.ErrInvalidResources},
		"use of one agent past MaxTotal":     {"f2", info, on("a1", max.Allocate("r").Plus(res("cpus(r):1").Allocate("r"))), cluster.ErrOverflow},
		"use beyond totals past MaxTotal":    {"f2", info, on("a1", max.Allocate("r")), cluster.ErrOverflow},
		"claimed use in another role":        {"f9", cluster.FrameworkInfo{Roles: []string{"q"}}, nil, cluster.ErrRoleNotSubscribed},
		"claimed use other than reported":    {"f9", info, on("a2", alloc("cpus:2", "r")), cluster.ErrInvalidResources},
		"an invalid info before a good use":  {"f2", cluster.FrameworkInfo{Roles: []string{"r", ""}}, on("a1", alloc("cpus:1", "r")), cluster.ErrInvalidRole},
		"a bad use after a good one":         {"f2", info, map[string]resources.Resources{"a1": alloc("cpus:1", "r"), "a2": alloc("cpus:1", "q")}, cluster.ErrRoleNotSubscribed},
		"an overflowing use after good ones": {"f2", info, map[string]resources.Resources{"a1": alloc("cpus:1", "r"), "a2": max.Allocate("r")}, cluster.ErrOverflow},
	}
	for name, bad := range inOrder(badInfos()) {
		cases["info: "+name] = attempt{"f2", bad, nil, cluster.ErrInvalidRole}
	}
	for name, tc := range inOrder(cases) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(tc.want, func() error { return w.m.AddFramework(tc.id, tc.info, tc.used, true) })
		})
	}
}

// An added framework is tracked under its roles, with its suppressed
// roles marked and the number of runs made before it; the use it reports
// on known agents is its allocation (agents not known are left out), the
// use its agents reported for it before it came is claimed; an active one
// makes every agent wait for a run, an inactive one none.
func TestAddFramework(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.ok(w.m.AddAgent("a2", cluster.AgentInfo{}, res("cpus:4;mem:4096"), map[string]resources.Resources{"f2": alloc("cpus:1", "q"), "f9": alloc("cpus:1", "r")}))
	w.allocate()
	w.allocate()
	w.clearPending()

	w.ok(w.m.AddFramework("f2", cluster.FrameworkInfo{Roles: []string{"r", "q"}, SuppressedRoles: []string{"q"}},
		map[string]resources.Resources{"a1": alloc("cpus:2", "r"), "a7": alloc("cpus:2", "r")}, false))
	fw := w.cs.Frameworks.Get("f2")
	require.NotNil(t, fw)
	require.False(t, fw.Active)
	require.Equal(t, uint64(2), fw.Joined)
	require.Equal(t, []string{"q", "r"}, fw.Roles.List(tables.Subscribed))
	require.Equal(t, []string{"q"}, fw.Roles.List(tables.Suppressed))
	require.Empty(t, w.pending(), "an inactive framework asks for no run")
	a1, a2 := w.cs.Agents.Get("a1"), w.cs.Agents.Get("a2")
	requireRes(t, alloc("cpus:2", "r"), a1.Allocated.Get("f2"))
	requireRes(t, alloc("cpus:1", "q"), a2.Allocated.Get("f2"), "claimed")
	_, stillUnclaimed := a2.Unclaimed()["f2"]
	require.False(t, stillUnclaimed)
	requireRes(t, alloc("cpus:1", "r"), a2.Unclaimed()["f9"])
	requireRes(t, res("cpus:2;mem:4096"), a1.Available)
	requireRes(t, res("cpus:2;mem:4096"), a2.Available, "claimed use was not available before either")
	require.Equal(t, "cpus:2", w.rs.AllocationQuantities("r").String())
	require.Equal(t, "cpus:1", w.rs.AllocationQuantities("q").String())

	w.ok(w.m.AddFramework("f3", cluster.FrameworkInfo{Roles: []string{"r"}}, nil, true))
	require.True(t, w.cs.Frameworks.Get("f3").Active)
	require.Equal(t, "*", w.pending())
	require.Equal(t, []string{"f3"}, w.books.FrameworkSorter("r").Sort(), "f2 is inactive")
}

// RemoveFramework refuses an unknown framework; it gives back all the
// framework holds (offers, allocations, holds), forgets its tasks, its
// filters, its rounds of declines and its inverse offers, and leaves its
// roles.
func TestRemoveFramework(t *testing.T) {
	w := newWorld(t)
	w.refuses(cluster.ErrUnknownFramework, func() error { return w.m.RemoveFramework("f1") })
	w.agent("a1", "cpus:4;mem:4096")
	w.agent("a2", "cpus:4;mem:4096")
	w.framework("f1", 0, "r")
	offers := w.allocate()
	require.Len(t, offers, 2)
	w.launch(offers[0], "cpus:1;mem:1024", "t1", "t2")
	w.ok(w.m.PreemptTask("f1", "t2", 10*time.Second))
	refuse := time5s
	w.ok(w.m.Decline("f1", "a2", offers[1].Resources, &refuse))
	w.framework("f2", 0, "q")
	w.ok(w.m.UpdateUnavailability("a1", &offer.Unavailability{Start: t0.Add(time.Hour), Duration: time.Hour}))
	w.now = w.now.Add(2 * time.Second)
	inverse := w.engine.Triggered(true).InverseOffers
	require.Len(t, inverse, 2, "f1 and f2 hold resources on a1")
	require.NotEmpty(t, w.cs.Agents.Get("a1").Outstanding)
	require.NotZero(t, w.filters())

	w.ok(w.m.RemoveFramework("f1"))
	require.Nil(t, w.cs.Frameworks.Get("f1"))
	for _, ag := range w.cs.AgentList {
		require.False(t, ag.Offered.Has("f1"), "%s", ag.ID)
		require.False(t, ag.Allocated.Has("f1"), "%s", ag.ID)
		require.False(t, ag.Holds().Has("f1"), "%s", ag.ID)
		require.NotContains(t, ag.Inverse(), "f1")
		for _, o := range ag.Outstanding {
			require.NotEqual(t, "f1", o.Framework)
		}
		require.Empty(t, w.dec.RoundMembers(ag))
	}
	require.Zero(t, w.filters())
	require.Empty(t, w.tasks.Live())
	require.Nil(t, w.books.FrameworkSorter("r"), "nobody is left in r")
	require.False(t, w.rs.Contains("r"))
	w.refuses(cluster.ErrUnknownFramework, func() error { return w.m.RemoveFramework("f1") })
}

// ActivateFramework and DeactivateFramework refuse an unknown framework.
// Activation puts the framework back in its roles' sorters and makes every
// agent wait for a run; deactivation takes it out, and ends its filters,
// rounds of declines and inverse-offer filters.
func TestActivateAndDeactivate(t *testing.T) {
	w := newWorld(t)
	w.refuses(cluster.ErrUnknownFramework, func() error { return w.m.ActivateFramework("f1") })
	w.refuses(cluster.ErrUnknownFramework, func() error { return w.m.DeactivateFramework("f1") })
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", 0, "r", "q")
	o := w.offerTo("f1")
	refuse := time5s
	w.ok(w.m.Decline("f1", "a1", o.Resources, &refuse))
	w.ok(w.m.UpdateInverseOffer("a1", "f1", cluster.InverseDeclined, &refuse))
	require.NotZero(t, w.filters())
	require.Equal(t, []string{"f1"}, w.dec.RoundMembers(w.cs.Agents.Get("a1")))
	w.clearPending()

	w.ok(w.m.DeactivateFramework("f1"))
	fw := w.cs.Frameworks.Get("f1")
	require.False(t, fw.Active)
	require.Empty(t, w.books.FrameworkSorter("r").Sort())
	require.Empty(t, w.books.FrameworkSorter("q").Sort())
	require.Zero(t, w.filters())
	require.Empty(t, w.dec.RoundMembers(w.cs.Agents.Get("a1")))
	require.Empty(t, fw.InverseFilters)
	require.Empty(t, w.pending())

	w.ok(w.m.ActivateFramework("f1"))
	require.True(t, fw.Active)
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("r").Sort())
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("q").Sort())
	require.Equal(t, "*", w.pending())
}

// UpdateFramework refuses an unknown framework and an invalid info.
func TestUpdateFrameworkRefusesBadInput(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", 0, "r")
	w.refuses(cluster.ErrUnknownFramework, func() error { return w.m.UpdateFramework("f9", cluster.FrameworkInfo{Roles: []string{"r"}}) })
	for name, bad := range inOrder(badInfos()) {
		t.Run(name, func(t *testing.T) {
			w.t = t
			w.refuses(cluster.ErrInvalidRole, func() error { return w.m.UpdateFramework("f1", bad) })
		})
	}
}

// UpdateFramework replaces the framework's info: a role it leaves is no
// longer subscribed, its filters, suppression and demand there end, and
// it stays tracked there only while it holds something in it; a role it
// joins is subscribed and tracked; suppression follows the new info.
func TestUpdateFramework(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.agent("a2", "cpus:4;mem:4096")
	w.framework("f1", 0, "a", "b", "c")
	fw := w.cs.Frameworks.Get("f1")
	// f1 holds an offer in a on a1, a filter in b on a2, and demand in
	// b and c.
	w.ok(w.m.SuppressOffers("f1", "b", "c"))
	offers := w.allocate()
	require.Len(t, offers, 2)
	require.Equal(t, "a", offers[0].Role)
	w.ok(w.m.Recover("f1", "a2", offers[1].Resources, nil, false))
	w.ok(w.m.ReviveOffers("f1", "b"))
	w.ok(w.m.SuppressOffers("f1", "a"))
	other := w.offerTo("f1")
	require.Equal(t, "b", other.Role)
	refuse := time5s
	w.ok(w.m.Decline("f1", other.AgentID, other.Resources, &refuse))
	w.ok(w.m.UpdateDemand("f1", "b", []cluster.Pending{{Resources: qty("cpus:1"), Count: 1}}))
	w.ok(w.m.UpdateDemand("f1", "c", []cluster.Pending{{Resources: qty("cpus:1"), Count: 2}}))
	require.NotZero(t, w.filters())
	epoch := w.parking.CapEpoch

	// Leaving a and b: a stays tracked (the offer), b goes.
	w.ok(w.m.UpdateFramework("f1", cluster.FrameworkInfo{Roles: []string{"c", "d"}, SuppressedRoles: []string{"d"}, Principal: "p2"}))
	require.Equal(t, "p2", fw.Info.Principal)
	require.Equal(t, []string{"c", "d"}, fw.Roles.List(tables.Subscribed))
	require.Equal(t, []string{"d"}, fw.Roles.List(tables.Suppressed))
	require.Equal(t, []string{"a", "c", "d"}, fw.Roles.List(tables.Tracked))
	require.Zero(t, w.filters(), "the filter in b ended")
	require.Equal(t, map[string][]cluster.Pending{"c": {{Resources: qty("cpus:1"), Count: 2}}}, fw.Demand)
	require.Greater(t, w.parking.CapEpoch, epoch, "what roles may take was looked at again")
	require.Empty(t, w.books.FrameworkSorter("a").Sort(), "f1 left a")
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("c").Sort(), "c was suppressed, not any more")
	require.Empty(t, w.books.FrameworkSorter("d").Sort(), "d is suppressed")
	require.Nil(t, w.books.FrameworkSorter("b"))

	// Leaving c, the last role with demand, leaves no demand at all.
	w.ok(w.m.UpdateFramework("f1", cluster.FrameworkInfo{Roles: []string{"d"}}))
	require.Nil(t, fw.Demand)
	require.Empty(t, fw.Roles.List(tables.Suppressed))
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("d").Sort())
}

// SuppressOffers and ReviveOffers refuse an unknown framework or a role
// it does not subscribe to; without roles they act on all of its roles.
// Reviving ends the framework's filters in those roles, its rounds of
// declines and its inverse-offer filters, and makes every agent wait for
// a run.
func TestSuppressAndRevive(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", 0, "r", "q")
	fw := w.cs.Frameworks.Get("f1")
	for _, event := range []func(string, ...string) error{w.m.SuppressOffers, w.m.ReviveOffers} {
		w.refuses(cluster.ErrUnknownFramework, func() error { return event("f9") })
		w.refuses(cluster.ErrRoleNotSubscribed, func() error { return event("f1", "r", "x") })
	}
	o := w.offerTo("f1")
	refuse := time5s
	w.ok(w.m.Decline("f1", "a1", o.Resources, &refuse))
	w.ok(w.m.UpdateInverseOffer("a1", "f1", cluster.InverseAccepted, &refuse))
	w.clearPending()

	w.ok(w.m.SuppressOffers("f1", "q"))
	require.Equal(t, []string{"q"}, fw.Roles.List(tables.Suppressed))
	require.Empty(t, w.books.FrameworkSorter("q").Sort())
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("r").Sort())
	w.ok(w.m.SuppressOffers("f1"))
	require.Equal(t, []string{"q", "r"}, fw.Roles.List(tables.Suppressed))
	require.Empty(t, w.books.FrameworkSorter("r").Sort())
	require.Empty(t, w.pending(), "suppressing asks for no run")

	filters := w.filters()
	roleOfFilter := o.Role
	other := "q"
	if roleOfFilter == "q" {
		other = "r"
	}
	w.ok(w.m.ReviveOffers("f1", other))
	require.Equal(t, []string{roleOfFilter}, fw.Roles.List(tables.Suppressed))
	require.Equal(t, filters, w.filters(), "the filter is in the other role")
	require.Empty(t, w.dec.RoundMembers(w.cs.Agents.Get("a1")))
	require.Empty(t, fw.InverseFilters)
	require.Equal(t, "*", w.pending())
	w.ok(w.m.ReviveOffers("f1"))
	require.Empty(t, fw.Roles.List(tables.Suppressed))
	require.Zero(t, w.filters())
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("r").Sort())
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("q").Sort())
}
