package cluster

import (
	"github.com/allot-go/allot/allocator/internal/codec"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The snapshot's walks of the cluster's tables (package codec says how a
// walk goes both ways): an agent, a framework, a hold.

// WalkAgent walks an agent (its id is walked before it).
func WalkAgent(c *codec.Codec, ag *Agent) {
	walkAgentInfo(c, &ag.Info)
	c.Bool(&ag.Active)
	c.Resources(&ag.Total)
	c.Resources(&ag.Available)
	c.Resources(&ag.Ref)
	c.Uvarint(&ag.RefGen)
	c.Uvarint(&ag.Version)
	for _, held := range []*tables.PerFramework{&ag.Offered, &ag.Allocated} {
		codec.WalkPerFramework(c, held, "holdings", "holding of framework")
	}
	// The rare fields are walked through copies, so that saving an agent
	// without them makes none (AgentRare).
	unclaimed := ag.Unclaimed()
	codec.WalkMap(c, &unclaimed, "holdings", "holding of framework", func(_ string, res resources.Resources) resources.Resources {
		c.Resources(&res)
		return res
	})
	if len(unclaimed) > 0 || ag.Rare != nil {
		ag.More().Unclaimed = unclaimed
	}
	codec.WalkByRole(c, &ag.Refusals, "refusal indexes", "refusal index", "refusal index of role", func(idx *refusals.Index) *refusals.Index {
		if idx == nil {
			idx = &refusals.Index{}
		}
		c.Uvarint(&idx.Gen)
		c.Time(&idx.Until)
		codec.WalkList(c, &idx.Skip, "bitset words", c.Uvarint)
		return idx
	})
	codec.WalkByRole(c, &ag.Nobody, "cache entries", "cache entry", "cache entry of role", func(e NobodyEntry) NobodyEntry {
		c.Uvarint(&e.Version)
		c.Uvarint(&e.Epoch)
		until := e.Until.Time()
		c.Time(&until)
		if c.Reading() {
			var ok bool
			if e.Until, ok = refusals.ExpiryOf(until); !ok {
				c.Failf("cache entry's expiry %v out of range", until)
			}
		}
		return e
	})
	inverse := ag.Inverse()
	codec.WalkMap(c, &inverse, "inverse-offer states", "inverse-offer state of framework", func(_ string, st *InverseState) *InverseState {
		if st == nil {
			st = &InverseState{}
		}
		c.Bool(&st.Outstanding)
		codec.WalkByte(c, &st.Status)
		return st
	})
	if len(inverse) > 0 || ag.Rare != nil {
		ag.More().Inverse = inverse
	}
	codec.WalkList(c, &ag.Outstanding, "outstanding offers", func(o *OutstandingOffer) {
		c.String(&o.ID)
		c.String(&o.Framework)
		c.String(&o.Role)
		c.Resources(&o.Res)
	})
}

// walkAgentInfo walks what the host said of an agent.
func walkAgentInfo(c *codec.Codec, info *AgentInfo) {
	c.String(&info.Hostname)
	codec.WalkMap(c, &info.Attributes, "attributes", "attribute", func(_ string, v string) string {
		c.String(&v)
		return v
	})
	c.String(&info.Region)
	codec.WalkUvarint(c, &info.Capabilities)
	codec.WalkOptional(c, &info.Unavailability, func(u *offer.Unavailability) {
		c.Time(&u.Start)
		c.Duration(&u.Duration)
	})
}

// WalkFramework walks a framework (its id is walked before it);
// refusalsOf gives a writer the framework's filters, compact ones as the
// ordinary ones they stand for.
func WalkFramework(c *codec.Codec, fw *Framework, refusalsOf func(*Framework) refusals.Filters) {
	walkFrameworkInfo(c, &fw.Info)
	c.Bool(&fw.Active)
	// The roles it subscribes to are its info's (rebuild).
	suppressedRoles, trackedRoles := fw.Roles.List(tables.Suppressed), fw.Roles.List(tables.Tracked)
	codec.WalkKeys(c, &suppressedRoles, "suppressed roles")
	codec.WalkKeys(c, &trackedRoles, "tracked roles")
	if c.Reading() {
		fw.Roles.MarkOnly(tables.Suppressed, suppressedRoles)
		fw.Roles.MarkOnly(tables.Tracked, trackedRoles)
	}
	// Compact filters are written as the ordinary ones they stand for, and
	// read back as such.
	filters := &fw.Filters
	if !c.Reading() {
		all := refusalsOf(fw)
		filters = &all
	}
	codec.WalkMap(c, (*map[string]map[string][]refusals.Refusal)(filters), "filter roles", "filters of role", func(_ string, byAgent map[string][]refusals.Refusal) map[string][]refusals.Refusal {
		codec.WalkMap(c, &byAgent, "filter agents", "filters on agent", func(_ string, list []refusals.Refusal) []refusals.Refusal {
			codec.WalkList(c, &list, "filters", func(f *refusals.Refusal) {
				c.Resources(&f.Refused)
				c.Time(&f.Expires)
				c.Uvarint(&f.Covered)
				c.Uvarint(&f.Batch)
			})
			return list
		})
		return byAgent
	})
	codec.WalkMap(c, &fw.InverseFilters, "inverse-offer filters", "inverse-offer filter on agent", func(_ string, f refusals.InverseFilter) refusals.InverseFilter {
		c.Time(&f.Expires)
		c.Uvarint(&f.Batch)
		return f
	})
	codec.WalkMap(c, &fw.Tasks, "tasks", "task", func(id string, t *Task) *Task {
		if t == nil {
			t = &Task{ID: id}
		}
		c.String(&t.Agent)
		c.String(&t.Role)
		c.Resources(&t.Uses)
		c.Resources(&t.Owns)
		c.Uvarint(&t.Seq)
		t.Framework = fw
		return t
	})
	for i := range fw.Skips {
		n := int(fw.Skips[i])
		c.Int(&n, "skips") // at most math.MaxInt32 when read
		fw.Skips[i] = int32(n)
	}
	c.Uvarint(&fw.SkipsRun)
	c.Uvarint(&fw.Joined)
}

// walkFrameworkInfo walks what the host said of a framework.
func walkFrameworkInfo(c *codec.Codec, info *FrameworkInfo) {
	codec.WalkStrings(c, &info.Roles, "roles")
	c.String(&info.Principal)
	codec.WalkUvarint(c, &info.Capabilities)
	codec.WalkStrings(c, &info.SuppressedRoles, "suppressed roles")
	codec.WalkMap(c, &info.MinAllocatable, "minimum allocatable roles", "minimum allocatable of role", func(_ string, alts []resources.Quantities) []resources.Quantities {
		codec.WalkList(c, &alts, "minimum allocatable alternatives", c.Quantities)
		if alts == nil {
			// A role's entry, even with no alternative, is an override.
			alts = []resources.Quantities{}
		}
		return alts
	})
	codec.WalkMap(c, &info.Constraints, "constraint roles", "constraints of role", func(_ string, cs Constraints) Constraints {
		codec.WalkList(c, &cs, "constraint groups", func(g *[]AttributeConstraint) {
			codec.WalkList(c, g, "constraints", func(ac *AttributeConstraint) {
				c.String(&ac.Attribute)
				codec.WalkByte(c, &ac.Op)
				c.String(&ac.Value)
			})
		})
		return cs
	})
}

// WalkHold walks a hold (its agent is walked before it).
func WalkHold(c *codec.Codec, h *Hold) {
	c.String(&h.Framework)
	c.Resources(&h.Res)
	c.Time(&h.Until)
}
