package allocator

import (
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Allowances (Options.ChargeBeyondAllowance).
//
// A role's allowance is the larger of its quota guarantee and the
// reservations of its subtree, name by name (reservations count as
// consumed quota, so a pool reservation is the guarantee it meets, not an
// allowance on top of it). The role sorter charges a role only for what
// it holds beyond it. Both inputs change only with events (UpdateQuota,
// and the events that add or remove reservations), and each such event
// tells the sorter at once (syncAllowance), so that between events the
// sorter always holds what the state says: a view, a snapshot or a run
// never sees an allowance an earlier event left behind.

// allowanceOf returns the allowance the state gives the role at path: zero
// when the role tree has no such role.
func (a *Allocator) allowanceOf(path string) resources.Quantities {
	var q resources.Quantities
	if n := a.roles.Get(path); n != nil {
		q.Add(n.Q().Guarantees)
		q.Max(n.Reserved)
	}
	return q
}

// syncAllowance tells the role sorter the allowances of the role at path
// and its ancestors (whose subtrees' reservations include the role's),
// where they changed.
func (a *Allocator) syncAllowance(path string) {
	if !a.opts.ChargeBeyondAllowance {
		return
	}
	s, ok := a.roleSorter.Sorter.(sorter.Allowances)
	if !ok {
		return
	}
	for p, more := path, true; more; p, more = reservation.Parent(p) {
		want := a.allowanceOf(p)
		if want.Equal(a.allowances[p]) {
			continue
		}
		_ = s.SetAllowance(p, want)
		if want.IsEmpty() {
			delete(a.allowances, p)
			continue
		}
		if a.allowances == nil {
			a.allowances = map[string]resources.Quantities{}
		}
		a.allowances[p] = want
	}
}

// resyncAllowances tells the role sorter every role's allowance, as a
// restored allocator does: its sorter comes from the snapshot, and what it
// was told must be known again.
func (a *Allocator) resyncAllowances() {
	if !a.opts.ChargeBeyondAllowance {
		return
	}
	s, ok := a.roleSorter.Sorter.(sorter.Allowances)
	if !ok {
		return
	}
	clear(a.allowances)
	for _, path := range a.roles.Nodes.Keys() {
		want := a.allowanceOf(path)
		_ = s.SetAllowance(path, want)
		if !want.IsEmpty() {
			if a.allowances == nil {
				a.allowances = map[string]resources.Quantities{}
			}
			a.allowances[path] = want
		}
	}
}
