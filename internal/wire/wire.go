// Package wire writes and reads the primitives of the library's binary
// snapshots: unsigned and signed varints, fixed 64-bit words, length-prefixed
// strings and byte strings, and lengths checked against what is left.
//
// A Reader never panics on bad input: the first problem is kept (Err) and
// every later read returns a zero value, so a decoder reads a whole record
// and checks the error once. Lengths are refused when they promise more
// items than bytes are left, so a corrupted length cannot make a decoder
// allocate more than the input's size.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// Errors of a Reader; the one kept by Err wraps one of them.
var (
	// ErrTruncated: the input ends in the middle of a value.
	ErrTruncated = errors.New("truncated")
	// ErrInvalid: a value that cannot be what the format says.
	ErrInvalid = errors.New("invalid")
)

// Writer appends values to B.
type Writer struct {
	B []byte
}

// Uvarint appends v as an unsigned varint.
func (w *Writer) Uvarint(v uint64) { w.B = binary.AppendUvarint(w.B, v) }

// Varint appends v as a zig-zag varint.
func (w *Writer) Varint(v int64) { w.B = binary.AppendVarint(w.B, v) }

// Int appends a non-negative int as an unsigned varint.
func (w *Writer) Int(v int) { w.Uvarint(uint64(v)) }

// Uint64 appends v as eight little-endian bytes.
func (w *Writer) Uint64(v uint64) { w.B = binary.LittleEndian.AppendUint64(w.B, v) }

// Float64 appends the bits of v as eight little-endian bytes.
func (w *Writer) Float64(v float64) { w.Uint64(math.Float64bits(v)) }

// Bool appends 1 or 0.
func (w *Writer) Bool(v bool) {
	if v {
		w.B = append(w.B, 1)
	} else {
		w.B = append(w.B, 0)
	}
}

// Byte appends one byte.
func (w *Writer) Byte(v byte) { w.B = append(w.B, v) }

// String appends the length of s and s.
func (w *Writer) String(s string) {
	w.Uvarint(uint64(len(s)))
	w.B = append(w.B, s...)
}

// Bytes appends the length of b and b.
func (w *Writer) Bytes(b []byte) {
	w.Uvarint(uint64(len(b)))
	w.B = append(w.B, b...)
}

// Reader reads values from a byte slice.
type Reader struct {
	b   []byte
	off int
	err error
}

// NewReader returns a Reader of b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Err returns the first problem met, or nil.
func (r *Reader) Err() error { return r.err }

// Offset returns how many bytes have been read.
func (r *Reader) Offset() int { return r.off }

// Left returns how many bytes are left.
func (r *Reader) Left() int { return len(r.b) - r.off }

// Failf records a problem found by the caller in what it read, at the
// current offset, unless one is recorded already. It wraps ErrInvalid.
func (r *Reader) Failf(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w at byte %d: %s", ErrInvalid, r.off, fmt.Sprintf(format, args...))
	}
}

func (r *Reader) truncated(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d", ErrTruncated, what, r.off)
	}
	r.off = len(r.b)
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	switch {
	case n == 0:
		r.truncated("varint")
		return 0
	case n < 0:
		r.Failf("varint overflows 64 bits")
		return 0
	}
	r.off += n
	return v
}

// Varint reads a zig-zag varint (as binary.PutVarint writes it).
func (r *Reader) Varint() int64 {
	u := r.Uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// Int reads an unsigned varint that must be at most max.
func (r *Reader) Int(max int, what string) int {
	v := r.Uvarint()
	if v > uint64(max) {
		r.Failf("%s %d is above %d", what, v, max)
		return 0
	}
	return int(v)
}

// Count reads a number of items to come, each taking at least one byte:
// a count above the bytes left is refused.
func (r *Reader) Count(what string) int {
	v := r.Uvarint()
	if r.err == nil && v > uint64(r.Left()) {
		r.Failf("%s: %d items, but %d bytes are left", what, v, r.Left())
		return 0
	}
	return int(v)
}

// Uint64 reads eight little-endian bytes.
func (r *Reader) Uint64() uint64 {
	if r.err != nil {
		return 0
	}
	if r.Left() < 8 {
		r.truncated("64-bit word")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

// Float64 reads the bits of a float64.
func (r *Reader) Float64() float64 { return math.Float64frombits(r.Uint64()) }

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.err != nil {
		return 0
	}
	if r.Left() < 1 {
		r.truncated("byte")
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	switch b := r.Byte(); b {
	case 0:
		return false
	case 1:
		return true
	default:
		r.Failf("boolean byte %d", b)
		return false
	}
}

// Bytes reads a length-prefixed byte string; the result shares the
// input's storage.
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(r.Left()) {
		r.truncated("byte string")
		return nil
	}
	b := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return b
}

// String reads a length-prefixed string, which must be valid UTF-8.
func (r *Reader) String() string {
	b := r.Bytes()
	if r.err != nil {
		return ""
	}
	if !utf8.Valid(b) {
		r.Failf("string %q is not valid UTF-8", b)
		return ""
	}
	return string(b)
}

// Rest returns what is left to read, for a decoder of its own (see Skip).
func (r *Reader) Rest() []byte {
	if r.err != nil {
		return nil
	}
	return r.b[r.off:]
}

// Skip moves past n bytes that were read from Rest.
func (r *Reader) Skip(n int) {
	if r.err == nil {
		r.off = min(r.off+n, len(r.b))
	}
}

// Fail records err, unless a problem is recorded already.
func (r *Reader) Fail(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}
