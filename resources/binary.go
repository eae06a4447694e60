package resources

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/allot-go/allot/internal/names"
	"github.com/allot-go/allot/internal/wire"
	"github.com/allot-go/allot/reservation"
)

// The binary form: a compact stream of Resources, Quantities and Limits,
// for snapshots (package allocator and package sorter write theirs with
// it). An Encoder and a Decoder each keep tables of what the stream has
// named so far, so one stream must be read with one Decoder in the order it
// was written.
//
// Every number is an unsigned varint unless said otherwise; a string is its
// length and its UTF-8 bytes.
//
//	resources  = 0                                   empty
//	           | 1 count entry{count}                a new value, numbered next
//	           | 2+k                                 value number k again
//	entry      = kind alloc value [copies]           copies: shared entries only
//	kind       = 0 text | 1+k                        a new kind, or kind number k
//	alloc      = 0 | 1 string | 2+k                  no allocation role, a new one, role k
//	value      = amount                              scalars, in thousandths
//	           | count begin length {gap length}     ranges: gap = begin - previous end - 2
//	           | count string{count}                 sets, items in increasing order
//	quantities = count (name amount){count}
//	limits     = count (name amount){count}          amounts may be zero
//	name       = 0 string | 1+k                      a new name, or name number k
//
// A kind's text is the resource in the text format with a unit value
// (1 thousandth, [1-1] or {x}) and no allocation role, so that every
// reservation, disk and flag is read back by Parse and validated there.
// Values that are the same value in the encoder's input (Identical) are
// written once and read back as one frozen value shared by every holder,
// which keeps what was shared shared.

// ErrInvalidBinary: input to a Decoder that an Encoder did not write, or
// that was cut short or damaged.
var ErrInvalidBinary = errors.New("resources: invalid binary form")

// Encoder writes Resources, Quantities and Limits in the binary form. The
// zero value is not usable; call NewEncoder.
type Encoder struct {
	kinds  map[*meta]uint64
	allocs map[allocRole]uint64
	names  map[names.ID]uint64
	values map[valueKey]uint64
	w      wire.Writer
	text   strings.Builder
}

type valueKey struct {
	first *entry
	n     int
}

// NewEncoder returns an Encoder with empty tables.
func NewEncoder() *Encoder {
	return &Encoder{
		kinds:  map[*meta]uint64{},
		allocs: map[allocRole]uint64{},
		names:  map[names.ID]uint64{},
		values: map[valueKey]uint64{},
	}
}

// AppendResources appends rs to b.
func (e *Encoder) AppendResources(b []byte, rs Resources) []byte {
	e.w.B = b
	e.resources(rs)
	return e.w.B
}

// AppendQuantities appends q to b.
func (e *Encoder) AppendQuantities(b []byte, q Quantities) []byte {
	e.w.B = b
	e.amounts(q.items)
	return e.w.B
}

// AppendLimits appends l to b.
func (e *Encoder) AppendLimits(b []byte, l Limits) []byte {
	e.w.B = b
	e.amounts(l.items)
	return e.w.B
}

func (e *Encoder) resources(rs Resources) {
	w := &e.w
	if len(rs.entries) == 0 {
		w.Uvarint(0)
		return
	}
	key := valueKey{&rs.entries[0], len(rs.entries)}
	if k, ok := e.values[key]; ok {
		w.Uvarint(2 + k)
		return
	}
	e.values[key] = uint64(len(e.values))
	w.Uvarint(1)
	w.Int(len(rs.entries))
	for i := range rs.entries {
		x := &rs.entries[i]
		if k, ok := e.kinds[x.m]; ok {
			w.Uvarint(1 + k)
		} else {
			e.kinds[x.m] = uint64(len(e.kinds))
			w.Uvarint(0)
			w.String(e.kindText(x.m))
		}
		switch k, ok := e.allocs[x.alloc]; {
		case x.alloc == allocRole{}:
			w.Uvarint(0)
		case ok:
			w.Uvarint(2 + k)
		default:
			e.allocs[x.alloc] = uint64(len(e.allocs))
			w.Uvarint(1)
			w.String(x.alloc.String())
		}
		switch x.m.typ {
		case ScalarType:
			w.Uvarint(uint64(x.scalar))
		case RangesType:
			var buf [onStack]Range
			rs := x.vals.unpack(buf[:0])
			w.Int(len(rs))
			for j, r := range rs {
				if j == 0 {
					w.Uvarint(r.Begin)
				} else {
					w.Uvarint(r.Begin - rs[j-1].End - 2)
				}
				w.Uvarint(r.End - r.Begin)
			}
		case SetType:
			s := x.set()
			w.Int(len(s))
			for _, item := range s {
				w.String(item)
			}
		}
		if x.m.shared {
			w.Uvarint(uint64(x.copies()))
		}
	}
}

// kindText prints a resource of kind m with a unit value.
func (e *Encoder) kindText(m *meta) string {
	r := Resource{Name: m.name, Type: m.typ, Reservations: m.reservations, Disk: m.disk, Shared: m.shared, Revocable: m.revocable, ProviderID: m.provider}
	switch m.typ {
	case ScalarType:
		r.Scalar = 1
	case RangesType:
		r.Ranges = Ranges{{Begin: 1, End: 1}}
	case SetType:
		r.Set = Set{"x"}
	}
	e.text.Reset()
	writeResource(&e.text, &r, 1)
	return e.text.String()
}

func (e *Encoder) amounts(items []quantity) {
	w := &e.w
	w.Int(len(items))
	for _, it := range items {
		if k, ok := e.names[it.id]; ok {
			w.Uvarint(1 + k)
		} else {
			e.names[it.id] = uint64(len(e.names))
			w.Uvarint(0)
			w.String(it.id.String())
		}
		w.Uvarint(uint64(it.v))
	}
}

// Decoder reads what an Encoder wrote. The zero value is not usable; call
// NewDecoder.
type Decoder struct {
	kinds  []*meta
	allocs []allocRole
	names  []names.ID
	values []Resources
}

// NewDecoder returns a Decoder with empty tables.
func NewDecoder() *Decoder { return &Decoder{} }

// ReadResources reads Resources from the start of src and returns them with
// the number of bytes read. Bad input is an error wrapping ErrInvalidBinary
// that says what is wrong; the Decoder's tables are then unusable.
func (d *Decoder) ReadResources(src []byte) (Resources, int, error) {
	r := wire.NewReader(src)
	rs := d.resources(r)
	return rs, r.Offset(), binaryErr(r.Err())
}

// ReadQuantities reads Quantities from the start of src, as ReadResources
// does.
func (d *Decoder) ReadQuantities(src []byte) (Quantities, int, error) {
	r := wire.NewReader(src)
	var q Quantities
	d.amounts(r, false, func(id names.ID, v Scalar) {
		if _, dup := q.getID(id); dup {
			r.Failf("quantities name %s twice", id)
		}
		q.setID(id, v)
	})
	return q, r.Offset(), binaryErr(r.Err())
}

// ReadLimits reads Limits from the start of src, as ReadResources does.
func (d *Decoder) ReadLimits(src []byte) (Limits, int, error) {
	r := wire.NewReader(src)
	var l Limits
	d.amounts(r, true, func(id names.ID, v Scalar) {
		if _, dup := l.get(id); dup {
			r.Failf("limits name %s twice", id)
		}
		l.set(id, v)
	})
	return l, r.Offset(), binaryErr(r.Err())
}

func binaryErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidBinary, err)
}

func (d *Decoder) resources(r *wire.Reader) Resources {
	ref := r.Uvarint()
	switch {
	case r.Err() != nil || ref == 0:
		return Resources{}
	case ref >= 2:
		if ref-2 >= uint64(len(d.values)) {
			r.Failf("resources number %d not defined yet", ref-2)
			return Resources{}
		}
		return d.values[ref-2]
	}
	n := r.Count("resources")
	if n == 0 && r.Err() == nil {
		r.Failf("a new resources value with no entry")
	}
	out := Resources{entries: make([]entry, 0, n)}
	var types typeChecker
	for range n {
		e, ok := d.entry(r)
		if !ok {
			return Resources{}
		}
		if t, ok := types.note(e.m.name, e.m.typ); !ok {
			// As Parse does: a value never holds one name with two types.
			r.Failf("%s is both %s and %s", e.m.name, t, e.m.typ)
			return Resources{}
		}
		out.addEntry(e)
	}
	out = out.Frozen()
	d.values = append(d.values, out)
	return out
}

func (d *Decoder) entry(r *wire.Reader) (entry, bool) {
	var e entry
	switch k := r.Uvarint(); {
	case r.Err() != nil:
		return e, false
	case k == 0:
		m, ok := d.kind(r, r.String())
		if !ok {
			return e, false
		}
		d.kinds = append(d.kinds, m)
		e.m = m
	case k-1 < uint64(len(d.kinds)):
		e.m = d.kinds[k-1]
	default:
		r.Failf("resource kind %d not defined yet", k-1)
		return e, false
	}
	switch k := r.Uvarint(); {
	case r.Err() != nil:
		return e, false
	case k == 0:
	case k == 1:
		role := r.String()
		if err := reservation.ValidateRole(role); r.Err() == nil && err != nil {
			r.Failf("allocation role: %v", err)
		}
		d.allocs = append(d.allocs, allocRoleOf(role))
		e.alloc = d.allocs[len(d.allocs)-1]
	case k-2 < uint64(len(d.allocs)):
		e.alloc = d.allocs[k-2]
	default:
		r.Failf("allocation role %d not defined yet", k-2)
		return e, false
	}
	switch e.m.typ {
	case ScalarType:
		v := r.Uvarint()
		if r.Err() == nil && (v == 0 || v > uint64(MaxTotal)) {
			r.Failf("%s amount %d thousandths: want 1 to %d", e.m.name, v, int64(MaxTotal))
		}
		e.scalar = Scalar(v)
	case RangesType:
		n := r.Count("ranges")
		if n == 0 && r.Err() == nil {
			r.Failf("%s: no range", e.m.name)
		}
		list := make(Ranges, 0, n)
		for i := range n {
			begin := r.Uvarint()
			if i > 0 {
				prev := list[i-1].End
				if prev > ^uint64(0)-2 || begin > ^uint64(0)-prev-2 {
					r.Failf("%s: ranges past 2^64", e.m.name)
				}
				begin += prev + 2
			}
			length := r.Uvarint()
			if length > ^uint64(0)-begin {
				r.Failf("%s: range past 2^64", e.m.name)
			}
			if r.Err() != nil {
				return e, false
			}
			list = append(list, Range{Begin: begin, End: begin + length})
		}
		e.vals = rangesValues(list)
	case SetType:
		n := r.Count("set")
		if n == 0 && r.Err() == nil {
			r.Failf("%s: no set item", e.m.name)
		}
		s := make(Set, 0, n)
		for i := range n {
			item := r.String()
			if r.Err() == nil && (item == "" || (i > 0 && item <= s[i-1])) {
				r.Failf("%s: set item %q empty or out of order", e.m.name, item)
			}
			s = append(s, item)
		}
		e.vals = setValues(s)
	}
	if e.m.shared {
		c := r.Uvarint()
		if r.Err() == nil && (c == 0 || c > math.MaxInt32) {
			r.Failf("%s: %d copies", e.m.name, c)
		}
		if r.Err() == nil {
			e.setCopies(int32(c))
		}
	}
	return e, r.Err() == nil
}

// kind reads a kind's text back into a meta.
func (d *Decoder) kind(r *wire.Reader, text string) (*meta, bool) {
	if r.Err() != nil {
		return nil, false
	}
	rs, err := Parse(text, "")
	if err != nil {
		r.Failf("resource kind %q: %v", text, err)
		return nil, false
	}
	if len(rs.entries) != 1 || rs.entries[0].alloc != (allocRole{}) || rs.entries[0].copies() != 1 {
		r.Failf("resource kind %q is not one resource", text)
		return nil, false
	}
	return rs.entries[0].m, true
}

func (d *Decoder) amounts(r *wire.Reader, zero bool, set func(names.ID, Scalar)) {
	n := r.Count("quantities")
	for range n {
		var id names.ID
		switch k := r.Uvarint(); {
		case r.Err() != nil:
			return
		case k == 0:
			name := r.String()
			if err := validateName(name); r.Err() == nil && err != nil {
				r.Failf("quantities: %v", err)
			}
			if r.Err() != nil {
				return
			}
			id = names.Intern(name)
			d.names = append(d.names, id)
		case k-1 < uint64(len(d.names)):
			id = d.names[k-1]
		default:
			r.Failf("resource name %d not defined yet", k-1)
			return
		}
		v := r.Uvarint()
		if r.Err() == nil && ((v == 0 && !zero) || v > uint64(MaxTotal)) {
			r.Failf("%s amount %d thousandths out of bounds", id, v)
		}
		if r.Err() != nil {
			return
		}
		set(id, Scalar(v))
	}
}
