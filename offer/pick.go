package offer

import (
	"cmp"
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
	if !offered.ContainsQuantities(need) {
		return resources.Resources{}, false
	}
	ancestors := reservation.Ancestors(role)
	type ranked struct {
		r    resources.Resource
		rank int
	}
	var list []ranked
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
			rank += len(ancestors) + 2
		}
		list = append(list, ranked{r, rank})
	}
	slices.SortStableFunc(list, func(a, b ranked) int { return cmp.Compare(a.rank, b.rank) })
	ordered := make([]resources.Resource, len(list))
	for i, x := range list {
		ordered[i] = x.r
	}
	candidates, err := resources.New(ordered...)
	if err != nil {
		return resources.Resources{}, false
	}
	picked := candidates.Shrink(need, nil)
	if !picked.Quantities().Contains(need) {
		return resources.Resources{}, false
	}
	return picked, true
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
