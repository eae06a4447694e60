package allocator

import (
	"iter"

	"github.com/allot-go/allot/sorter"
)

// frameworkBits are an agent's two marks of each framework that refused
// or declined something (by the framework's number, filterNum): whether it
// has a refusal filter on the agent (filters.go), and whether it is in the
// agent's round of declines (rotation.go). The two bits of a framework sit
// side by side, 2n and 2n+1, in one word: a run checks the round only of
// frameworks whose filter bit it has just read, and the round's bit is
// then in the same cache line, where a set of its own would be a miss an
// offer (a fifth of Mesos's DeclineOffers loop when measured).
type frameworkBits sorter.Bitset

func (b frameworkBits) filtered(num int) bool { return sorter.Bitset(b).Has(2 * num) }

func (b *frameworkBits) setFiltered(num int) { (*sorter.Bitset)(b).Set(2 * num) }

func (b frameworkBits) clearFiltered(num int) { sorter.Bitset(b).Clear(2 * num) }

// filteredAll yields the numbers of the frameworks with a filter.
func (b frameworkBits) filteredAll() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range sorter.Bitset(b).All() {
			if i&1 == 0 && !yield(i/2) {
				return
			}
		}
	}
}

func (b frameworkBits) declined(num int) bool { return sorter.Bitset(b).Has(2*num + 1) }

func (b *frameworkBits) setDeclined(num int) { (*sorter.Bitset)(b).Set(2*num + 1) }

func (b frameworkBits) clearDeclined(num int) { sorter.Bitset(b).Clear(2*num + 1) }

// declinedAll yields the numbers of the frameworks in the round.
func (b frameworkBits) declinedAll() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range sorter.Bitset(b).All() {
			if i&1 == 1 && !yield(i/2) {
				return
			}
		}
	}
}

// clearRound empties the round, keeping the filter marks.
func (b frameworkBits) clearRound() {
	const odd = 0xaaaaaaaaaaaaaaaa
	for i := range b {
		b[i] &^= odd
	}
}
