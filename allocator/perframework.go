package allocator

import (
	"iter"
	"maps"
	"slices"

	"github.com/allot-go/allot/resources"
)

// perFramework holds an agent's resources of one kind (offered, or in
// use) per framework. Most agents hold resources for one framework at a
// time, so the first framework's entry is kept in the value itself: an
// offer to an agent that holds nothing changes no map and allocates
// nothing here, and an agent costs no map until a second framework holds
// something on it. There is never an empty entry: setting nothing removes
// the framework.
type perFramework struct {
	fw    string // the inline entry's framework; "" when unused
	first resources.Resources
	more  map[string]resources.Resources
}

// get returns what the framework holds (nothing when it holds nothing).
func (p *perFramework) get(fwID string) resources.Resources {
	if p.fw == fwID && fwID != "" {
		return p.first
	}
	return p.more[fwID]
}

// has reports whether the framework holds something.
func (p *perFramework) has(fwID string) bool {
	if p.fw == fwID && fwID != "" {
		return true
	}
	_, ok := p.more[fwID]
	return ok
}

// set makes res what the framework holds; nothing removes its entry.
func (p *perFramework) set(fwID string, res resources.Resources) {
	switch {
	case res.IsEmpty():
		p.remove(fwID)
	case p.fw == fwID:
		p.first = res
	case p.fw == "" && p.more[fwID].IsEmpty():
		p.fw, p.first = fwID, res
	default:
		if p.more == nil {
			p.more = map[string]resources.Resources{}
		}
		p.more[fwID] = res
	}
}

// add adds res to what the framework holds.
func (p *perFramework) add(fwID string, res resources.Resources) {
	if cur := p.get(fwID); cur.IsEmpty() {
		p.set(fwID, res)
	} else {
		p.set(fwID, cur.Plus(res))
	}
}

// remove forgets what the framework holds.
func (p *perFramework) remove(fwID string) {
	if p.fw == fwID {
		p.fw, p.first = "", resources.Resources{}
		return
	}
	delete(p.more, fwID)
}

// len returns how many frameworks hold something.
func (p *perFramework) len() int {
	n := len(p.more)
	if p.fw != "" {
		n++
	}
	return n
}

// ids returns the frameworks that hold something, sorted.
func (p *perFramework) ids() []string { return appendSortedKeys(nil, p.fw, p.more) }

// appendSortedKeys appends to dst first (unless it is "") and the keys of
// more, sorted among themselves: the keys of a record kept as one entry in
// line and the others in a map (perFramework, byRole). first is never a
// key of more.
func appendSortedKeys[V any](dst []string, first string, more map[string]V) []string {
	start := len(dst)
	if first != "" {
		dst = append(dst, first)
	}
	dst = slices.AppendSeq(dst, maps.Keys(more))
	slices.Sort(dst[start:])
	return dst
}

// all yields every framework and what it holds, in no set order.
func (p *perFramework) all() iter.Seq2[string, resources.Resources] {
	return func(yield func(string, resources.Resources) bool) {
		if p.fw != "" && !yield(p.fw, p.first) {
			return
		}
		for id, res := range p.more {
			if !yield(id, res) {
				return
			}
		}
	}
}

// clone returns the entries as a map of copies, for the views.
func (p *perFramework) clone() map[string]resources.Resources {
	out := make(map[string]resources.Resources, p.len())
	for id, res := range p.all() {
		out[id] = res.Clone()
	}
	return out
}
