package placement

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// slot is an offer and what is left of it.
type slot struct {
	offer *offer.Offer
	agent int32
	// entries are the offer's pickable scalars of the names in
	// placer.names, in the order offer.Pick takes them, with what is left
	// of each.
	entries []scalarEntry
	lo, hi  int32
	// left, offered and denom are by name index: what is left, what was
	// offered, and what BinPack measures against.
	left, offered, denom []resources.Scalar
	// whole tells that some entry is a disk taken whole or not at all.
	whole bool
	// ports and free are by ports index: the ranges in pick order, and the
	// number of free ports.
	ports   [][]portEntry
	free    []uint64
	volumes []volumeEntry

	ntasks int32
}

type scalarEntry struct {
	r     resources.Resource // read-only: shares storage with the offer
	k     int32
	left  resources.Scalar
	whole bool
	kind  int32 // see kindOf; 0 until known
}

type portEntry struct {
	r    resources.Resource
	free resources.Ranges
	// owned tells that free is a copy of the offer's ranges, which may be
	// changed in place.
	owned bool
}

type volumeEntry struct {
	r      resources.Resource
	one    resources.Resources // r without its allocation role
	shared bool
	used   bool
}

func newVolumeEntry(r resources.Resource) volumeEntry {
	u := r
	u.AllocationRole = ""
	one, _ := resources.New(u) // r comes from valid Resources
	return volumeEntry{r: r, one: one, shared: r.Shared}
}

// pickRec is an amount taken from an entry.
type pickRec struct {
	entry int32
	v     resources.Scalar
}

// unpickable returns the index of the first need that the entries cannot
// give once disks taken whole are accounted for, or -1.
func (s *slot) unpickable(needs []need) int {
	for i, n := range needs {
		want := n.v
		for j := range s.entries {
			e := &s.entries[j]
			if e.k != n.k || e.left == 0 {
				continue
			}
			if e.left > want {
				if e.whole {
					continue
				}
				want = 0
				break
			}
			want -= e.left
			if want == 0 {
				break
			}
		}
		if want > 0 {
			return i
		}
	}
	return -1
}

// portFree reports whether port n of ports resource pi is free.
func (s *slot) portFree(pi int32, n uint64) bool {
	for _, e := range s.ports[pi] {
		if inRanges(e.free, n) {
			return true
		}
	}
	return false
}

func inRanges(rs resources.Ranges, n uint64) bool {
	i, _ := slices.BinarySearchFunc(rs, n, func(r resources.Range, n uint64) int {
		switch {
		case r.End < n:
			return -1
		case r.Begin > n:
			return 1
		}
		return 0
	})
	return i < len(rs) && rs[i].Begin <= n && n <= rs[i].End
}

// matchVolumes matches each volume to an unused (or shared) volume of the
// slot, writing the index of the match into match (as long as vols); it
// returns the index of the first volume without a match, or -1.
func (s *slot) matchVolumes(vols []resources.Resources, match []int32) int {
	for i, v := range vols {
		match[i] = -1
		for j := range s.volumes {
			e := &s.volumes[j]
			if !e.shared && (e.used || slices.Contains(match[:i], int32(j))) {
				continue
			}
			if e.one.Contains(v) {
				match[i] = int32(j)
				break
			}
		}
		if match[i] < 0 {
			return i
		}
	}
	return -1
}

// take takes what a task of class c needs from slot si and returns the
// task's resources.
func (p *placer) take(c *class, si int32) resources.Resources {
	s := &p.slots[si]
	picks := p.scratch[:0]
	for _, n := range c.need {
		want := n.v
		for j := range s.entries {
			e := &s.entries[j]
			if e.k != n.k || e.left == 0 {
				continue
			}
			v := e.left
			if v > want {
				if e.whole {
					continue
				}
				v = want
			}
			picks = append(picks, pickRec{int32(j), v})
			e.left -= v
			want -= v
			if want == 0 {
				break
			}
		}
		if want != 0 {
			panic(fmt.Sprintf("placement: internal error: %s short of %s on offer %s", p.names[n.k], want, s.offer.ID))
		}
		s.left[n.k] -= n.v
	}
	p.scratch = picks
	res := p.template(s, picks)
	if c.port < 0 && len(c.volumes) == 0 {
		// Tasks given the same scalars from one offer share storage.
		return res
	}
	res = res.Clone()
	if c.port >= 0 {
		s.takePorts(c.port, c.numbers, c.count, &res)
	}
	if len(c.volumes) != 0 {
		match := p.volumeScratch(len(c.volumes))
		if s.matchVolumes(c.volumes, match) >= 0 {
			panic("placement: internal error: volumes no longer match on offer " + s.offer.ID)
		}
		for _, j := range match {
			e := &s.volumes[j]
			e.used = !e.shared
			mustAdd(&res, e.r)
		}
	}
	return res
}

func mustAdd(rs *resources.Resources, r resources.Resource) {
	if err := rs.AddResource(r); err != nil {
		panic("placement: internal error: " + err.Error())
	}
}

// template returns the Resources of picks. Entries of the same kind (same
// resource but for the amount) on different offers give the same
// Resources, made once per call and shared.
func (p *placer) template(s *slot, picks []pickRec) resources.Resources {
	b := p.keyBuf[:0]
	for _, pk := range picks {
		b = binary.AppendUvarint(b, uint64(p.kindOf(&s.entries[pk.entry])))
		b = binary.AppendVarint(b, int64(pk.v))
	}
	p.keyBuf = b
	if res, ok := p.templates[string(b)]; ok {
		return res
	}
	list := make([]resources.Resource, len(picks))
	for i, pk := range picks {
		list[i] = s.entries[pk.entry].r
		list[i].Scalar = pk.v
	}
	res, err := resources.New(list...)
	if err != nil {
		panic("placement: internal error: " + err.Error())
	}
	p.templates[string(b)] = res
	return res
}

// kindOf interns the kind of an entry: everything of its resource but the
// amount.
func (p *placer) kindOf(e *scalarEntry) int32 {
	if e.kind > 0 {
		return e.kind
	}
	r := e.r
	var key string
	if !r.IsReserved() && r.Disk == nil && !r.Revocable && !r.Shared && r.ProviderID == "" {
		key = "\x00" + r.Name + "\x00" + r.AllocationRole
	} else {
		r.Scalar = 0
		key = r.String()
	}
	id, ok := p.kinds[key]
	if !ok {
		id = int32(len(p.kinds) + 1)
		p.kinds[key] = id
	}
	e.kind = id
	return id
}

// takePorts takes the given port numbers and then the count lowest free
// ports of ports resource pi, in pick order, and adds them to res.
func (s *slot) takePorts(pi int32, numbers []uint64, count uint64, res *resources.Resources) {
	for j := range s.ports[pi] {
		e := &s.ports[pi][j]
		var taken resources.Ranges
		for _, n := range numbers {
			if inRanges(e.free, n) {
				taken = append(taken, resources.Range{Begin: n, End: n})
			}
		}
		if len(taken) != 0 {
			e.free, e.owned = e.free.Difference(taken), true
		}
		for count > 0 && len(e.free) > 0 {
			r := e.free[0]
			if r.End-r.Begin >= count {
				taken = append(taken, resources.Range{Begin: r.Begin, End: r.Begin + count - 1})
				if !e.owned {
					e.free, e.owned = slices.Clone(e.free), true
				}
				e.free[0].Begin = r.Begin + count
				count = 0
				break
			}
			taken = append(taken, r)
			count -= r.End - r.Begin + 1
			e.free = e.free[1:]
		}
		if len(taken) == 0 {
			continue
		}
		r := e.r
		r.Ranges = taken
		mustAdd(res, r)
		s.free[pi] -= taken.Count()
	}
}

func (p *placer) volumeScratch(n int) []int32 {
	p.volMatch = slices.Grow(p.volMatch[:0], n)
	return p.volMatch[:n]
}
