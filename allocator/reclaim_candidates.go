package allocator

import (
	"hash/maphash"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// The tasks a run may choose to end, and the search among them. A run
// with a role to reclaim for lists the ledger's tasks once, grouped two
// ways: by what their end frees (tasks of the same shape are alike to a
// guarantee's need, so a choice compares shapes, not tasks), and by role
// (fair-share reclaim looks at the roles above the taker).

// reclaimer is one run's reclaim: the candidates, what was chosen, and
// what each role has given up in this run.
type reclaimer struct {
	a *Allocator
	r *run
	// gathered: the candidates below are listed; victimsSorted: in
	// fair-share order.
	gathered, victimsSorted bool
	// shapes group the candidates by what they free, each youngest first.
	shapes []*reclaimShape
	// victims group them by role, each in fair-share order; victimOf
	// finds a role's.
	victims  []*reclaimVictim
	victimOf map[*roles.Node]*reclaimVictim
	// taken is what tasks chosen in this run free, by the node of their
	// role and by each of its ancestors.
	taken map[*roles.Node]resources.Quantities
	// pendingFor is what chosen tasks not ended yet will free, by the role
	// they were chosen for; gained is the part chosen in this run, by node.
	pendingFor map[string]resources.Quantities
	gained     map[*roles.Node]resources.Quantities
	// offeredRoles are the roles the run offered something (for fair
	// shares).
	offeredRoles map[string]bool
	// freeAll is the free unreserved, non-revocable scalars of the active,
	// whitelisted agents; freeAllKnown says it was summed.
	freeAll      resources.Quantities
	freeAllKnown bool
	// gpus says some agent has GPUs, once known.
	gpus, gpusKnown bool
	// highest is the highest weighted share of a role, once known.
	highest      float64
	highestKnown bool
	out          []Preemption
}

// reclaimCandidate is a task that could be chosen.
type reclaimCandidate struct {
	t *cluster.Task
	// chosen: the task was chosen in this run.
	chosen bool
	fw     *cluster.Framework
	ag     *cluster.Agent
	node   *roles.Node
	frees  resources.Quantities
	// dominant is frees' dominant share of the cluster, for the order of
	// fair-share choices.
	dominant float64
}

// reclaimShape is the candidates that free the same quantities.
type reclaimShape struct {
	frees resources.Quantities
	tasks []*reclaimCandidate
}

// reclaimVictim is the candidates of one role.
type reclaimVictim struct {
	node  *roles.Node
	share float64
	tasks []*reclaimCandidate
}

var shapeSeed = maphash.MakeSeed()

// gather lists, once a run, the tasks that could be chosen: those whose
// end frees something that counts towards a guarantee, not chosen before.
// The ledger is read youngest first, so each shape's tasks are.
func (rc *reclaimer) gather() {
	if rc.gathered {
		return
	}
	rc.gathered = true
	a := rc.a
	rc.victimOf = map[*roles.Node]*reclaimVictim{}
	byRole := rc.victimOf
	byShape := map[uint64][]*reclaimShape{}
	var h maphash.Hash
	var lastNode *roles.Node
	var lastAgent *cluster.Agent
	ledger := a.tasks.Live()
	slab := make([]reclaimCandidate, 0, len(ledger))
	for i := len(ledger) - 1; i >= 0; i-- { // youngest first
		t := ledger[i]
		if t.Ended {
			continue
		}
		if len(a.preempting) > 0 {
			if _, chosen := a.preempting[taskRef{t.Framework.ID, t.ID}]; chosen {
				continue
			}
		}
		frees := t.Reclaimable()
		if frees.IsEmpty() {
			continue
		}
		if lastNode == nil || lastNode.Path != t.Role {
			lastNode = a.roles.Get(t.Role)
		}
		if lastAgent == nil || lastAgent.ID != t.Agent {
			lastAgent = a.cs.Agents.Get(t.Agent)
		}
		if lastNode == nil || lastAgent == nil {
			continue
		}
		slab = append(slab, reclaimCandidate{t: t, fw: t.Framework, ag: lastAgent, node: lastNode, frees: frees})
		c := &slab[len(slab)-1]
		key := shapeKey(&h, frees)
		i := slices.IndexFunc(byShape[key], func(s *reclaimShape) bool { return s.frees.Equal(frees) })
		if i < 0 {
			byShape[key] = append(byShape[key], &reclaimShape{frees: frees})
			rc.shapes = append(rc.shapes, byShape[key][len(byShape[key])-1])
			i = len(byShape[key]) - 1
		}
		s := byShape[key][i]
		s.tasks = append(s.tasks, c)
		v := byRole[lastNode]
		if v == nil {
			v = &reclaimVictim{node: lastNode}
			byRole[lastNode] = v
			rc.victims = append(rc.victims, v)
		}
		v.tasks = append(v.tasks, c)
	}
	for _, v := range rc.victims {
		v.share = rc.share(v.node, resources.Quantities{}, resources.Quantities{})
	}
}

// sortVictims puts each role's candidates in fair-share order, once a run
// (fair-share reclaim only).
func (rc *reclaimer) sortVictims() {
	if rc.victimsSorted {
		return
	}
	rc.victimsSorted = true
	for _, v := range rc.victims {
		for _, c := range v.tasks {
			c.dominant, _ = c.frees.DominantShare(rc.a.cs.Totals, rc.a.excluded)
		}
		slices.SortFunc(v.tasks, func(x, y *reclaimCandidate) int {
			if fairBefore(x, y) {
				return -1
			}
			return 1
		})
	}
}

// share is a role's weighted share with plus added to its holdings and
// minus taken from them, counting the tasks chosen in this run as ended:
// what they free as the role's it was chosen for, and no longer their
// own role's.
func (rc *reclaimer) share(n *roles.Node, plus, minus resources.Quantities) float64 {
	if t, ok := rc.taken[n]; ok {
		minus = minus.Plus(t)
	}
	if g, ok := rc.gained[n]; ok {
		plus = plus.Plus(g)
	}
	return rc.a.weightedShareWith(n, plus, minus)
}

// highestShare is the highest weighted share of the roles, as the run
// left them (before any choice): no role at it can take by fair share.
func (rc *reclaimer) highestShare() float64 {
	if !rc.highestKnown {
		rc.highestKnown = true
		none := resources.Quantities{}
		for n := range rc.a.roles.Nodes.All() {
			rc.highest = max(rc.highest, rc.a.weightedShareWith(n, none, none))
		}
	}
	return rc.highest
}

// shapeKey hashes quantities, for grouping equal ones.
func shapeKey(h *maphash.Hash, q resources.Quantities) uint64 {
	h.Reset()
	h.SetSeed(shapeSeed)
	for name, v := range q.All() {
		h.WriteString(name)
		var b [8]byte
		for i := range b {
			b[i] = byte(uint64(v) >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// freeFor is the unreserved, non-revocable scalars free on the agents fw
// could be offered them on in role. A framework that every active,
// whitelisted agent could serve sees them all, summed once a run.
func (rc *reclaimer) freeFor(fw *cluster.Framework, role string) resources.Quantities {
	a := rc.a
	_, constrained := fw.Info.Constraints[role]
	if !constrained && rc.capableOfAll(fw) {
		if !rc.freeAllKnown {
			rc.freeAllKnown = true
			for _, ag := range a.cs.AgentList {
				if ag.Active && a.whitelisted(ag) {
					rc.freeAll.Add(ag.Headroom)
				}
			}
		}
		return rc.freeAll
	}
	var q resources.Quantities
	for _, ag := range a.cs.AgentList {
		if a.usableBy(fw, role, ag) {
			q.Add(ag.Headroom)
		}
	}
	return q
}

// capableOfAll reports whether capableOfAgent holds for fw on every agent.
func (rc *reclaimer) capableOfAll(fw *cluster.Framework) bool {
	a, caps := rc.a, fw.Info.Capabilities
	return (a.opts.AllowGPUsToAll || caps.Has(offer.GPUResources) || !rc.anyGPUs()) && (a.opts.Region == "" || caps.Has(offer.RegionAware))
}

// anyGPUs reports whether some agent has GPUs, looked at once a run.
func (rc *reclaimer) anyGPUs() bool {
	if !rc.gpusKnown {
		rc.gpusKnown = true
		for ag := range rc.a.cs.Agents.All() {
			rc.gpus = rc.gpus || ag.HasGPUs
		}
	}
	return rc.gpus
}

// eligible reports whether c may be ended for role n (fw the framework
// what it frees would be held for, in role in): not chosen in this run, of
// a role outside n's subtree (whose consumption counts as n's already),
// on an agent fw could use in role in, and without taking its role or an
// ancestor below its guarantee.
func (rc *reclaimer) eligible(c *reclaimCandidate, n *roles.Node, fw *cluster.Framework, in string) bool {
	if c.chosen || c.node == n || reservation.IsStrictSubrole(c.node.Path, n.Path) {
		return false
	}
	if !rc.a.usableBy(fw, in, c.ag) {
		return false
	}
	for q := range c.node.QuotaAncestry {
		if q.Q().Guarantees.IsEmpty() {
			continue
		}
		left := q.Consumed()
		left.Subtract(rc.taken[q])
		for name, g := range q.Q().Guarantees.All() {
			if f := c.frees.Scalar(name); f > 0 && left.Scalar(name)-f < g {
				return false
			}
		}
	}
	return true
}

// chooseVictim returns the task to end next for n's need: of those
// eligible, the one that covers most of the need (the sum, over the
// resources needed, of the part of each it frees), then the one that
// frees the least beyond the need (each resource by the cluster's total),
// then the youngest; nil when none covers anything. Tasks of one shape
// cover alike, so shapes are ranked and each searched youngest first.
func (rc *reclaimer) chooseVictim(n *roles.Node, fw *cluster.Framework, in string, need resources.Quantities) *reclaimCandidate {
	var best *reclaimCandidate
	var bestCover, bestExcess float64
	for _, s := range rc.shapes {
		cover, excess := coverage(s.frees, need, rc.a.cs.Totals)
		if cover <= 0 || (best != nil && (cover < bestCover || (cover == bestCover && excess > bestExcess))) {
			continue
		}
		for _, c := range s.tasks {
			if best != nil && cover == bestCover && excess == bestExcess && youngerFirst(c, best) > 0 {
				break // the rest of the shape is older than the best
			}
			if rc.eligible(c, n, fw, in) {
				best, bestCover, bestExcess = c, cover, excess
				break
			}
		}
	}
	return best
}

// coverage returns how much of need frees covers (the sum over need's
// resources of the part covered, each between 0 and 1) and how much it
// frees beyond need (each resource as a part of the cluster's total).
func coverage(frees, need, totals resources.Quantities) (cover, excess float64) {
	for name, v := range need.All() {
		if v <= 0 {
			continue
		}
		cover += float64(min(frees.Scalar(name), v)) / float64(v)
	}
	for name, v := range frees.All() {
		if beyond := v - need.Scalar(name); beyond > 0 {
			if total := totals.Scalar(name); total > 0 {
				excess += float64(beyond) / float64(total)
			}
		}
	}
	return cover, excess
}
