package resources

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ValueType is the kind of value a resource holds.
type ValueType uint8

const (
	// ScalarType values are amounts (cpus, mem, disk, gpus).
	ScalarType ValueType = iota + 1
	// RangesType values are sets of integers written as ranges (ports).
	RangesType
	// SetType values are sets of strings (named devices).
	SetType
)

// String returns "SCALAR", "RANGES" or "SET".
func (t ValueType) String() string {
	switch t {
	case ScalarType:
		return "SCALAR"
	case RangesType:
		return "RANGES"
	case SetType:
		return "SET"
	}
	return fmt.Sprintf("ValueType(%d)", uint8(t))
}

// Range is the inclusive integer interval [Begin, End].
type Range struct {
	Begin, End uint64
}

// Ranges is a set of integers kept as sorted, coalesced, non-overlapping
// ranges: [20-30, 31-39, 40-40] is always held as [20-40]. Operations return
// new slices; they never modify their inputs.
type Ranges []Range

// NewRanges normalises any list of ranges (sorted, merged). Ranges with
// Begin > End are an error.
func NewRanges(list ...Range) (Ranges, error) {
	for _, r := range list {
		if r.Begin > r.End {
			return nil, fmt.Errorf("%w: [%d-%d] begins after it ends", ErrInvalidRanges, r.Begin, r.End)
		}
	}
	return coalesce(slices.Clone(list)), nil
}

// coalesce sorts and merges list in place.
func coalesce(list []Range) Ranges {
	if len(list) <= 1 {
		return list
	}
	if !slices.IsSortedFunc(list, compareRange) {
		slices.SortFunc(list, compareRange)
	}
	out := list[:1]
	for _, r := range list[1:] {
		last := &out[len(out)-1]
		if last.End == ^uint64(0) || r.Begin <= last.End+1 {
			last.End = max(last.End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

func compareRange(a, b Range) int {
	switch {
	case a.Begin < b.Begin:
		return -1
	case a.Begin > b.Begin:
		return 1
	case a.End < b.End:
		return -1
	case a.End > b.End:
		return 1
	}
	return 0
}

// Count returns how many integers the ranges hold (saturating).
func (r Ranges) Count() uint64 {
	var n uint64
	for _, x := range r {
		c := x.End - x.Begin + 1
		if c == 0 || n+c < n {
			return ^uint64(0)
		}
		n += c
	}
	return n
}

// Union returns r ∪ o. Of two normalised lists it makes one exact
// allocation in one linear merge; others are sorted and merged as
// NewRanges does.
func (r Ranges) Union(o Ranges) Ranges {
	if !r.normal() || !o.normal() {
		out := make([]Range, 0, len(r)+len(o))
		out = append(append(out, r...), o...)
		return coalesce(out)
	}
	if len(o) == 0 {
		out := make(Ranges, len(r))
		copy(out, r)
		return out
	}
	out := make(Ranges, union(r, o, nil))
	union(r, o, out)
	return out
}

// union merges normalised r and o into out, when out is not nil, and
// returns the number of ranges of the result: a first call with nil sizes
// out for the second.
func union(r, o, out Ranges) int {
	n := 0
	var cur Range
	have := false
	push := func(x Range) {
		if have && (cur.End == ^uint64(0) || x.Begin <= cur.End+1) {
			cur.End = max(cur.End, x.End)
			return
		}
		if have {
			if out != nil {
				out[n] = cur
			}
			n++
		}
		cur, have = x, true
	}
	for i, j := 0, 0; i < len(r) || j < len(o); {
		if j == len(o) || (i < len(r) && r[i].Begin <= o[j].Begin) {
			push(r[i])
			i++
		} else {
			push(o[j])
			j++
		}
	}
	if have {
		if out != nil {
			out[n] = cur
		}
		n++
	}
	return n
}

// normal reports whether r is sorted and coalesced, as NewRanges leaves a
// list.
func (r Ranges) normal() bool {
	for i := 1; i < len(r); i++ {
		if r[i-1].End == ^uint64(0) || r[i].Begin <= r[i-1].End+1 || r[i].Begin > r[i].End {
			return false
		}
	}
	return len(r) == 0 || r[0].Begin <= r[0].End
}

// Difference returns r \ o (both normalised), in one exact allocation.
func (r Ranges) Difference(o Ranges) Ranges {
	out := make(Ranges, difference(r, o, nil))
	difference(r, o, out)
	return out
}

// difference writes r \ o into out, when out is not nil, and returns the
// number of ranges of the result: a first call with nil sizes out for
// the second.
func difference(r, o, out Ranges) int {
	n := 0
	emit := func(x Range) {
		if out != nil {
			out[n] = x
		}
		n++
	}
	j := 0
	for _, x := range r {
		begin := x.Begin
		done := false
		for j < len(o) && o[j].End < begin {
			j++
		}
		for k := j; k < len(o) && o[k].Begin <= x.End; k++ {
			if o[k].Begin > begin {
				emit(Range{begin, o[k].Begin - 1})
			}
			if o[k].End >= x.End {
				done = true
				break
			}
			begin = o[k].End + 1
		}
		if !done {
			emit(Range{begin, x.End})
		}
	}
	return n
}

// Contains reports whether every integer of o is in r.
func (r Ranges) Contains(o Ranges) bool {
	i := 0
	for _, x := range o {
		for i < len(r) && r[i].End < x.Begin {
			i++
		}
		if i == len(r) || r[i].Begin > x.Begin || r[i].End < x.End {
			return false
		}
	}
	return true
}

// String prints "[31000-32000, 33000-33000]" as Mesos does.
func (r Ranges) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range r {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatUint(x.Begin, 10))
		b.WriteByte('-')
		b.WriteString(strconv.FormatUint(x.End, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// Set is a set of distinct strings, kept sorted.
type Set []string

// NewSet builds a set; empty or duplicate items are an error.
func NewSet(items ...string) (Set, error) {
	s := slices.Clone(items)
	slices.Sort(s)
	for i, item := range s {
		if item == "" {
			return nil, fmt.Errorf("%w: empty item", ErrInvalidSet)
		}
		if i > 0 && s[i-1] == item {
			return nil, fmt.Errorf("%w: duplicate item %q", ErrInvalidSet, item)
		}
	}
	return s, nil
}

// Union returns s ∪ o.
func (s Set) Union(o Set) Set {
	out := make(Set, 0, len(s)+len(o))
	i, j := 0, 0
	for i < len(s) || j < len(o) {
		switch {
		case j == len(o) || (i < len(s) && s[i] < o[j]):
			out = append(out, s[i])
			i++
		case i == len(s) || o[j] < s[i]:
			out = append(out, o[j])
			j++
		default:
			out = append(out, s[i])
			i++
			j++
		}
	}
	return out
}

// Difference returns s \ o.
func (s Set) Difference(o Set) Set {
	out := make(Set, 0, len(s))
	for _, item := range s {
		if _, found := slices.BinarySearch(o, item); !found {
			out = append(out, item)
		}
	}
	return out
}

// Contains reports whether every item of o is in s.
func (s Set) Contains(o Set) bool {
	for _, item := range o {
		if _, found := slices.BinarySearch(s, item); !found {
			return false
		}
	}
	return true
}

// String prints "{a,b}" as Mesos does.
func (s Set) String() string { return "{" + strings.Join(s, ",") + "}" }
