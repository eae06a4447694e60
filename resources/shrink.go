package resources

import (
	"math/rand/v2"
	"slices"
)

// Cutting a value down to quantities (an offer to a quota limit, the
// headroom, an offer share or a pending task), whole disks kept whole.

// Shrink returns a part of rs whose scalar quantities fit in target: names
// absent from target are dropped, each scalar is cut down to what is left of
// its name's target, and indivisible disks (MOUNT, BLOCK, persistent volumes)
// that do not fit whole are dropped. Non-scalars are dropped too. Entries are
// visited in order, or in an order drawn from rng when rng is not nil (Mesos
// shuffles, so that no reservation is always cut first).
func (rs Resources) Shrink(target Quantities, rng *rand.Rand) Resources {
	// What is left of the target, and the order of the entries, live on
	// the stack while they are small (an offer sized to a task shrinks
	// an agent's leftover once an offer).
	var leftBuf [8]quantity
	var idxBuf [16]int
	left := append(leftBuf[:0], target.items...)
	var out Resources
	idx := orderInto(idxBuf[:0], len(rs.entries), rng)
	for _, i := range idx {
		e := rs.entries[i]
		if e.m.typ != ScalarType {
			continue
		}
		j := slices.IndexFunc(left, func(q quantity) bool { return q.id == e.m.id })
		if j < 0 || left[j].v <= 0 {
			continue
		}
		if limit := left[j].v; e.scalar > limit {
			if e.m.whole {
				continue
			}
			e.scalar = limit
		}
		left[j].v -= e.scalar
		idx[len(out.entries)] = i
		out.entries = append(out.entries, e)
	}
	return out.inOrder(idx)
}

// ShrinkToLimits is Shrink with limits as the target: names without a limit
// are kept whole, including non-scalars.
func (rs Resources) ShrinkToLimits(limits Limits, rng *rand.Rand) Resources {
	left := limits.Clone()
	var out Resources
	var idxBuf [16]int
	idx := orderInto(idxBuf[:0], len(rs.entries), rng)
	for _, i := range idx {
		e := rs.entries[i]
		limit, limited := left.get(e.m.id)
		if !limited {
			idx[len(out.entries)] = i
			out.entries = append(out.entries, e)
			continue
		}
		if e.m.typ != ScalarType {
			continue
		}
		if e.scalar > limit {
			if e.m.whole || limit == 0 {
				continue
			}
			e.scalar = limit
		}
		left.set(e.m.id, limit-e.scalar)
		idx[len(out.entries)] = i
		out.entries = append(out.entries, e)
	}
	return out.inOrder(idx)
}

// inOrder puts the entries a cut kept back in the order they had in the
// resources cut: idx[k] is where entry k came from. The random order
// decides only what is kept; what is kept reads as it did.
func (rs Resources) inOrder(idx []int) Resources {
	e := rs.entries
	for k := 1; k < len(e); k++ {
		for j := k; j > 0 && idx[j] < idx[j-1]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
	return rs
}

// orderInto appends to idx (empty, from the caller's stack while small)
// the indexes below n, in order or in an order drawn from rng.
func orderInto(idx []int, n int, rng *rand.Rand) []int {
	for i := range n {
		idx = append(idx, i)
	}
	if rng != nil {
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	}
	return idx
}
