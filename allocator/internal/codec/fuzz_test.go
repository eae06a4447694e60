package codec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

type kind uint8

// sample holds a value of every kind the codec walks.
type sample struct {
	u      uint64
	v      int64
	n      int
	b      bool
	by     byte
	f      float64
	s      string
	raw    []byte
	tm     time.Time
	d      time.Duration
	r1, r2 resources.Resources
	q      resources.Quantities
	l      resources.Limits
	k      kind
	u16    uint16
	u32    uint32
	i32    int32
	list   []pair
	strs   []string
	keys   []string
	set    map[string]struct{}
	m      map[string]float64
	tab    tables.Table[rec, byID]
	pf     tables.PerFramework
	br     tables.ByRole[*pair]
	opt    *pair
	blob   blob
}

// newSample returns a sample to read into (a set is read into a map made
// beforehand).
func newSample() *sample { return &sample{set: map[string]struct{}{}} }

// fullSample returns a sample with something in every field.
func fullSample() *sample {
	s := &sample{
		u: 300, v: -70, n: 1 << 20, b: true, by: 0xfe, f: -2.5,
		s: "héllo", raw: []byte{0, 1, 2},
		tm: time.Date(2024, 5, 6, 7, 8, 9, 10, time.UTC), d: -3 * time.Second,
		r1: res("cpus:2;mem:1024;ports:[1-5,7-9];disks:{a,b}"),
		q:  resources.MustParseQuantities("cpus:1;mem:2"),
		l:  resources.MustParseLimits("cpus:0;disk:5"),
		k:  7, u16: 65535, u32: 1 << 31, i32: math.MinInt32,
		list: []pair{{1, "a"}, {2, ""}},
		strs: []string{"z", "a", "z"},
		keys: []string{"", "a", "b"},
		set:  map[string]struct{}{"x": {}, "y": {}},
		m:    map[string]float64{"a": 1, "b": math.Inf(1)},
		opt:  &pair{9, "opt"},
		blob: blob{data: []byte("state")},
	}
	s.r2 = s.r1
	s.tab.Put(&rec{id: "r2", n: 2})
	s.tab.Put(&rec{id: "r1", n: 1})
	s.pf.Set("f1", res("cpus:1"))
	s.pf.Set("f2", s.r1)
	s.br.Set("web", &pair{3, "w"})
	s.br.Set("db", &pair{4, "d"})
	return s
}

// part is a part of a sample's bytes, as walkSample met it.
type part struct {
	name       string
	start, end int
}

// walkSample walks s in parts, noting each part's bytes in parts (when not
// nil).
func walkSample(c *Codec, s *sample, parts *[]part) {
	offset := func() int {
		if c.Reading() {
			return c.In.Offset()
		}
		return len(c.Out.B)
	}
	run := func(name string, walk func()) {
		start := offset()
		c.Part(name, walk)
		if parts != nil {
			*parts = append(*parts, part{name, start, offset()})
		}
	}
	run("magic", func() { c.Raw("SAMPLE") })
	run("numbers", func() {
		c.Uvarint(&s.u)
		c.Varint(&s.v)
		c.Int(&s.n, "number")
		c.Bool(&s.b)
		c.byte(&s.by)
		c.Float64(&s.f)
		WalkByte(c, &s.k)
		WalkUvarint(c, &s.u16)
		WalkUvarint(c, &s.u32)
		WalkVarint(c, &s.i32)
	})
	run("text", func() {
		c.String(&s.s)
		c.bytes(&s.raw)
	})
	run("time", func() {
		c.Time(&s.tm)
		c.Duration(&s.d)
	})
	run("resources", func() {
		c.Resources(&s.r1)
		c.Resources(&s.r2)
		c.Quantities(&s.q)
		c.Limits(&s.l)
	})
	run("lists", func() {
		WalkList(c, &s.list, "pairs", c.pair)
		WalkStrings(c, &s.strs, "strings")
		WalkKeys(c, &s.keys, "keys")
		WalkSet(c, &s.set, "set")
	})
	run("maps", func() {
		WalkMap(c, &s.m, "map", "key", func(_ string, f float64) float64 {
			c.Float64(&f)
			return f
		})
		WalkTable(c, &s.tab, "records", "record", func(k string, r *rec) *rec {
			if r == nil {
				r = &rec{id: k}
			}
			c.Item("record", k, func() { c.Uvarint(&r.n) })
			return r
		})
	})
	run("holdings", func() {
		WalkPerFramework(c, &s.pf, "holdings", "holding")
	})
	run("roles", func() {
		WalkByRole(c, &s.br, "entries", "entry", "entry of role", func(p *pair) *pair {
			if p == nil {
				p = &pair{}
			}
			c.pair(p)
			return p
		})
	})
	run("optional", func() { WalkOptional(c, &s.opt, c.pair) })
	run("binary", func() {
		if err := c.Binary(&s.blob, "blob", "b"); err != nil {
			c.Fail(fmt.Errorf("blob: %w", err))
		}
	})
}

func writeSample(t testing.TB, s *sample) ([]byte, []part) {
	c := NewWriter(64)
	var parts []part
	walkSample(c, s, &parts)
	if c.Err() != nil {
		t.Fatalf("writing: %v", c.Err())
	}
	// Each walk took its keys off the codec's stack, and left no string
	// there.
	if len(c.keys) != 0 {
		t.Fatalf("keys left on the stack: %q", c.keys)
	}
	for _, k := range c.keys[:cap(c.keys)] {
		if k != "" {
			t.Fatalf("a key left behind the stack: %q", c.keys[:cap(c.keys)])
		}
	}
	return c.Out.B, parts
}

// checkWritesBack reads data as a sample: whatever the reader accepts (and
// whatever it refuses), it must not panic, and what it accepts must write
// back to the bytes it read.
func checkWritesBack(t testing.TB, data []byte) (accepted bool) {
	s := newSample()
	c := NewReader(data)
	walkSample(c, s, nil)
	if c.In.Offset() > len(data) || c.In.Offset() < 0 {
		t.Fatalf("%x: read to offset %d", data, c.In.Offset())
	}
	if c.Err() != nil {
		if !strings.Contains(c.Err().Error(), ": ") {
			t.Fatalf("%x: %v names no part", data, c.Err())
		}
		return false
	}
	if err := c.StatesSaveBack(); err != nil {
		return false
	}
	again, _ := writeSample(t, s)
	if read := data[:c.In.Offset()]; string(again) != string(read) {
		t.Fatalf("accepted %x, which writes back as %x", read, again)
	}
	return true
}

// A sample with something in every field reads back as written, to the
// same bytes.
func TestSampleRoundTrip(t *testing.T) {
	for _, s := range []*sample{newSample(), fullSample()} {
		data, parts := writeSample(t, s)
		require.True(t, checkWritesBack(t, data))
		got := newSample()
		c := NewReader(data)
		var readParts []part
		walkSample(c, got, &readParts)
		require.NoError(t, c.Err())
		require.Equal(t, parts, readParts, "a reader meets the parts where the writer wrote them")
		require.Equal(t, s.u, got.u)
		require.Equal(t, s.v, got.v)
		require.Equal(t, s.n, got.n)
		require.Equal(t, s.b, got.b)
		require.Equal(t, s.by, got.by)
		require.Equal(t, s.f, got.f)
		require.Equal(t, s.s, got.s)
		require.Equal(t, len(s.raw), len(got.raw))
		require.True(t, s.tm.Equal(got.tm))
		require.Equal(t, s.d, got.d)
		require.True(t, s.r1.Equal(got.r1))
		require.True(t, s.r2.Equal(got.r2))
		require.True(t, s.q.Equal(got.q))
		require.True(t, s.l.Equal(got.l))
		require.Equal(t, s.k, got.k)
		require.Equal(t, s.u16, got.u16)
		require.Equal(t, s.u32, got.u32)
		require.Equal(t, s.i32, got.i32)
		require.Equal(t, len(s.list), len(got.list))
		require.Equal(t, s.opt, got.opt)
		require.Equal(t, s.pf.IDs(), got.pf.IDs())
		require.Equal(t, s.br.Roles(), got.br.Roles())
		require.Equal(t, s.tab.Keys(), got.tab.Keys())
		require.NoError(t, c.StatesSaveBack())
	}
}

// Every cut of a sample is refused, as a problem of the part it cut.
func TestSampleTruncated(t *testing.T) {
	data, parts := writeSample(t, fullSample())
	for _, p := range parts {
		require.Less(t, p.start, p.end, "part %s is empty", p.name)
	}
	for cut := range len(data) {
		c := NewReader(data[:cut])
		walkSample(c, newSample(), nil)
		require.Error(t, c.Err(), "cut at %d accepted", cut)
		for _, p := range parts {
			if p.start <= cut && cut < p.end {
				require.True(t, strings.HasPrefix(c.Err().Error(), p.name+": "), "cut at %d (in %s): %v", cut, p.name, c.Err())
			}
		}
	}
}

// Damage to a sample: whatever of it is accepted writes back to the same
// bytes. Deterministic, so that it runs with the tests.
func TestSampleDamaged(t *testing.T) {
	data, _ := writeSample(t, fullSample())
	accepted := 0
	for i := range data {
		for _, b := range []byte{0, 1, 2, data[i] + 1, data[i] - 1, data[i] ^ 0x80, 0x80, 0xff} {
			damaged := append([]byte(nil), data...)
			damaged[i] = b
			if checkWritesBack(t, damaged) {
				accepted++
			}
		}
	}
	const seed = 17
	rng := rand.New(rand.NewPCG(seed, 8))
	for round := range 2000 {
		damaged := append([]byte(nil), data...)
		for range 1 + rng.IntN(3) {
			switch i := rng.IntN(len(damaged)); rng.IntN(3) {
			case 0:
				damaged[i] = byte(rng.Uint32())
			case 1:
				damaged = append(damaged[:i], damaged[i+1:]...)
			case 2:
				damaged = append(damaged[:i], append([]byte{byte(rng.Uint32())}, damaged[i:]...)...)
			}
		}
		t.Run("", func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("seed %d round %d", seed, round)
				}
			}()
			if checkWritesBack(t, damaged) {
				accepted++
			}
		})
	}
	require.Positive(t, accepted, "some damage is a sample still")
}

// FuzzReader: the reader never panics, and whatever it accepts writes back
// to the bytes it read.
func FuzzReader(f *testing.F) {
	for _, s := range []*sample{newSample(), fullSample()} {
		data, _ := writeSample(f, s)
		f.Add(data)
	}
	other := fullSample()
	other.tm = time.Time{}
	other.opt = nil
	other.r2 = res("cpus(role1):3")
	other.m = nil
	data, _ := writeSample(f, other)
	f.Add(data)
	f.Add([]byte("SAMPLE"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWritesBack(t, data)
	})
}

// WalkPerFramework refuses a holding of the framework "", as WalkByRole
// refuses the empty role: tables.PerFramework cannot hold it (Set("", ...)
// on an empty one drops it), so what was read would not write back to the
// same bytes.
func TestWalkPerFrameworkEmptyID(t *testing.T) {
	one := resources.NewEncoder().AppendResources(nil, res("cpus:1"))
	data := cat([]byte{1, 0}, one) // one holding, of the framework ""
	var p tables.PerFramework
	c := readAll(t, data, func(c *Codec) { WalkPerFramework(c, &p, "holdings", "holding") })
	require.ErrorContains(t, c.Err(), "no framework")
	require.Error(t, c.Err())
}
