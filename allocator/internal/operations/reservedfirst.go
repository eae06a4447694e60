package operations

import (
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Reserved resources used first (Operations.ReservedFirst).
//
// A framework that launches a task on unreserved resources while its role's
// reservations of the same names sit unused in the same offer leaves its
// reservation idle and fragments the shared pool. With the option on, the
// allocator moves the task's unreserved, non-revocable scalars onto the
// reservations the offer still has free, the most specific first (the
// role's own, then its ancestors', as offer.Pick orders them), before it
// validates and applies the operations. Ports, volumes, revocable
// resources and what the task already takes from reservations stay as
// they are. AcceptApplied returns the operations as applied, and the task
// ledger (Tasks) holds the resources each task was given.

// ReservedFirst returns ops with every launch's unreserved scalars moved
// onto the reservations still free in offered (tagged with role) after the
// operations before it. Operations it cannot follow (an invalid one) end
// the rewriting: validation reports them.
func ReservedFirst(role string, offered resources.Resources, ops []offer.Operation) []offer.Operation {
	cur := offered
	var launched resources.Resources
	out := make([]offer.Operation, len(ops))
	copy(out, ops)
	for i, op := range ops {
		l, ok := cluster.LaunchOf(op)
		if !ok {
			next, err := offer.Apply(cur, op)
			if err != nil {
				return out
			}
			cur = next
			continue
		}
		moved := offer.Launch{Executor: l.Executor, Tasks: make([]offer.Task, len(l.Tasks))}
		changed := false
		free := cur.Minus(launched)
		for j, t := range l.Tasks {
			moved.Tasks[j] = t
			// Only plain scalars of a name the offer still reserves move:
			// a disk with a source or a volume, a provider's resource, is
			// the one the task chose, and what no reservation holds is
			// left as the task asked for it.
			movable := func(r resources.Resource) bool {
				return r.Type == resources.ScalarType && !r.IsReserved() && !r.Revocable &&
					r.Disk.IsEmpty() && r.ProviderID == "" && reservesName(free, r.Name)
			}
			var need resources.Quantities
			t.Resources.Filter(movable).AddQuantitiesTo(&need)
			if need.IsEmpty() {
				free = free.Minus(t.Resources)
				launched.Add(t.Resources)
				continue
			}
			keep := t.Resources.Filter(func(r resources.Resource) bool { return !movable(r) })
			picked, ok := offer.Pick(free.Minus(keep), need, role)
			if !ok {
				free = free.Minus(t.Resources)
				launched.Add(t.Resources)
				continue
			}
			t.Resources = keep.Plus(picked)
			moved.Tasks[j], changed = t, true
			free = free.Minus(t.Resources)
			launched.Add(t.Resources)
		}
		launched.Add(l.Executor)
		if changed {
			out[i] = moved
		}
	}
	return out
}

// reservesName reports whether res holds a reserved, non-revocable
// scalar of the name.
func reservesName(res resources.Resources, name string) bool {
	for r := range res.All() {
		if r.Type == resources.ScalarType && r.IsReserved() && !r.Revocable && r.Name == name {
			return true
		}
	}
	return false
}
