package resources

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/allot-go/allot/internal/names"
)

// quantity is one entry of a Quantities or Limits vector.
type quantity struct {
	id names.ID
	v  Scalar
}

// Quantities maps resource names to scalar amounts, with no other metadata:
// "how much", not "which". Absent names are zero, and no entry is ever zero
// or negative: subtraction saturates at zero and drops the entry.
//
// It is a small vector sorted by interned name, so the operations walk two
// short arrays and the in-place ones (Add, Subtract) allocate nothing once
// the receiver holds every name. The zero value is empty and ready to use.
// The in-place methods take a pointer; Plus, Minus and Min return new
// values. A copy made by assignment shares storage with the original, so
// Clone before changing a copy in place.
type Quantities struct {
	items []quantity
}

// QuantitiesOf builds quantities from a name to amount map. Non-positive
// amounts are dropped; invalid ones (NaN, infinite) give an error.
func QuantitiesOf(m map[string]float64) (Quantities, error) {
	var q Quantities
	for name, v := range m {
		if name == "" {
			return Quantities{}, fmt.Errorf("%w: empty name", ErrInvalidQuantities)
		}
		if v <= 0 {
			if v < 0 {
				return Quantities{}, fmt.Errorf("%w %s:%v: negative", ErrInvalidQuantities, name, v)
			}
			continue
		}
		s, err := ScalarOf(v)
		if err != nil {
			return Quantities{}, fmt.Errorf("%w %s: %w", ErrInvalidQuantities, name, err)
		}
		q.SetScalar(name, s)
	}
	return q, nil
}

// ParseQuantities parses "cpus:1;mem:32" (names and plain scalar amounts,
// separated by ';'), the format String prints. A name given twice is summed;
// zero amounts are dropped. An empty string and "{}" are empty quantities.
func ParseQuantities(text string) (Quantities, error) {
	var q Quantities
	err := parseAmounts(text, func(id names.ID, _ string, s Scalar) error {
		q.addID(id, s)
		return nil
	})
	if err != nil {
		return Quantities{}, err
	}
	return q, nil
}

// parseAmounts reads "name:amount;..." and calls f for every entry.
func parseAmounts(text string, f func(names.ID, string, Scalar) error) error {
	if strings.TrimSpace(text) == "{}" {
		return nil
	}
	for token := range strings.SplitSeq(text, ";") {
		token = strings.TrimSpace(token)
		if token == "" {
			continue
		}
		name, value, ok := strings.Cut(token, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			return fmt.Errorf("%w %q: want name:amount", ErrInvalidQuantities, token)
		}
		if err := validateName(name); err != nil {
			return fmt.Errorf("%w %q: %w", ErrInvalidQuantities, token, err)
		}
		s, err := parseScalarText(value)
		if err != nil {
			return fmt.Errorf("%w %q: %w", ErrInvalidQuantities, token, err)
		}
		if err := f(names.Intern(name), name, s); err != nil {
			return fmt.Errorf("%w %q: %w", ErrInvalidQuantities, token, err)
		}
	}
	return nil
}

// MustParseQuantities is ParseQuantities for tests and examples; it panics on
// invalid input.
func MustParseQuantities(text string) Quantities {
	q, err := ParseQuantities(text)
	if err != nil {
		panic(err)
	}
	return q
}

func (q Quantities) index(id names.ID) (int, bool) {
	// Linear search: vectors hold a handful of names.
	for i, it := range q.items {
		if it.id >= id {
			return i, it.id == id
		}
	}
	return len(q.items), false
}

// Get returns the amount of name and true, or false when q has none of
// it, as Limits.Get does for a limit.
func (q Quantities) Get(name string) (Scalar, bool) {
	id, ok := names.Lookup(name)
	if !ok {
		return 0, false
	}
	i, found := q.index(id)
	if !found {
		return 0, false
	}
	return q.items[i].v, true
}

// Float64 returns the amount of name as a float64 (0 when absent).
func (q Quantities) Float64(name string) float64 { return q.Scalar(name).Float64() }

// Scalar returns the amount of name (0 when absent).
func (q Quantities) Scalar(name string) Scalar {
	id, ok := names.Lookup(name)
	if !ok {
		return 0
	}
	if i, ok := q.index(id); ok {
		return q.items[i].v
	}
	return 0
}

// Set sets the amount of name, rounding to three decimals; a value that is
// zero or negative after rounding removes the name. NaN and infinities are
// ignored, since they are no amount at all.
func (q *Quantities) Set(name string, v float64) {
	if v <= 0 {
		q.SetScalar(name, 0)
		return
	}
	s, err := ScalarOf(v)
	if err != nil {
		return
	}
	q.SetScalar(name, s)
}

// AddScalar adds v to the amount of name in place (a negative v subtracts,
// saturating at zero). It allocates nothing when name is already present.
func (q *Quantities) AddScalar(name string, v Scalar) {
	q.addID(names.Intern(name), v)
}

// SetScalar sets the amount of name; zero or negative removes it.
func (q *Quantities) SetScalar(name string, v Scalar) {
	q.setID(names.Intern(name), v)
}

func (q *Quantities) setID(id names.ID, v Scalar) {
	i, ok := q.index(id)
	switch {
	case ok && v > 0:
		q.items[i].v = v
	case ok:
		q.items = slices.Delete(q.items, i, i+1)
	case v > 0:
		q.items = slices.Insert(q.items, i, quantity{id, v})
	}
}

func (q *Quantities) addID(id names.ID, v Scalar) {
	i, ok := q.index(id)
	if ok {
		q.items[i].v += v
		if q.items[i].v <= 0 {
			q.items = slices.Delete(q.items, i, i+1)
		}
		return
	}
	switch {
	case v <= 0:
	case i == len(q.items):
		// Agents' resources usually list names in the order their ids were
		// given (cpus, mem, disk...), so summing them into an empty vector
		// (what every offer does) mostly appends, without Insert's
		// general case.
		q.items = append(q.items, quantity{id, v})
	default:
		q.items = slices.Insert(q.items, i, quantity{id, v})
	}
}

// Reset makes q empty, keeping its storage for reuse.
func (q *Quantities) Reset() {
	// Quantities hold no pointers: what is past the length needs no
	// clearing, and not touching it spares a cache miss on a hot path.
	q.items = q.items[:0]
}

// Assign makes q a copy of o, reusing q's storage.
func (q *Quantities) Assign(o Quantities) {
	q.items = append(q.items[:0], o.items...)
}

// Len returns the number of names with a positive amount.
func (q Quantities) Len() int { return len(q.items) }

// IsEmpty reports whether every amount is zero.
func (q Quantities) IsEmpty() bool { return len(q.items) == 0 }

// Clone returns a copy that shares no memory with q.
func (q Quantities) Clone() Quantities {
	return Quantities{items: slices.Clone(q.items)}
}

// Add adds o to q in place.
func (q *Quantities) Add(o Quantities) {
	// Fast path: every name of o already present.
	j := 0
	for _, it := range o.items {
		for j < len(q.items) && q.items[j].id < it.id {
			j++
		}
		if j == len(q.items) || q.items[j].id != it.id {
			q.addSlow(o)
			return
		}
	}
	j = 0
	for _, it := range o.items {
		for q.items[j].id < it.id {
			j++
		}
		q.items[j].v += it.v
	}
}

func (q *Quantities) addSlow(o Quantities) {
	// The merged length: q's names plus o's new ones.
	n := len(q.items)
	for i, j := 0, 0; j < len(o.items); j++ {
		for i < len(q.items) && q.items[i].id < o.items[j].id {
			i++
		}
		if i == len(q.items) || q.items[i].id != o.items[j].id {
			n++
		}
	}
	if n <= cap(q.items) && !overlaps(q.items, o.items) {
		// Merge in place from the back: no allocation.
		items := q.items[:n]
		i, j := len(q.items)-1, len(o.items)-1
		for k := n - 1; k >= 0; k-- {
			switch {
			case j < 0 || (i >= 0 && q.items[i].id > o.items[j].id):
				items[k] = q.items[i]
				i--
			case i < 0 || o.items[j].id > q.items[i].id:
				items[k] = o.items[j]
				j--
			default:
				items[k] = quantity{q.items[i].id, q.items[i].v + o.items[j].v}
				i--
				j--
			}
		}
		q.items = items
		return
	}
	out := make([]quantity, 0, n)
	i, j := 0, 0
	for i < len(q.items) || j < len(o.items) {
		switch {
		case j == len(o.items) || (i < len(q.items) && q.items[i].id < o.items[j].id):
			out = append(out, q.items[i])
			i++
		case i == len(q.items) || o.items[j].id < q.items[i].id:
			out = append(out, o.items[j])
			j++
		default:
			out = append(out, quantity{q.items[i].id, q.items[i].v + o.items[j].v})
			i++
			j++
		}
	}
	q.items = out
}

// Subtract subtracts o from q in place, saturating at zero: names that reach
// zero are removed, names absent from q stay absent.
func (q *Quantities) Subtract(o Quantities) {
	w, j := 0, 0
	for _, it := range q.items {
		for j < len(o.items) && o.items[j].id < it.id {
			j++
		}
		if j < len(o.items) && o.items[j].id == it.id {
			it.v -= o.items[j].v
		}
		if it.v > 0 {
			q.items[w] = it
			w++
		}
	}
	clear(q.items[w:])
	q.items = q.items[:w]
}

// Plus returns q + o.
func (q Quantities) Plus(o Quantities) Quantities {
	c := q.Clone()
	c.Add(o)
	return c
}

// Minus returns q - o, saturating at zero.
func (q Quantities) Minus(o Quantities) Quantities {
	c := q.Clone()
	c.Subtract(o)
	return c
}

// Contains reports whether q holds at least o of every name.
func (q Quantities) Contains(o Quantities) bool {
	i := 0
	for _, it := range o.items {
		for i < len(q.items) && q.items[i].id < it.id {
			i++
		}
		if i == len(q.items) || q.items[i].id != it.id || q.items[i].v < it.v {
			return false
		}
	}
	return true
}

// Overlaps reports whether some name has an amount in both q and o.
func (q Quantities) Overlaps(o Quantities) bool {
	i := 0
	for _, it := range o.items {
		for i < len(q.items) && q.items[i].id < it.id {
			i++
		}
		if i == len(q.items) {
			return false
		}
		if q.items[i].id == it.id {
			return true
		}
	}
	return false
}

// Equal reports whether q and o hold the same amounts.
func (q Quantities) Equal(o Quantities) bool { return slices.Equal(q.items, o.items) }

// Min returns, for every name present in both, the smaller amount.
func (q Quantities) Min(o Quantities) Quantities {
	var out Quantities
	i := 0
	for _, it := range q.items {
		for i < len(o.items) && o.items[i].id < it.id {
			i++
		}
		if i < len(o.items) && o.items[i].id == it.id {
			out.items = append(out.items, quantity{it.id, min(it.v, o.items[i].v)})
		}
	}
	return out
}

// Names returns the names with a positive amount, sorted.
func (q Quantities) Names() []string {
	out := make([]string, len(q.items))
	for i, it := range q.items {
		out[i] = it.id.String()
	}
	slices.Sort(out)
	return out
}

// All yields every name with its amount, in name order.
func (q Quantities) All() iter.Seq2[string, Scalar] {
	return func(yield func(string, Scalar) bool) {
		for _, name := range q.Names() {
			if !yield(name, q.Scalar(name)) {
				return
			}
		}
	}
}

// String prints "cpus:1; mem:32" in name order, or "{}" when empty.
func (q Quantities) String() string {
	if q.IsEmpty() {
		return "{}"
	}
	var b strings.Builder
	for i, name := range q.Names() {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(name)
		b.WriteByte(':')
		b.WriteString(q.Scalar(name).String())
	}
	return b.String()
}

// NameSet is a set of resource names, for example the names excluded from
// fairness. The zero value is empty.
type NameSet struct {
	ids []names.ID
}

// NewNameSet returns the set of the given names.
func NewNameSet(list ...string) NameSet {
	var s NameSet
	for _, name := range list {
		id := names.Intern(name)
		if i, found := slices.BinarySearch(s.ids, id); !found {
			s.ids = slices.Insert(s.ids, i, id)
		}
	}
	return s
}

// Has reports whether name is in the set.
func (s NameSet) Has(name string) bool {
	id, ok := names.Lookup(name)
	return ok && s.hasID(id)
}

func (s NameSet) hasID(id names.ID) bool {
	for _, x := range s.ids {
		if x == id {
			return true
		}
	}
	return false
}

// DominantShare returns the largest ratio q[name]/total[name] over the names
// with a positive total that are not excluded, and that name; ties go to the
// smaller name. Non-scalar resources never appear in Quantities, so they never
// count. It allocates nothing.
func (q Quantities) DominantShare(total Quantities, excluded NameSet) (float64, string) {
	best, bestID, found := 0.0, names.ID(0), false
	j := 0
	for _, t := range total.items {
		if t.v <= 0 || excluded.hasID(t.id) {
			continue
		}
		for j < len(q.items) && q.items[j].id < t.id {
			j++
		}
		var a Scalar
		if j < len(q.items) && q.items[j].id == t.id {
			a = q.items[j].v
		}
		share := float64(a) / float64(t.v)
		if !found || share > best || (share == best && t.id.String() < bestID.String()) {
			best, bestID, found = share, t.id, true
		}
	}
	if !found {
		return 0, ""
	}
	return best, bestID.String()
}

// Limits maps resource names to upper bounds. Unlike Quantities, an absent
// name is unlimited and a zero limit is a real limit ("none at all").
// The zero value limits nothing.
type Limits struct {
	items []quantity
}

// ParseLimits parses "cpus:10;mem:2048" like ParseQuantities, but keeps zero
// limits and refuses a name limited twice. An empty string and "{}" limit
// nothing.
func ParseLimits(text string) (Limits, error) {
	var l Limits
	err := parseAmounts(text, func(id names.ID, name string, s Scalar) error {
		if _, dup := l.get(id); dup {
			return fmt.Errorf("%s limited twice", name)
		}
		l.set(id, s)
		return nil
	})
	if err != nil {
		return Limits{}, err
	}
	return l, nil
}

// MustParseLimits is ParseLimits for tests and examples.
func MustParseLimits(text string) Limits {
	l, err := ParseLimits(text)
	if err != nil {
		panic(err)
	}
	return l
}

// LimitsOf turns quantities into limits on exactly their names.
func LimitsOf(q Quantities) Limits { return Limits{items: slices.Clone(q.items)} }

func (l Limits) get(id names.ID) (Scalar, bool) {
	for _, it := range l.items {
		if it.id == id {
			return it.v, true
		}
	}
	return 0, false
}

func (l *Limits) set(id names.ID, v Scalar) {
	v = max(v, 0)
	for i, it := range l.items {
		if it.id == id {
			l.items[i].v = v
			return
		}
		if it.id > id {
			l.items = slices.Insert(l.items, i, quantity{id, v})
			return
		}
	}
	l.items = append(l.items, quantity{id, v})
}

// Get returns the limit of name and true, or false when name is unlimited.
func (l Limits) Get(name string) (Scalar, bool) {
	id, ok := names.Lookup(name)
	if !ok {
		return 0, false
	}
	return l.get(id)
}

// Set limits name to v (negative becomes zero).
func (l *Limits) Set(name string, v Scalar) { l.set(names.Intern(name), v) }

// IsEmpty reports whether nothing is limited.
func (l Limits) IsEmpty() bool { return len(l.items) == 0 }

// Clone returns a copy that shares no memory with l.
func (l Limits) Clone() Limits { return Limits{items: slices.Clone(l.items)} }

// Equal reports whether l and o limit the same names to the same amounts.
func (l Limits) Equal(o Limits) bool { return slices.Equal(l.items, o.items) }

// Contains reports whether q fits within the limits.
func (l Limits) Contains(q Quantities) bool {
	for _, lim := range l.items {
		if v, ok := q.getID(lim.id); ok && v > lim.v {
			return false
		}
	}
	return true
}

// Subtract lowers every limit by q's amount of the same name, saturating at
// zero; unlimited names stay unlimited.
func (l Limits) Subtract(q Quantities) Limits {
	out := l.Clone()
	for i, lim := range out.items {
		if v, ok := q.getID(lim.id); ok {
			out.items[i].v = max(lim.v-v, 0)
		}
	}
	return out
}

// Cap returns q with every limited name cut down to its limit.
func (l Limits) Cap(q Quantities) Quantities {
	out := q.Clone()
	for _, lim := range l.items {
		if v, ok := out.getID(lim.id); ok && v > lim.v {
			out.setID(lim.id, lim.v)
		}
	}
	return out
}

// Names returns the limited names, sorted.
func (l Limits) Names() []string {
	out := make([]string, len(l.items))
	for i, it := range l.items {
		out[i] = it.id.String()
	}
	slices.Sort(out)
	return out
}

// String prints "cpus:10; mem:0" in name order, or "{}" when unlimited.
func (l Limits) String() string {
	if l.IsEmpty() {
		return "{}"
	}
	var b strings.Builder
	for i, name := range l.Names() {
		if i > 0 {
			b.WriteString("; ")
		}
		v, _ := l.Get(name)
		b.WriteString(name)
		b.WriteByte(':')
		b.WriteString(v.String())
	}
	return b.String()
}

func (q Quantities) getID(id names.ID) (Scalar, bool) {
	if i, ok := q.index(id); ok {
		return q.items[i].v, true
	}
	return 0, false
}

// QuantitiesWithin returns the scalar amounts of rs by name, as Quantities
// does, and whether every one of them is at most max. It stops at the first
// name whose sum passes max, so it never overflows however many entries rs
// holds (each entry of a valid Resources is at most MaxScalar).
func (rs Resources) QuantitiesWithin(max Scalar) (Quantities, bool) {
	var q Quantities
	for i := range rs.entries {
		e := &rs.entries[i]
		if e.m.typ != ScalarType {
			continue
		}
		if e.scalar > max {
			return Quantities{}, false
		}
		if have, _ := q.getID(e.m.id); have > max-e.scalar {
			return Quantities{}, false
		}
		q.addID(e.m.id, e.scalar)
	}
	return q, true
}

// Within reports whether every amount of q is at most max.
func (q Quantities) Within(max Scalar) bool {
	for _, it := range q.items {
		if it.v > max {
			return false
		}
	}
	return true
}

// Max raises every amount of q to o's amount of the same name, in place:
// q becomes the larger of the two, name by name.
func (q *Quantities) Max(o Quantities) {
	for _, it := range o.items {
		if v, _ := q.getID(it.id); v < it.v {
			q.setID(it.id, it.v)
		}
	}
}

// Lower lowers every limit of l to o's limit of the same name, in place,
// and limits the names o limits that l does not: l becomes the tighter of
// the two.
func (l *Limits) Lower(o Limits) {
	for _, it := range o.items {
		if v, ok := l.get(it.id); !ok || it.v < v {
			l.set(it.id, it.v)
		}
	}
}

// SubtractInPlace lowers every limit of l by q's amount of the same name,
// saturating at zero, as Subtract does, without a copy.
func (l *Limits) SubtractInPlace(q Quantities) {
	for i, lim := range l.items {
		if v, ok := q.getID(lim.id); ok {
			l.items[i].v = max(lim.v-v, 0)
		}
	}
}

// CopyFrom makes l limit what o limits, reusing l's storage.
func (l *Limits) CopyFrom(o Limits) { l.items = append(l.items[:0], o.items...) }

// overlaps reports whether a and b share storage.
func overlaps(a, b []quantity) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	a, b = a[:cap(a)], b[:cap(b)]
	return &a[len(a)-1] == &b[len(b)-1] || (&a[0] == &b[0])
}

// LimitsWithin reports whether every limit of l is at most max.
func LimitsWithin(l Limits, max Scalar) bool {
	for _, it := range l.items {
		if it.v > max {
			return false
		}
	}
	return true
}
