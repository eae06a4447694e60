package sorter

import (
	"fmt"

	"github.com/allot-go/allot/resources"
)

// Charger is implemented by sorters that can take allocations as plain
// quantities, without the resources and the agent they are on. A caller that
// keeps every agent's resources itself (the allocator does) charges a sorter
// this way: shares need what a client holds in all, not where. Allocations
// charged this way count in AllocationQuantities and in shares like any
// other, but they are not in Allocation and cannot be given back with
// Unallocated or Update: Discharge gives them back. Shared resources, which
// count once per agent, go through Allocated as before.
type Charger interface {
	// Charge adds q to client's allocation; with count set, it also counts
	// one allocation, as Allocated does. It returns ErrUnknownClient for a
	// client not present.
	Charge(client string, q resources.Quantities, count bool) error
	// Discharge takes q back from what was charged to client. It returns
	// ErrUnknownClient for a client not present and ErrNotAllocated when
	// less than q was charged to it.
	Discharge(client string, q resources.Quantities) error
}

var (
	_ Charger = (*DRF)(nil)
	_ Charger = (*Random)(nil)
)

// Charge adds q to client's allocation (see Charger).
func (d *DRF) Charge(client string, q resources.Quantities, count bool) error {
	err := d.t.chargeQuantities(client, q, count)
	d.changed(err)
	return err
}

// Discharge takes q back from client's charged allocation (see Charger).
func (d *DRF) Discharge(client string, q resources.Quantities) error {
	err := d.t.dischargeQuantities(client, q)
	d.changed(err)
	return err
}

// Charge adds q to client's allocation (see Charger).
func (r *Random) Charge(client string, q resources.Quantities, count bool) error {
	return r.changed(r.t.chargeQuantities(client, q, count))
}

// Discharge takes q back from client's charged allocation (see Charger).
func (r *Random) Discharge(client string, q resources.Quantities) error {
	return r.changed(r.t.dischargeQuantities(client, q))
}

func (t *tree) chargeQuantities(client string, q resources.Quantities, count bool) error {
	l, ok := t.leafOf(client)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownClient, client)
	}
	l.charged.Add(q)
	for n := l; n != t.root; n = n.parent {
		n.total.Add(q)
		if count {
			n.count++
		}
	}
	t.touch(l)
	return nil
}

func (t *tree) dischargeQuantities(client string, q resources.Quantities) error {
	l, ok := t.leafOf(client)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownClient, client)
	}
	if !l.charged.Contains(q) {
		return fmt.Errorf("%w: %q was charged %s, not %s", ErrNotAllocated, client, l.charged, q)
	}
	l.charged.Subtract(q)
	for n := l; n != t.root; n = n.parent {
		n.total.Subtract(q)
	}
	t.touch(l)
	return nil
}

// Allowances is implemented by sorters that can charge a client, or a
// subtree, only for what it holds beyond an allowance: its share is
// computed from what it holds beyond the allowance, name by name, never
// below zero. A role given its pool reservation as an allowance sorts, while
// it uses no more than that, as if it held nothing; beyond it, it competes
// for the shared pool with what it holds there. The allocator sets a role's
// quota guarantee plus its reservations as its allowance when
// Options.ChargeBeyondAllowance is on.
type Allowances interface {
	// SetAllowance sets the allowance of the node at path (a client, or a
	// prefix of clients' paths), which need not exist yet; empty
	// quantities remove it. It returns ErrInvalidClient for a malformed
	// path.
	SetAllowance(path string, allowance resources.Quantities) error
}

var _ Allowances = (*DRF)(nil)

// SetAllowance sets what the node at path may hold before it counts in its
// share (see Allowances).
func (d *DRF) SetAllowance(path string, allowance resources.Quantities) error {
	err := d.t.setAllowance(path, allowance)
	d.changed(err)
	return err
}

func (t *tree) setAllowance(path string, allowance resources.Quantities) error {
	if err := ValidatePath(path); err != nil {
		return err
	}
	if allowance.IsEmpty() {
		delete(t.allowances, path)
	} else {
		if t.allowances == nil {
			t.allowances = make(map[string]resources.Quantities)
		}
		t.allowances[path] = allowance.Clone()
	}
	if n := t.find(path); n != nil {
		t.touch(n)
	}
	return nil
}
