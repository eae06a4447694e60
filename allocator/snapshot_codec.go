package allocator

import (
	"bytes"
	"encoding"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/allot-go/allot/internal/keyed"
	"github.com/allot-go/allot/internal/wire"
	"github.com/allot-go/allot/resources"
)

// The snapshot format is written down once, as walks (snapshot_fields.go,
// snapshot_explain.go) that go through the allocator's state in the order
// of the format and hand every value, by pointer, to a snapCodec. Snapshot
// walks with a codec that encodes the values; Restore walks with one that
// decodes into them. Both directions run the same walk, so they agree on
// order and encoding by construction, and a field joins the format by one
// line of a walk.
//
// A reading codec keeps the first problem it meets and reads zero values
// from then on, so a walk runs to its end whatever the input. Walks only
// store what they read; the allocator they store it in is dropped when a
// problem was met. The codec checks what the encoding demands (lengths
// within the input, counts within the bytes left, keys in increasing
// order, numbers within bounds); what the values mean (ids, roles,
// references between the parts, invariants) is checked after the walk
// (snapshot_restore.go).

// snapCodec is one direction of the snapshot format: it encodes the values
// it is handed (writing) or decodes into them (reading). Each primitive
// holds both directions side by side. It is a concrete type rather than an
// interface with a writer and a reader behind it: a pointer passed to an
// interface method escapes, which would put every count, key and map value
// a walk handles on the heap.
type snapCodec struct {
	// r is the input when reading; nil when writing.
	r   *wire.Reader
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
	w   wire.Writer
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

// newSnapshotWriter returns a codec that writes a snapshot into a buffer
// of capacity size.
func newSnapshotWriter(size int) *snapCodec {
	c := &snapCodec{enc: resources.NewEncoder()}
	c.w.B = make([]byte, 0, size)
	return c
}

// newSnapshotReader returns a codec that reads the snapshot body.
func newSnapshotReader(body []byte) *snapCodec {
	return &snapCodec{r: wire.NewReader(body), dec: resources.NewDecoder(), again: resources.NewEncoder()}
}

// reading reports whether the codec decodes (Restore) rather than encodes
// (Snapshot).
func (c *snapCodec) reading() bool { return c.r != nil }

// err returns the first problem met, or nil.
func (c *snapCodec) err() error {
	switch {
	case c.described != nil:
		return c.described
	case c.reading():
		return c.r.Err()
	}
	return c.werr
}

// part walks a part of the snapshot (walk); the first problem, when met
// within it, is described as one of that part.
func (c *snapCodec) part(name string, walk func()) {
	ok := c.err() == nil
	walk()
	if err := c.err(); ok && err != nil {
		c.described = fmt.Errorf("%s: %w", name, err)
	}
}

// item walks a part of the snapshot named by an id, as part does.
func (c *snapCodec) item(kind, id string, walk func()) {
	ok := c.err() == nil
	walk()
	if err := c.err(); ok && err != nil {
		c.described = fmt.Errorf("%s %q: %w", kind, id, err)
	}
}

// fail records err, unless a problem is recorded already.
func (c *snapCodec) fail(err error) {
	switch {
	case err == nil:
	case c.reading():
		c.r.Fail(err)
	case c.werr == nil:
		c.werr = err
	}
}

// failf records a problem with what was read, at the current offset
// (wire.ErrInvalid), unless a problem is recorded already.
func (c *snapCodec) failf(format string, args ...any) {
	if c.reading() {
		c.r.Failf(format, args...)
		return
	}
	c.fail(fmt.Errorf(format, args...))
}

// step runs a reader's step between two parts of a walk, unless a problem
// is recorded already, and records its error; it reports whether the walk
// may go on. A writer has no such steps.
func (c *snapCodec) step(f func() error) bool {
	if !c.reading() {
		return true
	}
	if c.err() == nil {
		c.r.Fail(f())
	}
	return c.err() == nil
}

// raw is a fixed string without a length.
func (c *snapCodec) raw(s string) {
	if !c.reading() {
		c.w.B = append(c.w.B, s...)
		return
	}
	if c.r.Err() == nil && !bytes.HasPrefix(c.r.Rest(), []byte(s)) {
		c.r.Failf("does not start with %q", s)
	}
	c.r.Skip(len(s))
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
func (c *snapCodec) canonical(start, size int) {
	if c.r.Err() == nil && c.r.Offset()-start != size {
		c.r.Failf("%d bytes for a value that takes %d", c.r.Offset()-start, size)
	}
}

// uvarint is an unsigned varint.
func (c *snapCodec) uvarint(v *uint64) {
	if !c.reading() {
		c.w.Uvarint(*v)
		return
	}
	start := c.r.Offset()
	*v = c.r.Uvarint()
	c.canonical(start, uvarintSize(*v))
}

// varint is a signed (zig-zag) varint.
func (c *snapCodec) varint(v *int64) {
	if !c.reading() {
		c.w.Varint(*v)
		return
	}
	start := c.r.Offset()
	*v = c.r.Varint()
	c.canonical(start, uvarintSize(uint64(*v)<<1^uint64(*v>>63)))
}

// int is a non-negative number as an unsigned varint, at most
// math.MaxInt32 when read; what names it in errors.
func (c *snapCodec) int(v *int, what string) {
	if !c.reading() {
		c.w.Int(*v)
		return
	}
	start := c.r.Offset()
	*v = c.r.Int(math.MaxInt32, what)
	c.canonical(start, uvarintSize(uint64(*v)))
}

// count is the number of items to come, as an unsigned varint: a reader
// refuses more items than there are bytes left, so a damaged count cannot
// make it allocate beyond the input's size.
func (c *snapCodec) count(n *int, what string) {
	if !c.reading() {
		c.w.Int(*n)
		return
	}
	start := c.r.Offset()
	*n = c.r.Count(what)
	c.canonical(start, uvarintSize(uint64(*n)))
}

// bool is a byte, 0 or 1.
func (c *snapCodec) bool(v *bool) {
	if c.reading() {
		*v = c.r.Bool()
		return
	}
	c.w.Bool(*v)
}

// byte is one byte.
func (c *snapCodec) byte(v *byte) {
	if c.reading() {
		*v = c.r.Byte()
		return
	}
	c.w.Byte(*v)
}

// float64 is the bits of a float64, eight bytes little-endian.
func (c *snapCodec) float64(v *float64) {
	if c.reading() {
		*v = c.r.Float64()
		return
	}
	c.w.Float64(*v)
}

// string is a length and the string's bytes, valid UTF-8.
func (c *snapCodec) string(v *string) {
	if !c.reading() {
		c.w.String(*v)
		return
	}
	start := c.r.Offset()
	*v = c.r.String()
	c.canonical(start, uvarintSize(uint64(len(*v)))+len(*v))
}

// bytes is a length and the bytes; read, they share the input's storage.
func (c *snapCodec) bytes(v *[]byte) {
	if !c.reading() {
		c.w.Bytes(*v)
		return
	}
	start := c.r.Offset()
	*v = c.r.Bytes()
	c.canonical(start, uvarintSize(uint64(len(*v)))+len(*v))
}

// time is 0 for the zero time, or 1 and the Unix nanoseconds as a signed
// varint; it is read back in UTC, without a monotonic clock reading.
func (c *snapCodec) time(v *time.Time) {
	if !c.reading() {
		if v.IsZero() {
			c.w.Byte(0)
			return
		}
		c.w.Byte(1)
		c.w.Varint(v.UnixNano())
		return
	}
	switch c.r.Byte() {
	case 0:
		*v = time.Time{}
	case 1:
		var ns int64
		c.varint(&ns)
		*v = time.Unix(0, ns).UTC()
	default:
		c.r.Failf("time marker")
		*v = time.Time{}
	}
}

// duration is a signed varint of nanoseconds.
func (c *snapCodec) duration(v *time.Duration) {
	walkVarint(c, v)
}

// resources are in package resources' binary form.
func (c *snapCodec) resources(v *resources.Resources) {
	if !c.reading() {
		c.w.B = c.enc.AppendResources(c.w.B, *v)
		return
	}
	read := c.r.Rest()
	rs, n, err := c.dec.ReadResources(read)
	c.r.Skip(n)
	c.r.Fail(err)
	*v = rs
	if c.r.Err() == nil {
		c.sameForm(read[:n], c.again.AppendResources(c.scratch[:0], rs))
	}
}

// quantities are in package resources' binary form.
func (c *snapCodec) quantities(v *resources.Quantities) {
	if !c.reading() {
		c.w.B = c.enc.AppendQuantities(c.w.B, *v)
		return
	}
	read := c.r.Rest()
	q, n, err := c.dec.ReadQuantities(read)
	c.r.Skip(n)
	c.r.Fail(err)
	*v = q
	if c.r.Err() == nil {
		c.sameForm(read[:n], c.again.AppendQuantities(c.scratch[:0], q))
	}
}

// limits are in package resources' binary form.
func (c *snapCodec) limits(v *resources.Limits) {
	if !c.reading() {
		c.w.B = c.enc.AppendLimits(c.w.B, *v)
		return
	}
	read := c.r.Rest()
	l, n, err := c.dec.ReadLimits(read)
	c.r.Skip(n)
	c.r.Fail(err)
	*v = l
	if c.r.Err() == nil {
		c.sameForm(read[:n], c.again.AppendLimits(c.scratch[:0], l))
	}
}

// sameForm checks that a value read (from the bytes read) encodes again
// to them.
func (c *snapCodec) sameForm(read, again []byte) {
	c.scratch = again
	if !bytes.Equal(read, again) {
		c.r.Failf("a value in package resources' binary form written otherwise than it saves")
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

// binary is a value's own binary form, as bytes; kind and id name it. The
// error is the value's, for the caller to describe; a problem with the
// input is recorded as any other (and the value is then left alone).
func (c *snapCodec) binary(v binaryForm, kind, id string) error {
	if !c.reading() {
		data, err := v.MarshalBinary()
		if err != nil {
			return err
		}
		c.w.Bytes(data)
		return nil
	}
	var data []byte
	c.bytes(&data)
	if c.err() != nil {
		return nil
	}
	if err := v.UnmarshalBinary(data); err != nil {
		return err
	}
	c.states = append(c.states, readState{v: v, data: data, kind: kind, id: id})
	return nil
}

// statesSaveBack checks, once the state is restored, that the values read
// with binary save back to the bytes they were read from. A value can hold
// what the rest of the snapshot says again (a sorter's allowances are the
// roles' quota): restoring brings such copies in line with the rest, and a
// snapshot in which they differ would not save back to itself.
func (c *snapCodec) statesSaveBack() error {
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

func walkByte[T ~uint8](c *snapCodec, v *T) {
	b := byte(*v)
	c.byte(&b)
	if c.reading() {
		*v = T(b)
	}
}

func walkUvarint[T ~uint16 | ~uint32 | ~uint64](c *snapCodec, v *T) {
	u := uint64(*v)
	c.uvarint(&u)
	if c.reading() {
		if uint64(T(u)) != u {
			c.failf("%d out of range", u)
		}
		*v = T(u)
	}
}

func walkVarint[T ~int32 | ~int64](c *snapCodec, v *T) {
	n := int64(*v)
	c.varint(&n)
	if c.reading() {
		if int64(T(n)) != n {
			c.failf("%d out of range", n)
		}
		*v = T(n)
	}
}

// walkList walks a slice: its length (a count), then its items. Read, the
// slice is made anew, nil when empty.
func walkList[S ~[]T, T any](c *snapCodec, s *S, what string, item func(*T)) {
	n := len(*s)
	c.count(&n, what)
	if c.reading() {
		*s = nil
		if n > 0 {
			*s = make(S, n)
		}
	}
	for i := 0; i < n && c.err() == nil; i++ {
		item(&(*s)[i])
	}
}

// walkStrings walks a list of strings.
func walkStrings[S ~[]string](c *snapCodec, s *S, what string) {
	walkList(c, s, what, c.string)
}

// walkKeys walks a list of strings in strictly increasing order.
func walkKeys[S ~[]string](c *snapCodec, s *S, what string) {
	walkStrings(c, s, what)
	for i := 1; i < len(*s) && c.err() == nil; i++ {
		if (*s)[i] <= (*s)[i-1] {
			c.failf("%s: %q out of order", what, (*s)[i])
		}
	}
}

// walkSet walks a set of names as a list in increasing order. Read, the
// names go into *m, which must have been made unless there are none.
func walkSet(c *snapCodec, m *map[string]struct{}, what string) {
	keys, mark := c.pushKeys(func(dst []string) []string { return appendSortedKeys(dst, "", *m) })
	defer c.popKeys(mark)
	walkKeys(c, &keys, what)
	if !c.reading() || c.err() != nil {
		return
	}
	if *m == nil && len(keys) > 0 {
		c.failf("%s: names of a set saved as none", what)
		return
	}
	for _, k := range keys {
		(*m)[k] = struct{}{}
	}
}

// walkKeyed walks items named by keys in strictly increasing order: their
// number (count names it), then each key (key names it) and what item
// walks for it. A writer's keys are keys; a reader's are read.
func walkKeyed(c *snapCodec, keys []string, count, key string, item func(k string)) {
	n := len(keys)
	c.count(&n, count)
	prev := ""
	for i := 0; i < n && c.err() == nil; i++ {
		var k string
		if !c.reading() {
			k = keys[i]
		}
		c.string(&k)
		if c.err() == nil && i > 0 && k <= prev {
			c.failf("%s %q out of order", key, k)
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
func (c *snapCodec) pushKeys(add func([]string) []string) (keys []string, mark int) {
	mark = len(c.keys)
	if c.reading() {
		return nil, mark
	}
	c.keys = add(c.keys)
	return c.keys[mark:], mark
}

// popKeys puts the stack of keys back to mark, dropping what a walk put
// there.
func (c *snapCodec) popKeys(mark int) {
	clear(c.keys[mark:])
	c.keys = c.keys[:mark]
}

// walkMap walks a map with string keys: its size, then each key, in
// increasing order, and its value, which val walks and returns. Read, the
// map is made when it gets an entry, unless it was made beforehand.
func walkMap[V any](c *snapCodec, m *map[string]V, count, key string, val func(k string, v V) V) {
	keys, mark := c.pushKeys(func(dst []string) []string { return appendSortedKeys(dst, "", *m) })
	defer c.popKeys(mark)
	walkKeyed(c, keys, count, key, func(k string) {
		v := val(k, (*m)[k])
		if c.reading() {
			if *m == nil {
				*m = map[string]V{}
			}
			(*m)[k] = v
		}
	})
}

// walkTable walks a keyed table as walkMap walks a map: read, val makes
// the record of a key (it is given nil) with that key.
func walkTable[T any, K keyed.Key[T]](c *snapCodec, t *table[T, K], count, key string, val func(k string, r *T) *T) {
	var keys []string
	if !c.reading() {
		keys = t.keys()
	}
	walkKeyed(c, keys, count, key, func(k string) {
		r := val(k, t.Get(k))
		if c.reading() {
			t.Put(r)
		}
	})
}

// walkPerFramework walks an agent's resources per framework as walkMap
// walks a map; read, an empty entry is an error (an agent keeps none).
func walkPerFramework(c *snapCodec, p *perFramework, count, key string) {
	ids, mark := c.pushKeys(func(dst []string) []string { return appendSortedKeys(dst, p.fw, p.more) })
	defer c.popKeys(mark)
	walkKeyed(c, ids, count, key, func(fwID string) {
		res := p.get(fwID)
		c.resources(&res)
		if c.reading() {
			if res.IsEmpty() {
				c.failf("empty %s %q", key, fwID)
			}
			p.set(fwID, res)
		}
	})
}

// walkByRole walks an agent's entries by role (see byRole) as walkMap
// walks a map; an entry (named by entry) never has the empty role.
func walkByRole[V any](c *snapCodec, m *byRole[V], count, entry, key string, val func(v V) V) {
	roles, mark := c.pushKeys(func(dst []string) []string { return appendSortedKeys(dst, m.role, m.more) })
	defer c.popKeys(mark)
	walkKeyed(c, roles, count, key, func(role string) {
		v, _ := m.get(role)
		v = val(v)
		if role == "" {
			// byRole keeps no entry for the empty role.
			c.failf("a %s with no role", entry)
		}
		if c.reading() {
			m.set(role, v)
		}
	})
}

// walkOptional walks a value that may be missing: whether it is there,
// then the value. Read, it is made when it is there.
func walkOptional[T any](c *snapCodec, p **T, item func(*T)) {
	there := *p != nil
	c.bool(&there)
	if !there {
		return
	}
	if *p == nil {
		*p = new(T)
	}
	item(*p)
}
