package refusals

import (
	"iter"
	"math"
	"time"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Expiry is an instant kept as nanoseconds since the Unix epoch: 8 bytes
// where a time.Time takes 24, for what an agent keeps per role. noExpiry
// stands for the zero time (none). Instants outside the range of int64
// nanoseconds (before 1678, after 2262) have no expiry: what would be
// guarded by one is not kept (see expiryOf).
type Expiry int64

const NoExpiry = Expiry(math.MinInt64)

// ExpiryOf returns t as an expiry (noExpiry for the zero time), and false
// when t is outside the range an expiry holds.
func ExpiryOf(t time.Time) (Expiry, bool) {
	switch {
	case t.IsZero():
		return NoExpiry, true
	case t.After(lastExpiry), t.Before(firstExpiry):
		return NoExpiry, false
	}
	return Expiry(t.UnixNano()), true
}

// Time returns the instant, the zero time for noExpiry.
func (e Expiry) Time() time.Time {
	if e == NoExpiry {
		return time.Time{}
	}
	return time.Unix(0, int64(e)).UTC()
}

// Refusal is one refusal filter of a framework, for one role and agent.
type Refusal struct {
	Refused resources.Resources // allocation roles stripped
	Expires time.Time
	// Batch is how many periodic runs had been made when it was made.
	Batch uint64
	// Covered is the agent's refGen at which refused was found to contain
	// the agent's ref (0: not known to).
	Covered uint64
}

// Filters are a framework's refusal filters, by role and agent.
// Lists are never empty: the last filter gone takes its agent's entry, and
// the last agent its role's.
type Filters map[string]map[string][]Refusal

// On returns the filters in role on the agent.
func (fs Filters) On(role, agentID string) []Refusal { return fs[role][agentID] }

// Add appends f to the filters in role on the agent.
func (fs *Filters) Add(role, agentID string, f Refusal) {
	byAgent := (*fs)[role]
	if byAgent == nil {
		if *fs == nil {
			*fs = Filters{}
		}
		byAgent = map[string][]Refusal{}
		(*fs)[role] = byAgent
	}
	byAgent[agentID] = append(byAgent[agentID], f)
}

// Keep replaces list, the filters in role on the agent as on returned
// them, with kept, which was made in list's storage (list[:0] and
// appends), and clears the rest of that storage. Keeping them all costs
// nothing.
func (fs Filters) Keep(role, agentID string, list, kept []Refusal) {
	if len(kept) == len(list) {
		return
	}
	clear(list[len(kept):])
	byAgent := fs[role]
	if len(kept) > 0 {
		byAgent[agentID] = kept
		return
	}
	delete(byAgent, agentID)
	if len(byAgent) == 0 {
		delete(fs, role)
	}
}

// AnyOn reports whether some filter, in any role, is on the agent.
func (fs Filters) AnyOn(agentID string) bool {
	for _, byAgent := range fs {
		if _, ok := byAgent[agentID]; ok {
			return true
		}
	}
	return false
}

// DropAgent removes every filter on the agent, calling gone for each.
func (fs Filters) DropAgent(agentID string, gone func(role string, f Refusal)) {
	for role, byAgent := range fs {
		for _, f := range byAgent[agentID] {
			gone(role, f)
		}
		delete(byAgent, agentID)
		if len(byAgent) == 0 {
			delete(fs, role)
		}
	}
}

// Each calls fn for every filter.
func (fs Filters) Each(fn func(role, agentID string, f *Refusal)) {
	for role, byAgent := range fs {
		for agentID, list := range byAgent {
			for i := range list {
				fn(role, agentID, &list[i])
			}
		}
	}
}

// Index holds, for one agent and role, the frameworks whose filters
// cover the agent at generation gen, by their number in the role's
// framework sorter.
type Index struct {
	Skip sorter.Bitset
	Gen  uint64
	// Until is the earliest expiry of the filters behind skip: the index
	// holds while runs happen at or before it.
	Until time.Time
}

// Mark records that the framework numbered i has a filter, expiring at
// expires, that covers the agent at generation gen; a new generation
// starts the index afresh.
func (idx *Index) Mark(i int, gen uint64, expires time.Time) {
	if idx.Gen != gen {
		idx.Skip.Reset()
		idx.Gen, idx.Until = gen, time.Time{}
	}
	if idx.Skip.Set(i) && (idx.Until.IsZero() || expires.Before(idx.Until)) {
		idx.Until = expires
	}
}

// ValidAt reports whether the index holds for a run at now on an agent at
// generation gen.
func (idx *Index) ValidAt(gen uint64, now time.Time) bool {
	return idx.Gen == gen && now.Before(idx.Until)
}

// InverseFilter is an inverse-offer filter of a framework for an agent.
type InverseFilter struct {
	Expires time.Time
	Batch   uint64 // as refusal's
}

// InForceAt reports whether such a filter applies to a run at now,
// periodic or not, made when batches periodic runs had been made before it.
func InForceAt(expires time.Time, batch uint64, now time.Time, periodic bool, batches uint64) bool {
	return now.Before(expires) || (periodic && now.Equal(expires) && batch == batches)
}

// IndexAbove is how many refusers an index must hold before runs walk
// past them: below it, visiting them one by one costs as little.
const IndexAbove = 4

// WholeSet holds one framework's compact refusal filters in one role, by
// agent number. While few agents have one it is a map (about 85 bytes a
// filter); once an eighth of the numbers handed out have one (and at
// least denseFrom), a slice indexed by agent number, 24 bytes a number,
// which costs a filter its 24 bytes once every agent has one: in Mesos's
// DeclineOffers loop every framework ends up refusing every agent, and at
// 50000 agents and 5000 frameworks that is 250 million filters. A set that
// became a slice stays one until it is empty.
type WholeSet struct {
	sparse map[int32]WholeRefusal
	// dense holds absent at the numbers without a filter.
	dense []WholeRefusal
	n     int
}

// absent marks a number without a filter in a dense set: no expiry
// sinceAnchor gives is math.MinInt64.
var absent = WholeRefusal{Expires: math.MinInt64}

// denseFrom is the fewest filters a set turns dense at.
const denseFrom = 64

// Get returns the filter on the agent numbered num.
func (s *WholeSet) Get(num int) (WholeRefusal, bool) {
	if s.dense != nil {
		if num >= len(s.dense) || s.dense[num].Expires == absent.Expires {
			return WholeRefusal{}, false
		}
		return s.dense[num], true
	}
	w, ok := s.sparse[int32(num)]
	return w, ok
}

// Put stores w for the agent numbered num; numbers says how many agent
// numbers have been handed out (the highest plus one).
func (s *WholeSet) Put(num int, w WholeRefusal, numbers int) {
	if s.dense == nil {
		if _, ok := s.sparse[int32(num)]; !ok && s.n+1 >= denseFrom && 8*(s.n+1) >= numbers {
			s.densify(numbers)
		}
	}
	if s.dense == nil {
		if s.sparse == nil {
			s.sparse = map[int32]WholeRefusal{}
		}
		if _, ok := s.sparse[int32(num)]; !ok {
			s.n++
		}
		s.sparse[int32(num)] = w
		return
	}
	for num >= len(s.dense) {
		s.dense = append(s.dense, absent)
	}
	if s.dense[num].Expires == absent.Expires {
		s.n++
	}
	s.dense[num] = w
}

// densify moves the filters from the map to a slice.
func (s *WholeSet) densify(numbers int) {
	s.dense = make([]WholeRefusal, numbers)
	for i := range s.dense {
		s.dense[i] = absent
	}
	for num, w := range s.sparse {
		for int(num) >= len(s.dense) {
			s.dense = append(s.dense, absent)
		}
		s.dense[num] = w
	}
	s.sparse = nil
}

// drop removes the filter on the agent numbered num, reporting whether
// there was one.
func (s *WholeSet) drop(num int) bool {
	if s.dense != nil {
		if num >= len(s.dense) || s.dense[num].Expires == absent.Expires {
			return false
		}
		s.dense[num] = absent
	} else {
		if _, ok := s.sparse[int32(num)]; !ok {
			return false
		}
		delete(s.sparse, int32(num))
	}
	s.n--
	return true
}

// Len returns how many filters the set holds.
func (s *WholeSet) Len() int { return s.n }

// All yields the filters by agent number (in no particular order). The
// loop may change the filter it is given, not add or drop any.
func (s *WholeSet) All() iter.Seq2[int, WholeRefusal] {
	return func(yield func(int, WholeRefusal) bool) {
		if s.dense != nil {
			for num, w := range s.dense {
				if w.Expires != absent.Expires && !yield(num, w) {
					return
				}
			}
			return
		}
		for num, w := range s.sparse {
			if !yield(int(num), w) {
				return
			}
		}
	}
}

// WholeRefusals are a framework's compact refusal filters, by role (and,
// in a WholeSet, by agent number). A role's set is never empty: the last
// filter gone takes it.
type WholeRefusals map[string]*WholeSet

// WholeRefusal is a refusal of the whole reference of its agent.
type WholeRefusal struct {
	// Expires is the expiry in nanoseconds after Allocator.anchor.
	Expires        int64
	Batch, Covered uint64 // as refusal's
}

// On returns the compact filter in role on the agent numbered num.
func (ws WholeRefusals) On(role string, num int) (WholeRefusal, bool) {
	if s := ws[role]; s != nil {
		return s.Get(num)
	}
	return WholeRefusal{}, false
}

// Put stores w in role for the agent numbered num; numbers is as
// WholeSet.put's.
func (ws *WholeRefusals) Put(role string, num int, w WholeRefusal, numbers int) {
	s := (*ws)[role]
	if s == nil {
		if *ws == nil {
			*ws = WholeRefusals{}
		}
		s = &WholeSet{}
		(*ws)[role] = s
	}
	s.Put(num, w, numbers)
}

// Drop removes the filter in role for the agent numbered num, reporting
// whether there was one.
func (ws WholeRefusals) Drop(role string, num int) bool {
	s := ws[role]
	if s == nil || !s.drop(num) {
		return false
	}
	if s.Len() == 0 {
		delete(ws, role)
	}
	return true
}

// AnyOn reports whether some compact filter, in any role, is on the agent
// numbered num.
func (ws WholeRefusals) AnyOn(num int) bool {
	for _, s := range ws {
		if _, ok := s.Get(num); ok {
			return true
		}
	}
	return false
}

// FrameworkBits are an agent's two marks of each framework that refused
// or declined something (by the framework's number, filterNum): whether it
// has a refusal filter on the agent (filters.go), and whether it is in the
// agent's round of declines (rotation.go). The two bits of a framework sit
// side by side, 2n and 2n+1, in one word: a run checks the round only of
// frameworks whose filter bit it has just read, and the round's bit is
// then in the same cache line, where a set of its own would be a miss an
// offer (a fifth of Mesos's DeclineOffers loop when measured).
type FrameworkBits sorter.Bitset

func (b FrameworkBits) Filtered(num int) bool { return sorter.Bitset(b).Has(2 * num) }

func (b *FrameworkBits) SetFiltered(num int) { (*sorter.Bitset)(b).Set(2 * num) }

func (b FrameworkBits) ClearFiltered(num int) { sorter.Bitset(b).Clear(2 * num) }

// FilteredAll yields the numbers of the frameworks with a filter.
func (b FrameworkBits) FilteredAll() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range sorter.Bitset(b).All() {
			if i&1 == 0 && !yield(i/2) {
				return
			}
		}
	}
}

func (b FrameworkBits) Declined(num int) bool { return sorter.Bitset(b).Has(2*num + 1) }

func (b *FrameworkBits) SetDeclined(num int) { (*sorter.Bitset)(b).Set(2*num + 1) }

func (b FrameworkBits) ClearDeclined(num int) { sorter.Bitset(b).Clear(2*num + 1) }

// DeclinedAll yields the numbers of the frameworks in the round.
func (b FrameworkBits) DeclinedAll() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range sorter.Bitset(b).All() {
			if i&1 == 1 && !yield(i/2) {
				return
			}
		}
	}
}

// ClearRound empties the round, keeping the filter marks.
func (b FrameworkBits) ClearRound() {
	const odd = 0xaaaaaaaaaaaaaaaa
	for i := range b {
		b[i] &^= odd
	}
}

var (
	lastExpiry  = time.Unix(0, math.MaxInt64)
	firstExpiry = time.Unix(0, math.MinInt64+1)
)
