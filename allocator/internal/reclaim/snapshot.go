package reclaim

import (
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/codec"
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
