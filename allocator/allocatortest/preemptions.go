package allocatortest

import (
	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// checkPreemptions checks the tasks a run chose to end (Options.Reclaim)
// and the earlier choices it withdrew, against the roles and agents as the
// run left them (the chosen tasks still run):
//
//   - each chosen task is a task of the ledger, on the agent and in the
//     role it says, chosen once, of a role outside the subtree of the role
//     it is chosen for; it is chosen for a pending task (ForTask) of a
//     framework in a role within that subtree (HeldIn);
//   - a guarantee's are for a role whose consumption is below it; a fair
//     share's leave the taker at or below the victim;
//   - the victims chosen together for one pending task (consecutive
//     choices for the same task of the same framework, with the same
//     shares of the taker) are on one agent, and what they free with what
//     is free there holds the task;
//   - no role with a guarantee is taken below it, in a resource the run's
//     choices free of its subtree, by the tasks chosen and not ended (this
//     run's and earlier ones), but for those chosen for a role within its
//     subtree (what their rooms take gives back what they free);
//   - a withdrawn task is a live task an earlier run chose, and is no
//     longer chosen unless the run chose it again.
func (h *Harness) checkPreemptions(res allocator.Result) []error {
	defer h.notePreemptions(res)
	var errs errorList
	if len(res.Preemptions) == 0 && len(res.Withdrawn) == 0 {
		return nil
	}
	if h.opts.Allocator.Reclaim == allocator.ReclaimOff {
		errs.fail("reclaim is off, and the run chose %d tasks to end and withdrew %d", len(res.Preemptions), len(res.Withdrawn))
	}
	after := Views{Roles: h.a.Roles(), Agents: h.a.Agents()}
	pending := h.a.Preempting()
	isPending := map[[2]string]bool{}
	for _, p := range pending {
		isPending[[2]string{p.FrameworkID, p.TaskID}] = true
	}
	seen := map[[2]string]bool{}
	for _, p := range res.Preemptions {
		key := [2]string{p.FrameworkID, p.TaskID}
		if seen[key] {
			errs.fail("%s: chosen twice in one run", p)
		}
		seen[key] = true
		if !isPending[key] {
			errs.fail("%s: chosen, and not among the tasks chosen to end (Preempting)", p)
		}
		h.checkChoice(p, &errs)
		switch p.Reason {
		case allocator.PreemptForGuarantee:
			// What the run held for rooms (the free part of their tasks)
			// counts in the role's consumption after the run, not when it
			// was chosen; the views do not tell those holds from older
			// ones, so the check leaves out every hold: what remains is
			// at most what reclaim saw.
			r, ok := after.Role(p.For)
			consumed := r.Consumed.Minus(heldFor(after, p.For))
			if !ok || r.Quota.Guarantees.IsEmpty() || consumed.Contains(r.Quota.Guarantees) {
				errs.fail("%s: for a role at or above its guarantee (%v)", p, consumed)
			}
		case allocator.PreemptForFairShare:
			if p.ForShare[1] > p.RoleShare[1]+1e-9 {
				errs.fail("%s: the taker ends above the victim", p)
			}
			if p.HeldIn != p.For {
				errs.fail("%s: for fair share, held in %s", p, p.HeldIn)
			}
		default:
			errs.fail("%s: reason %d", p, p.Reason)
		}
	}
	h.checkRooms(res.Preemptions, &errs)
	checkGuaranteesKept(after, res.Preemptions, pending, &errs)
	for _, p := range res.Withdrawn {
		key := [2]string{p.FrameworkID, p.TaskID}
		if !h.chosen[key] {
			errs.fail("withdrawn %s: no earlier run chose it", p)
		}
		if isPending[key] && !seen[key] {
			errs.fail("withdrawn %s: still among the tasks chosen to end", p)
		}
		h.checkChoice(p, &errs)
	}
	return errs
}

// checkChoice checks what a choice or a withdrawal says of its task and
// of the pending task it was chosen for.
func (h *Harness) checkChoice(p allocator.Preemption, errs *errorList) {
	t, ok := h.task(p.FrameworkID, p.TaskID)
	switch {
	case !ok:
		errs.fail("%s: no such task in the ledger", p)
	case t.Agent != p.AgentID || t.Role != p.Role:
		errs.fail("%s: the task runs on %s in role %s", p, t.Agent, t.Role)
	}
	if reservation.IsSubroleOrSelf(p.Role, p.For) {
		errs.fail("%s: a task of the role's own subtree", p)
	}
	if !reservation.IsSubroleOrSelf(p.HeldIn, p.For) {
		errs.fail("%s: held in %s, outside %s", p, p.HeldIn, p.For)
	}
	if p.ForTask.IsEmpty() || p.ForFramework == "" {
		errs.fail("%s: chosen for no pending task (%s of %q)", p, p.ForTask, p.ForFramework)
	}
}

// checkRooms checks that the victims of each pending task's room, in
// the run's choices, are on one agent and free, with what is free or held
// there, what the task needs. The rooms for one task of a framework are
// consecutive choices; two of them are told apart by the taker's shares,
// which each room moves. Where the task leaves the taker's share where it
// was, the rooms cannot be told apart: the choices for it on each agent
// must then hold the task at least.
func (h *Harness) checkRooms(ps []allocator.Preemption, errs *errorList) {
	free := map[string]resources.Quantities{}
	headroom := func(agent string) resources.Quantities {
		if q, ok := free[agent]; ok {
			return q
		}
		v, _ := h.a.Agent(agent)
		plain := func(r resources.Resource) bool {
			return r.Type == resources.ScalarType && !r.IsReserved() && !r.Revocable && !r.Shared
		}
		q := v.Available.Filter(plain).Quantities()
		// The part of a task free on the agent when its room was chosen
		// is held for it at once: it counts as free for the room.
		for _, held := range v.Held {
			q.Add(held.Unallocate().Filter(plain).Quantities())
		}
		free[agent] = q
		return q
	}
	holds := func(room []allocator.Preemption) {
		var frees resources.Quantities
		for _, p := range room {
			frees.Add(p.Frees)
		}
		if have := frees.Plus(headroom(room[0].AgentID)); !have.Contains(room[0].ForTask) {
			errs.fail("%d tasks chosen on %s for a task of %s of %s: they free %s and %s is free there",
				len(room), room[0].AgentID, room[0].ForTask, room[0].ForFramework, frees, headroom(room[0].AgentID))
		}
	}
	for _, same := range runsOf(ps, sameTask) {
		if same[0].ForShare[0] == same[0].ForShare[1] {
			byAgent := map[string][]allocator.Preemption{}
			for _, p := range same {
				byAgent[p.AgentID] = append(byAgent[p.AgentID], p)
			}
			for _, room := range byAgent {
				holds(room)
			}
			continue
		}
		for _, room := range runsOf(same, func(p, q allocator.Preemption) bool { return p.ForShare == q.ForShare }) {
			for _, p := range room[1:] {
				if p.AgentID != room[0].AgentID {
					errs.fail("%s and %s: one room on two agents", room[0], p)
				}
			}
			holds(room)
		}
	}
}

// sameTask reports whether two choices are for the same pending task of
// the same framework, in the same roles.
func sameTask(p, q allocator.Preemption) bool {
	return p.For == q.For && p.ForFramework == q.ForFramework && p.HeldIn == q.HeldIn && p.ForTask.Equal(q.ForTask)
}

// runsOf splits ps into runs of consecutive elements that same pairs.
func runsOf(ps []allocator.Preemption, same func(p, q allocator.Preemption) bool) [][]allocator.Preemption {
	var out [][]allocator.Preemption
	start := 0
	for i := 1; i <= len(ps); i++ {
		if i == len(ps) || !same(ps[i-1], ps[i]) {
			out = append(out, ps[start:i])
			start = i
		}
	}
	return out
}

// checkGuaranteesKept checks, for every role with a guarantee (after the
// run), each resource the run's choices free of its subtree: its
// consumption less what every task chosen and not ended (pending) frees of
// its subtree stays at or above the guarantee. Choices whose room is held
// within the role's subtree are left out: they give back what they take.
func checkGuaranteesKept(after Views, chosen, pending []allocator.Preemption, errs *errorList) {
	counts := func(r allocator.RoleView, p allocator.Preemption) bool {
		return reservation.IsSubroleOrSelf(p.Role, r.Role) && !reservation.IsSubroleOrSelf(p.HeldIn, r.Role)
	}
	for _, r := range after.Roles {
		if r.Quota.Guarantees.IsEmpty() {
			continue
		}
		var now, taken resources.Quantities
		for _, p := range chosen {
			if counts(r, p) {
				now.Add(p.Frees)
			}
		}
		if now.IsEmpty() {
			continue
		}
		for _, p := range pending {
			if counts(r, p) {
				taken.Add(p.Frees)
			}
		}
		left := r.Consumed.Minus(taken)
		for name, g := range r.Quota.Guarantees.All() {
			if now.Scalar(name) > 0 && left.Scalar(name) < g {
				errs.fail("role %s taken below its guarantee %s: its tasks chosen free %s of its %s, %s left", r.Role, r.Quota.Guarantees, taken, r.Consumed, left)
				break
			}
		}
	}
}

// notePreemptions remembers the tasks a run chose, for the withdrawals of
// later runs, and forgets those no longer chosen.
func (h *Harness) notePreemptions(res allocator.Result) {
	if len(res.Preemptions) == 0 && len(res.Withdrawn) == 0 && len(h.chosen) == 0 {
		return
	}
	if h.chosen == nil {
		h.chosen = map[[2]string]bool{}
	}
	for _, p := range res.Preemptions {
		h.chosen[[2]string{p.FrameworkID, p.TaskID}] = true
	}
	if len(h.chosen) > 64 {
		still := map[[2]string]bool{}
		for _, p := range h.a.Preempting() {
			still[[2]string{p.FrameworkID, p.TaskID}] = true
		}
		h.chosen = still
	}
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

// heldFor sums what the agents hold for frameworks in role's subtree: the
// unreserved, non-revocable scalars, which count in its consumption.
func heldFor(v Views, role string) resources.Quantities {
	var q resources.Quantities
	for _, ag := range v.Agents {
		for _, held := range ag.Held {
			for _, r := range held.AllocationRoles() {
				if reservation.IsSubroleOrSelf(r, role) {
					held.AllocatedTo(r).Unallocate().AddUnreservedQuantitiesTo(&q)
				}
			}
		}
	}
	return q
}
