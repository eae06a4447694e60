package allocator

import (
	"iter"
	"math"
)

// wholeSet holds one framework's compact refusal filters in one role, by
// agent number. While few agents have one it is a map (about 85 bytes a
// filter); once an eighth of the numbers handed out have one (and at
// least denseFrom), a slice indexed by agent number, 24 bytes a number,
// which costs a filter its 24 bytes once every agent has one: in Mesos's
// DeclineOffers loop every framework ends up refusing every agent, and at
// 50000 agents and 5000 frameworks that is 250 million filters. A set that
// became a slice stays one until it is empty.
type wholeSet struct {
	sparse map[int32]wholeRefusal
	// dense holds absent at the numbers without a filter.
	dense []wholeRefusal
	n     int
}

// absent marks a number without a filter in a dense set: no expiry
// sinceAnchor gives is math.MinInt64.
var absent = wholeRefusal{expires: math.MinInt64}

// denseFrom is the fewest filters a set turns dense at.
const denseFrom = 64

// get returns the filter on the agent numbered num.
func (s *wholeSet) get(num int) (wholeRefusal, bool) {
	if s.dense != nil {
		if num >= len(s.dense) || s.dense[num].expires == absent.expires {
			return wholeRefusal{}, false
		}
		return s.dense[num], true
	}
	w, ok := s.sparse[int32(num)]
	return w, ok
}

// put stores w for the agent numbered num; numbers says how many agent
// numbers have been handed out (the highest plus one).
func (s *wholeSet) put(num int, w wholeRefusal, numbers int) {
	if s.dense == nil {
		if _, ok := s.sparse[int32(num)]; !ok && s.n+1 >= denseFrom && 8*(s.n+1) >= numbers {
			s.densify(numbers)
		}
	}
	if s.dense == nil {
		if s.sparse == nil {
			s.sparse = map[int32]wholeRefusal{}
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
	if s.dense[num].expires == absent.expires {
		s.n++
	}
	s.dense[num] = w
}

// densify moves the filters from the map to a slice.
func (s *wholeSet) densify(numbers int) {
	s.dense = make([]wholeRefusal, numbers)
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
func (s *wholeSet) drop(num int) bool {
	if s.dense != nil {
		if num >= len(s.dense) || s.dense[num].expires == absent.expires {
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

// len returns how many filters the set holds.
func (s *wholeSet) len() int { return s.n }

// all yields the filters by agent number (in no particular order). The
// loop may change the filter it is given, not add or drop any.
func (s *wholeSet) all() iter.Seq2[int, wholeRefusal] {
	return func(yield func(int, wholeRefusal) bool) {
		if s.dense != nil {
			for num, w := range s.dense {
				if w.expires != absent.expires && !yield(num, w) {
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
