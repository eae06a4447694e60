package sorter

// Walker is implemented by sorters that can visit their order without
// building it. Walk calls visit for the active clients in Sort's order until
// visit returns false. A caller that usually stops at the first client (the
// allocator offers an agent to the first framework that can take it) pays
// for the clients it visits, not for all of them.
//
// Changes made while walking (Allocated, Unallocated, Update, Activate,
// Deactivate, UpdateWeight) do not move clients under the walk; they take
// effect from the next Walk or Sort, as changes made between two Sorts do.
// Add, Remove and agent totals must not change during a walk.
type Walker interface {
	Walk(visit func(client string) bool)
}

var _ Walker = (*DRF)(nil)
var _ Walker = (*Random)(nil)

// Walk visits the active clients in Sort's order until visit returns false.
// With nothing changed since the last Sort it reads Sort's result;
// otherwise it re-files what changed (O(depth · log siblings) per changed
// node) and then goes down the sorted tree only as far as visit goes.
func (d *DRF) Walk(visit func(client string) bool) {
	if !d.stale {
		// Nothing changed since the last Sort or Walk: read Sort's result.
		for _, c := range d.sorted {
			if !visit(c) {
				return
			}
		}
		return
	}
	d.t.settle()
	// The cached order no longer matches the tree: the next Sort walks the
	// whole tree again.
	d.exact = false
	d.walkVisit, d.walkMore = visit, true
	d.t.root.order.Ascend(d.walkStepF)
	d.walkVisit = nil
}

// walkStep visits one child in a walk; a bound method stored once, so that
// walking allocates nothing.
func (d *DRF) walkStep(c *node) bool {
	if c.key.idle {
		return false // every later sibling is idle too
	}
	if c.leaf {
		d.walkMore = d.walkVisit(c.client)
	} else {
		c.order.Ascend(d.walkStepF)
	}
	return d.walkMore
}

// Walk visits the clients of a fresh weighted shuffle (Sort) until visit
// returns false.
func (r *Random) Walk(visit func(client string) bool) {
	for _, client := range r.Sort() {
		if !visit(client) {
			return
		}
	}
}
