package codec

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/internal/wire"
	"github.com/allot-go/allot/resources"
)

// overlong writes v as an unsigned varint with extra needless bytes (a
// continuation bit set on a last group of zeros).
func overlong(v uint64, extra int) []byte {
	b := uvarint(v)
	if extra == 0 {
		return b
	}
	b[len(b)-1] |= 0x80
	for range extra - 1 {
		b = append(b, 0x80)
	}
	return append(b, 0)
}

// Every number that is a varint in the format is refused in a longer form
// than the writer's, whatever its size.
func TestNeedlessContinuationBytes(t *testing.T) {
	type primitive struct {
		name string
		// encode returns the bytes of a value whose varint (the value's
		// first) is number, in its canonical form when extra is 0.
		encode func(number uint64, extra int) []byte
		walk   func(c *Codec)
	}
	var (
		u  uint64
		i  int64
		n  int
		s  string
		b  []byte
		tm time.Time
		d  time.Duration
		u3 uint32
		i3 int32
		l  []string
	)
	data := func(number uint64, extra int) []byte {
		return cat(overlong(number, extra), make([]byte, number))
	}
	prims := []primitive{
		{"uvarint", overlong, func(c *Codec) { c.Uvarint(&u) }},
		{"varint", overlong, func(c *Codec) { c.Varint(&i) }},
		{"int", overlong, func(c *Codec) { c.Int(&n, "int") }},
		{"count", data, func(c *Codec) {
			c.count(&n, "count")
			for range n {
				c.byte(new(byte))
			}
		}},
		{"string", data, func(c *Codec) { c.String(&s) }},
		{"bytes", data, func(c *Codec) { c.bytes(&b) }},
		{"time", func(number uint64, extra int) []byte { return cat([]byte{1}, overlong(number, extra)) }, func(c *Codec) { c.Time(&tm) }},
		{"duration", overlong, func(c *Codec) { c.Duration(&d) }},
		{"walkUvarint", overlong, func(c *Codec) { WalkUvarint(c, &u3) }},
		{"walkVarint", overlong, func(c *Codec) { WalkVarint(c, &i3) }},
		{"list", data, func(c *Codec) { WalkList(c, &l, "list", func(*string) { c.byte(new(byte)) }) }},
		{"keyed", func(number uint64, extra int) []byte {
			return cat([]byte{1}, overlong(number, extra), make([]byte, number))
		}, func(c *Codec) { WalkKeyed(c, nil, "keys", "key", func(string) {}) }},
	}
	for _, p := range prims {
		for _, number := range []uint64{0, 1, 5, 127, 128, 300, 1 << 14} {
			c := readAll(t, p.encode(number, 0), p.walk)
			require.NoError(t, c.Err(), "%s %d", p.name, number)
			require.Zero(t, c.In.Left(), "%s %d", p.name, number)
			for extra := 1; extra <= 3; extra++ {
				c := readAll(t, p.encode(number, extra), p.walk)
				require.ErrorIs(t, c.Err(), wire.ErrInvalid, "%s %d with %d needless bytes", p.name, number, extra)
				require.ErrorContains(t, c.Err(), "for a value that takes", "%s %d", p.name, number)
			}
		}
	}
	// The largest: ten bytes, the most a varint takes; an eleventh is
	// refused by wire.
	c := readAll(t, uvarint(math.MaxUint64), func(c *Codec) { c.Uvarint(&u) })
	require.NoError(t, c.Err())
	require.Equal(t, uint64(math.MaxUint64), u)
	c = readAll(t, overlong(math.MaxUint64>>7, 1), func(c *Codec) { c.Uvarint(&u) })
	require.ErrorIs(t, c.Err(), wire.ErrInvalid)
	// A negative number as a varint in a needless byte more.
	c = readAll(t, overlong(1, 1), func(c *Codec) { c.Varint(&i) }) // -1
	require.ErrorContains(t, c.Err(), "2 bytes for a value that takes 1")
	// The problem says how many bytes the value took where it was met.
	c = readAll(t, cat(uvarint(1<<20), []byte{7, 7}, overlong(300, 2)), func(c *Codec) {
		c.Uvarint(&u)
		c.Uvarint(&u)
		c.Uvarint(&u)
		c.Varint(&i)
	})
	require.EqualError(t, c.Err(), "invalid at byte 9: 4 bytes for a value that takes 2")
}

// A value in package resources' binary form is refused unless it is the
// form the writer writes for it, though the form's decoder accepts it.
func TestResourcesNotAsWritten(t *testing.T) {
	var rs resources.Resources
	readRes := func(c *Codec) { c.Resources(&rs) }

	// The empty value in two bytes.
	c := refused(t, []byte{0x80, 0x00}, wire.ErrInvalid, "written otherwise than it saves", readRes)
	require.True(t, rs.IsEmpty())

	// Two entries of one kind, which the decoder merges.
	one := resources.NewEncoder().AppendResources(nil, res("cpus:1"))
	require.Equal(t, byte(1), one[0], "a new value")
	require.Equal(t, byte(1), one[1], "of one entry")
	kindEnd := 2 + 2 + int(one[3]) // kind marker, length, text
	require.Equal(t, byte(0), one[kindEnd], "no allocation role")
	twice := cat([]byte{1, 2}, one[2:], []byte{1}, one[kindEnd:])
	_, n, err := resources.NewDecoder().ReadResources(twice)
	require.NoError(t, err, "the decoder accepts it")
	require.Equal(t, len(twice), n)
	c = refused(t, twice, wire.ErrInvalid, "written otherwise than it saves", readRes)
	require.True(t, rs.Equal(res("cpus:2")), "the value read is kept: %v", rs)
	require.Contains(t, c.Err().Error(), "at byte", "the offset where it was met")

	// The same, within a longer walk: refused after the value.
	var before, after uint64
	c = readAll(t, cat([]byte{7}, twice, []byte{9}), func(c *Codec) {
		c.Uvarint(&before)
		c.Resources(&rs)
		c.Uvarint(&after)
	})
	require.ErrorContains(t, c.Err(), "written otherwise than it saves")
	require.Equal(t, uint64(7), before)
	require.Zero(t, after, "a problem leaves zero values after it")

	// Accepted forms are still accepted after a refused one elsewhere: the
	// reader's tables follow what it read.
	c = readAll(t, cat(one, []byte{2}), func(c *Codec) {
		var a, b resources.Resources
		c.Resources(&a)
		c.Resources(&b)
		require.True(t, b.Equal(res("cpus:1")))
	})
	require.NoError(t, c.Err())

	// Damaged: the decoder's error, recorded as the codec's.
	c = readAll(t, []byte{5}, readRes)
	require.ErrorIs(t, c.Err(), resources.ErrInvalidBinary)
	require.True(t, rs.IsEmpty())
	c = readAll(t, one[:len(one)-1], readRes)
	require.ErrorIs(t, c.Err(), resources.ErrInvalidBinary)
}

// amountsItem is a name's entry in quantities or limits: the name, new,
// and its amount in thousandths.
func amountsItem(name string, thousandths uint64) []byte {
	return cat([]byte{0}, uvarint(uint64(len(name))), []byte(name), uvarint(thousandths))
}

func TestQuantitiesAndLimitsNotAsWritten(t *testing.T) {
	a, b := amountsItem("cpus", 1000), amountsItem("mem", 2000)
	var q resources.Quantities
	readQ := func(c *Codec) { c.Quantities(&q) }
	var l resources.Limits
	readL := func(c *Codec) { c.Limits(&l) }

	// Of the two orders, the writer writes one; the other is refused.
	canonical := written(t, func(c *Codec) {
		q := resources.MustParseQuantities("cpus:1;mem:2")
		c.Quantities(&q)
	})
	inOrder, swapped := cat([]byte{2}, a, b), cat([]byte{2}, b, a)
	if string(canonical) == string(swapped) {
		inOrder, swapped = swapped, inOrder
	}
	require.Equal(t, canonical, inOrder)
	c := readAll(t, inOrder, readQ)
	require.NoError(t, c.Err())
	refused(t, swapped, wire.ErrInvalid, "written otherwise than it saves", readQ)
	c = readAll(t, inOrder, readL)
	require.NoError(t, c.Err())
	refused(t, swapped, wire.ErrInvalid, "written otherwise than it saves", readL)

	// An amount in a needless byte more.
	long := cat([]byte{1}, []byte{0, 4}, []byte("cpus"), overlong(1000, 1))
	refused(t, long, wire.ErrInvalid, "written otherwise than it saves", readQ)
	refused(t, long, wire.ErrInvalid, "written otherwise than it saves", readL)
	// A count in a needless byte more.
	refused(t, cat(overlong(1, 1), a), wire.ErrInvalid, "written otherwise than it saves", readQ)
	// A zero quantity is damage; a zero limit is a limit.
	zero := cat([]byte{1}, amountsItem("cpus", 0))
	refused(t, zero, resources.ErrInvalidBinary, "", readQ)
	c = readAll(t, zero, readL)
	require.NoError(t, c.Err())
	require.True(t, l.Equal(resources.MustParseLimits("cpus:0")))
	// Damaged.
	refused(t, []byte{1, 0}, resources.ErrInvalidBinary, "", readL)
	refused(t, []byte{1, 0}, resources.ErrInvalidBinary, "", readQ)
}

// The first problem is kept: Err returns it, and every read after it reads
// a zero value, takes no byte, and records nothing.
func TestFirstProblemKept(t *testing.T) {
	goodRes := resources.NewEncoder().AppendResources(nil, res("cpus:1"))
	input := cat([]byte{2}, // a boolean 2: the first problem
		[]byte{0x80, 0x00}, // an overlong varint: a second
		[]byte{5},          // a count beyond what is left
		goodRes)
	c := NewReader(input)
	b := true
	c.Bool(&b)
	require.False(t, b)
	first := c.Err()
	require.ErrorIs(t, first, wire.ErrInvalid)
	require.ErrorContains(t, first, "boolean byte 2")
	off := c.In.Offset()

	var (
		u   uint64 = 1
		i   int64  = 1
		n          = 1
		cnt        = 1
		by  byte   = 1
		f          = 1.5
		s          = "x"
		bs         = []byte("x")
		tm         = time.Now()
		d          = time.Second
		rs         = res("cpus:1")
		q          = resources.MustParseQuantities("cpus:1")
		l          = resources.MustParseLimits("cpus:1")
		u3  uint32 = 1
		i3  int32  = 1
		k   uint8  = 1
		lst        = []string{"x"}
		ks         = []string{"x"}
		m          = map[string]int{"x": 1}
		set        = map[string]struct{}{}
		opt *pair
		pf  tables.PerFramework
		br  tables.ByRole[int]
		bl  blob
	)
	calls := 0
	c.Uvarint(&u)
	c.Varint(&i)
	c.Int(&n, "n")
	c.count(&cnt, "count")
	c.Bool(&b)
	c.byte(&by)
	c.Float64(&f)
	c.String(&s)
	c.bytes(&bs)
	c.Time(&tm)
	c.Duration(&d)
	c.Resources(&rs)
	c.Quantities(&q)
	c.Limits(&l)
	WalkUvarint(c, &u3)
	WalkVarint(c, &i3)
	WalkByte(c, &k)
	WalkList(c, &lst, "list", func(*string) { calls++ })
	WalkKeys(c, &ks, "keys")
	WalkMap(c, &m, "map", "key", func(string, int) int { calls++; return 1 })
	WalkSet(c, &set, "set")
	WalkOptional(c, &opt, func(*pair) { calls++ })
	WalkKeyed(c, nil, "keyed", "key", func(string) { calls++ })
	WalkPerFramework(c, &pf, "holdings", "holding")
	WalkByRole(c, &br, "entries", "entry", "entry of role", func(int) int { calls++; return 1 })
	c.Raw("SNAP")
	require.NoError(t, c.Binary(&bl, "blob", ""))
	c.Fail(errors.New("later"))
	c.Failf("later %d", 2)
	require.False(t, c.Step(func() error { calls++; return nil }))

	require.Same(t, first, c.Err(), "the first problem is kept")
	require.Equal(t, off, c.In.Offset(), "nothing read after it")
	require.Zero(t, calls, "no item walked after it")
	require.Zero(t, u)
	require.Zero(t, i)
	require.Zero(t, n)
	require.Zero(t, cnt)
	require.False(t, b)
	require.Zero(t, by)
	require.Zero(t, f)
	require.Empty(t, s)
	require.Nil(t, bs)
	require.True(t, tm.IsZero())
	require.Zero(t, d)
	require.True(t, rs.IsEmpty())
	require.True(t, q.IsEmpty())
	require.True(t, l.Equal(resources.Limits{}))
	require.Zero(t, u3)
	require.Zero(t, i3)
	require.Zero(t, k)
	require.Nil(t, lst)
	require.Nil(t, ks)
	require.Equal(t, map[string]int{"x": 1}, m, "a map read into is left alone")
	require.Empty(t, set)
	require.Nil(t, opt)
	require.Zero(t, pf.Len())
	require.Empty(t, br.Roles())
	require.Zero(t, bl.unmarshals)
	require.NoError(t, c.StatesSaveBack())
}

// Fail and Failf keep the first problem, reading and writing; nil is none.
func TestFail(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")

	w := NewWriter(16)
	require.Equal(t, 16, cap(w.Out.B))
	require.Empty(t, w.Out.B)
	w.Fail(nil)
	require.NoError(t, w.Err())
	w.Fail(first)
	w.Fail(second)
	w.Fail(nil)
	require.Same(t, first, w.Err())

	w = NewWriter(0)
	w.Failf("sorter %q cannot be saved", "a")
	require.EqualError(t, w.Err(), `sorter "a" cannot be saved`)
	require.NotErrorIs(t, w.Err(), wire.ErrInvalid, "a writer's problem is no input's")
	w.Failf("later")
	w.Fail(second)
	require.EqualError(t, w.Err(), `sorter "a" cannot be saved`)

	r := NewReader([]byte{1, 2, 3})
	r.Fail(nil)
	require.NoError(t, r.Err())
	r.Uvarint(new(uint64))
	r.Failf("bad %s", "thing")
	require.ErrorIs(t, r.Err(), wire.ErrInvalid)
	require.EqualError(t, r.Err(), "invalid at byte 1: bad thing")
	r.Fail(second)
	r.Failf("later")
	require.EqualError(t, r.Err(), "invalid at byte 1: bad thing")

	r = NewReader(nil)
	r.Fail(first)
	r.Fail(second)
	require.Same(t, first, r.Err())
}

// Step runs a reader's step between parts, unless a problem came before,
// records its error and says whether the walk may go on; a writer has no
// steps.
func TestStep(t *testing.T) {
	w := NewWriter(0)
	calls := 0
	require.True(t, w.Step(func() error { calls++; return errors.New("no") }))
	require.Zero(t, calls)
	require.NoError(t, w.Err())
	w.Fail(errors.New("writing"))
	require.True(t, w.Step(func() error { calls++; return nil }), "a writer goes on")
	require.Zero(t, calls)

	r := NewReader(nil)
	require.True(t, r.Step(func() error { calls++; return nil }))
	require.Equal(t, 1, calls)
	require.NoError(t, r.Err())
	bad := errors.New("roles do not place")
	require.False(t, r.Step(func() error { calls++; return bad }))
	require.Equal(t, 2, calls)
	require.Same(t, bad, r.Err())
	require.False(t, r.Step(func() error { calls++; return nil }))
	require.Equal(t, 2, calls, "not run after a problem")
	require.Same(t, bad, r.Err())
}

// Part and Item describe the first problem as one of the part, or the
// item, it was met in: the innermost first, then each part around it.
func TestPartAndItem(t *testing.T) {
	walk := func(c *Codec) {
		var u uint64
		var b bool
		c.Part("header", func() { c.Uvarint(&u) })
		c.Part("agents", func() {
			for _, id := range []string{"a1", "a2"} {
				c.Item("agent", id, func() {
					c.Bool(&b)
					c.Uvarint(&u)
				})
			}
		})
		c.Part("trailer", func() { c.Bool(&b) })
	}
	good := []byte{5, 1, 7, 0, 8, 1}
	c := readAll(t, good, walk)
	require.NoError(t, c.Err())

	for _, tc := range []struct {
		input []byte
		want  string
	}{
		{nil, "header: truncated: varint at byte 0"},
		{[]byte{0x80, 0}, "header: invalid at byte 2: 2 bytes for a value that takes 1"},
		{[]byte{5}, `agents: agent "a1": truncated: byte at byte 1`},
		{[]byte{5, 2}, `agents: agent "a1": invalid at byte 2: boolean byte 2`},
		{[]byte{5, 1, 7, 0}, `agents: agent "a2": truncated: varint at byte 4`},
		{[]byte{5, 1, 7, 0, 8}, "trailer: truncated: byte at byte 5"},
		{[]byte{5, 1, 7, 0, 8, 3}, "trailer: invalid at byte 6: boolean byte 3"},
	} {
		c := readAll(t, tc.input, walk)
		require.EqualError(t, c.Err(), tc.want, "%x", tc.input)
		require.True(t, errors.Is(c.Err(), wire.ErrInvalid) || errors.Is(c.Err(), wire.ErrTruncated), "%x: %v wraps the reader's error", tc.input, c.Err())
	}

	// A problem met before a part is not the part's.
	c = NewReader([]byte{2})
	c.Bool(new(bool))
	c.Part("later", func() { c.Bool(new(bool)) })
	c.Item("agent", "a", func() {})
	require.EqualError(t, c.Err(), "invalid at byte 1: boolean byte 2")

	// A part with no problem describes nothing.
	c = NewReader([]byte{1})
	c.Part("p", func() { c.Bool(new(bool)) })
	c.Item("i", "x", func() {})
	require.NoError(t, c.Err())

	// Writing too.
	w := NewWriter(0)
	w.Part("roles", func() {
		w.Item("role", "a/b", func() { w.Fail(errors.New("cannot save")) })
	})
	w.Part("after", func() { w.Fail(errors.New("second")) })
	require.EqualError(t, w.Err(), `roles: role "a/b": cannot save`)
}

// A count of items larger than the bytes left is refused before anything
// is made for them, wherever it is.
func TestCountBeyondInput(t *testing.T) {
	var (
		l  []pair
		m  map[string]int
		s  = map[string]struct{}{}
		tb tables.Table[rec, byID]
		pf tables.PerFramework
		br tables.ByRole[int]
	)
	big := cat(uvarint(1<<40), []byte{1, 'a', 0})
	for name, walk := range map[string]func(c *Codec){
		"list": func(c *Codec) { WalkList(c, &l, "list", c.pair) },
		"map": func(c *Codec) {
			WalkMap(c, &m, "map", "key", func(_ string, v int) int { c.Int(&v, "v"); return v })
		},
		"set": func(c *Codec) { WalkSet(c, &s, "set") },
		"table": func(c *Codec) {
			WalkTable(c, &tb, "table", "key", func(k string, _ *rec) *rec { return &rec{id: k} })
		},
		"perFramework": func(c *Codec) { WalkPerFramework(c, &pf, "perFramework", "key") },
		"byRole": func(c *Codec) {
			WalkByRole(c, &br, "byRole", "entry", "key", func(v int) int { c.Int(&v, "v"); return v })
		},
	} {
		refused(t, big, wire.ErrInvalid, name+": 1099511627776 items, but 3 bytes are left", walk)
		refused(t, []byte{4, 1, 'a', 0}, wire.ErrInvalid, name+": 4 items, but 3 bytes are left", walk)
	}
	require.Nil(t, l)
	require.Nil(t, m)
	require.Empty(t, s)
	require.Zero(t, tb.Len())
	require.Zero(t, pf.Len())
	require.Empty(t, br.Roles())
}
