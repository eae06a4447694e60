package offer

import (
	"slices"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Pick returns resources from offered that hold need, for a task of a
// framework in role, and true; or empty resources and false when offered
// cannot satisfy need.
//
// It takes reserved resources first, so that a role's reservations do not
// sit idle while its tasks fragment the agent's unreserved pool: first
// those reserved for role itself, then those reserved for its ancestors,
// nearest first, then unreserved ones; revocable resources come after all
// of these. Within one tier, entries are taken in the order of offered.
// Only scalar resources are picked (Quantities hold no ranges or sets), and
// never persistent volumes or shared resources, which a task names
// explicitly. A MOUNT or BLOCK disk is taken whole when it fits in what is
// still needed, and skipped otherwise. Resources reserved for other roles,
// including sub-roles of role, are never picked.
func Pick(offered resources.Resources, need resources.Quantities, role string) (resources.Resources, bool) {
	if need.IsEmpty() {
		return resources.Resources{}, true
	}
	ancestors := reservation.Ancestors(role)
	// Tiers: 0 reserved for role, i reserved for its i-th ancestor,
	// len(ancestors)+1 unreserved; revocable ones after all of these.
	revocable := len(ancestors) + 2
	cands := make([]resources.Resource, 0, offered.Len())
	ranks := make([]int, 0, offered.Len())
	for r := range offered.All() {
		if r.Type != resources.ScalarType || r.Shared || r.IsPersistentVolume() || need.Scalar(r.Name) == 0 {
			continue
		}
		rank := -1
		switch {
		case !r.IsReserved():
			rank = len(ancestors) + 1
		case r.Role() == role:
			rank = 0
		default:
			if i := slices.Index(ancestors, r.Role()); i >= 0 {
				rank = i + 1
			}
		}
		if rank < 0 {
			continue
		}
		if r.Revocable {
			rank += revocable
		}
		cands, ranks = append(cands, r), append(ranks, rank)
	}
	left := need.Clone()
	var picked []resources.Resource
	for rank := 0; rank < 2*revocable && !left.IsEmpty(); rank++ {
		for i := range cands {
			if ranks[i] != rank {
				continue
			}
			want := left.Scalar(cands[i].Name)
			if want <= 0 {
				continue
			}
			r := cands[i]
			if r.Scalar > want {
				if r.Disk != nil && !r.Disk.Divisible() {
					continue // a MOUNT or BLOCK disk is used whole or not at all
				}
				r.Scalar = want
			}
			picked = append(picked, r)
			left.SetScalar(r.Name, want-r.Scalar)
		}
	}
	if !left.IsEmpty() {
		return resources.Resources{}, false
	}
	out, err := resources.New(picked...)
	if err != nil {
		return resources.Resources{}, false
	}
	return out, true
}

// TaskNeed names a task and the quantities it needs, for PickLaunch.
type TaskNeed struct {
	ID   string
	Need resources.Quantities
}

// PickTask returns a Task with the given id whose resources Pick chose from
// offered, and true; or false when offered cannot satisfy need.
func PickTask(offered resources.Resources, id string, need resources.Quantities, role string) (Task, bool) {
	picked, ok := Pick(offered, need, role)
	if !ok {
		return Task{}, false
	}
	return Task{ID: id, Resources: picked}, true
}

// PickLaunch returns a Launch of tasks whose resources Pick chose from
// offered, each task from what the tasks before it left, and the resources
// left over; or false (and an empty Launch) when some task's need cannot be
// satisfied.
func PickLaunch(offered resources.Resources, role string, tasks ...TaskNeed) (Launch, resources.Resources, bool) {
	left := offered
	l := Launch{Tasks: make([]Task, 0, len(tasks))}
	for _, t := range tasks {
		task, ok := PickTask(left, t.ID, t.Need, role)
		if !ok {
			return Launch{}, offered, false
		}
		l.Tasks = append(l.Tasks, task)
		left = left.Minus(task.Resources)
	}
	return l, left, true
}
