package allocatortest

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// cutWorld is one agent, a1, with frameworks' use of it by role, and the
// roles' quotas: the views before and after a run that changed nothing,
// from which conservation cases of framework f0 are made.
type cutWorld struct {
	t      *testing.T
	h      *Harness
	agent  allocator.AgentView
	quotas map[string]allocator.Quota
}

func newCutWorld(t *testing.T, total string) *cutWorld {
	h, err := New(Options{})
	require.NoError(t, err)
	v := allocator.AgentView{ID: "a1", Active: true, Total: res(total), Offered: map[string]resources.Resources{}, Allocated: map[string]resources.Resources{}}
	v.Available = v.Total
	return &cutWorld{t: t, h: h, agent: v, quotas: map[string]allocator.Quota{}}
}

// use allocates spec (unreserved) of the agent to framework fu in role.
func (w *cutWorld) use(role, spec string) {
	r := res(spec)
	w.agent.Allocated["fu"] = w.agent.Allocated["fu"].Plus(r.Allocate(role))
	w.agent.Available = w.agent.Available.Minus(r)
}

func (w *cutWorld) quota(role, guarantees, limits string) {
	q := allocator.Quota{}
	if guarantees != "" {
		q.Guarantees = resources.MustParseQuantities(guarantees)
	}
	if limits != "" {
		q.Limits = resources.MustParseLimits(limits)
	}
	w.quotas[role] = q
}

// roles are the roles' views: every role with quota or use, and its
// ancestors, with what its subtree consumes.
func (w *cutWorld) roles() []allocator.RoleView {
	paths := map[string]bool{}
	for role := range w.quotas {
		paths[role] = true
	}
	for _, role := range w.agent.Allocated["fu"].AllocationRoles() {
		paths[role] = true
	}
	for p := range maps.Clone(paths) {
		for q := parentRole(p); q != ""; q = parentRole(q) {
			paths[q] = true
		}
	}
	var out []allocator.RoleView
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		v := allocator.RoleView{Role: path, Weight: 1, Quota: w.quotas[path]}
		for _, role := range w.agent.Allocated["fu"].AllocationRoles() {
			if inSubtree(role, path) {
				v.Consumed.Add(plainHeld(w.agent.Allocated["fu"].AllocatedTo(role)))
			}
		}
		out = append(out, v)
	}
	return out
}

// of is the case of f0 in role on the agent, with every quota of the
// world.
func (w *cutWorld) of(role string) conservationCase {
	roles := w.roles()
	views := Views{Agents: []allocator.AgentView{w.agent}, Roles: roles}
	free := w.agent.Available.NonShared().AllocatableTo(role)
	return conservationCase{
		h: w.h, f: allocator.FrameworkView{ID: "f0", Active: true, Roles: []string{role}}, role: role,
		v: w.agent, free: free, roles: roles, before: views, cut: true,
		quota: newQuotaCuts(views, views, 0), unmetBefore: unmetGuarantees(roles),
	}
}

// said is Explain's reason with its detail; for a quota limit, the role
// named, with its figures from the views.
func (w *cutWorld) said(reason allocator.Reason, detail, named string) explained {
	x := explained{reason: reason, ar: allocator.AgentReason{Agent: "a1", Framework: "f0", Offer: resources.MustParseQuantities(detail)}}
	x.group.Reason = reason
	if named != "" {
		v, ok := viewOf(w.roles(), named)
		require.True(w.t, ok, "no role %s", named)
		x.group.QuotaRole, x.group.Limit, x.group.Consumed = named, v.Quota.Limits, v.Consumed
	}
	return x
}

// A limit that leaves too little of what is free binds; so does headroom
// that holds all of it for another role's guarantee.
func TestConservationQuotaCutsThatBind(t *testing.T) {
	w := newCutWorld(t, "cpus:4;mem:1024")
	w.quota("r", "", "cpus:2;mem:512")
	w.use("r", "cpus:2;mem:512")
	c := w.of("r")
	found := w.said(allocator.ReasonQuotaLimit, "cpus:2;mem:512", "r")
	require.NoError(t, c.check(found, true))
	require.NoError(t, c.namedLimitBinds(found))

	h := newCutWorld(t, "cpus:4;mem:1024")
	h.quota("g", "cpus:4;mem:1024", "")
	require.NoError(t, h.of("r").check(h.said(allocator.ReasonHeadroom, "cpus:4;mem:1024", ""), true))

	// A limit on cpus and the headroom on mem: each leaves what the other
	// holds back, so each is needed to keep the framework off.
	m := newCutWorld(t, "cpus:4;mem:1024")
	m.quota("r", "", "cpus:0")
	m.quota("g", "mem:1024", "")
	require.NoError(t, m.of("r").check(m.said(allocator.ReasonQuotaLimit, "cpus:4;mem:1024", "r"), true))
	require.NoError(t, m.of("r").check(m.said(allocator.ReasonHeadroom, "cpus:4;mem:1024", ""), true))
}

// A limit with room for an allocatable offer of what is free does not
// bind when the headroom alone holds everything back: Explain must name
// the headroom (the run names the limit whenever it cut anything).
func TestConservationQuotaLimitThatDoesNotBind(t *testing.T) {
	w := newCutWorld(t, "cpus:4;mem:1024")
	w.use("a", "cpus:1;mem:128")
	w.quota("a/c", "", "cpus:2;mem:2048")
	w.quota("a/b/c", "cpus:4;mem:2048", "")
	c := w.of("a/c")
	err := c.check(w.said(allocator.ReasonQuotaLimit, "cpus:3;mem:896", "a/c"), true)
	require.ErrorContains(t, err, "cut by the limits of the role's path alone, the offer holds at least cpus:2; mem:896")
	require.ErrorContains(t, err, "it does not bind")
	require.NoError(t, c.check(w.said(allocator.ReasonHeadroom, "cpus:3;mem:896", ""), true))
}

// The role a quota-limit reason names must be the one whose limit binds:
// a zero limit on a resource the agent does not offer binds nothing.
func TestConservationNamedLimitMustBind(t *testing.T) {
	w := newCutWorld(t, "cpus:8;mem:1024")
	w.use("a/b", "cpus:1;mem:1024")
	w.quota("a", "", "cpus:1")
	w.quota("a/b", "", "cpus:8;gpus:0")
	c := w.of("a/b")
	wrong := w.said(allocator.ReasonQuotaLimit, "cpus:7", "a/b")
	require.NoError(t, c.check(wrong, true), "a's limit binds on the path")
	require.ErrorContains(t, c.namedLimitBinds(wrong), "the limit of a/b cut nothing of what the offer would have held (cpus:7)")
	require.NoError(t, c.namedLimitBinds(w.said(allocator.ReasonQuotaLimit, "cpus:7", "a")))

	// a/b's limit cuts cpus to 3, which is still enough; a's leaves none.
	w.quota("a/b", "", "cpus:4")
	c = w.of("a/b")
	err := c.namedLimitBinds(w.said(allocator.ReasonQuotaLimit, "cpus:7", "a/b"))
	require.ErrorContains(t, err, "cut by the limit of a/b alone, the offer holds at least cpus:3")
	require.ErrorContains(t, err, "it does not bind")

	stale := w.said(allocator.ReasonQuotaLimit, "cpus:7", "a")
	stale.group.Consumed = resources.Quantities{}
	require.ErrorContains(t, c.namedLimitBinds(stale), "its view")
	other := w.said(allocator.ReasonQuotaLimit, "cpus:7", "a")
	other.group.QuotaRole = "b"
	require.ErrorContains(t, c.namedLimitBinds(other), "not the role or an ancestor with a limit")
}

// Rules 1, 2 and 4: the cuts together must leave too little, the cut
// named must have cut something of what the offer would have held, and
// that must hold what is free now.
func TestConservationQuotaCutsRules(t *testing.T) {
	// Room for cpus:2 under the limit, cpus:2 free: nothing was cut.
	w := newCutWorld(t, "cpus:4")
	w.quota("r", "", "cpus:4")
	w.use("r", "cpus:2")
	c := w.of("r")
	require.ErrorContains(t, c.check(w.said(allocator.ReasonQuotaLimit, "cpus:2", "r"), true), "the cuts together leave at least cpus:2")

	// The headroom held is for mem only, and mem is all used: it cut
	// nothing of the cpus the offer would have held.
	h := newCutWorld(t, "cpus:4;mem:1024")
	h.use("r", "mem:1024")
	h.quota("r", "", "cpus:0")
	h.quota("g", "mem:512", "")
	err := h.of("r").check(h.said(allocator.ReasonHeadroom, "cpus:4", ""), true)
	require.ErrorContains(t, err, "the headroom cut nothing of what the offer would have held (cpus:4)")

	// What the offer would have held lacks part of what is free now.
	l := newCutWorld(t, "cpus:4")
	l.quota("r", "", "cpus:0")
	require.ErrorContains(t, l.of("r").check(l.said(allocator.ReasonQuotaLimit, "cpus:1", "r"), true), "lacks part of what is free now")
	require.NoError(t, l.of("r").check(l.said(allocator.ReasonQuotaLimit, "cpus:4", "r"), true))
}

// A minimum-allocatable reason holds where what was left is below every
// alternative and holds what is free now, with quota set or not.
func TestConservationMinAllocatable(t *testing.T) {
	w := newCutWorld(t, "cpus:1;mem:1024")
	w.use("r", "cpus:1;mem:1000")
	w.quota("g", "", "cpus:8")
	c := w.of("r")
	require.NoError(t, c.check(w.said(allocator.ReasonMinAllocatable, "mem:24", ""), true))
	require.ErrorContains(t, c.check(w.said(allocator.ReasonMinAllocatable, "mem:32", ""), true), "meets the minimum allocatable")
	require.ErrorContains(t, c.check(w.said(allocator.ReasonMinAllocatable, "mem:16", ""), true), "lacks part of what is free now")

	// What is free now meets the minimum: no such reason, quota or not.
	m := newCutWorld(t, "cpus:1;mem:1024")
	m.quota("g", "", "cpus:8")
	require.ErrorContains(t, m.of("r").check(m.said(allocator.ReasonMinAllocatable, "cpus:1;mem:1024", ""), true), "do not bear out")
}
