package allocator

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// AgentView is a read-only snapshot of one agent.
type AgentView struct {
	ID            string
	Hostname      string
	Active        bool
	OverAllocated bool
	Total         resources.Resources
	// Available is neither offered nor allocated (shared volumes always
	// stay available).
	Available resources.Resources
	// Offered and Allocated are per framework, tagged with allocation roles.
	Offered, Allocated map[string]resources.Resources
	// Held is what the agent holds for frameworks (RecoverHeld), per
	// framework, tagged with allocation roles; HeldUntil says until when
	// (the latest of a framework's holds).
	Held      map[string]resources.Resources
	HeldUntil map[string]time.Time
	// Unclaimed is what the agent reported in use by frameworks not added
	// yet, per framework, tagged with allocation roles: in use, neither
	// available nor offered, until AddFramework claims it.
	Unclaimed      map[string]resources.Resources
	Unavailability *offer.Unavailability
}

// Agents returns every agent, sorted by id.
func (a *Allocator) Agents() []AgentView {
	a.ready()
	out := make([]AgentView, 0, len(a.cs.AgentList))
	for _, ag := range a.cs.AgentList {
		v, _ := a.Agent(ag.ID)
		out = append(out, v)
	}
	return out
}

// Agent returns one agent's view.
func (a *Allocator) Agent(id string) (AgentView, bool) {
	a.ready()
	ag, ok := a.cs.Agents.Lookup(id)
	if !ok {
		return AgentView{}, false
	}
	v := AgentView{
		ID: id, Hostname: ag.Info.Hostname, Active: ag.Active, OverAllocated: ag.OverAllocated,
		Total: ag.Total.Clone(), Available: ag.Available.Clone(),
		Offered: ag.Offered.Clone(), Allocated: ag.Allocated.Clone(),
	}
	for _, h := range ag.Holds() {
		if v.Held == nil {
			v.Held, v.HeldUntil = map[string]resources.Resources{}, map[string]time.Time{}
		}
		held := v.Held[h.Framework]
		held.Add(h.Res)
		v.Held[h.Framework] = held
		if h.Until.After(v.HeldUntil[h.Framework]) {
			v.HeldUntil[h.Framework] = h.Until
		}
	}
	for k, r := range ag.Unclaimed() {
		if v.Unclaimed == nil {
			v.Unclaimed = map[string]resources.Resources{}
		}
		v.Unclaimed[k] = r.Clone()
	}
	if u := ag.Info.Unavailability; u != nil {
		c := *u
		v.Unavailability = &c
	}
	return v, true
}

// RoleView is a read-only snapshot of one role of the role tree.
type RoleView struct {
	Role   string
	Weight float64
	Quota  Quota
	// Reserved: scalar reservations in the role's subtree, offered or not.
	Reserved resources.Quantities
	// OfferedOrAllocated: unreserved non-revocable scalars offered or
	// allocated in the subtree (Mesos's quota "offered_or_allocated"). An
	// AgentView's or FrameworkView's Allocated is what is in use, apart
	// from Offered.
	OfferedOrAllocated resources.Quantities
	// Consumed counts against quota: Reserved + Allocated.
	Consumed resources.Quantities
	// Share is the role's share as the role sorter reports it
	// (sorter.Sharer): with the default DRF sorter, the weighted dominant
	// share of the role's subtree. It is -1 when the role sorter is not a
	// sorter.Sharer.
	Share      float64
	Frameworks []string
}

// Roles returns every role of the role tree, sorted by path.
func (a *Allocator) Roles() []RoleView {
	a.ready()
	out := make([]RoleView, 0, a.roles.Nodes.Len())
	for _, path := range a.roles.Nodes.Keys() {
		out = append(out, a.roleView(a.roles.Nodes.Get(path)))
	}
	return out
}

// Role returns the view of one role of the role tree, and false when the
// tree has no such role (no framework, quota, weight or reservation names
// it or a sub-role).
func (a *Allocator) Role(path string) (RoleView, bool) {
	a.ready()
	n := a.roles.Get(path)
	if n == nil {
		return RoleView{}, false
	}
	return a.roleView(n), true
}

func (a *Allocator) roleView(n *roles.Node) RoleView {
	w := 1.0
	if x, ok := a.roles.Weights[n.Path]; ok {
		w = x
	}
	share := -1.0
	if sr, ok := a.roleSorter.Sorter.(sorter.Sharer); ok {
		a.books.RefreshSorterTotals()
		share = sr.ShareOf(n.Path)
	}
	return RoleView{
		Role: n.Path, Weight: w,
		Quota:    Quota{Guarantees: n.Q().Guarantees.Clone(), Limits: n.Q().Limits.Clone()},
		Reserved: n.Reserved.Clone(), OfferedOrAllocated: n.AllocatedUnreserved.Clone(), Consumed: n.Consumed(),
		Share: share, Frameworks: n.Frameworks.Sorted(),
	}
}

// FrameworkView is a read-only snapshot of one framework.
type FrameworkView struct {
	ID           string
	Active       bool
	Roles        []string
	Suppressed   []string
	Capabilities offer.Capabilities
	// Offered and Allocated are summed over agents.
	Offered, Allocated resources.Resources
}

// Frameworks returns every framework, sorted by id.
func (a *Allocator) Frameworks() []FrameworkView {
	a.ready()
	ids := a.cs.Frameworks.Keys()
	out := make([]FrameworkView, len(ids))
	at := make(map[string]*FrameworkView, len(ids))
	for i, id := range ids {
		fw := a.cs.Frameworks.Get(id)
		out[i] = FrameworkView{ID: id, Active: fw.Active, Roles: fw.Roles.List(tables.Subscribed), Suppressed: fw.Roles.List(tables.Suppressed), Capabilities: fw.Info.Capabilities}
		at[id] = &out[i]
	}
	// One pass over the agents, in id order, sums what each framework is
	// offered and uses.
	for _, ag := range a.cs.AgentList {
		for id, res := range ag.Offered.All() {
			if v := at[id]; v != nil {
				v.Offered.Add(res)
			}
		}
		for id, res := range ag.Allocated.All() {
			if v := at[id]; v != nil {
				v.Allocated.Add(res)
			}
		}
	}
	return out
}

// FilterView is one refusal filter that may still apply.
type FilterView struct {
	Framework, Role, Agent string
	Refused                resources.Resources
	Expires                time.Time
	// FirstBatchOnly: the clock reads the filter's expiry, and it applies
	// only to the next periodic run (AllocateAll), the first since it was
	// made; other runs at this instant do not see it.
	FirstBatchOnly bool
}

// Filters returns the refusal filters that may still apply: those before
// their expiry by the clock, and those at their expiry instant that no
// periodic run has seen yet (see the tie rules in the package doc), sorted
// by framework, role and agent, then in the order they were made.
func (a *Allocator) Filters() []FilterView {
	a.ready()
	now := a.opts.Clock()
	var out []FilterView
	for _, fwID := range a.cs.Frameworks.Keys() {
		fw := a.cs.Frameworks.Get(fwID)
		filters := a.dec.RefusalsOf(fw)
		for _, role := range slices.Sorted(maps.Keys(filters)) {
			for _, agentID := range slices.Sorted(maps.Keys(filters[role])) {
				for _, f := range filters[role][agentID] {
					if a.dec.FilterAlive(f.Expires, f.Batch, now) {
						out = append(out, FilterView{fwID, role, agentID, f.Refused.Clone(), f.Expires, !now.Before(f.Expires)})
					}
				}
			}
		}
	}
	return out
}

// LastRun returns the statistics of the latest allocation run.
func (a *Allocator) LastRun() RunStats { return a.last }

// Skips returns why a framework was passed over in the latest allocation
// run, per reason. Agents skipped for the whole run (ReasonAgentInactive) are
// counted once per agent for every framework; a framework of a role capped
// for the run is counted once, for the quota limit or the headroom. An
// (agent, role) pair skipped because nothing changed since all the role's
// frameworks were passed over there is counted only in RunStats.Unchanged,
// not per framework: the reasons were counted when it was first seen.
// Explain gives every agent's reason, those pairs' included.
func (a *Allocator) Skips(fwID string) map[Reason]int {
	a.ready()
	out := map[Reason]int{}
	fw, ok := a.cs.Frameworks.Lookup(fwID)
	if !ok {
		return out
	}
	if fw.SkipsRun == a.engine.Runs && a.engine.Runs > 0 {
		for r, n := range fw.Skips {
			if n > 0 {
				out[Reason(r)] = int(n)
			}
		}
	}
	if n := a.last.Skips[ReasonAgentInactive]; n > 0 {
		out[ReasonAgentInactive] = n
	}
	return out
}

// String renders the agent as stable text, one line per fact: the agent,
// then what it has and who holds what, indented.
func (v AgentView) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent %s host=%q active=%v over-allocated=%v\n", v.ID, v.Hostname, v.Active, v.OverAllocated)
	fmt.Fprintf(&b, "  total: %s\n", v.Total)
	fmt.Fprintf(&b, "  available: %s\n", v.Available)
	for _, fw := range slices.Sorted(maps.Keys(v.Offered)) {
		fmt.Fprintf(&b, "  offered to %s: %s\n", fw, v.Offered[fw])
	}
	for _, fw := range slices.Sorted(maps.Keys(v.Allocated)) {
		fmt.Fprintf(&b, "  allocated to %s: %s\n", fw, v.Allocated[fw])
	}
	for _, fw := range slices.Sorted(maps.Keys(v.Held)) {
		fmt.Fprintf(&b, "  held for %s until %s: %s\n", fw, v.HeldUntil[fw].UTC().Format(time.RFC3339Nano), v.Held[fw])
	}
	for _, fw := range slices.Sorted(maps.Keys(v.Unclaimed)) {
		fmt.Fprintf(&b, "  in use by %s, not added yet: %s\n", fw, v.Unclaimed[fw])
	}
	if u := v.Unavailability; u != nil {
		fmt.Fprintf(&b, "  unavailable: from %s for %s\n", u.Start.UTC().Format(time.RFC3339), u.Duration)
	}
	return b.String()
}

// Describe renders the whole state as stable text: the same state always
// gives the same text, so tests can compare it before and after an event.
func (a *Allocator) Describe() string {
	a.ready()
	var b strings.Builder
	fmt.Fprintf(&b, "paused: %v\n", a.paused)
	if a.engine.Whitelist != nil {
		fmt.Fprintf(&b, "whitelist: %v\n", slices.Sorted(maps.Keys(a.engine.Whitelist)))
	}
	b.WriteString("agents:\n")
	for _, v := range a.Agents() {
		for line := range strings.Lines(v.String()) {
			b.WriteString("  " + line)
		}
	}
	b.WriteString("roles:\n")
	for _, r := range a.Roles() {
		fmt.Fprintf(&b, "  %s weight=%g", r.Role, r.Weight)
		if r.Share >= 0 {
			fmt.Fprintf(&b, " share=%.6f", r.Share)
		}
		fmt.Fprintf(&b, " frameworks=%v\n", r.Frameworks)
		if !r.Quota.IsZero() {
			fmt.Fprintf(&b, "    quota: guarantees %s; limits %s\n", r.Quota.Guarantees, r.Quota.Limits)
		}
		fmt.Fprintf(&b, "    reserved: %s; allocated: %s\n", r.Reserved, r.OfferedOrAllocated)
	}
	b.WriteString("frameworks:\n")
	for _, f := range a.Frameworks() {
		fmt.Fprintf(&b, "  %s active=%v roles=%v suppressed=%v capabilities=%s\n", f.ID, f.Active, f.Roles, f.Suppressed, f.Capabilities)
		for _, t := range a.Tasks(f.ID) {
			fmt.Fprintf(&b, "    task %s on %s: %s\n", t.ID, t.Agent, t.Resources)
		}
	}
	if filters := a.Filters(); len(filters) > 0 {
		b.WriteString("filters:\n")
		for _, f := range filters {
			fmt.Fprintf(&b, "  %s/%s on %s until %s: %s\n", f.Framework, f.Role, f.Agent, f.Expires.UTC().Format(time.RFC3339Nano), f.Refused)
		}
	}
	return b.String()
}
