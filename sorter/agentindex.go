package sorter

import "hash/maphash"

// agentIndex finds a sorter's agents by name. Allocated, Unallocated and
// Update look an agent up on every call, and with tens of thousands of
// agents the lookup misses the cache: a Go map reads a group's control word
// and then the matching slot, often on another cache line, before the agent
// itself is read. Here a slot holds the name's hash and the agent, so a
// lookup reads one line of slots and then the agent, whose name confirms
// the match.
//
// It is an open-addressing table with linear probing, at most four fifths
// full: a lookup that finds its agent probes three slots on average, and
// the table stays small enough (16 bytes a slot) to keep much of it in
// cache. Deletion shifts the following slots back, so no tombstones build
// up. The zero value is empty and ready to use.
type agentIndex struct {
	seed  maphash.Seed
	slots []agentSlot // empty, or a power of two long
	n     int
}

type agentSlot struct {
	hash uint64 // the name's hash with usedBit set; 0 for a free slot
	a    *agent
}

// usedBit marks a slot in use. It is the hash's top bit, which the slot
// number (taken from the low bits) never uses.
const usedBit = 1 << 63

func (x *agentIndex) hash(name string) uint64 {
	return maphash.String(x.seed, name) | usedBit
}

// mask turns a hash into a slot number: the table is a power of two long.
func (x *agentIndex) mask() uint64 { return uint64(len(x.slots) - 1) }

// probeNext is the slot probed after slot i. Lookups, insertions and removals
// share it: they must probe in the same order.
func probeNext(i, mask uint64) uint64 { return (i + 1) & mask }

// get returns the agent called name, or nil.
func (x *agentIndex) get(name string) *agent {
	if x.n == 0 {
		return nil
	}
	h := x.hash(name)
	mask := x.mask()
	for i := h & mask; ; i = probeNext(i, mask) {
		s := &x.slots[i]
		if s.hash == 0 {
			return nil
		}
		if s.hash == h && s.a.name == name {
			return s.a
		}
	}
}

// put adds a, whose name must not be in the index yet.
func (x *agentIndex) put(a *agent) {
	if x.n+1 > len(x.slots)*4/5 {
		x.grow()
	}
	x.place(agentSlot{x.hash(a.name), a})
	x.n++
}

// place puts s in the first free slot from its hash on.
func (x *agentIndex) place(s agentSlot) {
	mask := x.mask()
	i := s.hash & mask
	for x.slots[i].hash != 0 {
		i = probeNext(i, mask)
	}
	x.slots[i] = s
}

func (x *agentIndex) grow() {
	old := x.slots
	if old == nil {
		x.seed = maphash.MakeSeed()
	}
	x.slots = make([]agentSlot, max(8, 2*len(old)))
	for _, s := range old {
		if s.hash != 0 {
			x.place(s)
		}
	}
}

// remove removes a, which must be in the index.
func (x *agentIndex) remove(a *agent) {
	h := x.hash(a.name)
	mask := x.mask()
	i := h & mask
	for x.slots[i].a != a {
		i = probeNext(i, mask)
	}
	// Shift back each following slot that may live at i: one whose home
	// slot is not cyclically within (i, j]. The run then has no hole that
	// would stop a later lookup short.
	for j := probeNext(i, mask); ; j = probeNext(j, mask) {
		s := x.slots[j]
		if s.hash == 0 {
			break
		}
		home := s.hash & mask
		if (j-home)&mask >= (j-i)&mask {
			x.slots[i] = s
			i = j
		}
	}
	x.slots[i] = agentSlot{}
	x.n--
}

// len returns the number of agents.
func (x *agentIndex) len() int { return x.n }

// all calls f for every agent, in no particular order.
func (x *agentIndex) all(f func(*agent)) {
	for _, s := range x.slots {
		if s.hash != 0 {
			f(s.a)
		}
	}
}
