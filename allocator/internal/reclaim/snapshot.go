package reclaim

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/codec"
	"github.com/allot-go/allot/reservation"
)

// Walk walks reclaim's state: the groups chosen so far, the
// tasks chosen to end that have not ended (by framework and task id), and
// the run that last chose tasks for each role.
func (st *State) Walk(c *codec.Codec) {
	c.Uvarint(&st.Groups)
	refs := slices.SortedFunc(maps.Keys(st.Choices), TaskRef.Compare)
	var prev *TaskRef
	codec.WalkList(c, &refs, "chosen tasks", func(ref *TaskRef) {
		defer func() { prev = ref }()
		p := st.Choices[*ref]
		if p == nil {
			p = &Choice{}
		}
		c.String(&ref.Framework)
		c.String(&ref.Task)
		c.String(&p.ForRole)
		c.String(&p.ForFramework)
		c.String(&p.HeldIn)
		codec.WalkByte(c, &p.Reason)
		c.Quantities(&p.Frees)
		c.Quantities(&p.Task)
		c.Quantities(&p.Room)
		c.Uvarint(&p.Group)
		c.Time(&p.Until)
		if c.Reading() {
			if prev != nil && prev.Compare(*ref) >= 0 {
				c.Failf("chosen tasks out of order at %q of %q", ref.Task, ref.Framework)
			}
			st.Choices[*ref] = p
		}
	})
	codec.WalkMap(c, &st.TookAt, "roles chosen for", "role chosen for", func(_ string, run uint64) uint64 {
		c.Uvarint(&run)
		return run
	})
}

// CheckRestored checks the state a walk read, once the last run's number
// (runs) is known: each choice has a reason, a valid role it is made for,
// a role it is held in within that one, a group already handed out and a
// room within its task; no role was chosen for in a run not made.
func (st *State) CheckRestored(runs uint64) error {
	for _, ref := range slices.SortedFunc(maps.Keys(st.Choices), TaskRef.Compare) {
		p := st.Choices[ref]
		if p.Reason != ForGuarantee && p.Reason != ForFairShare {
			return fmt.Errorf("task %q of %q chosen to end for reason %d", ref.Task, ref.Framework, p.Reason)
		}
		if err := reservation.ValidateRole(p.ForRole); err != nil {
			return fmt.Errorf("task %q of %q chosen to end for role %q: %v", ref.Task, ref.Framework, p.ForRole, err)
		}
		if p.HeldIn != p.ForRole && !reservation.IsStrictSubrole(p.HeldIn, p.ForRole) {
			return fmt.Errorf("task %q of %q chosen to end for role %q, held in %q outside it", ref.Task, ref.Framework, p.ForRole, p.HeldIn)
		}
		if p.Group == 0 || p.Group > st.Groups {
			return fmt.Errorf("task %q of %q chosen to end in group %d (last %d)", ref.Task, ref.Framework, p.Group, st.Groups)
		}
		if !p.Task.Contains(p.Room) {
			return fmt.Errorf("task %q of %q chosen to make room %s for a task of %s", ref.Task, ref.Framework, p.Room, p.Task)
		}
	}
	for _, role := range slices.Sorted(maps.Keys(st.TookAt)) {
		if run := st.TookAt[role]; run == 0 || run > runs {
			return fmt.Errorf("role %q chosen for in run %d (last run %d)", role, run, runs)
		}
	}
	return nil
}
