package allocatortest

import (
	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// checkPreemptions checks the tasks a run chose to end (Options.Reclaim)
// against the roles as the run left them (the chosen tasks still run):
// each names a task of the ledger, on the agent and in the role it says,
// chosen once; a guarantee's are for a role whose consumption is below
// it; no role is taken below its own guarantee by what the run chose from
// it; a fair share's leave the taker at or below the victim.
func (h *Harness) checkPreemptions(res allocator.Result) []error {
	var errs errorList
	if len(res.Preemptions) == 0 {
		return nil
	}
	after := Views{Roles: h.a.Roles()}
	if h.opts.Allocator.Reclaim == allocator.ReclaimOff {
		errs.fail("reclaim is off, and the run chose %d tasks to end", len(res.Preemptions))
	}
	seen := map[[2]string]bool{}
	taken := map[string]resources.Quantities{}
	for _, p := range res.Preemptions {
		key := [2]string{p.FrameworkID, p.TaskID}
		if seen[key] {
			errs.fail("%s: chosen twice in one run", p)
		}
		seen[key] = true
		t, ok := h.task(p.FrameworkID, p.TaskID)
		switch {
		case !ok:
			errs.fail("%s: no such task in the ledger", p)
			continue
		case t.Agent != p.AgentID || t.Role != p.Role:
			errs.fail("%s: the task runs on %s in role %s", p, t.Agent, t.Role)
		case p.Role == p.For:
			errs.fail("%s: a role's own task", p)
		}
		switch p.Reason {
		case allocator.PreemptForGuarantee:
			if r, ok := after.Role(p.For); !ok || r.Quota.Guarantees.IsEmpty() || r.Consumed.Contains(r.Quota.Guarantees) {
				errs.fail("%s: for a role at or above its guarantee (%v)", p, r.Consumed)
			}
		case allocator.PreemptForFairShare:
			if p.ForShare[1] > p.RoleShare[1]+1e-9 {
				errs.fail("%s: the taker ends above the victim", p)
			}
		default:
			errs.fail("%s: reason %d", p, p.Reason)
		}
		q := taken[p.Role]
		q.Add(p.Frees)
		taken[p.Role] = q
	}
	for role, q := range taken {
		r, ok := after.Role(role)
		if !ok || r.Quota.Guarantees.IsEmpty() {
			continue
		}
		left := r.Consumed.Minus(q)
		for name, g := range r.Quota.Guarantees.All() {
			if q.Scalar(name) > 0 && left.Scalar(name) < g {
				errs.fail("role %s taken below its guarantee %s: %s left", role, r.Quota.Guarantees, left)
			}
		}
	}
	return errs
}

// task returns a task of the ledger.
func (h *Harness) task(fwID, taskID string) (allocator.TaskView, bool) {
	for _, t := range h.a.Tasks(fwID) {
		if t.ID == taskID {
			return t, true
		}
	}
	return allocator.TaskView{}, false
}
