package sorter

import (
	"github.com/allot-go/allot/internal/wire"
	"github.com/allot-go/allot/resources"
)

// codec is one direction of a snapshot's walk (see walk): writing (w set),
// it appends the tree's state; reading (r set), it reads a state into an
// empty tree. Each field method takes a pointer to the field: writing, it
// writes the value there; reading, it reads one into it. So the writer and
// the reader follow the same walk, and cannot disagree on the order.
//
// Reading, the first problem is kept and every later read is a zero value
// (see wire.Reader); loading checks what was read and changes the tree only
// while there is no problem. So after the first problem a walk goes to its
// end changing nothing more, and returns that problem; the tree it read
// into is a new one, which unmarshal then drops.
type codec struct {
	t    *tree
	kind byte   // 'D' (DRF) or 'R' (Random): written, or expected reading
	rng  []byte // Random only: the random source's MarshalBinary form

	// writing
	w    *wire.Writer
	enc  *resources.Encoder
	held []savedHolding // see savedHoldings

	// reading
	r      *wire.Reader
	dec    *resources.Decoder
	setRNG func([]byte) error // restores a Random sorter's random source
	loaded []numbered         // the clients read, waiting for their numbers
}

// numbered is a client read and the number it was saved with.
type numbered struct {
	leaf   *node
	number int
}

func (c *codec) writing() bool { return c.w != nil }

// loading reports whether the codec is reading and has met no problem: the
// time to check what was read and put it in the tree.
func (c *codec) loading() bool { return c.r != nil && c.r.Err() == nil }

// failed reports whether reading has met a problem; writing meets none.
func (c *codec) failed() bool { return c.r != nil && c.r.Err() != nil }

// err returns the first problem met reading, or nil.
func (c *codec) err() error {
	if c.r == nil {
		return nil
	}
	return c.r.Err()
}

// fail records a problem found in what was read, at the current byte.
func (c *codec) fail(format string, args ...any) { c.r.Failf(format, args...) }

// check records err, the tree's refusal of what was read, as a problem.
func (c *codec) check(err error) {
	if err != nil {
		c.r.Failf("%v", err)
	}
}

func (c *codec) byte(v *byte) {
	if c.writing() {
		c.w.Byte(*v)
	} else {
		*v = c.r.Byte()
	}
}

func (c *codec) bool(v *bool) {
	if c.writing() {
		c.w.Bool(*v)
	} else {
		*v = c.r.Bool()
	}
}

func (c *codec) uvarint(v *uint64) {
	if c.writing() {
		c.w.Uvarint(*v)
	} else {
		*v = c.r.Uvarint()
	}
}

// int is a non-negative int; reading, one above max is a problem that what
// names.
func (c *codec) int(v *int, max int, what string) {
	if c.writing() {
		c.w.Int(*v)
	} else {
		*v = c.r.Int(max, what)
	}
}

// count is the length of a list that follows; reading, one that promises
// more items than bytes are left is a problem that what names.
func (c *codec) count(v *int, what string) {
	if c.writing() {
		c.w.Int(*v)
	} else {
		*v = c.r.Count(what)
	}
}

func (c *codec) float64(v *float64) {
	if c.writing() {
		c.w.Float64(*v)
	} else {
		*v = c.r.Float64()
	}
}

func (c *codec) string(v *string) {
	if c.writing() {
		c.w.String(*v)
	} else {
		*v = c.r.String()
	}
}

func (c *codec) bytes(v *[]byte) {
	if c.writing() {
		c.w.Bytes(*v)
	} else {
		*v = c.r.Bytes()
	}
}

// quantities and resources are in package resources' binary form, through
// the one Encoder or Decoder of the whole snapshot.
func (c *codec) quantities(v *resources.Quantities) {
	if c.writing() {
		c.w.B = c.enc.AppendQuantities(c.w.B, *v)
		return
	}
	q, n, err := c.dec.ReadQuantities(c.r.Rest())
	c.r.Skip(n)
	c.r.Fail(err)
	*v = q
}

func (c *codec) resources(v *resources.Resources) {
	if c.writing() {
		c.w.B = c.enc.AppendResources(c.w.B, *v)
		return
	}
	r, n, err := c.dec.ReadResources(c.r.Rest())
	c.r.Skip(n)
	c.r.Fail(err)
	*v = r
}

// list walks a counted list of records: writing, the records save returns
// (called only then); reading, as many as the count says. item walks the
// fields of record i and, reading, loads it. list returns the count.
func list[R any](c *codec, what string, save func() []R, item func(i int, rec *R)) int {
	var saved []R
	if c.writing() {
		saved = save()
	}
	n := len(saved)
	c.count(&n, what)
	each(c, n, saved, item)
	return n
}

// each walks n records whose count is already walked: writing, those of
// saved; reading, each into one record made zero again for each, since a
// loaded record's values are copied where they are kept. Reading stops at
// the first problem.
func each[R any](c *codec, n int, saved []R, item func(i int, rec *R)) {
	var fresh *R
	if !c.writing() {
		fresh = new(R)
	}
	for i := range n {
		rec := fresh
		if c.writing() {
			rec = &saved[i]
		} else {
			var zero R
			*fresh = zero
		}
		item(i, rec)
		if c.failed() {
			return
		}
	}
}
