package sorter

import (
	"math/bits"
	"slices"
)

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

// Stable is implemented by sorters whose order depends only on what they
// were told (clients, activity, weights, allocations, totals), not on how
// often they were sorted or walked: Sort and Walk change nothing. A caller
// may then skip a walk whose outcome it already knows, and the allocator's
// caches do so only over sorters that are Stable. The DRF sorter is; the
// random sorter, which draws fresh numbers for every order, is not. The
// conformance kit (sortertest.Run) checks that a Stable sorter sorts the
// same twice.
type Stable interface {
	// Stable does nothing; it marks the sorter.
	Stable()
}

var _ Stable = (*DRF)(nil)

// Stable marks the DRF sorter's order as stable (see Stable).
func (d *DRF) Stable() {}

// Indexed is implemented by sorters that number their clients, so that a
// caller can keep sets of clients as Bitsets and walk past their members
// without visiting them. The allocator keeps, per agent, the frameworks
// whose refusal filters cover everything the agent has, and walks the rest.
type Indexed interface {
	Walker
	// Index returns the client's number and true, or false for a client
	// not present. Numbers are small and dense; a client keeps its number
	// while it is present, and a removed client's number may be given to
	// a client added later.
	Index(client string) (int, bool)
	// WalkExcept is Walk, but the clients whose numbers are in skip are
	// not visited. It costs what it visits, plus at most one pass over the
	// active clients that are not in skip when most are.
	WalkExcept(skip Bitset, visit func(client string) bool)
}

var _ Indexed = (*DRF)(nil)

// Index returns the client's number (see Indexed).
func (d *DRF) Index(client string) (int, bool) {
	l, ok := d.t.leafOf(client)
	if !ok {
		return 0, false
	}
	return int(l.index), true
}

// WalkExcept visits the active clients not in skip in Walk's order until
// visit returns false. When skip holds a small part of the active clients
// it walks the order and steps over them; when it holds most of them, and
// every client is a child of the root (no client path has a "/"), it walks
// the order over a few of them (the others often come first) and, when
// they do not, or when very few are left (directBelow), takes the others by
// number: it compares their keys in one dense slice to find the first, and
// sorts them only if the walk goes on. That costs what they are, not what
// skip is.
func (d *DRF) WalkExcept(skip Bitset, visit func(client string) bool) {
	k := skip.Count()
	if k == 0 {
		d.Walk(visit)
		return
	}
	active := int(d.t.root.activeLeaves)
	flat := d.t.nodes == d.t.clientCount()
	if 2*k < active || !flat {
		d.walkSkip = skip
		d.Walk(visit)
		d.walkSkip = nil
		return
	}
	// Most clients are skipped. Where they sit in the order decides what
	// is cheaper: walking the order costs the skipped clients before the
	// first other one, taking the others by number costs all of them. Walk
	// first, but give up after a few skipped clients (before visiting any,
	// so nothing is visited twice) and take the others by number then;
	// when so few are left that the walk would most often give up, take
	// them by number at once.
	if active-k > directBelow {
		d.walkSkip, d.walkBudget, d.walkGaveUp = skip, exceptBudget, false
		d.Walk(visit)
		gaveUp := d.walkGaveUp
		d.walkSkip, d.walkBudget, d.walkGaveUp = nil, 0, false
		if !gaveUp {
			return
		}
	}
	if d.stale {
		d.t.settle(nil)
		d.exact = false
	}
	// A walk usually stops at its first client: find the least one, from
	// the keys alone, and visit it; gather and sort the others only if the
	// walk goes on.
	first := d.t.leastExcept(skip)
	if first < 0 || !visit(d.t.byIndex[first].client()) {
		return
	}
	rest := d.restBuf[:0]
	d.t.eachExcept(skip, func(i int) {
		if i != first {
			rest = append(rest, d.t.byIndex[i])
		}
	})
	slices.SortFunc(rest, compareNodes)
	for _, l := range rest {
		if !visit(l.client()) {
			break
		}
	}
	clear(rest)
	d.restBuf = rest[:0]
}

// leastExcept returns the number of the active leaf not in skip that comes
// first in its parent's order, or -1: in a flat tree, the first client of
// Walk's order that is not skipped. Keys must be settled. It reads skip a
// word at a time, so that the clients it holds cost nothing, and compares
// the others in leafKeys; only leaves whose keys are equal are read, for
// their names.
func (t *tree) leastExcept(skip Bitset) int {
	keys := t.leafKeys
	first := -1
	var least key
	for w := 0; w<<6 < len(keys); w++ {
		free := ^uint64(0)
		if w < len(skip) {
			free = ^skip[w]
		}
		if left := len(keys) - w<<6; left < 64 {
			free &= 1<<uint(left) - 1
		}
		for ; free != 0; free &= free - 1 {
			i := w<<6 | bits.TrailingZeros64(free)
			k := keys[i]
			if k.idle {
				continue // inactive, or a free number
			}
			if first < 0 {
				first, least = i, k
				continue
			}
			if c := compareKeys(&k, &least); c < 0 || c == 0 && t.byIndex[i].name < t.byIndex[first].name {
				first, least = i, k
			}
		}
	}
	return first
}

// eachExcept calls f with the number of every active leaf not in skip.
func (t *tree) eachExcept(skip Bitset, f func(i int)) {
	for i, k := range t.leafKeys {
		if !k.idle && !skip.Has(i) {
			f(i)
		}
	}
}

// Walk visits the active clients in Sort's order until visit returns false.
// With nothing changed since the last Sort it reads Sort's result;
// otherwise it re-files what changed (O(depth · log siblings) per changed
// node) and then goes down the sorted tree only as far as visit goes.
func (d *DRF) Walk(visit func(client string) bool) {
	if !d.stale {
		// Nothing changed since the last Sort or Walk: read Sort's result.
		for i, c := range d.sorted {
			if d.walkSkip != nil && d.walkSkip.Has(int(d.leaves[i].index)) {
				if d.skipped() {
					return
				}
				continue
			}
			d.walkBudget = 0
			if !visit(c) {
				return
			}
		}
		return
	}
	d.t.settle(nil)
	// The cached order no longer matches the tree: the next Sort walks the
	// whole tree again.
	d.exact = false
	d.walkVisit, d.walkMore = visit, true
	d.t.root.order.Ascend(d.walkStepF)
	d.walkVisit = nil
}

// exceptBudget is how many skipped clients WalkExcept steps over in the
// order, before its first visit, when most clients are skipped.
const exceptBudget = 16

// directBelow: when at most this many active clients are not skipped,
// WalkExcept takes them by number without walking the order first. The
// skipped clients sit anywhere in the order, so a walk would step over
// about skipped/(left+1) of them, with so few left more than its budget,
// and then take the others by number all the same. 32 measured best of 0,
// 32 and 64 with 1000 clients of which 990 were skipped
// (BenchmarkDRFWalkExcept); with 100 left it does not apply.
const directBelow = 32

// skipped counts a client stepped over against the walk's budget, and
// reports whether the walk gives up.
func (d *DRF) skipped() bool {
	if d.walkBudget <= 0 {
		return false
	}
	d.walkBudget--
	if d.walkBudget == 0 {
		d.walkGaveUp = true
		return true
	}
	return false
}

// walkStep visits one child in a walk; a bound method stored once, so that
// walking allocates nothing.
func (d *DRF) walkStep(c *node) bool {
	if c.key.idle {
		return false // every later sibling is idle too
	}
	if c.leaf {
		if d.walkSkip == nil || !d.walkSkip.Has(int(c.index)) {
			d.walkBudget = 0
			d.walkMore = d.walkVisit(c.client())
		} else if d.skipped() {
			d.walkMore = false
		}
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
