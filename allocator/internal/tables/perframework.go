package tables

import (
	"iter"
	"maps"
	"slices"

	"github.com/allot-go/allot/resources"
)

// PerFramework holds an agent's resources of one kind (offered, or in
// use) per framework. Most agents hold resources for one framework at a
// time, so the first framework's entry is kept in the value itself: an
// offer to an agent that holds nothing changes no map and allocates
// nothing here, and an agent costs no map until a second framework holds
// something on it. There is never an empty entry: setting nothing removes
// the framework.
type PerFramework struct {
	Fw    string // the inline entry's framework; "" when unused
	first resources.Resources
	More  map[string]resources.Resources
}

// Get returns what the framework holds (nothing when it holds nothing).
func (p *PerFramework) Get(fwID string) resources.Resources {
	if p.Fw == fwID && fwID != "" {
		return p.first
	}
	return p.More[fwID]
}

// Has reports whether the framework holds something.
func (p *PerFramework) Has(fwID string) bool {
	if p.Fw == fwID && fwID != "" {
		return true
	}
	_, ok := p.More[fwID]
	return ok
}

// Set makes res what the framework holds; nothing removes its entry.
func (p *PerFramework) Set(fwID string, res resources.Resources) {
	switch {
	case res.IsEmpty():
		p.Remove(fwID)
	case p.Fw == fwID:
		p.first = res
	case p.Fw == "" && p.More[fwID].IsEmpty():
		p.Fw, p.first = fwID, res
	default:
		if p.More == nil {
			p.More = map[string]resources.Resources{}
		}
		p.More[fwID] = res
	}
}

// Add adds res to what the framework holds.
func (p *PerFramework) Add(fwID string, res resources.Resources) {
	if cur := p.Get(fwID); cur.IsEmpty() {
		p.Set(fwID, res)
	} else {
		p.Set(fwID, cur.Plus(res))
	}
}

// Remove forgets what the framework holds.
func (p *PerFramework) Remove(fwID string) {
	if p.Fw == fwID {
		p.Fw, p.first = "", resources.Resources{}
		return
	}
	delete(p.More, fwID)
}

// Len returns how many frameworks hold something.
func (p *PerFramework) Len() int {
	n := len(p.More)
	if p.Fw != "" {
		n++
	}
	return n
}

// ids returns the frameworks that hold something, sorted.
func (p *PerFramework) IDs() []string { return AppendSortedKeys(nil, p.Fw, p.More) }

// AppendSortedKeys appends to dst first (unless it is "") and the keys of
// more, sorted among themselves: the keys of a record kept as one entry in
// line and the others in a map (perFramework, byRole). first is never a
// key of more.
func AppendSortedKeys[V any](dst []string, first string, more map[string]V) []string {
	start := len(dst)
	if first != "" {
		dst = append(dst, first)
	}
	dst = slices.AppendSeq(dst, maps.Keys(more))
	slices.Sort(dst[start:])
	return dst
}

// All yields every framework and what it holds, in no set order.
func (p *PerFramework) All() iter.Seq2[string, resources.Resources] {
	return func(yield func(string, resources.Resources) bool) {
		if p.Fw != "" && !yield(p.Fw, p.first) {
			return
		}
		for id, res := range p.More {
			if !yield(id, res) {
				return
			}
		}
	}
}

// Clone returns the entries as a map of copies, for the views.
func (p *PerFramework) Clone() map[string]resources.Resources {
	out := make(map[string]resources.Resources, p.Len())
	for id, res := range p.All() {
		out[id] = res.Clone()
	}
	return out
}
