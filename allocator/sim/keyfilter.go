package sim

// keyFilter is a Bloom filter of task keys that grows with them: it says
// for sure that a key was not added, and wrongly that one was a few times
// in a thousand. StreamGoogleFiles's first reading adds each task
// forgotten after it made tasks, about every task of the trace, in two
// bytes or so each rather than the sixty of a map, and a task submitted
// anew that it may hold is read once more to know its IDs (see
// renumberGoogle): a wrong answer costs a little reading, never a wrong
// task.
type keyFilter struct {
	// parts are filters of twice the keys of the one before, the last
	// taking the keys added; n counts the keys added to it.
	parts []filterPart
	n     int
}

// filterPart is one filter: 16 bits a key it holds, 8 probes.
type filterPart struct {
	bits []uint64
	keys int // it holds at most this many
}

const (
	filterFirstKeys = 1 << 12
	filterBitsAKey  = 16
	filterProbes    = 8
)

// add adds a key.
func (f *keyFilter) add(key [2]uint64) {
	if len(f.parts) == 0 || f.n == f.parts[len(f.parts)-1].keys {
		keys := filterFirstKeys << len(f.parts)
		f.parts = append(f.parts, filterPart{bits: make([]uint64, keys*filterBitsAKey/64), keys: keys})
		f.n = 0
	}
	p := f.parts[len(f.parts)-1]
	h1, h2 := keyHashes(key)
	m := uint64(len(p.bits) * 64)
	for i := range uint64(filterProbes) {
		b := (h1 + i*h2) % m
		p.bits[b/64] |= 1 << (b % 64)
	}
	f.n++
}

// has reports whether the key may have been added.
func (f *keyFilter) has(key [2]uint64) bool {
	h1, h2 := keyHashes(key)
	for _, p := range f.parts {
		m := uint64(len(p.bits) * 64)
		all := true
		for i := range uint64(filterProbes) {
			b := (h1 + i*h2) % m
			if p.bits[b/64]&(1<<(b%64)) == 0 {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// keyHashes returns two hashes of a key, the second odd, for the probes.
func keyHashes(key [2]uint64) (uint64, uint64) {
	a := mix64(key[0] ^ mix64(key[1]+0x9e3779b97f4a7c15))
	return a, mix64(a) | 1
}

// mix64 is splitmix64's finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
