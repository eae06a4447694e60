package allocatortest

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator"
)

// Step with Options.Fast (the package doc's "Fast checks"): the checks
// of the agents an event changed after each step, the whole state every
// Options.FullCheckEvery steps, and a replay with every check on once a
// violation is found.

// stepFast is Step with Options.Fast.
func (h *Harness) stepFast(ev Event) error {
	if h.failed != nil {
		return h.failed
	}
	h.steps++
	h.events = append(h.events, ev)
	if h.expire() {
		h.a.Fingerprint(&h.fp)
	}
	h.refreshFrameworkList()
	pre := Views{Agents: h.agentList, Frameworks: h.fwList}
	eff := &h.eff
	eff.reset()
	before := h.beforeRun(ev)
	h.current = eff
	h.apply(ev, pre, eff)
	h.current = nil
	if h.text {
		h.logStep(ev, eff)
	}
	h.a.Fingerprint(&h.next)
	errs := h.checkCall(eff)
	errs = append(errs, h.checkTwins(eff.run, &h.next)...)
	if h.steps%h.opts.OracleEvery == 0 {
		errs = append(errs, h.checkNextRun()...)
	}
	errs = h.findChangedAgents(eff, errs)
	errs = h.retakeChangedAgents(eff, errs)
	if eff.run != nil {
		errs = append(errs, h.afterRunFast(ev, *eff.run, before)...)
	}
	h.fp, h.next = h.next, h.fp
	// A whole-state check due less than half a period before the end of
	// Run is left to the one after the last event.
	if h.sinceFull++; len(errs) == 0 && h.sinceFull >= h.every && (h.left < 0 || h.left >= h.every/2) {
		errs = h.wholeState()
	}
	if len(errs) > 0 {
		return h.replay(&Violation{Step: h.steps, Event: ev, Call: eff.call, Err: errors.Join(errs...)})
	}
	return nil
}

// refreshFrameworkList lists the frameworks the events made again (ids
// only) when events added or removed some.
func (h *Harness) refreshFrameworkList() {
	if h.fwStale || h.fwList == nil {
		h.fwList = h.fwList[:0]
		for _, id := range slices.Sorted(maps.Keys(h.fwInfo)) {
			h.fwList = append(h.fwList, allocator.FrameworkView{ID: id})
		}
		h.fwStale = false
	}
}

// beforeRun returns, with Fast, the views a run by ev is checked against
// that must be taken before it: the agents as kept, and the roles and
// filters when the checks need them.
func (h *Harness) beforeRun(ev Event) Views {
	var before Views
	if ev.Kind == AllocateAll || ev.Kind == Allocate && h.limits {
		// What the roles consumed before the run, against their limits
		// and guarantees.
		before.Roles = h.a.Roles()
	}
	if ev.Kind == AllocateAll {
		before.Filters = h.a.Filters()
	}
	before.Agents = h.agentList
	return before
}

// findChangedAgents compares the agents' hashes before the step (h.fp)
// and after it (h.next): it sets h.changed to the agents added or changed,
// and drops those removed (a violation unless the step could remove
// them).
func (h *Harness) findChangedAgents(eff *effects, errs []error) []error {
	clear(h.changed)
	old := h.fp.Agents
	i := 0
	for _, n := range h.next.Agents {
		for i < len(old) && old[i].ID < n.ID {
			errs = h.agentGone(old[i].ID, eff, errs)
			i++
		}
		if i < len(old) && old[i].ID == n.ID {
			i++
			if old[i-1].Hash == n.Hash {
				continue
			}
		}
		h.changed[n.ID] = true
	}
	for ; i < len(old); i++ {
		errs = h.agentGone(old[i].ID, eff, errs)
	}
	return errs
}

// retakeChangedAgents takes the views of the agents whose fingerprint
// changed again, runs the checks of one agent on them and compares their
// volumes with before, and keeps the list of agents in id order.
func (h *Harness) retakeChangedAgents(eff *effects, errs []error) []error {
	if len(h.changed) == 0 && len(h.fp.Agents) == len(h.next.Agents) {
		return errs
	}
	list := make([]allocator.AgentView, 0, len(h.next.Agents))
	for _, n := range h.next.Agents {
		if h.changed[n.ID] {
			v, ok := h.a.Agent(n.ID)
			if !ok {
				errs = append(errs, fmt.Errorf("agent %s: fingerprinted, but Agent does not know it", n.ID))
				continue
			}
			errs = append(errs, checkAgent(v, func(fw string) bool { _, ok := h.fwInfo[fw]; return ok })...)
			if was, ok := h.mirror[n.ID]; ok && !eff.volumesFree[n.ID] {
				errs = append(errs, agentVolumes(was, v, eff.volumeOps[n.ID])...)
			}
			h.mirror[n.ID] = v
		}
		list = append(list, h.mirror[n.ID])
	}
	h.agentList = list
	return errs
}

// afterRunFast is afterRun with Fast: the views after the run are the
// agents as kept, and the frameworks, filters and roles only when the
// checks need them.
func (h *Harness) afterRunFast(ev Event, res allocator.Result, before Views) []error {
	// A run changes what frameworks are offered, and nothing else: not
	// the rest of the fingerprint (frameworks, tasks, refusal filters
	// in force, quota). The frameworks and filters after it are those
	// before it, and are needed only when it offered something; the
	// roles only when some have limits.
	after := Views{Agents: h.agentList}
	if len(res.Offers) > 0 || len(res.InverseOffers) > 0 {
		before.Frameworks = h.a.Frameworks()
		if before.Filters == nil {
			before.Filters = h.a.Filters()
		}
		after.Frameworks = before.Frameworks
	}
	if h.limits {
		after.Roles = h.a.Roles()
	}
	return h.afterRun(ev, res, &h.fp, before, after, h.changed)
}

// agentGone drops an agent that the fingerprint no longer has.
func (h *Harness) agentGone(id string, eff *effects, errs []error) []error {
	if !eff.volumesFree[id] {
		errs = append(errs, fmt.Errorf("agent %s disappeared", id))
	}
	delete(h.mirror, id)
	return errs
}

// wholeState runs the checks of the whole state (a Fast harness runs them
// every FullCheckEvery steps): Check (but checkAgent, which ran on every
// agent when it changed), roles' shares, the frameworks the events made,
// tasks.
func (h *Harness) wholeState() []error {
	h.sinceFull = 0
	var errs []error
	if err := h.a.CheckInvariants(); err != nil {
		errs = append(errs, fmt.Errorf("invariants: %w", err))
	}
	s := Views{Agents: h.agentList, Roles: h.a.Roles(), Frameworks: h.a.Frameworks(), Filters: h.a.Filters()}
	errs = append(errs, checkViews(s, false)...)
	errs = append(errs, h.checkShares(s)...)
	errs = append(errs, h.checkTasks(s)...)
	if fws := frameworkIDs(s); !slices.Equal(fws, slices.Sorted(maps.Keys(h.fwInfo))) {
		errs = append(errs, fmt.Errorf("frameworks %q, the events added %q", fws, slices.Sorted(maps.Keys(h.fwInfo))))
	}
	return errs
}

// replay runs the events of a Fast harness again on a new harness that
// checks everything after every step, and returns the first violation it
// finds: the step that broke a property, and the calls rendered. found is
// what the fast checks saw, returned if the replay finds nothing.
func (h *Harness) replay(found *Violation) error {
	opts := h.opts
	opts.Fast = false
	r, err := New(opts)
	if err == nil {
		if err = r.Run(h.events); err == nil {
			err = r.Verify()
		}
	}
	var v *Violation
	switch {
	case err == nil:
		found.Err = fmt.Errorf("%w\n(found by the fast checks; a replay with every check after every step found no violation)", found.Err)
		err = found
	case errors.As(err, &v):
		v.Noticed = found.Step
	}
	h.failed = err
	return err
}
