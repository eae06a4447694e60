package sorter

import (
	"iter"
	"math/bits"
)

// Bitset is a set of small non-negative integers, such as the numbers a
// sorter gives its clients (see Indexed). The zero value is empty; Set
// grows it.
type Bitset []uint64

// Has reports whether i is in the set.
func (b Bitset) Has(i int) bool {
	w := i >> 6
	return i >= 0 && w < len(b) && b[w]&(1<<(uint(i)&63)) != 0
}

// Set adds i to the set; it reports whether i was missing.
func (b *Bitset) Set(i int) bool {
	w := i >> 6
	for w >= len(*b) {
		*b = append(*b, 0)
	}
	m := uint64(1) << (uint(i) & 63)
	if (*b)[w]&m != 0 {
		return false
	}
	(*b)[w] |= m
	return true
}

// Clear removes i from the set; it reports whether i was there.
func (b Bitset) Clear(i int) bool {
	w := i >> 6
	if i < 0 || w >= len(b) {
		return false
	}
	m := uint64(1) << (uint(i) & 63)
	if b[w]&m == 0 {
		return false
	}
	b[w] &^= m
	return true
}

// Count returns the number of members.
func (b Bitset) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// Reset empties the set, keeping its storage.
func (b Bitset) Reset() { clear(b) }

// All returns the members in increasing order. A member removed during
// the iteration is still yielded if it shares its 64-bit word with the
// member just yielded; add none during it.
func (b Bitset) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for wi, w := range b {
			for w != 0 {
				i := bits.TrailingZeros64(w)
				w &^= 1 << uint(i)
				if !yield(wi<<6 | i) {
					return
				}
			}
		}
	}
}
