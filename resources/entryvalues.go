package resources

import (
	"math"
	"slices"
)

// values holds what an entry's words do not: the value of a ranges or set
// entry, the copies of a shared entry that stands for more than one. It is
// never changed once made, and it takes 32 bytes.
//
// Ranges are the value nearly every agent holds (its ports), so they are
// kept compact: when every bound fits 32 bits, and ports always do, as
// narrowRanges of 8 bytes each instead of Ranges of 16 (an agent whose
// tasks hold a dozen single ports keeps about as many ranges free). A
// value is narrow whenever it can be and only then, so two values are
// equal when their slices are. Operations unpack narrow ranges into
// buffers on the stack, work on Ranges, and pack their result.
//
// Sets, ranges past 32 bits and copies, which few clusters have, take one
// more pointer's hop.
type values struct {
	narrow []narrowRange // ranges whose bounds fit 32 bits
	more   *moreValues
}

type moreValues struct {
	wide   Ranges // ranges with a bound past 32 bits
	set    Set
	copies int32 // a shared entry's copies, 2 or more (one copy has no values)
}

// narrowRange is a Range whose bounds fit 32 bits.
type narrowRange struct{ begin, end uint32 }

// onStack is how many ranges an operation unpacks into each of its
// buffers on the stack; longer lists are unpacked on the heap.
const onStack = 32

// rangesValues returns the values of r (normalised, not empty), which it
// may keep: r must not change after.
func rangesValues(r Ranges) *values {
	for _, x := range r {
		if x.End > math.MaxUint32 {
			return &values{more: &moreValues{wide: r}}
		}
	}
	return narrowValues(r)
}

// narrowValues packs r, whose bounds all fit 32 bits, into new values.
func narrowValues(r Ranges) *values {
	n := make([]narrowRange, len(r))
	for i, x := range r {
		n[i] = narrowRange{uint32(x.Begin), uint32(x.End)}
	}
	return &values{narrow: n}
}

func setValues(s Set) *values { return &values{more: &moreValues{set: s}} }

// unpack returns v's ranges: the wide ones v holds, or the narrow ones
// unpacked into buf (which grows when too short; nil makes an exact one).
func (v *values) unpack(buf Ranges) Ranges {
	if v.more != nil && v.more.wide != nil {
		return v.more.wide
	}
	if cap(buf) < len(v.narrow) {
		buf = make(Ranges, 0, len(v.narrow))
	}
	for _, x := range v.narrow {
		buf = append(buf, Range{uint64(x.begin), uint64(x.end)})
	}
	return buf
}

// rangesOp returns the values of v ∪ o when add is set, else of v ∖ o; nil
// when the result is empty. Both must hold normalised ranges.
func rangesOp(v, o *values, add bool) *values {
	if !add && o.containsRanges(v) {
		// Everything taken, as an offer of an agent's whole ports is: no
		// unpacking.
		return nil
	}
	var bv, bo, bout [onStack]Range
	r, s := v.unpack(bv[:0]), o.unpack(bo[:0])
	var n int
	if add {
		n = union(r, s, nil)
	} else {
		n = difference(r, s, nil)
	}
	if n == 0 {
		return nil
	}
	out := bout[:0]
	if n > len(bout) {
		out = make(Ranges, n)
	}
	out = out[:n]
	if add {
		union(r, s, out)
	} else {
		difference(r, s, out)
	}
	if out[n-1].End > math.MaxUint32 {
		// Wide, as an input was: kept as it is, so a copy, never the
		// buffer on the stack.
		return &values{more: &moreValues{wide: slices.Clone(out)}}
	}
	return narrowValues(out)
}

// lookupValues is the value of an entry that only looks others up
// (lookupEntry): ranges kept wide as given, even when they would fit
// narrow, and values and moreValues in one allocation.
type lookupValues struct {
	v    values
	rest moreValues
}

func lookupValuesOf(r Ranges, s Set) *values {
	lv := &lookupValues{rest: moreValues{wide: r, set: s}}
	lv.v.more = &lv.rest
	return &lv.v
}

// sameRanges reports whether v and o hold the same ranges. The values the
// entries of a Resources hold are narrow whenever they can be, so a narrow
// and a wide one differ; a lookup's may be wide where it could be narrow,
// so a mixed pair is compared by content.
func (v *values) sameRanges(o *values) bool {
	switch vw, ow := v.more != nil, o.more != nil; {
	case !vw && !ow:
		return slices.Equal(v.narrow, o.narrow)
	case vw && ow:
		return slices.Equal(v.more.wide, o.more.wide)
	}
	var bv, bo [onStack]Range
	return slices.Equal(v.unpack(bv[:0]), o.unpack(bo[:0]))
}

// containsRanges reports whether v's ranges hold every integer of o's.
func (v *values) containsRanges(o *values) bool {
	if v.more != nil || o.more != nil {
		var bv, bo [onStack]Range
		return v.unpack(bv[:0]).Contains(o.unpack(bo[:0]))
	}
	r, i := v.narrow, 0
	for _, x := range o.narrow {
		for i < len(r) && r[i].end < x.begin {
			i++
		}
		if i == len(r) || r[i].begin > x.begin || r[i].end < x.end {
			return false
		}
	}
	return true
}

// count returns how many integers v's ranges hold (saturating).
func (v *values) count() uint64 {
	if v.more != nil {
		return v.more.wide.Count()
	}
	var n uint64
	for _, x := range v.narrow {
		n += uint64(x.end-x.begin) + 1
	}
	return n
}

// copies returns how many copies a shared entry stands for; 1 for any
// other entry.
func (e *entry) copies() int32 {
	if e.vals == nil || e.vals.more == nil || e.vals.more.copies == 0 {
		return 1
	}
	return e.vals.more.copies
}

// setCopies makes a shared entry (a scalar: a persistent volume) stand for
// n copies, n >= 1.
func (e *entry) setCopies(n int32) {
	if n == 1 {
		e.vals = nil
		return
	}
	e.vals = &values{more: &moreValues{copies: n}}
}
