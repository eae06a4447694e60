package keyed

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

type rec struct {
	key string
	val int
}

type byKey struct{}

func (byKey) Of(r *rec) string { return r.key }

// model checks a table against a Go map after every operation: Get of
// every key ever used, Len, and All (each record once, the live ones).
type model struct {
	t    Table[rec, byKey]
	m    map[string]*rec
	keys []string
}

func (m *model) check(tb testing.TB, step string) {
	tb.Helper()
	if m.t.Len() != len(m.m) {
		tb.Fatalf("%s: Len %d, want %d", step, m.t.Len(), len(m.m))
	}
	for _, k := range m.keys {
		if got, want := m.t.Get(k), m.m[k]; got != want {
			tb.Fatalf("%s: Get(%q) = %v, want %v", step, k, got, want)
		}
	}
	seen := map[*rec]bool{}
	for r := range m.t.All() {
		if seen[r] || m.m[r.key] != r {
			tb.Fatalf("%s: All yielded %v twice or not live", step, r)
		}
		seen[r] = true
	}
	if len(seen) != len(m.m) {
		tb.Fatalf("%s: All yielded %d records, want %d", step, len(seen), len(m.m))
	}
	if 8*(m.t.n+m.t.dead) > 7*m.t.size() {
		tb.Fatalf("%s: %d records and %d markers in %d slots", step, m.t.n, m.t.dead, m.t.size())
	}
}

func (m *model) put(k string, v int) {
	r := &rec{k, v}
	want := m.m[k]
	if m.m == nil {
		m.m = map[string]*rec{}
	}
	if want == nil {
		m.keys = append(m.keys, k)
	}
	m.m[k] = r
	if got := m.t.Put(r); got != want {
		panic(fmt.Sprintf("Put(%q) replaced %v, want %v", k, got, want))
	}
}

func (m *model) del(k string) {
	want := m.m[k]
	delete(m.m, k)
	if got := m.t.Delete(k); got != want {
		panic(fmt.Sprintf("Delete(%q) = %v, want %v", k, got, want))
	}
}

// TestTableAgainstMap runs random puts and deletes over key spaces small
// enough that keys come back after removal (markers reused, tables
// rebuilt at the same size) and large enough to grow and shrink.
func TestTableAgainstMap(t *testing.T) {
	for _, space := range []int{3, 20, 300, 3000} {
		seed := uint64(space)*7919 + 1
		t.Run(fmt.Sprint(space), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0))
			var m model
			for step := range 6000 {
				k := fmt.Sprintf("k%d", rng.IntN(space))
				// Phases: mostly puts, then mostly deletes, so that the
				// table grows, shrinks and grows again.
				putBias := 3
				if step/1000%2 == 1 {
					putBias = 1
				}
				if rng.IntN(4) < putBias {
					m.put(k, step)
				} else {
					m.del(k)
				}
				if step%97 == 0 || space <= 20 {
					m.check(t, fmt.Sprintf("seed %d step %d", seed, step))
				}
			}
			m.check(t, fmt.Sprintf("seed %d end", seed))
		})
	}
}

// TestTableShrinks: a table emptied to a few records after holding many
// gives back its slots on the next Put.
func TestTableShrinks(t *testing.T) {
	var m model
	for i := range 1000 {
		m.put(fmt.Sprint(i), i)
	}
	big := m.t.size()
	for i := range 990 {
		m.del(fmt.Sprint(i))
	}
	m.put("x", 0)
	m.check(t, "after shrinking")
	if m.t.size() > 32 {
		t.Fatalf("%d slots for %d records (%d before)", m.t.size(), m.t.Len(), big)
	}
}

// TestTableDeleteDuringAll: deleting every record during All yields each
// once.
func TestTableDeleteDuringAll(t *testing.T) {
	var m model
	for i := range 500 {
		m.put(fmt.Sprint(i), i)
	}
	var got []int
	for r := range m.t.All() {
		got = append(got, r.val)
		m.del(r.key)
	}
	slices.Sort(got)
	if len(got) != 500 || got[0] != 0 || got[499] != 499 || m.t.Len() != 0 {
		t.Fatalf("yielded %d records, %d left", len(got), m.t.Len())
	}
	m.check(t, "after deleting all")
}

// TestAllStartsAnywhere: tables given the same records in the same order
// yield them in different orders (as Go maps do), so that nothing comes to
// depend on one; every record is still yielded once.
func TestAllStartsAnywhere(t *testing.T) {
	var a, b Table[rec, byKey]
	for i := range 5 {
		a.Put(&rec{key: fmt.Sprint(i)})
		b.Put(&rec{key: fmt.Sprint(i)})
	}
	order := func(tab *Table[rec, byKey]) string {
		var keys []string
		for r := range tab.All() {
			keys = append(keys, r.key)
		}
		require.Len(t, keys, 5)
		return strings.Join(keys, ",")
	}
	seen := map[string]bool{}
	for range 20 {
		seen[order(&a)], seen[order(&b)] = true, true
	}
	require.Greater(t, len(seen), 1, "every iteration of two tables of the same records in one order")
}

// TestTableBytes: at 1000 records (where a Go map of the same set holds
// about 54 bytes an entry), the table holds at most 21.
func TestTableBytes(t *testing.T) {
	var tab Table[rec, byKey]
	for i := range 1000 {
		tab.Put(&rec{key: fmt.Sprint(i)})
	}
	bytes := int(unsafe.Sizeof(group[rec]{})) * len(tab.groups)
	if per := float64(bytes) / 1000; per > 21 {
		t.Fatalf("%.1f bytes an entry", per)
	}
}

// FuzzTable runs the operations a byte string spells (two bits the
// operation, six the key) against a map.
func FuzzTable(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0x40, 0x81, 0xc2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var m model
		for i, op := range ops {
			k := fmt.Sprint(op & 63)
			if op>>6 == 3 {
				m.del(k)
			} else {
				m.put(k, i)
			}
			m.check(t, fmt.Sprint("op ", i))
		}
	})
}

// BenchmarkGet looks records up by key and reads them, as callers do.
func BenchmarkGet(b *testing.B) {
	for _, n := range []int{1, 5, 10, 1000, 50000} {
		keys := make([]string, n)
		var tab Table[rec, byKey]
		m := map[string]*rec{}
		for i := range keys {
			keys[i] = fmt.Sprintf("framework-%06d", i)
			r := &rec{key: keys[i]}
			tab.Put(r)
			m[keys[i]] = r
		}
		b.Run(fmt.Sprintf("table/n=%d", n), func(b *testing.B) {
			sum := 0
			for i := range b.N {
				sum += tab.Get(keys[i%n]).val
			}
			sink = sum
		})
		b.Run(fmt.Sprintf("map/n=%d", n), func(b *testing.B) {
			sum := 0
			for i := range b.N {
				sum += m[keys[i%n]].val
			}
			sink = sum
		})
	}
}

var sink int

// TestHashSpreadsSimilarKeys: keys that differ in a digit or two (ids,
// role paths) land in slots as random ones would: the mean distance of a
// record from the slot its hash names stays near what linear probing
// gives a random hash at the table's load (about 1 at 0.76 full), and
// the 7-bit tags take most of their 128 values.
func TestHashSpreadsSimilarKeys(t *testing.T) {
	families := map[string]func(int) string{
		"agent ids":  func(i int) string { return fmt.Sprintf("agent-%05d", i) },
		"uuids-ish":  func(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", uint64(i)*2654435761, i) },
		"role paths": func(i int) string { return fmt.Sprintf("tenant%d/team%d/r%d", i%7, i%13, i) },
		"short":      func(i int) string { return fmt.Sprint(i) },
		"long":       func(i int) string { return fmt.Sprintf("%s/%d", strings.Repeat("x", 40), i) },
		// A fold multiplies the key's first word xored with a word; were
		// that word a constant (wyhash's 0xe7037ed1a0b428db, say), keys
		// starting with it would all fold to zero and collide.
		"first word a constant": func(i int) string {
			var b [16]byte
			binary.LittleEndian.PutUint64(b[:8], 0xe7037ed1a0b428db)
			binary.LittleEndian.PutUint64(b[8:], uint64(i))
			return string(b[:])
		},
	}
	for name, key := range families {
		t.Run(name, func(t *testing.T) {
			var tab Table[rec, byKey]
			for i := range 50000 {
				tab.Put(&rec{key: key(i)})
			}
			mask := uint64(tab.size() - 1)
			tags := map[uint8]bool{}
			total := 0
			for i := range uint64(tab.size()) {
				g, r := tab.slot(i)
				if *g < tagBit {
					continue
				}
				h, tag := hash((*r).key)
				tags[tag] = true
				total += int((i - h&mask) & mask)
			}
			if mean := float64(total) / float64(tab.Len()); mean > 2.5 {
				t.Errorf("mean distance from the home slot %.2f at load %.2f", mean, float64(tab.Len())/float64(tab.size()))
			}
			if len(tags) < 120 {
				t.Errorf("%d tag values of 128", len(tags))
			}
		})
	}
}
