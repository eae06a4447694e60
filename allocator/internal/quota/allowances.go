package quota

import (
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Allowances are what the role sorter was told each role may hold before
// it counts in its share, when allowances are charged (On).
//
// A role's allowance is the larger of its quota guarantee and the
// reservations of its subtree, name by name (reservations count as
// consumed quota, so a pool reservation is the guarantee it meets, not an
// allowance on top of it). Both inputs change only with events (quota, and
// the events that add or remove reservations), and each such event tells
// the sorter at once (Sync), so that between events the sorter always
// holds what the state says: a view, a snapshot or a run never sees an
// allowance an earlier event left behind.
type Allowances struct {
	// On: allowances are charged. Off, the methods do nothing.
	On   bool
	told map[string]resources.Quantities
}

// Of returns the allowance the role tree gives the role at path: zero
// when the tree has no such role.
func Of(tree *roles.Tree, path string) resources.Quantities {
	var q resources.Quantities
	if n := tree.Get(path); n != nil {
		q.Add(n.Q().Guarantees)
		q.Max(n.Reserved)
	}
	return q
}

// Sync tells the role sorter s the allowances of the role at path and its
// ancestors (whose subtrees' reservations include the role's), where they
// changed.
func (al *Allowances) Sync(tree *roles.Tree, s sorter.Sorter, path string) {
	set, ok := s.(sorter.Allowances)
	if !al.On || !ok {
		return
	}
	for p, more := path, true; more; p, more = reservation.Parent(p) {
		want := Of(tree, p)
		if want.Equal(al.told[p]) {
			continue
		}
		_ = set.SetAllowance(p, want)
		al.remember(p, want)
	}
}

// Resync tells the role sorter s every role's allowance, as a restored
// allocator does: its sorter comes from the snapshot, and what it was told
// must be known again.
func (al *Allowances) Resync(tree *roles.Tree, s sorter.Sorter) {
	set, ok := s.(sorter.Allowances)
	if !al.On || !ok {
		return
	}
	clear(al.told)
	for _, path := range tree.Nodes.Keys() {
		want := Of(tree, path)
		_ = set.SetAllowance(path, want)
		al.remember(path, want)
	}
}

// remember notes that the sorter was told want for path.
func (al *Allowances) remember(path string, want resources.Quantities) {
	if want.IsEmpty() {
		delete(al.told, path)
		return
	}
	if al.told == nil {
		al.told = map[string]resources.Quantities{}
	}
	al.told[path] = want
}
