package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/internal/wire"
	"github.com/allot-go/allot/resources"
)

// written returns what walk writes.
func written(t *testing.T, walk func(c *Codec)) []byte {
	t.Helper()
	c := NewWriter(0)
	require.False(t, c.Reading())
	walk(c)
	require.NoError(t, c.Err())
	return slices.Clone(c.Out.B)
}

// readAll reads b with walk and returns the codec, checking that a reader
// that accepts b reads it to its end.
func readAll(t *testing.T, b []byte, walk func(c *Codec)) *Codec {
	t.Helper()
	c := NewReader(b)
	require.True(t, c.Reading())
	walk(c)
	return c
}

// roundTrip writes v with walk, reads the bytes back into a zero T with the
// same walk and returns what it read and the bytes. What is read must have
// taken every byte, and write back to the same bytes.
func roundTrip[T any](t *testing.T, v T, walk func(*Codec, *T)) (T, []byte) {
	t.Helper()
	b := written(t, func(c *Codec) { walk(c, &v) })
	var out T
	c := readAll(t, b, func(c *Codec) { walk(c, &out) })
	require.NoError(t, c.Err(), "reading %x", b)
	require.Zero(t, c.In.Left(), "reading %x: bytes left", b)
	again := out
	require.Equal(t, b, written(t, func(c *Codec) { walk(c, &again) }), "%x read back does not write back the same", b)
	return out, b
}

// refused reads b with walk and checks that the reader refuses it with an
// error wrapping want and naming what.
func refused(t *testing.T, b []byte, want error, what string, walk func(c *Codec)) *Codec {
	t.Helper()
	c := readAll(t, b, walk)
	require.Error(t, c.Err(), "%x accepted", b)
	require.ErrorIs(t, c.Err(), want, "%x", b)
	require.Contains(t, c.Err().Error(), what, "%x", b)
	return c
}

func uvarint(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestUvarintSize(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 255, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<35 - 1, 1 << 35, 1<<56 - 1, 1 << 56, 1<<63 - 1, 1 << 63, math.MaxUint64} {
		require.Equal(t, len(uvarint(v)), uvarintSize(v), "%d", v)
	}
	for shift := range 64 {
		for _, v := range []uint64{1<<shift - 1, 1 << shift, 1<<shift + 1} {
			require.Equal(t, len(uvarint(v)), uvarintSize(v), "%d", v)
		}
	}
}

func TestUvarint(t *testing.T) {
	walk := func(c *Codec, v *uint64) { c.Uvarint(v) }
	for _, v := range []uint64{0, 1, 127, 128, 300, 16383, 16384, 1 << 32, 1<<63 - 1, 1 << 63, math.MaxUint64} {
		got, b := roundTrip(t, v, walk)
		require.Equal(t, v, got)
		require.Equal(t, uvarint(v), b)
	}
}

func TestVarint(t *testing.T) {
	walk := func(c *Codec, v *int64) { c.Varint(v) }
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, -8193, 1 << 40, -1 << 40, math.MaxInt64, math.MinInt64} {
		got, b := roundTrip(t, v, walk)
		require.Equal(t, v, got)
		require.Equal(t, binary.AppendVarint(nil, v), b)
	}
}

func TestInt(t *testing.T) {
	walk := func(c *Codec, v *int) { c.Int(v, "number") }
	for _, v := range []int{0, 1, 127, 128, 300, 1 << 20, math.MaxInt32} {
		got, b := roundTrip(t, v, walk)
		require.Equal(t, v, got)
		require.Equal(t, uvarint(uint64(v)), b)
	}
	var v int
	c := refused(t, uvarint(math.MaxInt32+1), wire.ErrInvalid, "number", func(c *Codec) { c.Int(&v, "number") })
	require.Zero(t, v)
	require.Contains(t, c.Err().Error(), "above")
}

func TestCount(t *testing.T) {
	// A count and as many bytes.
	walk := func(c *Codec, v *[]byte) {
		n := len(*v)
		c.count(&n, "items")
		if c.Reading() {
			*v = make([]byte, n)
		}
		for i := range n {
			c.byte(&(*v)[i])
		}
	}
	for _, n := range []int{0, 1, 2, 127, 128, 300} {
		v := make([]byte, n)
		for i := range v {
			v[i] = byte(i)
		}
		got, b := roundTrip(t, v, walk)
		require.Equal(t, v, got)
		require.Equal(t, uvarint(uint64(n)), b[:uvarintSize(uint64(n))])
	}
	// A count as large as the bytes left is fine, one more is not.
	var n int
	c := readAll(t, []byte{3, 0, 0, 0}, func(c *Codec) { c.count(&n, "items") })
	require.NoError(t, c.Err())
	require.Equal(t, 3, n)
	c = refused(t, []byte{4, 0, 0, 0}, wire.ErrInvalid, "items", func(c *Codec) { c.count(&n, "items") })
	require.Zero(t, n)
}

func TestBool(t *testing.T) {
	walk := func(c *Codec, v *bool) { c.Bool(v) }
	got, b := roundTrip(t, true, walk)
	require.True(t, got)
	require.Equal(t, []byte{1}, b)
	got, b = roundTrip(t, false, walk)
	require.False(t, got)
	require.Equal(t, []byte{0}, b)
	v := true
	refused(t, []byte{2}, wire.ErrInvalid, "boolean", func(c *Codec) { c.Bool(&v) })
	require.False(t, v)
}

func TestByte(t *testing.T) {
	walk := func(c *Codec, v *byte) { c.byte(v) }
	for _, v := range []byte{0, 1, 0x7f, 0x80, 0xff} {
		got, b := roundTrip(t, v, walk)
		require.Equal(t, v, got)
		require.Equal(t, []byte{v}, b)
	}
	type kind uint8
	got, b := roundTrip(t, kind(200), func(c *Codec, v *kind) { WalkByte(c, v) })
	require.Equal(t, kind(200), got)
	require.Equal(t, []byte{200}, b)
}

func TestFloat64(t *testing.T) {
	walk := func(c *Codec, v *float64) { c.Float64(v) }
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1.5, math.Pi, math.SmallestNonzeroFloat64, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.Float64frombits(0x7ff8000000000001)} {
		got, b := roundTrip(t, v, walk)
		require.Equal(t, math.Float64bits(v), math.Float64bits(got))
		require.Equal(t, binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)), b)
	}
}

func TestString(t *testing.T) {
	walk := func(c *Codec, v *string) { c.String(v) }
	for _, v := range []string{"", "a", "héllo", string(make([]byte, 127)), string(make([]byte, 128)), string(make([]byte, 300))} {
		got, b := roundTrip(t, v, walk)
		require.Equal(t, v, got)
		require.Equal(t, cat(uvarint(uint64(len(v))), []byte(v)), b)
	}
	v := "x"
	refused(t, []byte{2, 0xff, 0xfe}, wire.ErrInvalid, "UTF-8", func(c *Codec) { c.String(&v) })
	require.Empty(t, v)
	v = "x"
	refused(t, []byte{3, 'a', 'b'}, wire.ErrTruncated, "", func(c *Codec) { c.String(&v) })
	require.Empty(t, v)
}

func TestBytes(t *testing.T) {
	walk := func(c *Codec, v *[]byte) { c.bytes(v) }
	for _, v := range [][]byte{nil, {0}, []byte("abc"), make([]byte, 200)} {
		got, b := roundTrip(t, v, walk)
		require.True(t, bytes.Equal(v, got), "%x", got)
		require.Equal(t, cat(uvarint(uint64(len(v))), v), b)
	}
	v := []byte("x")
	refused(t, []byte{3, 'a', 'b'}, wire.ErrTruncated, "", func(c *Codec) { c.bytes(&v) })
	require.Nil(t, v)
}

func TestTime(t *testing.T) {
	walk := func(c *Codec, v *time.Time) { c.Time(v) }
	got, b := roundTrip(t, time.Time{}, walk)
	require.True(t, got.IsZero())
	require.Equal(t, []byte{0}, b)

	for _, v := range []time.Time{
		time.Unix(0, 0),
		time.Unix(0, 5),
		time.Unix(-1, 0),
		time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.FixedZone("east", 5*3600)),
		time.Now(), // with a monotonic clock reading
		time.Unix(0, math.MaxInt64),
		time.Unix(0, math.MinInt64),
	} {
		got, b := roundTrip(t, v, walk)
		require.True(t, v.Equal(got), "%v read back as %v", v, got)
		require.Equal(t, time.UTC, got.Location())
		require.Equal(t, got.Round(0), got, "no monotonic clock reading")
		require.Equal(t, cat([]byte{1}, binary.AppendVarint(nil, v.UnixNano())), b)
	}
	v := time.Now()
	refused(t, []byte{2}, wire.ErrInvalid, "time marker", func(c *Codec) { c.Time(&v) })
	require.True(t, v.IsZero())
	v = time.Now()
	refused(t, []byte{1, 0x80, 0x00}, wire.ErrInvalid, "takes 1", func(c *Codec) { c.Time(&v) })
	v = time.Now()
	refused(t, []byte{1}, wire.ErrTruncated, "", func(c *Codec) { c.Time(&v) })
}

func TestDuration(t *testing.T) {
	walk := func(c *Codec, v *time.Duration) { c.Duration(v) }
	for _, v := range []time.Duration{0, time.Nanosecond, -5 * time.Second, time.Hour, math.MaxInt64, math.MinInt64} {
		got, b := roundTrip(t, v, walk)
		require.Equal(t, v, got)
		require.Equal(t, binary.AppendVarint(nil, int64(v)), b)
	}
}

func TestWalkUvarint(t *testing.T) {
	type u16 uint16
	type u32 uint32
	type u64 uint64
	for _, v := range []u16{0, 1, 300, math.MaxUint16} {
		got, b := roundTrip(t, v, func(c *Codec, v *u16) { WalkUvarint(c, v) })
		require.Equal(t, v, got)
		require.Equal(t, uvarint(uint64(v)), b)
	}
	for _, v := range []u32{0, 1, 1 << 20, math.MaxUint32} {
		got, _ := roundTrip(t, v, func(c *Codec, v *u32) { WalkUvarint(c, v) })
		require.Equal(t, v, got)
	}
	for _, v := range []u64{0, 1, math.MaxUint64} {
		got, _ := roundTrip(t, v, func(c *Codec, v *u64) { WalkUvarint(c, v) })
		require.Equal(t, v, got)
	}
	// Beyond the type: refused, not cut to fit.
	var s u16
	refused(t, uvarint(math.MaxUint16+1), wire.ErrInvalid, "65536 out of range", func(c *Codec) { WalkUvarint(c, &s) })
	var w u32
	refused(t, uvarint(math.MaxUint32+1), wire.ErrInvalid, "out of range", func(c *Codec) { WalkUvarint(c, &w) })
	refused(t, []byte{0x80, 0x00}, wire.ErrInvalid, "takes 1", func(c *Codec) { WalkUvarint(c, &w) })
}

func TestWalkVarint(t *testing.T) {
	type i32 int32
	type i64 int64
	for _, v := range []i32{0, 1, -1, math.MaxInt32, math.MinInt32} {
		got, b := roundTrip(t, v, func(c *Codec, v *i32) { WalkVarint(c, v) })
		require.Equal(t, v, got)
		require.Equal(t, binary.AppendVarint(nil, int64(v)), b)
	}
	for _, v := range []i64{0, -1, math.MaxInt64, math.MinInt64} {
		got, _ := roundTrip(t, v, func(c *Codec, v *i64) { WalkVarint(c, v) })
		require.Equal(t, v, got)
	}
	var s i32
	refused(t, binary.AppendVarint(nil, math.MaxInt32+1), wire.ErrInvalid, "out of range", func(c *Codec) { WalkVarint(c, &s) })
	refused(t, binary.AppendVarint(nil, math.MinInt32-1), wire.ErrInvalid, "out of range", func(c *Codec) { WalkVarint(c, &s) })
}

func res(text string) resources.Resources { return resources.MustParse(text, "*") }

func TestResources(t *testing.T) {
	walk := func(c *Codec, v *resources.Resources) { c.Resources(v) }
	for _, text := range []string{
		"",
		"cpus:1",
		"cpus:8;cpus(role1):5;mem:1024;ports:[31000-32000,33000-33010]",
		"disks:{sda,sdb};cpus(allocated: web):4",
		"disk(reservations: [(DYNAMIC,db,ops)])[id:pg,principal:ops,path:data]<SHARED>:1024<2>",
		"disk[MOUNT:/mnt/ssd]:4096; cpus{REV}:2; mem(provider: rp1):64",
	} {
		v := res(text)
		got, b := roundTrip(t, v, walk)
		require.True(t, v.Equal(got), "%s read back as %v", text, got)
		require.Equal(t, resources.NewEncoder().AppendResources(nil, v), b)
	}
	// Values written twice are written once, then referred to, and read back
	// as they were.
	type two struct{ a, b, c resources.Resources }
	shared := res("cpus:2;mem:3")
	got, b := roundTrip(t, two{shared, shared, res("cpus:2;mem:3")}, func(c *Codec, v *two) {
		c.Resources(&v.a)
		c.Resources(&v.b)
		c.Resources(&v.c)
	})
	require.True(t, got.a.Equal(shared))
	require.True(t, got.b.Equal(shared))
	require.True(t, got.c.Equal(shared))
	once := resources.NewEncoder().AppendResources(nil, shared)
	require.Equal(t, cat(once, []byte{2}), b[:len(once)+1], "the second is a reference")
}

func TestQuantitiesAndLimits(t *testing.T) {
	for _, text := range []string{"", "cpus:1", "cpus:1.5;mem:2048;gpus:1"} {
		q := resources.MustParseQuantities(text)
		got, b := roundTrip(t, q, func(c *Codec, v *resources.Quantities) { c.Quantities(v) })
		require.True(t, q.Equal(got), "%s read back as %v", text, got)
		require.Equal(t, resources.NewEncoder().AppendQuantities(nil, q), b)
	}
	for _, text := range []string{"", "cpus:0", "cpus:10;mem:0;disk:5"} {
		l := resources.MustParseLimits(text)
		got, b := roundTrip(t, l, func(c *Codec, v *resources.Limits) { c.Limits(v) })
		require.True(t, l.Equal(got), "%s read back as %v", text, got)
		require.Equal(t, resources.NewEncoder().AppendLimits(nil, l), b)
	}
}

type pair struct {
	N uint64
	S string
}

func (c *Codec) pair(p *pair) {
	c.Uvarint(&p.N)
	c.String(&p.S)
}

func TestWalkList(t *testing.T) {
	walk := func(c *Codec, s *[]pair) { WalkList(c, s, "pairs", c.pair) }
	got, b := roundTrip(t, nil, walk)
	require.Nil(t, got)
	require.Equal(t, []byte{0}, b)
	got, b = roundTrip(t, []pair{}, walk)
	require.Nil(t, got, "an empty list reads back nil")
	require.Equal(t, []byte{0}, b)
	v := []pair{{1, "a"}, {300, ""}, {0, "héllo"}}
	got, _ = roundTrip(t, v, walk)
	require.Equal(t, v, got)

	strs := []string{"b", "a", "b", ""}
	gotStrs, b := roundTrip(t, strs, func(c *Codec, s *[]string) { WalkStrings(c, s, "strings") })
	require.Equal(t, strs, gotStrs)
	require.Equal(t, []byte{4, 1, 'b', 1, 'a', 1, 'b', 0}, b)

	// A count beyond the bytes left.
	var s []pair
	calls := 0
	refused(t, []byte{5, 0, 0, 0, 0}, wire.ErrInvalid, "pairs", func(c *Codec) {
		WalkList(c, &s, "pairs", func(p *pair) { calls++; c.pair(p) })
	})
	require.Nil(t, s)
	require.Zero(t, calls)
	// A list whose items stop at the first problem.
	calls = 0
	c := refused(t, []byte{3, 1, 0, 1, 5}, wire.ErrTruncated, "", func(c *Codec) {
		WalkList(c, &s, "pairs", func(p *pair) { calls++; c.pair(p) })
	})
	require.Equal(t, 2, calls, "items stop at the first problem")
	require.Equal(t, []pair{{1, ""}, {1, ""}, {}}, s)
	require.Equal(t, 5, c.In.Offset())
}

func TestWalkKeys(t *testing.T) {
	walk := func(c *Codec, s *[]string) { WalkKeys(c, s, "keys") }
	for _, v := range [][]string{{"a"}, {"", "a"}, {"a", "b", "c"}, {"a", "ab", "b"}} {
		got, _ := roundTrip(t, v, walk)
		require.Equal(t, v, got)
	}
	got, _ := roundTrip(t, nil, walk)
	require.Nil(t, got)
	for _, bad := range [][]string{{"b", "a"}, {"a", "a"}, {"a", "c", "b"}, {"a", "b", "b"}, {"", ""}} {
		b := written(t, func(c *Codec) { WalkStrings(c, &bad, "keys") })
		var s []string
		refused(t, b, wire.ErrInvalid, "keys: \""+bad[len(bad)-1]+"\" out of order", func(c *Codec) { WalkKeys(c, &s, "keys") })
	}
	// The check stops at the first problem.
	b := written(t, func(c *Codec) { WalkStrings(c, &[]string{"c", "b", "a"}, "keys") })
	var s []string
	refused(t, b, wire.ErrInvalid, `"b" out of order`, func(c *Codec) { WalkKeys(c, &s, "keys") })
}

func TestWalkSet(t *testing.T) {
	walk := func(c *Codec, m *map[string]struct{}) {
		if c.Reading() && *m == nil {
			*m = map[string]struct{}{}
		}
		WalkSet(c, m, "names")
	}
	for _, v := range []map[string]struct{}{{}, {"a": {}}, {"": {}, "b": {}, "a": {}}} {
		got, b := roundTrip(t, v, walk)
		require.Equal(t, v, got)
		keys := tables.AppendSortedKeys(nil, "", v)
		require.Equal(t, written(t, func(c *Codec) { WalkStrings(c, &keys, "names") }), b, "a set is its names in order")
	}
	// None read into no map: fine, no map made.
	var m map[string]struct{}
	c := readAll(t, []byte{0}, func(c *Codec) { WalkSet(c, &m, "names") })
	require.NoError(t, c.Err())
	require.Nil(t, m)
	// Names into no map: refused.
	refused(t, []byte{1, 1, 'a'}, wire.ErrInvalid, "names of a set saved as none", func(c *Codec) { WalkSet(c, &m, "names") })
	// Out of order, twice.
	for _, bad := range [][]string{{"b", "a"}, {"a", "a"}} {
		b := written(t, func(c *Codec) { WalkStrings(c, &bad, "names") })
		m := map[string]struct{}{}
		refused(t, b, wire.ErrInvalid, "out of order", func(c *Codec) { WalkSet(c, &m, "names") })
	}
	// A problem before leaves the map alone.
	m = map[string]struct{}{}
	refused(t, []byte{2, 1, 'a', 1}, wire.ErrTruncated, "", func(c *Codec) { WalkSet(c, &m, "names") })
	require.Empty(t, m)
}

func TestWalkMap(t *testing.T) {
	walk := func(c *Codec, m *map[string]float64) {
		WalkMap(c, m, "weights", "weight of", func(_ string, w float64) float64 {
			c.Float64(&w)
			return w
		})
	}
	got, b := roundTrip(t, nil, walk)
	require.Nil(t, got, "no entry makes no map")
	require.Equal(t, []byte{0}, b)
	got, _ = roundTrip(t, map[string]float64{}, walk)
	require.Nil(t, got)
	v := map[string]float64{"": 1, "b": 2.5, "a": -1, "ab": 0}
	got, b = roundTrip(t, v, walk)
	require.Equal(t, v, got)
	var want []byte
	want = append(want, 4)
	for _, k := range []string{"", "a", "ab", "b"} {
		want = append(want, uvarint(uint64(len(k)))...)
		want = append(want, k...)
		want = binary.LittleEndian.AppendUint64(want, math.Float64bits(v[k]))
	}
	require.Equal(t, want, b, "size, then keys in order with their values")

	// A map made beforehand is read into, and keeps what it held.
	made := map[string]float64{"z": 9}
	c := readAll(t, b, func(c *Codec) { walk(c, &made) })
	require.NoError(t, c.Err())
	require.Equal(t, map[string]float64{"": 1, "b": 2.5, "a": -1, "ab": 0, "z": 9}, made)

	// val is given the value the map holds, and its key.
	var seen []string
	m := map[string]int{"a": 1, "b": 2}
	written(t, func(c *Codec) {
		WalkMap(c, &m, "n", "k", func(k string, v int) int {
			seen = append(seen, fmt.Sprint(k, v))
			c.Int(&v, "v")
			return v
		})
	})
	require.Equal(t, []string{"a1", "b2"}, seen)

	// Keys out of order or twice.
	for _, keys := range [][]string{{"b", "a"}, {"a", "a"}, {"a", "c", "b"}} {
		var b []byte
		b = append(b, byte(len(keys)))
		for _, k := range keys {
			b = append(b, 1, k[0])
			b = binary.LittleEndian.AppendUint64(b, 0)
		}
		var m map[string]float64
		refused(t, b, wire.ErrInvalid, "weight of \""+keys[len(keys)-1]+"\" out of order", func(c *Codec) { walk(c, &m) })
	}
	// A size beyond the bytes left.
	var mm map[string]float64
	refused(t, []byte{3, 0, 0}, wire.ErrInvalid, "weights", func(c *Codec) { walk(c, &mm) })
	require.Nil(t, mm)
}

// Nested walks keep their keys apart: an inner walk's keys go after the
// outer walk's, which go on unharmed.
func TestWalkMapNested(t *testing.T) {
	type inner = map[string]int
	walk := func(c *Codec, m *map[string]inner) {
		WalkMap(c, m, "outer", "outer key", func(_ string, in inner) inner {
			WalkMap(c, &in, "inner", "inner key", func(_ string, v int) int {
				c.Int(&v, "v")
				return v
			})
			return in
		})
	}
	v := map[string]inner{
		"a": {"x": 1, "y": 2, "z": 3},
		"b": {},
		"c": {"p": 4},
		"d": {"q": 5, "r": 6, "s": 7, "t": 8, "u": 9, "w": 10, "x": 11, "y": 12, "z": 13},
	}
	got, _ := roundTrip(t, v, walk)
	require.Equal(t, map[string]inner{"a": v["a"], "b": nil, "c": v["c"], "d": v["d"]}, got)
	c := NewWriter(0)
	walk(c, &v)
	require.Empty(t, c.keys, "the stack of keys is left empty")
	require.Equal(t, make([]string, cap(c.keys)), c.keys[:cap(c.keys)], "the stack of keys holds no string")
}

type rec struct {
	id string
	n  uint64
}

type byID struct{}

func (byID) Of(r *rec) string { return r.id }

func TestWalkTable(t *testing.T) {
	walk := func(c *Codec, tb *tables.Table[rec, byID]) {
		WalkTable(c, tb, "records", "record", func(k string, r *rec) *rec {
			if r == nil {
				r = &rec{id: k}
			}
			c.Uvarint(&r.n)
			return r
		})
	}
	var tb tables.Table[rec, byID]
	for i, id := range []string{"m", "", "b", "z", "a"} {
		tb.Put(&rec{id: id, n: uint64(i * 100)})
	}
	b := written(t, func(c *Codec) { walk(c, &tb) })
	var got tables.Table[rec, byID]
	c := readAll(t, b, func(c *Codec) { walk(c, &got) })
	require.NoError(t, c.Err())
	require.Zero(t, c.In.Left())
	require.Equal(t, tb.Keys(), got.Keys())
	for _, k := range tb.Keys() {
		r, ok := got.Lookup(k)
		require.True(t, ok, k)
		require.Equal(t, *tb.Get(k), *r)
	}
	require.Equal(t, b, written(t, func(c *Codec) { walk(c, &got) }))
	require.Equal(t, cat([]byte{5, 0}, uvarint(100), []byte{1, 'a'}, uvarint(400), []byte{1, 'b'}, uvarint(200)), b[:11])

	// val is given the record a table holds.
	pre := tables.Table[rec, byID]{}
	kept := &rec{id: "a", n: 5}
	pre.Put(kept)
	c = readAll(t, []byte{1, 1, 'a', 7}, func(c *Codec) { walk(c, &pre) })
	require.NoError(t, c.Err())
	require.Same(t, kept, pre.Get("a"))
	require.Equal(t, uint64(7), kept.n)

	var bad tables.Table[rec, byID]
	refused(t, []byte{2, 1, 'b', 0, 1, 'a', 0}, wire.ErrInvalid, `record "a" out of order`, func(c *Codec) { walk(c, &bad) })
	refused(t, []byte{2, 1, 'a', 0, 1, 'a', 0}, wire.ErrInvalid, `record "a" out of order`, func(c *Codec) { walk(c, &bad) })
	refused(t, []byte{9, 1, 'a', 0}, wire.ErrInvalid, "records", func(c *Codec) { walk(c, &bad) })
}

func TestWalkPerFramework(t *testing.T) {
	walk := func(c *Codec, p *tables.PerFramework) { WalkPerFramework(c, p, "holdings", "holding of framework") }
	var p tables.PerFramework
	got, b := roundTrip(t, p, walk)
	require.Zero(t, got.Len())
	require.Equal(t, []byte{0}, b)

	p.Set("f2", res("cpus:1"))
	p.Set("f1", res("mem:2"))
	p.Set("f3", res("cpus:1;mem:2"))
	got, b = roundTrip(t, p, walk)
	require.Equal(t, []string{"f1", "f2", "f3"}, got.IDs())
	for _, id := range p.IDs() {
		want, have := p.Get(id), got.Get(id)
		require.True(t, want.Equal(have), "%s: %v, want %v", id, have, want)
	}
	enc := resources.NewEncoder()
	want := []byte{3}
	for _, id := range []string{"f1", "f2", "f3"} {
		want = append(want, 2)
		want = append(want, id...)
		want = enc.AppendResources(want, p.Get(id))
	}
	require.Equal(t, want, b)

	// An empty entry: an agent keeps none.
	var q tables.PerFramework
	refused(t, []byte{1, 2, 'f', '1', 0}, wire.ErrInvalid, `empty holding of framework "f1"`, func(c *Codec) { walk(c, &q) })
	// Out of order, twice.
	one := resources.NewEncoder().AppendResources(nil, res("cpus:1"))
	for _, ids := range [][]string{{"f2", "f1"}, {"f1", "f1"}} {
		b := cat([]byte{2, 2}, []byte(ids[0]), one, []byte{2}, []byte(ids[1]), []byte{2})
		var q tables.PerFramework
		refused(t, b, wire.ErrInvalid, `holding of framework "`+ids[1]+`" out of order`, func(c *Codec) { walk(c, &q) })
	}
}

func TestWalkByRole(t *testing.T) {
	walk := func(c *Codec, m *tables.ByRole[*pair]) {
		WalkByRole(c, m, "indexes", "index", "index of role", func(p *pair) *pair {
			if p == nil {
				p = &pair{}
			}
			c.pair(p)
			return p
		})
	}
	var m tables.ByRole[*pair]
	got, b := roundTrip(t, m, walk)
	require.Empty(t, got.Roles())
	require.Equal(t, []byte{0}, b)

	m.Set("web", &pair{1, "w"})
	m.Set("db", &pair{2, "d"})
	m.Set("a/b", &pair{3, ""})
	got, b = roundTrip(t, m, walk)
	require.Equal(t, []string{"a/b", "db", "web"}, got.Roles())
	for _, role := range m.Roles() {
		want, _ := m.Get(role)
		have, ok := got.Get(role)
		require.True(t, ok)
		require.Equal(t, *want, *have)
	}
	require.Equal(t, []byte{3, 3, 'a', '/', 'b', 3, 0, 2, 'd', 'b', 2, 1, 'd', 3, 'w', 'e', 'b', 1, 1, 'w'}, b)

	// val is given the entry there is.
	kept := &pair{9, "k"}
	var pre tables.ByRole[*pair]
	pre.Set("db", kept)
	c := readAll(t, []byte{1, 2, 'd', 'b', 4, 0}, func(c *Codec) { walk(c, &pre) })
	require.NoError(t, c.Err())
	have, _ := pre.Get("db")
	require.Same(t, kept, have)
	require.Equal(t, pair{4, ""}, *kept)

	// The empty role, read or written.
	var bad tables.ByRole[*pair]
	refused(t, []byte{1, 0, 1, 0}, wire.ErrInvalid, "a index with no role", func(c *Codec) { walk(c, &bad) })
	withEmpty := tables.ByRole[*pair]{Role: "a", First: &pair{}, More: map[string]*pair{"": {}}}
	w := NewWriter(0)
	walk(w, &withEmpty)
	require.Error(t, w.Err())
	require.Contains(t, w.Err().Error(), "a index with no role")
	// Out of order, twice.
	refused(t, []byte{2, 1, 'b', 0, 0, 1, 'a', 0, 0}, wire.ErrInvalid, `index of role "a" out of order`, func(c *Codec) { walk(c, &bad) })
	refused(t, []byte{2, 1, 'a', 0, 0, 1, 'a', 0, 0}, wire.ErrInvalid, `index of role "a" out of order`, func(c *Codec) { walk(c, &bad) })
}

func TestWalkKeyed(t *testing.T) {
	var got []string
	b := written(t, func(c *Codec) {
		WalkKeyed(c, []string{"", "a", "b"}, "n", "k", func(k string) { got = append(got, k) })
	})
	require.Equal(t, []string{"", "a", "b"}, got)
	require.Equal(t, []byte{3, 0, 1, 'a', 1, 'b'}, b)
	got = nil
	c := readAll(t, b, func(c *Codec) {
		WalkKeyed(c, nil, "n", "k", func(k string) { got = append(got, k) })
	})
	require.NoError(t, c.Err())
	require.Equal(t, []string{"", "a", "b"}, got)
	// The empty key comes first, once.
	refused(t, []byte{2, 0, 0}, wire.ErrInvalid, `k "" out of order`, func(c *Codec) {
		WalkKeyed(c, nil, "n", "k", func(string) {})
	})
}

func TestWalkOptional(t *testing.T) {
	walk := func(c *Codec, p **pair) { WalkOptional(c, p, c.pair) }
	got, b := roundTrip(t, nil, walk)
	require.Nil(t, got)
	require.Equal(t, []byte{0}, b)
	got, b = roundTrip(t, &pair{5, "x"}, walk)
	require.Equal(t, &pair{5, "x"}, got)
	require.Equal(t, []byte{1, 5, 1, 'x'}, b)
	got, b = roundTrip(t, &pair{}, walk)
	require.Equal(t, &pair{}, got, "a zero value there is there")
	require.Equal(t, []byte{1, 0, 0}, b)

	// Read into a value there is, it is kept.
	kept := &pair{7, "old"}
	p := kept
	c := readAll(t, []byte{1, 5, 1, 'x'}, func(c *Codec) { walk(c, &p) })
	require.NoError(t, c.Err())
	require.Same(t, kept, p)
	require.Equal(t, pair{5, "x"}, *kept)

	var q *pair
	refused(t, []byte{2}, wire.ErrInvalid, "boolean", func(c *Codec) { walk(c, &q) })
	require.Nil(t, q)
}

func TestRaw(t *testing.T) {
	b := written(t, func(c *Codec) {
		c.Raw("SNAP")
		c.Raw("")
		seven := byte(7)
		c.byte(&seven)
	})
	require.Equal(t, []byte("SNAP\x07"), b)
	var v byte
	c := readAll(t, b, func(c *Codec) {
		c.Raw("SNAP")
		c.Raw("")
		c.byte(&v)
	})
	require.NoError(t, c.Err())
	require.Equal(t, byte(7), v)

	refused(t, []byte("SNAQ\x07"), wire.ErrInvalid, `does not start with "SNAP"`, func(c *Codec) { c.Raw("SNAP") })
	refused(t, []byte("SNA"), wire.ErrInvalid, `does not start with "SNAP"`, func(c *Codec) { c.Raw("SNAP") })
	c = refused(t, []byte("XSNAP"), wire.ErrInvalid, `does not start with "SNAP"`, func(c *Codec) {
		c.Raw("SNAP")
		c.byte(&v)
	})
	require.Contains(t, c.Err().Error(), "at byte 0")

	// After a problem, raw records none of its own.
	c = readAll(t, []byte{2, 'X'}, func(c *Codec) {
		c.Bool(new(bool))
		c.Raw("SNAP")
	})
	require.ErrorContains(t, c.Err(), "boolean byte 2")
}

// blob is a value with a binary form of its own: its bytes, which must not
// start with 0xff; once read, it saves back what it holds then.
type blob struct {
	data       []byte
	marshalErr error
	unmarshals int
}

var errBlob = errors.New("a blob starting with 0xff")

func (b *blob) MarshalBinary() ([]byte, error) {
	if b.marshalErr != nil {
		return nil, b.marshalErr
	}
	return b.data, nil
}

func (b *blob) UnmarshalBinary(data []byte) error {
	b.unmarshals++
	if len(data) > 0 && data[0] == 0xff {
		return errBlob
	}
	b.data = bytes.Clone(data)
	return nil
}

func TestBinary(t *testing.T) {
	for _, data := range [][]byte{nil, {0}, []byte("state"), make([]byte, 200)} {
		src := &blob{data: data}
		b := written(t, func(c *Codec) { require.NoError(t, c.Binary(src, "blob", "")) })
		require.Equal(t, cat(uvarint(uint64(len(data))), data), b)
		var dst blob
		c := readAll(t, b, func(c *Codec) { require.NoError(t, c.Binary(&dst, "blob", "")) })
		require.NoError(t, c.Err())
		require.Zero(t, c.In.Left())
		require.True(t, bytes.Equal(data, dst.data))
		require.NoError(t, c.StatesSaveBack())
	}

	// The value's own error, writing: returned, nothing written, no
	// problem recorded.
	boom := errors.New("boom")
	w := NewWriter(0)
	require.ErrorIs(t, w.Binary(&blob{marshalErr: boom}, "blob", ""), boom)
	require.Empty(t, w.Out.B)
	require.NoError(t, w.Err())

	// The value's own error, reading: returned, for the caller to
	// describe; the value is not checked to save back.
	var bad blob
	c := NewReader([]byte{2, 0xff, 0})
	require.ErrorIs(t, c.Binary(&bad, "blob", ""), errBlob)
	require.NoError(t, c.Err())
	require.Equal(t, 1, bad.unmarshals)
	require.NoError(t, c.StatesSaveBack())

	// A problem with the input: recorded, the value left alone.
	var cut blob
	c = NewReader([]byte{5, 1, 2})
	require.NoError(t, c.Binary(&cut, "blob", ""))
	require.ErrorIs(t, c.Err(), wire.ErrTruncated)
	require.Zero(t, cut.unmarshals)
	require.NoError(t, c.StatesSaveBack())
	c = NewReader([]byte{0x80, 0x00})
	require.NoError(t, c.Binary(&cut, "blob", ""))
	require.ErrorIs(t, c.Err(), wire.ErrInvalid, "a needless continuation byte")
	require.Zero(t, cut.unmarshals)
	// After a problem, nothing is read.
	c = NewReader([]byte{2, 1, 'a'})
	c.Bool(new(bool))
	require.NoError(t, c.Binary(&cut, "blob", ""))
	require.Zero(t, cut.unmarshals)
}

func TestStatesSaveBack(t *testing.T) {
	b := written(t, func(c *Codec) {
		require.NoError(t, c.Binary(&blob{data: []byte("one")}, "sorter", "role a"))
		require.NoError(t, c.Binary(&blob{data: []byte("two")}, "random source", ""))
		require.NoError(t, c.Binary(&blob{data: []byte("three")}, "sorter", "role b"))
	})
	read := func() (*Codec, []*blob) {
		blobs := []*blob{{}, {}, {}}
		c := readAll(t, b, func(c *Codec) {
			require.NoError(t, c.Binary(blobs[0], "sorter", "role a"))
			require.NoError(t, c.Binary(blobs[1], "random source", ""))
			require.NoError(t, c.Binary(blobs[2], "sorter", "role b"))
		})
		require.NoError(t, c.Err())
		return c, blobs
	}
	c, _ := read()
	require.NoError(t, c.StatesSaveBack())

	c, blobs := read()
	blobs[2].data = []byte("changed")
	require.EqualError(t, c.StatesSaveBack(), `sorter "role b": the state read does not save back to the same bytes`)
	blobs[1].data = []byte("changed")
	require.EqualError(t, c.StatesSaveBack(), `random source: the state read does not save back to the same bytes`, "the first one")

	c, blobs = read()
	boom := errors.New("boom")
	blobs[0].marshalErr = boom
	err := c.StatesSaveBack()
	require.ErrorIs(t, err, boom)
	require.EqualError(t, err, `sorter "role a": boom`)
	c, blobs = read()
	blobs[1].marshalErr = boom
	require.EqualError(t, c.StatesSaveBack(), `random source: boom`)
}
