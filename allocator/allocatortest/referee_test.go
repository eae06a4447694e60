package allocatortest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// refAgent is an agent view for the referee's tests: its total, and what
// frameworks are offered there (by framework, with allocation roles); the
// rest is available.
func refAgent(id, total string, offered map[string]string) allocator.AgentView {
	v := allocator.AgentView{ID: id, Active: true, Total: res(total), Offered: map[string]resources.Resources{}}
	v.Available = v.Total.Clone()
	for _, fw := range slices.Sorted(maps.Keys(offered)) {
		o := res(offered[fw])
		v.Offered[fw] = o
		v.Available = v.Available.Minus(o.Unallocate())
	}
	return v
}

// refViews are views of agents and of roles with the given quotas (the
// roles' consumption filled in from the agents, as the allocator reports
// it), and of frameworks, each active in the roles listed.
func refViews(agents []allocator.AgentView, quotas map[string]allocator.Quota, frameworks map[string][]string) Views {
	v := Views{Agents: agents}
	own, _ := consumption(agents)
	paths := map[string]bool{}
	for role := range quotas {
		paths[role] = true
	}
	for role := range own {
		paths[role] = true
	}
	for _, rs := range frameworks {
		for _, role := range rs {
			paths[role] = true
		}
	}
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		var consumed resources.Quantities
		for name, x := range subtree(own, path) {
			consumed.SetScalar(name, x)
		}
		v.Roles = append(v.Roles, allocator.RoleView{Role: path, Weight: 1, Quota: quotas[path], Consumed: consumed})
	}
	for _, id := range slices.Sorted(maps.Keys(frameworks)) {
		v.Frameworks = append(v.Frameworks, allocator.FrameworkView{ID: id, Active: true, Roles: frameworks[id]})
	}
	return v
}

// refOffers are a run's offers, each "framework role agent resources"
// (the resources in text, without allocation roles); periodic makes it an
// AllocateAll.
func refOffers(periodic bool, offers ...string) allocator.Result {
	out := allocator.Result{Stats: allocator.RunStats{Periodic: periodic}}
	for i, o := range offers {
		f := strings.SplitN(o, " ", 4)
		out.Offers = append(out.Offers, offer.Offer{
			ID: fmt.Sprintf("o%d", i+1), FrameworkID: f[0], Role: f[1], AgentID: f[2], Resources: res(f[3]).Allocate(f[1]),
		})
	}
	out.Stats.Offers = len(out.Offers)
	return out
}

// refHost is the host of the referee's tests: every agent looked at, every
// framework able to take every agent, no demand, the default minimum
// allocatable resources.
func refHost() *refereeHost {
	return &refereeHost{
		looked:  func(allocator.AgentView) bool { return true },
		canTake: func(allocator.FrameworkView, string, allocator.AgentView) bool { return true },
		pending: func(string, string) ([]allocator.Pending, bool) { return nil, false },
		minimum: func(string, string) []resources.Quantities { return allocator.DefaultMinAllocatable() },
	}
}

func guarantee(text string) allocator.Quota {
	return allocator.Quota{Guarantees: resources.MustParseQuantities(text)}
}

func limit(text string) allocator.Quota {
	return allocator.Quota{Limits: resources.MustParseLimits(text)}
}

// refCase is a run for the referee: the views before and after it, what
// it offered, and the host's facts (nil: the views only).
type refCase struct {
	name          string
	before, after Views
	res           allocator.Result
	host          *refereeHost
	// want is a fragment of the violation a broken promise must give;
	// empty for a run that keeps every promise.
	want string
}

// refCases are runs that keep every promise and runs that break one each,
// built by hand from views.
func refCases() []refCase {
	var cases []refCase
	add := func(c refCase) { cases = append(cases, c) }

	// Promise 1, limits: a role with a limit of cpus:2 offered 3.
	{
		q := map[string]allocator.Quota{"r": limit("cpus:2")}
		fws := map[string][]string{"f": {"r"}}
		before := refViews([]allocator.AgentView{refAgent("a1", "cpus:4;mem:4096", nil)}, q, fws)
		over := refViews([]allocator.AgentView{refAgent("a1", "cpus:4;mem:4096", map[string]string{"f": "cpus(allocated: r):3;mem(allocated: r):4096"})}, q, fws)
		add(refCase{name: "limit passed", before: before, after: over, res: refOffers(false, "f r a1 cpus:3;mem:4096"), want: "above its limit 2"})
		within := refViews([]allocator.AgentView{refAgent("a1", "cpus:4;mem:4096", map[string]string{"f": "cpus(allocated: r):2;mem(allocated: r):4096"})}, q, fws)
		add(refCase{name: "limit kept", before: before, after: within, res: refOffers(false, "f r a1 cpus:2;mem:4096"), host: refHost()})
		// Already above the limit before the run (a limit lowered):
		// what is offered of holds adds nothing.
		held := refAgent("a1", "cpus:4;mem:4096", nil)
		held.Held = map[string]resources.Resources{"f": res("cpus(allocated: r):3")}
		held.Available = res("cpus:1;mem:4096")
		offeredHold := refAgent("a1", "cpus:4;mem:4096", map[string]string{"f": "cpus(allocated: r):3"})
		add(refCase{name: "a hold above the limit offered", before: refViews([]allocator.AgentView{held}, q, fws),
			after: refViews([]allocator.AgentView{offeredHold}, q, fws), res: refOffers(false, "f r a1 cpus:3"), host: refHost()})
	}

	// Promise 2, the hand-found case: agents of 4 cpus, guarantees a =
	// cpus:4 and a/b = cpus:4, a framework in a/c and one in x. a/c may
	// take a's guarantee, which leaves a/b's need; x may then take
	// nothing.
	{
		q := map[string]allocator.Quota{"a": guarantee("cpus:4"), "a/b": guarantee("cpus:4")}
		fws := map[string][]string{"fc": {"a/c"}, "fx": {"x"}}
		free := []allocator.AgentView{refAgent("a1", "cpus:4", nil), refAgent("a2", "cpus:4", nil)}
		before := refViews(free, q, fws)
		all := refViews([]allocator.AgentView{
			refAgent("a1", "cpus:4", map[string]string{"fc": "cpus(allocated: a/c):4"}),
			refAgent("a2", "cpus:4", map[string]string{"fx": "cpus(allocated: x):4"}),
		}, q, fws)
		add(refCase{name: "nested need spent by stage two", before: before, after: all, res: refOffers(true, "fc a/c a1 cpus:4", "fx x a2 cpus:4"),
			want: "to role x, which had no unmet guarantee"})
		kept := refViews([]allocator.AgentView{
			refAgent("a1", "cpus:4", map[string]string{"fc": "cpus(allocated: a/c):4"}),
			refAgent("a2", "cpus:4", nil),
		}, q, fws)
		add(refCase{name: "nested need kept", before: before, after: kept, res: refOffers(true, "fc a/c a1 cpus:4"), host: refHost()})
		// a/c given 8 cpus at once: beyond a's unmet guarantee.
		burst := refViews([]allocator.AgentView{
			refAgent("a1", "cpus:4", map[string]string{"fc": "cpus(allocated: a/c):4"}),
			refAgent("a2", "cpus:4", map[string]string{"fc": "cpus(allocated: a/c):4"}),
		}, q, fws)
		add(refCase{name: "nested need spent by a burst", before: before, after: burst, res: refOffers(true, "fc a/c a1 cpus:4", "fc a/c a2 cpus:4"),
			want: "more than its largest unmet guarantee"})
	}

	// Promise 3: two cpus vanish from the free pool into no role's
	// consumption while a is owed cpus:4.
	{
		q := map[string]allocator.Quota{"a": guarantee("cpus:4")}
		fws := map[string][]string{"f": {"a"}}
		before := refViews([]allocator.AgentView{refAgent("a1", "cpus:4", nil)}, q, fws)
		lost := refAgent("a1", "cpus:4", map[string]string{"f": "cpus(allocated: a):2"})
		lost.Available = resources.Resources{}
		add(refCase{name: "headroom spent by nobody", before: before, after: refViews([]allocator.AgentView{lost}, q, fws),
			res: refOffers(false, "f a a1 cpus:2"), want: "that no guarantee accounts for"})
	}

	// Promise 4: D below zero from the start (a owed 2, b owed 8, 6
	// free), a hold of cpus:4 in c given back; a's framework offered 3,
	// one beyond a's guarantee, leaves D at -1: above where it started,
	// but a burst may only come out of headroom beyond what is needed.
	{
		q := map[string]allocator.Quota{"a": guarantee("cpus:2"), "b": guarantee("cpus:8")}
		fws := map[string][]string{"f": {"a"}, "h": {"c"}}
		held := refAgent("a1", "cpus:10", nil)
		held.Held = map[string]resources.Resources{"h": res("cpus(allocated: c):4")}
		held.Available = res("cpus:6")
		after := refAgent("a1", "cpus:10", map[string]string{"f": "cpus(allocated: a):3"})
		add(refCase{name: "burst while headroom is short", before: refViews([]allocator.AgentView{held}, q, fws),
			after: refViews([]allocator.AgentView{after}, q, fws), res: refOffers(false, "f a a1 cpus:3"), want: "more than its largest unmet guarantee at the start (cpus:2)"})
	}

	// Promise 5: q is owed cpus:1 (no framework), r's framework offered
	// cpus:2 of 8 with no limit: 5 cpus held back for nothing.
	{
		q := map[string]allocator.Quota{"q": guarantee("cpus:1")}
		fws := map[string][]string{"f": {"r"}}
		before := refViews([]allocator.AgentView{refAgent("a1", "cpus:8;mem:1024", nil)}, q, fws)
		cut := refViews([]allocator.AgentView{refAgent("a1", "cpus:8;mem:1024", map[string]string{"f": "cpus(allocated: r):2;mem(allocated: r):1024"})}, q, fws)
		add(refCase{name: "held back for nothing", before: before, after: cut, res: refOffers(false, "f r a1 cpus:2;mem:1024"), host: refHost(),
			want: "left cpus:6 free there"})
		right := refViews([]allocator.AgentView{refAgent("a1", "cpus:8;mem:1024", map[string]string{"f": "cpus(allocated: r):7;mem(allocated: r):1024"})}, q, fws)
		add(refCase{name: "held back for a guarantee", before: before, after: right, res: refOffers(true, "f r a1 cpus:7;mem:1024"), host: refHost()})
		// Sized to a stated task, the rest is left on purpose.
		sized := refHost()
		sized.pending = func(fw, role string) ([]allocator.Pending, bool) { return nil, fw == "f" && role == "r" }
		add(refCase{name: "an offer sized to a task", before: before, after: cut, res: refOffers(false, "f r a1 cpus:2;mem:1024"), host: sized})
		// A limit of r's parent cuts it.
		limited := map[string]allocator.Quota{"q": guarantee("cpus:1"), "p": limit("cpus:2")}
		pfws := map[string][]string{"f": {"p/r"}}
		pcut := refViews([]allocator.AgentView{refAgent("a1", "cpus:8;mem:1024", map[string]string{"f": "cpus(allocated: p/r):2;mem(allocated: p/r):1024"})}, limited, pfws)
		add(refCase{name: "cut by an ancestor's limit", before: refViews([]allocator.AgentView{refAgent("a1", "cpus:8;mem:1024", nil)}, limited, pfws),
			after: pcut, res: refOffers(true, "f p/r a1 cpus:2;mem:1024"), host: refHost()})
	}

	// Promise 6: r's framework offered the agent's unreserved cpus and
	// not r's reservation.
	{
		q := map[string]allocator.Quota{"q": limit("cpus:100")}
		fws := map[string][]string{"f": {"r"}}
		total := "cpus:2;cpus(r):2;mem:1024"
		before := refViews([]allocator.AgentView{refAgent("a1", total, nil)}, q, fws)
		left := refViews([]allocator.AgentView{refAgent("a1", total, map[string]string{"f": "cpus(allocated: r):2;mem(allocated: r):1024"})}, q, fws)
		add(refCase{name: "reservation held back", before: before, after: left, res: refOffers(false, "f r a1 cpus:2;mem:1024"), host: refHost(),
			want: "left the reservation cpus(r):2 available"})
		whole := refViews([]allocator.AgentView{refAgent("a1", total, map[string]string{"f": "cpus(allocated: r):2;cpus(allocated: r)(r):2;mem(allocated: r):1024"})}, q, fws)
		add(refCase{name: "reservation offered", before: before, after: whole, res: refOffers(false, "f r a1 cpus:2;cpus(r):2;mem:1024"), host: refHost()})
	}

	// Promise 7: after a periodic run, r's framework was offered nothing
	// on an agent of 4 free cpus while q is owed one.
	{
		fws := map[string][]string{"f": {"r"}}
		idle := []allocator.AgentView{refAgent("a1", "cpus:4;mem:1024", nil)}
		owed := map[string]allocator.Quota{"q": guarantee("cpus:1")}
		add(refCase{name: "capped wrongly", before: refViews(idle, owed, fws), after: refViews(idle, owed, fws), res: refOffers(true), host: refHost(),
			want: "could take cpus:3; mem:1024 of what is free on a1"})
		all := map[string]allocator.Quota{"q": guarantee("cpus:4;mem:1024")}
		add(refCase{name: "capped for the headroom", before: refViews(idle, all, fws), after: refViews(idle, all, fws), res: refOffers(true), host: refHost()})
		capped := map[string]allocator.Quota{"r": limit("cpus:0;mem:0")}
		add(refCase{name: "capped by limits", before: refViews(idle, capped, fws), after: refViews(idle, capped, fws), res: refOffers(true), host: refHost()})
		filtered := refViews(idle, owed, fws)
		filtered.Filters = []allocator.FilterView{{Framework: "f", Role: "r", Agent: "a1", Refused: res("cpus:4;mem:1024"), Expires: time.Unix(1, 0)}}
		add(refCase{name: "kept off by a filter", before: filtered, after: refViews(idle, owed, fws), res: refOffers(true), host: refHost()})
		tooBig := refHost()
		tooBig.pending = func(string, string) ([]allocator.Pending, bool) {
			return []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:4"), Count: 1}}, true
		}
		add(refCase{name: "no pending task fits", before: refViews(idle, owed, fws), after: refViews(idle, owed, fws), res: refOffers(true), host: tooBig})
		// At its limits, r may still take its reservation.
		reserved := []allocator.AgentView{refAgent("a1", "cpus(r):2;mem:1024", nil)}
		add(refCase{name: "reservation left idle", before: refViews(reserved, capped, fws), after: refViews(reserved, capped, fws), res: refOffers(true), host: refHost(),
			want: "reservations, never held back: cpus(r):2"})
	}

	// Promise 8: a role reporting another consumption, and a guarantee
	// above an ancestor's limit.
	{
		q := map[string]allocator.Quota{"a": limit("cpus:2"), "a/b": guarantee("cpus:1")}
		fws := map[string][]string{"f": {"a/b"}}
		agents := []allocator.AgentView{refAgent("a1", "cpus:4", map[string]string{"f": "cpus(allocated: a/b):1"})}
		wrong := refViews(agents, q, fws)
		wrong.Roles[0].Consumed = resources.Quantities{}
		add(refCase{name: "consumption misreported", before: wrong, after: wrong, res: refOffers(false), want: "role a reports consumption {}"})
		bad := map[string]allocator.Quota{"a": limit("cpus:2"), "a/b": guarantee("cpus:3")}
		add(refCase{name: "guarantee above an ancestor's limit", before: refViews(agents, bad, fws), after: refViews(agents, bad, fws), res: refOffers(false),
			want: "guarantees cpus:3, above the limit 2 of a"})
	}

	return cases
}

// The referee reports each broken promise, and nothing for runs that keep
// them all.
func TestRefereeCases(t *testing.T) {
	for _, c := range refCases() {
		t.Run(c.name, func(t *testing.T) {
			err := errors.Join(refereeQuota(c.before, c.res, c.after, c.host)...)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

// The hand-found case run on the allocator: a/c takes a's guarantee on
// one agent, and the other agent is held for a/b's; the run keeps every
// promise, and CheckRun (which runs CheckQuota) agrees.
func TestRefereeNestedGuarantees(t *testing.T) {
	h, err := New(Options{Roles: []string{"a", "a/b", "a/c", "x"}})
	require.NoError(t, err)
	a := h.Allocator()
	for _, id := range []string{"a1", "a2"} {
		require.NoError(t, a.AddAgent(id, allocator.AgentInfo{Hostname: id}, res("cpus:4"), nil))
		h.agentInfo[id] = allocator.AgentInfo{Hostname: id}
	}
	require.NoError(t, a.UpdateQuota("a", guarantee("cpus:4")))
	require.NoError(t, a.UpdateQuota("a/b", guarantee("cpus:4")))
	for _, fw := range [][2]string{{"fc", "a/c"}, {"fx", "x"}} {
		info := allocator.FrameworkInfo{Roles: []string{fw[1]}}
		require.NoError(t, a.AddFramework(fw[0], info, nil, allocator.Active))
		h.fwInfo[fw[0]] = info
	}
	before := Take(a)
	run := a.AllocateAll()
	require.NoError(t, CheckRun(before, run, a))
	require.Empty(t, refereeQuota(before, run, Take(a), h.refereeHost(a)))
	var cpus resources.Scalar
	for _, o := range run.Offers {
		cpus += o.Resources.Quantities().Scalar("cpus")
	}
	require.Equal(t, resources.Units(4), cpus, "offers %v", run.Offers)
}

// A role whose guarantee equals its limit (cpus:1;mem:1024) on a cluster
// full of one task of cpus:4;mem:4096: the run chooses that task to end
// for it. What the task frees counts as the role's consumption as soon as
// it is held for it, and limits cap consumption: once the task ends, the
// role must be within its limit, whatever the task freed.
func TestRefereeReclaimKeepsLimits(t *testing.T) {
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: allocator.NewManualClock(DefaultStart).Now, Reclaim: allocator.ReclaimGuarantees})
	require.NoError(t, err)
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active))
	o := a.AllocateAll().Offers[0]
	task := offer.Task{ID: "t1", Resources: res("cpus:4;mem:4096").Allocate("batch")}
	require.NoError(t, a.Accept("spark", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}, nil))
	require.NoError(t, a.AddFramework("nginx", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	require.NoError(t, a.UpdateQuota("web", allocator.MustParseQuota("cpus:1;mem:1024")))

	before := Take(a)
	run := a.AllocateAll()
	require.NoError(t, CheckQuota(before, run, Take(a)))
	for _, p := range run.Preemptions {
		require.NoError(t, a.EndTask(p.FrameworkID, p.TaskID))
	}
	web, _ := a.Role("web")
	require.True(t, web.Quota.Limits.Contains(web.Consumed), "web consumes %s, limits %s, after the tasks chosen for it ended: %v",
		web.Consumed, web.Quota.Limits, run.Preemptions)
	before = Take(a)
	run = a.AllocateAll()
	require.NoError(t, CheckQuota(before, run, Take(a)))
}

// A role at its limits for every unreserved resource may still be offered
// its reservations: reservations are never held back, and offering them
// adds nothing to its consumption. Here fa's role a has limits cpus:0 and
// mem:0; agent g1, shrunk below what fa's task uses there (cpus(a):4, now
// a total of cpus(a):2: over-allocated), and g2 with a free cpus(a):2.
// The run offers fa nothing: the role is found capped because the
// reservations its subtree holds (4, counting g1's beyond its total) come
// to all its subtree's reservations (4), an aggregate comparison, though
// g2's are free. Explain says "at a's quota limit".
func TestRefereeReservationHeldBackByCap(t *testing.T) {
	h, err := New(Options{Roles: []string{"a"}})
	require.NoError(t, err)
	a := h.Allocator()
	info := allocator.FrameworkInfo{Roles: []string{"a"}}
	h.fwInfo["fa"] = info
	require.NoError(t, a.AddAgent("g1", allocator.AgentInfo{}, res("cpus(a):4;mem:1024"), nil))
	require.NoError(t, a.AddFramework("fa", info, nil, allocator.Active))
	o := a.AllocateAll().Offers[0]
	task := offer.Task{ID: "t1", Resources: res("cpus(a):4").Allocate("a")}
	require.NoError(t, a.Accept("fa", "g1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task}}}, nil))
	shrunk := res("cpus(a):2;mem:1024")
	require.NoError(t, a.UpdateAgent("g1", allocator.AgentInfo{}, &shrunk))
	require.NoError(t, a.AddAgent("g2", allocator.AgentInfo{}, res("cpus(a):2;mem:1024"), nil))
	require.NoError(t, a.UpdateQuota("a", limit("cpus:0;mem:0")))

	before := Take(a)
	run := a.AllocateAll()
	require.Empty(t, refereeQuota(before, run, Take(a), h.refereeHost(a)))
	require.Len(t, run.Offers, 1, "g2's cpus(a):2 for fa")
}

// The referee holds on the next periodic run after every step of random
// sequences: after each step a copy restored from the allocator's
// snapshot makes an AllocateAll, the run the host would make next, which
// the referee checks with the harness's facts. (The harness's own runs are
// checked by the hook in checkRunRules.)
func TestRefereeOnNextRuns(t *testing.T) {
	for _, c := range Configs() {
		t.Run(c.Name, func(t *testing.T) {
			opts := c.Options
			opts.Fast = true
			for i, s := range Sequences(3, 4, c.Mix, 60) {
				if err := refereeNextRuns(opts, s); err != nil {
					t.Fatalf("sequence %d: %v\nreplay the events with\n  go run ./allocator/allocatortest/cmd/eventcheck -config '%s' -replay '%s'", i, err, c.Name, s.Line())
				}
			}
		})
	}
}

// refereeNextRuns steps s through a harness made with opts and, after
// every step, runs the referee on the next AllocateAll of a copy of the
// allocator; it returns the harness's violation or the referee's first.
func refereeNextRuns(opts Options, s Sequence) error {
	opts.Allocator.Seed = s.Seed
	h, err := New(opts)
	if err != nil {
		return err
	}
	for step, ev := range s.Events {
		if err := h.Step(ev); err != nil {
			return err
		}
		data, err := h.a.Snapshot()
		if err != nil {
			return nil // a sorter that cannot be saved: no copies
		}
		next, err := allocator.Restore(data, h.restoreOptions())
		if err != nil {
			return fmt.Errorf("after step %d: Restore: %w", step+1, err)
		}
		before := Take(next)
		run := next.AllocateAll()
		if errs := refereeQuota(before, run, Take(next), h.refereeHost(next)); len(errs) > 0 {
			return fmt.Errorf("the next AllocateAll after step %d (%s): %w", step+1, ev, errors.Join(errs...))
		}
	}
	return nil
}
