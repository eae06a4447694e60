package allocator_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/resources"
)

// latest keeps the figures an Observer was last given, as a host's gauges
// would.
type latest struct {
	cluster allocator.ClusterMetrics
	roles   map[string]allocator.RoleMetrics
	fws     map[string]allocator.FrameworkMetrics
	run     *allocator.RunReport // of the step, when it ran an allocation
	err     error
}

func newLatest() *latest {
	return &latest{roles: map[string]allocator.RoleMetrics{}, fws: map[string]allocator.FrameworkMetrics{}}
}

func (l *latest) Observe(r allocator.Report) {
	l.cluster = r.Cluster
	if r.Run != nil {
		l.run = r.Run
	}
	for _, m := range r.Roles {
		l.roles[m.Role] = m
	}
	for _, m := range r.Frameworks {
		l.fws[m.Framework] = m
	}
	for _, role := range r.RemovedRoles {
		if _, ok := l.roles[role]; !ok {
			l.err = fmt.Errorf("role %q reported removed, never reported", role)
		}
		delete(l.roles, role)
	}
	for _, id := range r.RemovedFrameworks {
		delete(l.fws, id)
	}
}

// heldIn returns the non-shared scalar quantities of res allocated to role.
func heldIn(res resources.Resources, role string) resources.Quantities {
	return res.AllocatedTo(role).NonShared().Quantities()
}

// check compares what the observer holds with the allocator's views.
func (l *latest) check(a *allocator.Allocator) error {
	if l.err != nil {
		return l.err
	}
	var total, offered, allocated resources.Quantities
	for _, ag := range a.Agents() {
		total.Add(ag.Total.Quantities())
	}
	// What is held for a framework (RecoverHeld, PreemptTask) is reported
	// as allocated: it is charged as it was in use.
	heldFor := map[string]resources.Resources{}
	for _, ag := range a.Agents() {
		for id, res := range ag.Held {
			heldFor[id] = heldFor[id].Plus(res)
		}
	}
	roleHeld := map[string][2]resources.Quantities{}
	fws := a.Frameworks()
	for i := range fws {
		fv := &fws[i]
		fv.Allocated = fv.Allocated.Plus(heldFor[fv.ID])
		offered.Add(fv.Offered.NonShared().Quantities())
		allocated.Add(fv.Allocated.NonShared().Quantities())
		m, ok := l.fws[fv.ID]
		if !ok {
			return fmt.Errorf("framework %s never reported", fv.ID)
		}
		if m.Active != fv.Active {
			return fmt.Errorf("framework %s: reported active %v, is %v", fv.ID, m.Active, fv.Active)
		}
		roles := map[string]bool{}
		for _, rm := range m.Roles {
			roles[rm.Role] = true
			o, al := heldIn(fv.Offered, rm.Role), heldIn(fv.Allocated, rm.Role)
			if !rm.Offered.Equal(o) || !rm.Allocated.Equal(al) {
				return fmt.Errorf("framework %s role %s: reported offered %s allocated %s, holds %s and %s", fv.ID, rm.Role, rm.Offered, rm.Allocated, o, al)
			}
			if rm.Suppressed != slices.Contains(fv.Suppressed, rm.Role) {
				return fmt.Errorf("framework %s role %s: reported suppressed %v", fv.ID, rm.Role, rm.Suppressed)
			}
			h := roleHeld[rm.Role]
			h[0].Add(o)
			h[1].Add(al)
			roleHeld[rm.Role] = h
		}
		for _, role := range append(fv.Offered.AllocationRoles(), fv.Allocated.AllocationRoles()...) {
			if !roles[role] {
				return fmt.Errorf("framework %s holds resources in %s, not reported", fv.ID, role)
			}
		}
	}
	if len(l.fws) != len(fws) {
		return fmt.Errorf("%d frameworks reported, %d known", len(l.fws), len(fws))
	}
	if !l.cluster.Total.Equal(total) || !l.cluster.Offered.Equal(offered) || !l.cluster.Allocated.Equal(allocated) {
		return fmt.Errorf("cluster reported %+v, is total %s offered %s allocated %s", l.cluster, total, offered, allocated)
	}
	suppressing := map[string]int{}
	for _, fv := range fws {
		for _, role := range fv.Suppressed {
			suppressing[role]++
		}
	}
	roles := a.Roles()
	for _, rv := range roles {
		m, ok := l.roles[rv.Role]
		if !ok {
			return fmt.Errorf("role %s never reported", rv.Role)
		}
		h := roleHeld[rv.Role]
		switch {
		case m.Suppressed != suppressing[rv.Role]:
			return fmt.Errorf("role %s: %d frameworks reported suppressing it, %d do", rv.Role, m.Suppressed, suppressing[rv.Role])
		case m.Weight != rv.Weight:
			return fmt.Errorf("role %s: reported weight %v, is %v", rv.Role, m.Weight, rv.Weight)
		case !m.Guarantee.Equal(rv.Quota.Guarantees) || !m.Limit.Equal(rv.Quota.Limits):
			return fmt.Errorf("role %s: reported quota %s %s, is %s %s", rv.Role, m.Guarantee, m.Limit, rv.Quota.Guarantees, rv.Quota.Limits)
		case !m.Consumed.Equal(rv.Consumed) || !m.OfferedOrAllocated.Equal(rv.OfferedOrAllocated):
			return fmt.Errorf("role %s: reported consumed %s (%s), is %s (%s)", rv.Role, m.Consumed, m.OfferedOrAllocated, rv.Consumed, rv.OfferedOrAllocated)
		case m.Frameworks != len(rv.Frameworks):
			return fmt.Errorf("role %s: reported %d frameworks, has %d", rv.Role, m.Frameworks, len(rv.Frameworks))
		case !m.Offered.Equal(h[0]) || !m.Allocated.Equal(h[1]):
			return fmt.Errorf("role %s: reported offered %s allocated %s, its frameworks hold %s and %s", rv.Role, m.Offered, m.Allocated, h[0], h[1])
		case l.run != nil && m.Share != rv.Share:
			return fmt.Errorf("role %s: reported share %v after the run, is %v", rv.Role, m.Share, rv.Share)
		}
	}
	if len(l.roles) != len(roles) {
		return fmt.Errorf("%d roles reported, %d in the role tree", len(l.roles), len(roles))
	}
	// Filters in force: exactly so after a run (which reports those that
	// expired); between runs the clock may have let some expire since.
	filters, byRole := map[[2]string]int{}, map[string]int{}
	for _, f := range a.Filters() {
		filters[[2]string{f.Framework, f.Role}]++
		byRole[f.Role]++
	}
	for id, m := range l.fws {
		for _, rm := range m.Roles {
			if n := filters[[2]string{id, rm.Role}]; rm.Filters < n || (l.run != nil && rm.Filters != n) {
				return fmt.Errorf("framework %s role %s: %d filters reported, %d in force", id, rm.Role, rm.Filters, n)
			}
		}
	}
	for role, m := range l.roles {
		if n := byRole[role]; m.Filters < n || (l.run != nil && m.Filters != n) {
			return fmt.Errorf("role %s: %d filters reported, %d in force", role, m.Filters, n)
		}
	}
	return nil
}

// checkExplain checks Explain after a run against what the run did: every
// agent counted once, the offers made, and reasons that the views confirm.
func checkExplain(a *allocator.Allocator, run *allocator.RunReport, filters []allocator.FilterView) error {
	offers := 0
	inForce := map[[3]string]bool{}
	for _, f := range filters {
		inForce[[3]string{f.Framework, f.Role, f.Agent}] = true
	}
	agents := map[string]allocator.AgentView{}
	for _, v := range a.Agents() {
		agents[v.ID] = v
	}
	for _, fv := range a.Frameworks() {
		x, err := a.Explain(fv.ID)
		if err != nil {
			return fmt.Errorf("explain %s: %w", fv.ID, err)
		}
		if x.Run != run.Stats.Run {
			return fmt.Errorf("explain %s: run %d, latest %d", fv.ID, x.Run, run.Stats.Run)
		}
		if len(x.Roles) != len(fv.Roles) {
			return fmt.Errorf("explain %s: %d roles, subscribes to %d", fv.ID, len(x.Roles), len(fv.Roles))
		}
		for _, r := range x.Roles {
			offers += r.Offered
			n := r.Offered
			for _, g := range r.Reasons {
				n += g.Count
				if g.Reason <= r.Reason && g.Reason != r.Reason {
					return fmt.Errorf("explain %s role %s: headline %s after %s", fv.ID, r.Role, r.Reason, g.Reason)
				}
				for _, ar := range g.Agents {
					ag := agents[ar.Agent]
					switch g.Reason {
					case allocator.ReasonFiltered:
						if !inForce[[3]string{fv.ID, r.Role, ar.Agent}] {
							return fmt.Errorf("explain %s role %s: %s filtered, no filter in force", fv.ID, r.Role, ar.Agent)
						}
					case allocator.ReasonSuppressed:
						if !slices.Contains(fv.Suppressed, r.Role) {
							return fmt.Errorf("explain %s role %s: suppressed, is not", fv.ID, r.Role)
						}
					case allocator.ReasonInactive:
						if fv.Active {
							return fmt.Errorf("explain %s role %s: inactive, is active", fv.ID, r.Role)
						}
					case allocator.ReasonAgentInactive:
						if ag.Active && !ag.OverAllocated {
							// Left out of the run by the whitelist, then.
							if run.Stats.SkippedAgents == 0 {
								return fmt.Errorf("explain %s role %s: agent %s inactive, none skipped", fv.ID, r.Role, ar.Agent)
							}
						}
					case allocator.ReasonIncapable:
						if ar.Missing == 0 {
							return fmt.Errorf("explain %s role %s: %s incapable, nothing missing", fv.ID, r.Role, ar.Agent)
						}
					case allocator.ReasonFairness:
						if ar.Winner == "" {
							return fmt.Errorf("explain %s role %s: %s lost to fairness, to nobody", fv.ID, r.Role, ar.Agent)
						}
					}
				}
			}
			if n != r.Agents || r.Agents != run.Stats.Agents+run.Stats.SkippedAgents {
				return fmt.Errorf("explain %s role %s: %d agents accounted of %d (run: %d)", fv.ID, r.Role, n, r.Agents, run.Stats.Agents+run.Stats.SkippedAgents)
			}
		}
	}
	if offers != run.Stats.Offers {
		return fmt.Errorf("explanations count %d offers, the run made %d", offers, run.Stats.Offers)
	}
	return nil
}

// TestPropertyObserverAndExplain runs random sequences with an Observer:
// after every step what it was told must match the views, and after every
// run Explain must account for every agent and every offer, with reasons
// the views confirm.
func TestPropertyObserverAndExplain(t *testing.T) {
	for _, c := range propertyConfigs {
		t.Run(c.Name, func(t *testing.T) {
			props := gopter.NewProperties(parameters(t))
			props.Property("observer and explain", prop.ForAll(func(s allocatortest.Sequence) string {
				l := newLatest()
				opts := c.Options
				opts.Fast = true
				opts.Allocator.Seed = s.Seed
				opts.Allocator.Observer = l
				h, err := allocatortest.New(opts)
				if err != nil {
					return err.Error()
				}
				a := h.Allocator()
				for i, ev := range s.Events {
					l.run = nil
					// The filters that may apply to the step's run (a
					// periodic run at their expiry ends some).
					filters := a.Filters()
					if err := h.Step(ev); err != nil {
						return fmt.Sprintf("step %d: %v\nsequence:\n%s", i, err, s)
					}
					if err := l.check(a); err != nil {
						return fmt.Sprintf("step %d (%s): observer: %v\nsequence:\n%s", i, ev, err, s)
					}
					if l.run != nil && l.run.Stats.Run > 0 {
						if err := checkExplain(a, l.run, filters); err != nil {
							return fmt.Sprintf("step %d (%s): %v\nsequence:\n%s", i, ev, err, s)
						}
					}
				}
				return ""
			}, allocatortest.GenSequence(c.Mix, *eventsFlag)))
			props.TestingRun(t)
		})
	}
}

// TestExplainErrors checks the errors of Explain and ExplainRole.
func TestExplainErrors(t *testing.T) {
	a, _ := allocator.New(allocator.Options{})
	_ = a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active)
	if _, err := a.Explain("f"); !errors.Is(err, allocator.ErrNoRun) {
		t.Fatalf("before a run: %v", err)
	}
	a.Allocate()
	for _, c := range []struct {
		err  error
		call func() error
	}{
		{allocator.ErrUnknownFramework, func() error { _, err := a.Explain("g"); return err }},
		{allocator.ErrUnknownRole, func() error { _, err := a.ExplainRole("s"); return err }},
		{allocator.ErrInvalidRole, func() error { _, err := a.ExplainRole("a//b"); return err }},
		{nil, func() error { _, err := a.ExplainRole("r"); return err }},
	} {
		if err := c.call(); !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("got %v, want %v", err, c.err)
		}
	}
}
