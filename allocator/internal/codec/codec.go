package codec

import (
	"bytes"
	"encoding"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/internal/keyed"
	"github.com/allot-go/allot/internal/wire"
	"github.com/allot-go/allot/resources"
)

// Codec is one direction of the snapshot format: it encodes the values
// it is handed (writing) or decodes into them (reading). Each primitive
// holds both directions side by side. It is a concrete type rather than an
// interface with a writer and a reader behind it: a pointer passed to an
// interface method escapes, which would put every count, key and map value
// a walk handles on the heap.
type Codec struct {
	// r is the input when reading; nil when writing.
	In  *wire.Reader
	dec *resources.Decoder
	// again re-encodes, when reading, each value read in package
	// resources' binary form, into scratch: a value read must be in the
	// one form Snapshot writes for it (see sameForm).
	again   *resources.Encoder
	scratch []byte
	// states are the values with a binary form of their own read, with
	// the bytes they were read from (see statesSaveBack).
	states []readState
	// w is the output when writing; enc is one Encoder for the whole
	// snapshot, so each kind of resource and each shared value is written
	// once.
	Out wire.Writer
	enc *resources.Encoder
	// werr is the first problem met when writing (a sorter that cannot be
	// saved, say).
	werr error
	// keys holds, when writing, the sorted keys of the walks under way,
	// the inner ones after the outer ones (see pushKeys).
	keys []string
	// described is the first problem met, described as one of the parts
	// it was met in (see part); nil until one is.
	described error
}

// NewWriter returns a codec that writes a snapshot into a buffer
// of capacity size.
func NewWriter(size int) *Codec {
	c := &Codec{enc: resources.NewEncoder()}
	c.Out.B = make([]byte, 0, size)
	return c
}

// NewReader returns a codec that reads the snapshot body.
func NewReader(body []byte) *Codec {
	return &Codec{In: wire.NewReader(body), dec: resources.NewDecoder(), again: resources.NewEncoder()}
}

// Reading reports whether the codec decodes (Restore) rather than encodes
// (Snapshot).
func (c *Codec) Reading() bool { return c.In != nil }

// Err returns the first problem met, or nil.
func (c *Codec) Err() error {
	switch {
	case c.described != nil:
		return c.described
	case c.Reading():
		return c.In.Err()
	}
	return c.werr
}

// Part walks a part of the snapshot (walk); the first problem, when met
// within it, is described as one of that part.
func (c *Codec) Part(name string, walk func()) {
	ok := c.Err() == nil
	walk()
	if err := c.Err(); ok && err != nil {
		c.described = fmt.Errorf("%s: %w", name, err)
	}
}

// Item walks a part of the snapshot named by an id, as part does.
func (c *Codec) Item(kind, id string, walk func()) {
	ok := c.Err() == nil
	walk()
	if err := c.Err(); ok && err != nil {
		c.described = fmt.Errorf("%s %q: %w", kind, id, err)
	}
}

// Fail records err, unless a problem is recorded already.
func (c *Codec) Fail(err error) {
	switch {
	case err == nil:
	case c.Reading():
		c.In.Fail(err)
	case c.werr == nil:
		c.werr = err
	}
}

// Failf records a problem with what was read, at the current offset
// (wire.ErrInvalid), unless a problem is recorded already.
func (c *Codec) Failf(format string, args ...any) {
	if c.Reading() {
		c.In.Failf(format, args...)
		return
	}
	c.Fail(fmt.Errorf(format, args...))
}

// Step runs a reader's step between two parts of a walk, unless a problem
// is recorded already, and records its error; it reports whether the walk
// may go on. A writer has no such steps.
func (c *Codec) Step(f func() error) bool {
	if !c.Reading() {
		return true
	}
	if c.Err() == nil {
		c.In.Fail(f())
	}
	return c.Err() == nil
}

// Raw is a fixed string without a length.
func (c *Codec) Raw(s string) {
	if !c.Reading() {
		c.Out.B = append(c.Out.B, s...)
		return
	}
	if c.In.Err() == nil && !bytes.HasPrefix(c.In.Rest(), []byte(s)) {
		c.In.Failf("does not start with %q", s)
	}
	c.In.Skip(len(s))
}

// A value has one encoding, and a reader refuses any other: a snapshot
// that reads must save back to the same bytes. So a varint must take no
// more bytes than it needs (binary.Uvarint accepts more), a value in
// package resources' binary form must be the one the reader's own
// encoder, fed the same values, writes (the form's decoder accepts more:
// overlong varints, entries that merge), and a value with a binary form of
// its own must marshal back to the bytes it was read from once the state
// is restored (statesSaveBack).

// uvarintSize is the number of bytes of v as an unsigned varint.
func uvarintSize(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// canonical checks, after a read that started at offset start, that what
// was read took size bytes.
func (c *Codec) canonical(start, size int) {
	if c.In.Err() == nil && c.In.Offset()-start != size {
		c.In.Failf("%d bytes for a value that takes %d", c.In.Offset()-start, size)
	}
}

// Uvarint is an unsigned varint.
func (c *Codec) Uvarint(v *uint64) {
	if !c.Reading() {
		c.Out.Uvarint(*v)
		return
	}
	start := c.In.Offset()
	*v = c.In.Uvarint()
	c.canonical(start, uvarintSize(*v))
}

// Varint is a signed (zig-zag) varint.
func (c *Codec) Varint(v *int64) {
	if !c.Reading() {
		c.Out.Varint(*v)
		return
	}
	start := c.In.Offset()
	*v = c.In.Varint()
	c.canonical(start, uvarintSize(uint64(*v)<<1^uint64(*v>>63)))
}

// Int is a non-negative number as an unsigned varint, at most
// math.MaxInt32 when read; what names it in errors.
func (c *Codec) Int(v *int, what string) {
	if !c.Reading() {
		c.Out.Int(*v)
		return
	}
	start := c.In.Offset()
	*v = c.In.Int(math.MaxInt32, what)
	c.canonical(start, uvarintSize(uint64(*v)))
}

// count is the number of items to come, as an unsigned varint: a reader
// refuses more items than there are bytes left, so a damaged count cannot
// make it allocate beyond the input's size.
func (c *Codec) count(n *int, what string) {
	if !c.Reading() {
		c.Out.Int(*n)
		return
	}
	start := c.In.Offset()
	*n = c.In.Count(what)
	c.canonical(start, uvarintSize(uint64(*n)))
}

// Bool is a byte, 0 or 1.
func (c *Codec) Bool(v *bool) {
	if c.Reading() {
		*v = c.In.Bool()
		return
	}
	c.Out.Bool(*v)
}

// byte is one byte.
func (c *Codec) byte(v *byte) {
	if c.Reading() {
		*v = c.In.Byte()
		return
	}
	c.Out.Byte(*v)
}

// Float64 is the bits of a float64, eight bytes little-endian.
func (c *Codec) Float64(v *float64) {
	if c.Reading() {
		*v = c.In.Float64()
		return
	}
	c.Out.Float64(*v)
}

// String is a length and the string's bytes, valid UTF-8.
func (c *Codec) String(v *string) {
	if !c.Reading() {
		c.Out.String(*v)
		return
	}
	start := c.In.Offset()
	*v = c.In.String()
	c.canonical(start, uvarintSize(uint64(len(*v)))+len(*v))
}

// bytes is a length and the bytes; read, they share the input's storage.
func (c *Codec) bytes(v *[]byte) {
	if !c.Reading() {
		c.Out.Bytes(*v)
		return
	}
	start := c.In.Offset()
	*v = c.In.Bytes()
	c.canonical(start, uvarintSize(uint64(len(*v)))+len(*v))
}

// Time is 0 for the zero time, or 1 and the Unix nanoseconds as a signed
// varint; it is read back in UTC, without a monotonic clock reading.
func (c *Codec) Time(v *time.Time) {
	if !c.Reading() {
		if v.IsZero() {
			c.Out.Byte(0)
			return
		}
		c.Out.Byte(1)
		c.Out.Varint(v.UnixNano())
		return
	}
	switch c.In.Byte() {
	case 0:
		*v = time.Time{}
	case 1:
		var ns int64
		c.Varint(&ns)
		*v = time.Unix(0, ns).UTC()
	default:
		c.In.Failf("time marker")
		*v = time.Time{}
	}
}

// Duration is a signed varint of nanoseconds.
func (c *Codec) Duration(v *time.Duration) {
	WalkVarint(c, v)
}

// Resources are in package resources' binary form.
func (c *Codec) Resources(v *resources.Resources) {
	if !c.Reading() {
		c.Out.B = c.enc.AppendResources(c.Out.B, *v)
		return
	}
	read := c.In.Rest()
	rs, n, err := c.dec.ReadResources(read)
	c.In.Skip(n)
	c.In.Fail(err)
	*v = rs
	if c.In.Err() == nil {
		c.sameForm(read[:n], c.again.AppendResources(c.scratch[:0], rs))
	}
}

// Quantities are in package resources' binary form.
func (c *Codec) Quantities(v *resources.Quantities) {
	if !c.Reading() {
		c.Out.B = c.enc.AppendQuantities(c.Out.B, *v)
		return
	}
	read := c.In.Rest()
	q, n, err := c.dec.ReadQuantities(read)
	c.In.Skip(n)
	c.In.Fail(err)
	*v = q
	if c.In.Err() == nil {
		c.sameForm(read[:n], c.again.AppendQuantities(c.scratch[:0], q))
	}
}

// Limits are in package resources' binary form.
func (c *Codec) Limits(v *resources.Limits) {
	if !c.Reading() {
		c.Out.B = c.enc.AppendLimits(c.Out.B, *v)
		return
	}
	read := c.In.Rest()
	l, n, err := c.dec.ReadLimits(read)
	c.In.Skip(n)
	c.In.Fail(err)
	*v = l
	if c.In.Err() == nil {
		c.sameForm(read[:n], c.again.AppendLimits(c.scratch[:0], l))
	}
}

// sameForm checks that a value read (from the bytes read) encodes again
// to them.
func (c *Codec) sameForm(read, again []byte) {
	c.scratch = again
	if !bytes.Equal(read, again) {
		c.In.Failf("a value in package resources' binary form written otherwise than it saves")
	}
}

// binaryForm is a value that saves and restores itself.
type binaryForm interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// readState is a value with a binary form of its own that a reader read,
// named by kind and id (when not empty), and the bytes it was read from.
type readState struct {
	v        binaryForm
	data     []byte
	kind, id string
}

// Binary is a value's own binary form, as bytes; kind and id name it. The
// error is the value's, for the caller to describe; a problem with the
// input is recorded as any other (and the value is then left alone).
func (c *Codec) Binary(v binaryForm, kind, id string) error {
	if !c.Reading() {
		data, err := v.MarshalBinary()
		if err != nil {
			return err
		}
		c.Out.Bytes(data)
		return nil
	}
	var data []byte
	c.bytes(&data)
	if c.Err() != nil {
		return nil
	}
	if err := v.UnmarshalBinary(data); err != nil {
		return err
	}
	c.states = append(c.states, readState{v: v, data: data, kind: kind, id: id})
	return nil
}

// StatesSaveBack checks, once the state is restored, that the values read
// with binary save back to the bytes they were read from. A value can hold
// what the rest of the snapshot says again (a sorter's allowances are the
// roles' quota): restoring brings such copies in line with the rest, and a
// snapshot in which they differ would not save back to itself.
func (c *Codec) StatesSaveBack() error {
	for _, st := range c.states {
		again, err := st.v.MarshalBinary()
		if err == nil && bytes.Equal(again, st.data) {
			continue
		}
		name := st.kind
		if st.id != "" {
			name = fmt.Sprintf("%s %q", st.kind, st.id)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return fmt.Errorf("%s: the state read does not save back to the same bytes", name)
	}
	return nil
}

// Walks of numbers of other types, as the primitive of their width: the
// writer only reads them, the reader converts what it read, which must fit
// the type (a value cut to fit would not save back to the same bytes).

func WalkByte[T ~uint8](c *Codec, v *T) {
	b := byte(*v)
	c.byte(&b)
	if c.Reading() {
		*v = T(b)
	}
}

func WalkUvarint[T ~uint16 | ~uint32 | ~uint64](c *Codec, v *T) {
	u := uint64(*v)
	c.Uvarint(&u)
	if c.Reading() {
		if uint64(T(u)) != u {
			c.Failf("%d out of range", u)
		}
		*v = T(u)
	}
}

func WalkVarint[T ~int32 | ~int64](c *Codec, v *T) {
	n := int64(*v)
	c.Varint(&n)
	if c.Reading() {
		if int64(T(n)) != n {
			c.Failf("%d out of range", n)
		}
		*v = T(n)
	}
}

// WalkList walks a slice: its length (a count), then its items. Read, the
// slice is made anew, nil when empty.
func WalkList[S ~[]T, T any](c *Codec, s *S, what string, item func(*T)) {
	n := len(*s)
	c.count(&n, what)
	if c.Reading() {
		*s = nil
		if n > 0 {
			*s = make(S, n)
		}
	}
	for i := 0; i < n && c.Err() == nil; i++ {
		item(&(*s)[i])
	}
}

// WalkStrings walks a list of strings.
func WalkStrings[S ~[]string](c *Codec, s *S, what string) {
	WalkList(c, s, what, c.String)
}

// WalkKeys walks a list of strings in strictly increasing order.
func WalkKeys[S ~[]string](c *Codec, s *S, what string) {
	WalkStrings(c, s, what)
	for i := 1; i < len(*s) && c.Err() == nil; i++ {
		if (*s)[i] <= (*s)[i-1] {
			c.Failf("%s: %q out of order", what, (*s)[i])
		}
	}
}

// WalkSet walks a set of names as a list in increasing order. Read, the
// names go into *m, which must have been made unless there are none.
func WalkSet(c *Codec, m *map[string]struct{}, what string) {
	keys, mark := c.pushKeys(func(dst []string) []string { return tables.AppendSortedKeys(dst, "", *m) })
	defer c.popKeys(mark)
	WalkKeys(c, &keys, what)
	if !c.Reading() || c.Err() != nil {
		return
	}
	if *m == nil && len(keys) > 0 {
		c.Failf("%s: names of a set saved as none", what)
		return
	}
	for _, k := range keys {
		(*m)[k] = struct{}{}
	}
}

// WalkKeyed walks items named by keys in strictly increasing order: their
// number (count names it), then each key (key names it) and what item
// walks for it. A writer's keys are keys; a reader's are read.
func WalkKeyed(c *Codec, keys []string, count, key string, item func(k string)) {
	n := len(keys)
	c.count(&n, count)
	prev := ""
	for i := 0; i < n && c.Err() == nil; i++ {
		var k string
		if !c.Reading() {
			k = keys[i]
		}
		c.String(&k)
		if c.Err() == nil && i > 0 && k <= prev {
			c.Failf("%s %q out of order", key, k)
		}
		prev = k
		item(k)
	}
}

// pushKeys lists, when writing, the keys that add appends to its
// argument (sorted, as a walk writes them) on the codec's stack of keys,
// and returns them with the stack's length before (mark), which the walk
// hands to popKeys when done: a snapshot lists the keys of every agent's
// maps in one reused slice rather than a new one for each. A walk nested
// in another lists its keys after the outer walk's, which it leaves alone
// (if the stack grows, the outer walk keeps reading the slice it was
// given). Reading, it lists nothing.
func (c *Codec) pushKeys(add func([]string) []string) (keys []string, mark int) {
	mark = len(c.keys)
	if c.Reading() {
		return nil, mark
	}
	c.keys = add(c.keys)
	return c.keys[mark:], mark
}

// popKeys puts the stack of keys back to mark, dropping what a walk put
// there.
func (c *Codec) popKeys(mark int) {
	clear(c.keys[mark:])
	c.keys = c.keys[:mark]
}

// WalkMap walks a map with string keys: its size, then each key, in
// increasing order, and its value, which val walks and returns. Read, the
// map is made when it gets an entry, unless it was made beforehand.
func WalkMap[V any](c *Codec, m *map[string]V, count, key string, val func(k string, v V) V) {
	keys, mark := c.pushKeys(func(dst []string) []string { return tables.AppendSortedKeys(dst, "", *m) })
	defer c.popKeys(mark)
	WalkKeyed(c, keys, count, key, func(k string) {
		v := val(k, (*m)[k])
		if c.Reading() {
			if *m == nil {
				*m = map[string]V{}
			}
			(*m)[k] = v
		}
	})
}

// WalkTable walks a keyed table as walkMap walks a map: read, val makes
// the record of a key (it is given nil) with that key.
func WalkTable[T any, K keyed.Key[T]](c *Codec, t *tables.Table[T, K], count, key string, val func(k string, r *T) *T) {
	var keys []string
	if !c.Reading() {
		keys = t.Keys()
	}
	WalkKeyed(c, keys, count, key, func(k string) {
		r := val(k, t.Get(k))
		if c.Reading() {
			t.Put(r)
		}
	})
}

// WalkPerFramework walks an agent's resources per framework as walkMap
// walks a map; read, an empty entry is an error (an agent keeps none), and
// so is an entry of the empty framework id, which no framework has and a
// PerFramework does not keep.
func WalkPerFramework(c *Codec, p *tables.PerFramework, count, key string) {
	ids, mark := c.pushKeys(func(dst []string) []string { return tables.AppendSortedKeys(dst, p.Fw, p.More) })
	defer c.popKeys(mark)
	WalkKeyed(c, ids, count, key, func(fwID string) {
		res := p.Get(fwID)
		c.Resources(&res)
		if c.Reading() {
			if fwID == "" {
				c.Failf("a %s with no framework", key)
			}
			if res.IsEmpty() {
				c.Failf("empty %s %q", key, fwID)
			}
			p.Set(fwID, res)
		}
	})
}

// WalkByRole walks an agent's entries by role (see byRole) as walkMap
// walks a map; an entry (named by entry) never has the empty role.
func WalkByRole[V any](c *Codec, m *tables.ByRole[V], count, entry, key string, val func(v V) V) {
	roles, mark := c.pushKeys(func(dst []string) []string { return tables.AppendSortedKeys(dst, m.Role, m.More) })
	defer c.popKeys(mark)
	WalkKeyed(c, roles, count, key, func(role string) {
		v, _ := m.Get(role)
		v = val(v)
		if role == "" {
			// byRole keeps no entry for the empty role.
			c.Failf("a %s with no role", entry)
		}
		if c.Reading() {
			m.Set(role, v)
		}
	})
}

// WalkOptional walks a value that may be missing: whether it is there,
// then the value. Read, it is made when it is there.
func WalkOptional[T any](c *Codec, p **T, item func(*T)) {
	there := *p != nil
	c.Bool(&there)
	if !there {
		return
	}
	if *p == nil {
		*p = new(T)
	}
	item(*p)
}
