package placement

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// buildSlots turns the sorted offers into slots: their pickable scalars and
// ports in the order offer.Pick takes them, and their volumes.
func (p *placer) buildSlots(in *Input, offers []offer.Offer) error {
	k := len(p.names)
	p.slots = make([]slot, len(offers))
	amounts := make([]resources.Scalar, 3*k*len(offers))
	nScalars, nPorts := 0, 0
	for i := range offers {
		for r := range offers[i].Resources.All() {
			if _, ok := p.nameIdx[r.Name]; ok && r.Type == resources.ScalarType {
				nScalars++
			} else if _, ok := p.portIdx[r.Name]; ok && r.Type == resources.RangesType {
				nPorts++
			}
		}
	}
	entries := make([]scalarEntry, 0, nScalars)
	np := len(p.ports)
	var portLists [][]portEntry
	var portEntries []portEntry
	var free []uint64
	if np != 0 {
		portLists = make([][]portEntry, np*len(offers))
		portEntries = make([]portEntry, 0, nPorts)
		free = make([]uint64, np*len(offers))
	}
	type ranked struct {
		rank int
		r    resources.Resource
	}
	var list []ranked
	for i := range offers {
		o := &offers[i]
		s := &p.slots[i]
		s.offer = o
		s.left, s.offered, s.denom = amounts[:k:k], amounts[k:2*k:2*k], amounts[2*k:3*k:3*k]
		amounts = amounts[3*k:]
		if np != 0 {
			s.ports = portLists[i*np : (i+1)*np : (i+1)*np]
			s.free = free[i*np : (i+1)*np : (i+1)*np]
		}
		anc := reservation.Ancestors(o.Role)
		list = list[:0]
		for r := range o.Resources.All() {
			if _, ok := p.nameIdx[r.Name]; ok && r.Type != resources.ScalarType {
				if id := p.askingFor(r.Name); id != "" {
					return fmt.Errorf("%w: task %q asks for %s as a scalar, and offer %q holds it as %s", ErrInvalidTask, id, r.Name, o.ID, r.Type)
				}
				return fmt.Errorf("%w: binpack of %s, which offer %q holds as %s", ErrInvalidRanker, r.Name, o.ID, r.Type)
			}
			if _, ok := p.portIdx[r.Name]; ok && r.Type != resources.RangesType {
				return fmt.Errorf("%w: task %q asks for ports of %s, and offer %q holds it as %s", ErrInvalidTask, p.askingFor(r.Name), r.Name, o.ID, r.Type)
			}
			if r.IsPersistentVolume() {
				s.volumes = append(s.volumes, newVolumeEntry(r))
				continue
			}
			if r.Shared {
				continue
			}
			rank := tier(r, o.Role, anc)
			if rank < 0 {
				continue
			}
			list = append(list, ranked{rank, r})
		}
		slices.SortStableFunc(list, func(a, b ranked) int { return cmp.Compare(a.rank, b.rank) })
		first := len(entries)
		for _, x := range list {
			switch x.r.Type {
			case resources.ScalarType:
				ki, ok := p.nameIdx[x.r.Name]
				if !ok {
					continue
				}
				whole := x.r.Disk != nil && !x.r.Disk.Divisible()
				s.whole = s.whole || whole
				entries = append(entries, scalarEntry{r: x.r, k: ki, left: x.r.Scalar, whole: whole})
				s.left[ki] += x.r.Scalar
			}
		}
		for pi, name := range p.ports {
			lo := len(portEntries)
			for _, x := range list {
				if x.r.Name == name && x.r.Type == resources.RangesType {
					portEntries = append(portEntries, portEntry{r: x.r, free: x.r.Ranges})
					s.free[pi] += x.r.Ranges.Count()
				}
			}
			s.ports[pi] = portEntries[lo:len(portEntries):len(portEntries)]
		}
		s.lo, s.hi = int32(first), int32(len(entries))
		copy(s.offered, s.left)
		copy(s.denom, s.left)
	}
	for i := range p.slots {
		s := &p.slots[i]
		s.entries = entries[s.lo:s.hi:s.hi]
	}
	// Agents, in the order of their slots.
	for i := range p.slots {
		s := &p.slots[i]
		if n := len(p.agents); n > 0 && p.agents[n-1].id == s.offer.AgentID {
			s.agent = int32(n - 1)
			p.agents[n-1].last = int32(i + 1)
			continue
		}
		info := in.Agents[s.offer.AgentID]
		s.agent = int32(len(p.agents))
		p.agents = append(p.agents, agentState{id: s.offer.AgentID, attrs: info.Attributes, total: info.Total, first: int32(i), last: int32(i + 1)})
	}
	for i := range p.slots {
		s := &p.slots[i]
		total := p.agents[s.agent].total
		if total.IsEmpty() {
			continue
		}
		for ki, name := range p.names {
			if v := total.Scalar(name); v > 0 {
				s.denom[ki] = v
			}
		}
	}
	p.agentChanged = make([]int32, len(p.agents))
	p.mark = make([]int32, len(p.agents))
	return nil
}

// askingFor returns the id of the first task that asks for name.
func (p *placer) askingFor(name string) string {
	for _, c := range p.classes {
		t := &p.tasks[c.task]
		if t.Resources.Scalar(name) > 0 || (!t.Ports.IsEmpty() && portsName(t.Ports) == name) {
			return t.ID
		}
	}
	return ""
}

// tier ranks a resource as offer.Pick does: reserved for role first, then
// for its ancestors, nearest first, then unreserved, and revocable after
// all of these; -1 for a reservation of another role.
func tier(r resources.Resource, role string, anc []string) int {
	rank := -1
	switch {
	case !r.IsReserved():
		rank = len(anc) + 1
	case r.Role() == role:
		rank = 0
	default:
		if i := slices.Index(anc, r.Role()); i >= 0 {
			rank = i + 1
		}
	}
	if rank >= 0 && r.Revocable {
		rank += len(anc) + 2
	}
	return rank
}

// buildTables interns the values of every attribute that a filter or
// ranker reads, over the offered agents and then the agents of running
// tasks.
func (p *placer) buildTables(in *Input) {
	used := map[string]bool{}
	addFilters := func(list []Filter) {
		for _, f := range list {
			if a, ok := f.usesAttribute(); ok {
				used[a] = true
			}
		}
	}
	addRankers := func(list []Ranker) {
		for _, r := range list {
			if r.kind == rankSpread {
				used[r.attr] = true
			}
		}
	}
	addFilters(in.Filters)
	addRankers(in.Rankers)
	for _, c := range p.classes {
		addFilters(p.tasks[c.task].Constraints)
		addRankers(p.tasks[c.task].Preferences)
	}
	for _, name := range slices.Sorted(maps.Keys(used)) {
		t := &attrTable{name: name, values: map[string]int32{}, valueOf: make([]int32, len(p.agents))}
		for a := range p.agents {
			t.valueOf[a] = -1
			if v, ok := p.agents[a].attrs[name]; ok {
				t.valueOf[a] = t.intern(v)
			}
		}
		for _, r := range in.Running {
			if v, ok := in.Agents[r.AgentID].Attributes[name]; ok {
				t.intern(v)
			}
		}
		p.tables[name] = t
	}
}

// compileClasses binds each class's filters and rankers to the tables and
// counts they read.
func (p *placer) compileClasses(in *Input) {
	for _, c := range p.classes {
		t := &p.tasks[c.task]
		for _, list := range [][]Filter{in.Filters, t.Constraints} {
			for _, f := range list {
				cf := cfilter{src: f, name: f.String()}
				if a, ok := f.usesAttribute(); ok {
					cf.table = p.tables[a]
				}
				switch f.kind {
				case filterEquals, filterIn, filterNotIn:
					for _, v := range f.values {
						if id, ok := cf.table.values[v]; ok {
							cf.ids = append(cf.ids, id)
						}
					}
				case filterMaxPerValue:
					cf.ga = c.group.attr(cf.table)
					c.addDep(cf.ga)
				}
				c.filters = append(c.filters, cf)
			}
		}
		for _, list := range [][]Ranker{in.Rankers, t.Preferences} {
			for _, r := range list {
				cr := cranker{src: r}
				switch r.kind {
				case rankBinPack:
					for _, n := range r.names {
						k := p.nameIdx[n]
						cr.ks = append(cr.ks, k)
						var v resources.Scalar
						for _, nd := range c.need {
							if nd.k == k {
								v = nd.v
							}
						}
						cr.need = append(cr.need, v)
					}
				case rankSpread:
					cr.ga = c.group.attr(p.tables[r.attr])
					c.addDep(cr.ga)
				case rankScore:
					cr.score = r.custom.f
				}
				c.rankers = append(c.rankers, cr)
				c.wsum += r.weight
			}
		}
		c.partition()
	}
	for _, g := range p.groups {
		for _, ga := range g.attrs {
			ga.counts = make([]int32, len(ga.table.byID))
			ga.changed = make([]int32, len(ga.table.byID))
		}
	}
	p.out.Assignments = make([]Assignment, 0, len(p.tasks))
	p.log = make([]int32, 0, len(p.tasks))
	p.order = make([]int32, 0, len(p.tasks))
}

// maxParts bounds the number of values of a partition attribute: picking
// compares the tops of all parts. Tests lower it to check the search
// without parts.
var maxParts = 64

// partition picks the class's partition attribute: that of its first
// weighted Spread ranker, if it has few values. The Spread rankers and
// MaxPerValue filters on it are then applied to whole parts, and its
// counts leave c.deps.
func (c *class) partition() {
	c.nparts = 1
	for i := range c.rankers {
		r := &c.rankers[i]
		if r.src.kind != rankSpread || r.src.weight == 0 {
			continue
		}
		if c.part == nil {
			if len(r.ga.table.byID) >= maxParts {
				return
			}
			c.part = r.ga
			c.nparts = len(r.ga.table.byID) + 1
		}
		if r.ga == c.part {
			r.inPart = true
			c.partW += r.src.weight
		}
	}
	if c.part == nil {
		return
	}
	for _, f := range c.filters {
		if f.ga != c.part {
			continue
		}
		if m := int32(f.src.max); c.partMax == 0 {
			c.partMax = m
		} else {
			c.partMax = min(c.partMax, m)
		}
	}
	c.deps = slices.DeleteFunc(c.deps, func(ga *groupAttr) bool { return ga == c.part })
}

func (c *class) addDep(ga *groupAttr) {
	if !slices.Contains(c.deps, ga) {
		c.deps = append(c.deps, ga)
	}
}

// countRunning counts the running tasks in their groups.
func (p *placer) countRunning(in *Input) {
	agentIdx := make(map[string]int32, len(p.agents))
	for a := range p.agents {
		agentIdx[p.agents[a].id] = int32(a)
	}
	for _, r := range in.Running {
		g := p.groups[p.groupIdx[r.Group]]
		a, offered := agentIdx[r.AgentID]
		if offered {
			p.counts[groupKey(g.idx, a)]++
		}
		for _, ga := range g.attrs {
			v := int32(-1)
			if offered {
				v = ga.table.valueOf[a]
			} else if s, ok := in.Agents[r.AgentID].Attributes[ga.table.name]; ok {
				v = ga.table.values[s]
			}
			if v >= 0 {
				ga.counts[v]++
			}
		}
	}
}
