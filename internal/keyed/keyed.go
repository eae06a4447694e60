// Package keyed is a hash table of records that carry their own key: a
// framework its id, a role its path, a sorter's node its name. Such a set
// kept in a Go map holds the key's string header beside the pointer (24
// bytes a slot) and is at its largest just after it grows (at 1000
// entries, about 54 bytes an entry); here a slot is the pointer and a
// byte of the key's hash, 9 bytes, and the table is at most seven eighths
// full and at least seven sixteenths after it grows, so an entry costs 10
// to 21 bytes.
//
// Usage:
//
//	type byID struct{}
//
//	func (byID) Of(f *framework) string { return f.id }
//
//	var t keyed.Table[framework, byID]
//	t.Put(&framework{id: "f1"})
//	f := t.Get("f1")
//
// A lookup hashes the key, reads a group of eight slots (their hash bytes
// and pointers, 72 bytes) and the records whose byte matches (1 in 128 by
// chance), whose key confirms the match. That costs what a Go map's
// lookup does while the table is in the processor's caches (about 8
// against 9 ns at 1000 records, 6 ns for one to ten), more past them (17
// against 13 ns at 50000, where a map finds the key in its slot and this
// table reads the record). Removing a record leaves a marker that lookups
// probe past, so records never move on removal: a removal during All is
// safe. Markers go when Put rebuilds the table, which it does when the
// table is seven eighths full of records and markers, or less than an
// eighth full of records (it then shrinks).
//
// The hash is seeded once a process, as a Go map's is, and each All starts
// at a slot of its own: the order of All differs from call to call, and
// nothing may depend on it.
package keyed

import (
	"hash/maphash"
	"iter"
	"math/bits"
	"sync/atomic"
)

// Key says which string of a record T keys it. It is a type parameter, not
// a function value, so that a table holds no function: the sorter keeps a
// table in every node with more than one child.
type Key[T any] interface{ Of(*T) string }

// Table is a set of *T keyed by K. The zero value is empty and ready to
// use. A Table is not safe for concurrent use.
type Table[T any, K Key[T]] struct {
	groups []group[T] // none, or a power of two
	n      int        // records
	dead   int        // removed markers
}

// group holds eight slots, their tags first: a lookup reads a tag and its
// record's pointer from one group, usually one cache line.
type group[T any] struct {
	tags  [8]uint8 // per slot: empty, removed, or tagBit | 7 bits of the hash
	slots [8]*T    // per slot: the record, nil unless the tag is a hash's
}

// slot returns the tag and record pointer of slot i.
func (t *Table[T, K]) slot(i uint64) (*uint8, **T) {
	g := &t.groups[i>>3]
	return &g.tags[i&7], &g.slots[i&7]
}

// size returns the number of slots.
func (t *Table[T, K]) size() int { return 8 * len(t.groups) }

// Size returns the number of slots the table holds (records, markers and
// free): what it costs, at 9 bytes a slot.
func (t *Table[T, K]) Size() int { return t.size() }

const (
	empty   = 0
	removed = 1
	tagBit  = 0x80
)

// seed and secret are drawn once a process (through maphash, which draws
// them from the runtime's source, as a Go map's seed is). Every fold
// multiplies by a word xored with one of them: were it xored with a
// constant, keys whose first word equals that constant would fold to zero
// and collide, whatever the seed.
var seed, secret = func() (uint64, uint64) {
	s := maphash.MakeSeed()
	return maphash.String(s, "seed"), maphash.String(s, "secret") | 1
}()

// hash hashes k with seed as wyhash does (which is also the Go runtime's
// string hash where the processor has no AES instructions): the key read
// as two words, overlapping when it is shorter than 16 bytes (longer keys
// are first folded in 16 bytes at a time), each fold a 128-bit
// multiplication whose halves are xored. It costs about half of
// maphash.String (which goes through three calls) on the short keys the
// tables hold (ids, role paths), which matters as a run looks roles and
// clients up by name at every step of its walks.
func hash(k string) (h uint64, tag uint8) {
	n := len(k)
	h = seed
	var a, b uint64
	switch {
	case n > 16:
		for rest := k; len(rest) > 16; rest = rest[16:] {
			h = mix(load8(rest)^secret, load8(rest[8:])^h)
		}
		a, b = load8(k[n-16:]), load8(k[n-8:]) // the last 16 bytes
	case n >= 8:
		a, b = load8(k), load8(k[n-8:])
	case n >= 4:
		a, b = load4(k), load4(k[n-4:])
	case n > 0:
		a = uint64(k[0])<<16 | uint64(k[n>>1])<<8 | uint64(k[n-1])
	}
	h = mix(m1^uint64(n), mix(a^secret, b^h))
	return h, uint8(h>>57) | tagBit
}

// m1 is wyhash's first constant; the length folded with it is never 0.
const m1 = 0xa0761d6478bd642f

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// load8 reads k's first eight bytes, little-endian.
func load8(k string) uint64 {
	_ = k[7]
	return uint64(k[0]) | uint64(k[1])<<8 | uint64(k[2])<<16 | uint64(k[3])<<24 |
		uint64(k[4])<<32 | uint64(k[5])<<40 | uint64(k[6])<<48 | uint64(k[7])<<56
}

// load4 reads k's first four bytes, little-endian.
func load4(k string) uint64 {
	_ = k[3]
	return uint64(k[0]) | uint64(k[1])<<8 | uint64(k[2])<<16 | uint64(k[3])<<24
}

// Len returns the number of records.
func (t *Table[T, K]) Len() int { return t.n }

// Get returns the record keyed k, or nil.
func (t *Table[T, K]) Get(k string) *T {
	if _, r, _ := t.find(k); r != nil {
		return *r
	}
	return nil
}

// find returns the tag and record pointer of the slot of the record keyed
// k, and the slot's number; nil pointers if there is none.
func (t *Table[T, K]) find(k string) (*uint8, **T, uint64) {
	if t.n == 0 {
		return nil, nil, 0
	}
	var key K
	h, tag := hash(k)
	mask := uint64(t.size() - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		g, r := t.slot(i)
		switch {
		case *g == empty:
			return nil, nil, 0
		case *g == tag && key.Of(*r) == k:
			return g, r, i
		}
	}
}

// Put adds r, replacing the record with r's key, which it returns (nil if
// there was none).
func (t *Table[T, K]) Put(r *T) *T {
	if size := t.size(); 8*(t.n+t.dead+1) > 7*size || size > 8 && 8*(t.n+1) < size {
		t.rebuild()
	}
	var key K
	k := key.Of(r)
	h, tag := hash(k)
	mask := uint64(t.size() - 1)
	var free *uint8
	var freeSlot **T
	for i := h & mask; ; i = (i + 1) & mask {
		g, s := t.slot(i)
		switch {
		case *g == removed:
			if free == nil {
				free, freeSlot = g, s
			}
		case *g == empty:
			if free == nil {
				free, freeSlot = g, s
			} else {
				t.dead--
			}
			*free, *freeSlot = tag, r
			t.n++
			return nil
		case *g == tag && key.Of(*s) == k:
			old := *s
			*s = r
			return old
		}
	}
}

// Delete removes the record keyed k and returns it (nil if there was
// none).
func (t *Table[T, K]) Delete(k string) *T {
	g, s, i := t.find(k)
	if s == nil {
		return nil
	}
	old := *s
	*s = nil
	t.n--
	// A lookup stops at an empty slot; a slot followed by one can be
	// empty too, as no probe needs to pass it.
	if next, _ := t.slot((i + 1) & uint64(t.size()-1)); *next == empty {
		*g = empty
	} else {
		*g = removed
		t.dead++
	}
	return old
}

// rebuild makes room for one more record: twice the slots past 25/32
// full, otherwise as many without the markers (so that at least 3/32 of
// the slots are free again before the next rebuild), or half as many
// while that is at most 7/16 full: Put rebuilds a table an eighth full,
// so one that held many records and holds few gives its slots back.
func (t *Table[T, K]) rebuild() {
	size, need := t.size(), t.n+1
	switch {
	case size == 0:
		size = 8
	case 32*need > 25*size:
		size *= 2
	default:
		for size > 8 && 16*need <= 7*(size/2) {
			size /= 2
		}
	}
	old := t.groups
	t.groups, t.dead = make([]group[T], size/8), 0
	var key K
	mask := uint64(size - 1)
	for j := range old {
		for k, g := range old[j].tags {
			if g < tagBit {
				continue
			}
			r := old[j].slots[k]
			h, _ := hash(key.Of(r))
			i := h & mask
			for {
				tg, s := t.slot(i)
				if *tg == empty {
					*tg, *s = g, r
					break
				}
				i = (i + 1) & mask
			}
		}
	}
}

// Clear removes every record. The table keeps its slots until the next
// Put, which gives them back if there were many (a table less than an
// eighth full shrinks): a burst of records does not hold its room for
// good.
func (t *Table[T, K]) Clear() {
	clear(t.groups)
	t.n, t.dead = 0, 0
}

// All yields every record, in no particular order. Records may be deleted
// during All (a deleted record not yet yielded is not yielded); none may
// be put.
//
// Each call starts at a slot of its own, as a Go map's iteration starts at
// a random one: two tables given the same records in the same order (two
// allocators fed the same events, as a determinism test does) yield them
// in different orders, so a result that depends on the order shows.
func (t *Table[T, K]) All() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		size := uint64(t.size())
		if t.n == 0 {
			return
		}
		start := mix(seed, iterations.Add(1))
		for j := range size {
			g, r := t.slot((start + j) & (size - 1))
			if *g >= tagBit && !yield(*r) {
				return
			}
		}
	}
}

// iterations counts the calls of All in the process, to start each at a
// slot of its own.
var iterations atomic.Uint64
