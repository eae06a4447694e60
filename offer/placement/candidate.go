package placement

import (
	"fmt"
	"strconv"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Candidate is an offer as a custom Predicate or Score sees it while Place
// runs: the offer, its agent, what is left of it and which groups run on
// the agent. It is valid only during the call that passed it.
type Candidate struct {
	p *placer
	s int32
}

// OfferID returns the offer's id.
func (c Candidate) OfferID() string { return c.p.slots[c.s].offer.ID }

// AgentID returns the id of the offer's agent.
func (c Candidate) AgentID() string { return c.p.slots[c.s].offer.AgentID }

// Role returns the role the offer is made to.
func (c Candidate) Role() string { return c.p.slots[c.s].offer.Role }

// Attribute returns the agent's attribute name, and whether it has it.
func (c Candidate) Attribute(name string) (string, bool) {
	v, ok := c.p.agents[c.p.slots[c.s].agent].attrs[name]
	return v, ok
}

// Left returns how much of scalar resource name the offer still has for
// tasks (what earlier tasks of the call took is gone), or for a ports
// resource that tasks ask for, the number of free ports.
func (c Candidate) Left(name string) float64 {
	s := &c.p.slots[c.s]
	if k, ok := c.p.nameIdx[name]; ok {
		return s.left[k].Float64()
	}
	if k, ok := c.p.portIdx[name]; ok {
		return float64(s.free[k])
	}
	return c.Offered(name)
}

// Offered returns how much of scalar resource name the offer holds for
// tasks of its role: reservations of the role and its ancestors and
// unreserved resources, persistent volumes and shared resources left out.
func (c Candidate) Offered(name string) float64 {
	s := &c.p.slots[c.s]
	if k, ok := c.p.nameIdx[name]; ok {
		return s.offered[k].Float64()
	}
	var sum resources.Scalar
	anc := reservation.Ancestors(s.offer.Role)
	for r := range s.offer.Resources.All() {
		if r.Name == name && r.Type == resources.ScalarType && !r.Shared && !r.IsPersistentVolume() && tier(r, s.offer.Role, anc) >= 0 {
			sum += r.Scalar
		}
	}
	return sum.Float64()
}

// Running returns the number of tasks of group on the agent: those the
// caller reported running plus those placed there by the call so far.
func (c Candidate) Running(group string) int {
	g, ok := c.p.groupIdx[group]
	if !ok {
		return 0
	}
	return int(c.p.counts[groupKey(uint32(g), c.p.slots[c.s].agent)])
}

// Placed returns the number of tasks placed on the agent by the call so
// far, of every group.
func (c Candidate) Placed() int { return int(c.p.agents[c.p.slots[c.s].agent].placed) }

// detailKey names a Detail: the class, the failed check, and what the
// text depends on besides (an amount, a count, a value id, a role).
type detailKey struct {
	c    *class
	f    failure
	n    int64
	role string
}

// describe turns the failure of class c on slot si into a Reason. Details
// are cached: many offers refuse a class for the same reason.
func (p *placer) describe(c *class, si int32, f failure) Reason {
	s := &p.slots[si]
	r := Reason{OfferID: s.offer.ID, AgentID: s.offer.AgentID}
	key := detailKey{c: c, f: f}
	a := s.agent
	switch f.kind {
	case failRole:
		r.Filter = "role"
		key.role = s.offer.Role
	case failScalar, failWhole:
		n := c.need[f.i]
		r.Resource = p.names[n.k]
		key.n = int64(s.left[n.k])
	case failPortCount:
		r.Resource = p.ports[c.port]
		key.n = int64(s.free[c.port])
	case failPortNumber:
		r.Resource = p.ports[c.port]
	case failVolume:
		r.Resource = "volume"
	case failFilter:
		cf := &c.filters[f.i]
		r.Filter = cf.name
		if cf.table != nil {
			key.n = int64(cf.table.valueOf[a])
		}
	}
	if d, ok := p.details[key]; ok {
		r.Detail = d
		return r
	}
	switch f.kind {
	case fits:
		r.Detail = "refused the task in its turn, admits it at the end of the call (a custom predicate changed its answer)"
	case failRole:
		r.Detail = "offered to " + strconv.Quote(s.offer.Role) + ", wants " + strconv.Quote(c.role)
	case failScalar:
		r.Detail = "wants " + c.need[f.i].v.String() + ", " + resources.Scalar(key.n).String() + " left"
	case failWhole:
		r.Detail = "wants " + c.need[f.i].v.String() + ", " + resources.Scalar(key.n).String() + " left on disks taken whole or not at all"
	case failPortCount:
		r.Detail = fmt.Sprintf("wants %d, %d free", c.count+uint64(len(c.numbers)), key.n)
	case failPortNumber:
		r.Detail = "port " + strconv.FormatUint(c.numbers[f.i], 10) + " is not free"
	case failVolume:
		r.Detail = c.volumes[f.i].String() + " is not offered or in use"
	case failFilter:
		cf := &c.filters[f.i]
		switch cf.src.kind {
		case filterEquals, filterIn, filterNotIn:
			r.Detail = describeValue(cf.table, a)
		case filterUniqueHost:
			r.Detail = "group " + strconv.Quote(c.group.name) + " runs here"
		case filterMaxPerValue:
			if v := cf.table.valueOf[a]; v >= 0 {
				r.Detail = fmt.Sprintf("%d of group %q in %s %q", cf.ga.counts[v], c.group.name, cf.table.name, cf.table.byID[v])
			} else {
				r.Detail = "no " + cf.table.name
			}
		}
	}
	if p.details == nil {
		p.details = map[detailKey]string{}
	}
	p.details[key] = r.Detail
	return r
}

func describeValue(t *attrTable, a int32) string {
	if v := t.valueOf[a]; v >= 0 {
		return t.name + " is " + strconv.Quote(t.byID[v])
	}
	return "no " + t.name
}
