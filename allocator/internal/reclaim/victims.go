package reclaim

import (
	"cmp"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// ExactVictims is the largest number of victims for one room found by an
// exhaustive search; a room that needs more is covered greedily (the task
// that covers most of what is still missing first) and the cover then
// pruned, so that no victim in it can be dropped.
const ExactVictims = 3

// candidate is a task that could be chosen.
type candidate struct {
	t     *cluster.Task
	ag    *cluster.Agent
	node  *roles.Node
	frees resources.Quantities
	// revocable: the task uses revocable resources, which are meant to be
	// taken back; such victims are preferred.
	revocable bool
	chosen    bool
	// guarded says the task's role or an ancestor has a guarantee.
	guarded bool
}

// candidates are the live tasks whose end frees something that counts,
// found agent by agent. A run's first search sorts the ledger's live
// tasks by agent (one pass, no candidate made); an agent's candidates are
// made when a search first looks at it (of), alike ones next to each
// other youngest first (withAlike). Most searches end at the first agents
// they look at, so most of the ledger is never looked at closer.
type candidates struct {
	// live holds each agent's live tasks, youngest first: those of the
	// agent numbered n are live[from[n]:from[n+1]].
	live []*cluster.Task
	from []int32
	// made and byNum are, by agent number, whether its candidates were
	// made and what they are.
	made  []bool
	byNum [][]*candidate
	// agents are those with live tasks, the one with the youngest first;
	// youngest is, by agent number, the Seq of its youngest live task (no
	// candidate there is younger).
	agents   []*cluster.Agent
	youngest []uint64
	// revocable says some live task uses revocable resources.
	revocable bool
	// mostFree is, per name, the most any agent has free: a task that
	// it does not contain fits on no agent.
	mostFree resources.Quantities
	// guarded caches, by role, whether it or an ancestor has a guarantee.
	guarded map[*roles.Node]bool
}

// gather sorts the live tasks by agent, once a run.
func (rc *reclaimer) gather() *candidates {
	if rc.cands != nil {
		return rc.cands
	}
	r := rc.r
	var cs candidates
	cs.guarded = map[*roles.Node]bool{}
	agents := int32(0)
	for _, ag := range r.Cluster.AgentList {
		cs.mostFree.Max(ag.Headroom)
		agents = max(agents, ag.Num+1)
	}
	tasks := r.Tasks()
	// on is each task's agent number, -1 for none: a counting sort by it.
	on := make([]int32, len(tasks))
	count := make([]int32, agents+1)
	cs.youngest = make([]uint64, agents)
	var last *cluster.Agent
	for i := len(tasks) - 1; i >= 0; i-- {
		t := tasks[i]
		on[i] = -1
		if t.Ended {
			continue
		}
		// Tasks launched together are next to each other in the ledger:
		// the agent of the one before is most often this one's.
		if last == nil || last.ID != t.Agent {
			last = r.Cluster.Agents.Get(t.Agent)
		}
		if last == nil || last.Num >= agents {
			continue
		}
		n := last.Num
		on[i] = n
		if count[n+1] == 0 {
			cs.agents = append(cs.agents, last) // youngest first: the ledger is read backwards
			cs.youngest[n] = t.Seq
		}
		count[n+1]++
		cs.revocable = cs.revocable || t.OnRevocable()
	}
	for n := 1; n <= int(agents); n++ {
		count[n] += count[n-1]
	}
	cs.from = slices.Clone(count)
	cs.live = make([]*cluster.Task, count[agents])
	for i := len(tasks) - 1; i >= 0; i-- {
		if n := on[i]; n >= 0 {
			cs.live[count[n]] = tasks[i]
			count[n]++
		}
	}
	cs.made = make([]bool, agents)
	cs.byNum = make([][]*candidate, agents)
	rc.cands = &cs
	return rc.cands
}

// of returns ag's candidates, made the first time a search asks: its
// live tasks not chosen already whose end frees something that counts.
// ag is one of cs.agents, numbered within cs.made.
func (rc *reclaimer) of(ag *cluster.Agent) []*candidate {
	cs := rc.cands
	n := ag.Num
	if cs.made[n] {
		return cs.byNum[n]
	}
	cs.made[n] = true
	tasks := cs.live[cs.from[n]:cs.from[n+1]]
	if len(tasks) == 0 {
		return nil
	}
	slab := make([]candidate, 0, len(tasks)) // one allocation for the agent
	var list []*candidate
	var node *roles.Node
	for _, t := range tasks {
		if _, chosen := rc.st.Choices[TaskRef{t.Framework.ID, t.ID}]; chosen {
			continue
		}
		frees := t.Reclaimable()
		if frees.IsEmpty() {
			continue
		}
		if node == nil || node.Path != t.Role {
			node = rc.r.Roles.Get(t.Role)
		}
		if node == nil {
			continue
		}
		g, known := cs.guarded[node]
		if !known {
			for q := range node.QuotaAncestry {
				g = g || !q.Q().Guarantees.IsEmpty()
			}
			cs.guarded[node] = g
		}
		slab = append(slab, candidate{t: t, ag: ag, node: node, frees: frees, revocable: t.OnRevocable(), guarded: g})
		list = withAlike(list, &slab[len(slab)-1])
	}
	cs.byNum[n] = list
	return list
}

// withAlike adds c to list after the last candidate alike to it, or at
// the end: alike candidates stay next to each other, youngest first
// (they come youngest first).
func withAlike(list []*candidate, c *candidate) []*candidate {
	for i := len(list) - 1; i >= 0; i-- {
		if alike(list[i], c) {
			return slices.Insert(list, i+1, c)
		}
	}
	return append(list, c)
}

// group is a set of victims on one agent that makes room there for a
// task, youngest first: missing is what the agent lacked of the task.
type group struct {
	ag      *cluster.Agent
	victims []*candidate
	missing resources.Quantities
	excess  float64
}

// better orders groups: the fewest victims, then the least freed beyond
// what was missing, then the more victims on revocable resources, then
// the younger victims (compared youngest first); ties keep the first
// found (agents in id order).
func (g *group) better(o *group) bool {
	order := cmp.Or(
		cmp.Compare(len(g.victims), len(o.victims)),
		cmp.Compare(g.excess, o.excess),
		cmp.Compare(revocableCount(o.victims), revocableCount(g.victims)),
		slices.CompareFunc(g.victims, o.victims, func(x, y *candidate) int { return cmp.Compare(y.t.Seq, x.t.Seq) }),
	)
	return order < 0
}

func revocableCount(set []*candidate) int {
	n := 0
	for _, c := range set {
		if c.revocable {
			n++
		}
	}
	return n
}

// search finds the best group that makes room for q's task for taker
// (the role the room is chosen for, for reason), of candidates may
// accepts and sets fair accepts, given what the set's agent lacks of the
// task (either nil for all); fits says the task
// fits what is free on some agent already, soon that it fits there once
// victims chosen already end (and is counted on what they free).
func (rc *reclaimer) search(q request, taker *roles.Node, reason Reason, may func(*candidate) bool, fair func(set []*candidate, missing resources.Quantities) bool) (best *group, fits, soon bool) {
	if !slices.ContainsFunc(rc.r.Cluster.AgentList, func(ag *cluster.Agent) bool { return ag.Total.ContainsQuantities(q.task) }) {
		return nil, false, false // no agent is large enough: nothing to gather
	}
	// The limits of the role the room is held in and of its ancestors:
	// where one would be passed, victims in its subtree must free what
	// passes it (their end lowers its consumption as the room raises
	// it), and a role in the taker's subtree has none to give.
	needs := rc.overLimits(q.role, q.task, q.task)
	for _, l := range needs {
		if reservation.IsSubroleOrSelf(l.node.Path, taker.Path) {
			return nil, false, false
		}
	}
	cs := rc.gather()
	if cs.mostFree.Contains(q.task) && rc.fitsFree(q.fw, q.role, reason, q.task) {
		return nil, true, false
	}
	if len(rc.soonAgents) > 0 && rc.waitSoon(q.fw, q.role, reason, q.task) {
		return nil, false, true
	}
	var limited []*roles.Node
	for n := range q.role.QuotaAncestry {
		if !n.Q().Limits.IsEmpty() {
			limited = append(limited, n)
		}
	}
	ok := func(set []*candidate, missing resources.Quantities) bool {
		return rc.keepsGuarantees(set, q.role) && (len(limited) == 0 || rc.othersFit(set, missing, q.task, limited)) &&
			(fair == nil || fair(set, missing))
	}
	holdable, capped := rc.holdableFor(q.role, reason)
	// The agents are looked at youngest candidate first, each once its
	// turn comes (most searches end at the first: its youngest task
	// frees what is missing exactly, and no agent after it can do
	// better), and kept for the next size.
	var places []*place
	next := 0
	placeAt := func(i int) *place {
		for len(places) <= i && next < len(cs.agents) {
			ag := cs.agents[next]
			next++
			if p := rc.placeOn(ag, q, taker, may, needs, holdable, capped); p != nil {
				places = append(places, p)
			}
		}
		if i < len(places) {
			return places[i]
		}
		return nil
	}
	for k := 1; k <= ExactVictims && best == nil; k++ {
		for i := 0; ; i++ {
			if best != nil && rc.unbeatable(best, cs, nextAgent(places, i, cs, next)) {
				break
			}
			p := placeAt(i)
			if p == nil {
				break
			}
			if g := rc.exact(p.ag, p.missing, needs, p.cands, k, ok); g != nil && (best == nil || g.better(best)) {
				best = g
			}
		}
	}
	if best != nil {
		return best, false, false
	}
	for i := 0; ; i++ {
		p := placeAt(i)
		if p == nil {
			break
		}
		if g := rc.greedy(p.ag, p.missing, needs, p.cands, ok); g != nil && (best == nil || g.better(best)) {
			best = g
		}
	}
	return best, false, false
}

// place is an agent where a room could be made: what it lacks of the
// task, and its candidates that free some of it.
type place struct {
	ag      *cluster.Agent
	missing resources.Quantities
	cands   []*candidate
}

// placeOn returns ag as a place for q's task, or nil when the framework
// could not use it, no candidate there frees what it lacks, or its
// candidates cannot free what needs ask. What is free there counts only
// as far as it can be held at once (holdable, when capped): the rest
// must be freed by victims, whose room is held when they end.
func (rc *reclaimer) placeOn(ag *cluster.Agent, q request, taker *roles.Node, may func(*candidate) bool, needs []limitNeed, holdable resources.Quantities, capped bool) *place {
	if !ag.Total.ContainsQuantities(q.task) || !rc.r.Usable(q.fw, q.role.Path, ag) {
		return nil // the task cannot run there whatever ends
	}
	free := rc.free(ag)
	if capped {
		free = free.Min(holdable)
	}
	p := &place{ag: ag, missing: q.task.Minus(free)}
	for _, c := range rc.of(ag) {
		if !c.chosen && rc.mayTake(c, taker) && lacksAny(p.missing, c.frees) && (may == nil || may(c)) {
			p.cands = append(p.cands, c)
		}
	}
	if len(p.cands) == 0 || !limitsMet(p.cands, needs) {
		return nil
	}
	return p
}

// holdKey names a call of Run.Holdable.
type holdKey struct {
	n      *roles.Node
	reason Reason
}

// holdableFor returns how much of what is free can be held at once for a
// room held in n chosen for reason, less what this run's groups count on
// already, and whether it is capped at all.
func (rc *reclaimer) holdableFor(n *roles.Node, reason Reason) (resources.Quantities, bool) {
	if rc.r.Holdable == nil {
		return resources.Quantities{}, false
	}
	k := holdKey{n, reason}
	h, ok := rc.holdable[k]
	if !ok {
		h = rc.r.Holdable(n, reason)
		rc.holdable[k] = h
	}
	return h.Minus(rc.freeHeld), true
}

// limitNeed is what victims in a limited role's subtree must free so
// that a room held under it leaves it within its limits.
type limitNeed struct {
	node *roles.Node
	over resources.Quantities
}

// overLimits returns, for held and each of its ancestors with limits,
// what it could consume beyond them, in the resources task needs, once
// add more is held in held for task (a new group's whole task, or what a
// kept group's rooms still add), with the most the other pending groups
// can add (worst): what the group's own victims in its subtree must
// free. Only those over a limit are returned.
func (rc *reclaimer) overLimits(held *roles.Node, add, task resources.Quantities) []limitNeed {
	var out []limitNeed
	for n := range held.QuotaAncestry {
		lim := n.Q().Limits
		if lim.IsEmpty() {
			continue
		}
		after := n.Consumed()
		after.Add(rc.worst[n])
		after.Add(add)
		if lim.Contains(after) {
			continue
		}
		var over resources.Quantities
		for name, v := range after.Minus(lim.Cap(after)).All() {
			if task.Scalar(name) > 0 {
				over.SetScalar(name, v)
			}
		}
		if !over.IsEmpty() {
			out = append(out, limitNeed{node: n, over: over})
		}
	}
	return out
}

// othersFit reports whether a group of set for task (missing on its
// agent) leaves the other pending groups room within the limits of each
// of limited (the roles with limits among the role the room is held in
// and its ancestors): with the most it can add to such a role before its
// victims have all ended (addWorst), and the most the others can add but
// for the one that ends last (which adds slack less), the role passes no
// limit in a resource the group adds to.
func (rc *reclaimer) othersFit(set []*candidate, missing, task resources.Quantities, limited []*roles.Node) bool {
	victims := youngestFirst(slices.Clone(set))
	rem := missing.Clone()
	rooms := make([]resources.Quantities, len(victims))
	for i, c := range victims {
		rooms[i] = c.frees.Min(rem)
		rem.Subtract(rooms[i])
	}
	for _, n := range limited {
		slack, pending := rc.slack[n]
		if !pending {
			continue
		}
		add := task.Minus(missing)
		for i, c := range victims {
			if !reservation.IsSubroleOrSelf(c.node.Path, n.Path) {
				add.Add(rooms[i])
			}
		}
		if add.IsEmpty() {
			continue
		}
		after := n.Consumed()
		after.Add(rc.worst[n])
		after.Add(add)
		after.Subtract(slack)
		lim := n.Q().Limits
		if !lim.Contains(after) && after.Minus(lim.Cap(after)).Overlaps(add) {
			return false
		}
	}
	return true
}

// limitsMet reports whether the victims in set free, in each need's
// subtree, what it asks.
func limitsMet(set []*candidate, needs []limitNeed) bool {
	for _, l := range needs {
		var freed resources.Quantities
		for _, c := range set {
			if reservation.IsSubroleOrSelf(c.node.Path, l.node.Path) {
				freed.Add(c.frees)
			}
		}
		if !freed.Contains(l.over) {
			return false
		}
	}
	return true
}

// nextAgent returns the agent of the i-th place, or, when it is not
// built yet, the next agent to look at (whose youngest candidate is no
// older than any later agent's).
func nextAgent(places []*place, i int, cs *candidates, next int) *cluster.Agent {
	if i < len(places) {
		return places[i].ag
	}
	if next < len(cs.agents) {
		return cs.agents[next]
	}
	return cs.agents[len(cs.agents)-1]
}

// unbeatable reports whether no group on ag, or on an agent after it
// (whose youngest candidates are older), can be better than best: best
// frees nothing beyond what was missing, has as many victims on
// revocable resources as it can, and its youngest victim is younger than
// any live task on ag.
func (rc *reclaimer) unbeatable(best *group, cs *candidates, ag *cluster.Agent) bool {
	if best.excess != 0 || (cs.revocable && revocableCount(best.victims) < len(best.victims)) {
		return false
	}
	return cs.youngest[ag.Num] < best.victims[0].t.Seq
}

// mayTake reports whether c's role is outside taker's subtree, whose
// consumption already counts as taker's.
func (rc *reclaimer) mayTake(c *candidate, taker *roles.Node) bool {
	return c.node != taker && !reservation.IsStrictSubrole(c.node.Path, taker.Path)
}

// keepsGuarantees reports whether ending set (for a room held in held)
// leaves each victim's role, and each ancestor of it that is not an
// ancestor of held, at or above its guarantee in what the set frees,
// counting what the pending choices take already.
func (rc *reclaimer) keepsGuarantees(set []*candidate, held *roles.Node) bool {
	if !slices.ContainsFunc(set, func(c *candidate) bool { return c.guarded }) {
		return true
	}
	sum := map[*roles.Node]resources.Quantities{}
	for _, c := range set {
		for q := range c.node.QuotaAncestry {
			if reservation.IsSubroleOrSelf(held.Path, q.Path) {
				break
			}
			if q.Q().Guarantees.IsEmpty() {
				continue
			}
			s := sum[q]
			s.Add(c.frees)
			sum[q] = s
		}
	}
	for q, frees := range sum {
		left := q.Consumed()
		left.Subtract(rc.taken[q])
		for name, g := range q.Q().Guarantees.All() {
			if f := frees.Scalar(name); f > 0 && left.Scalar(name)-f < g {
				return false
			}
		}
	}
	return true
}

// exact returns the best group of k victims among cands that frees
// missing on ag and what needs ask, and that ok accepts, or nil.
func (rc *reclaimer) exact(ag *cluster.Agent, missing resources.Quantities, needs []limitNeed, cands []*candidate, k int, ok func([]*candidate, resources.Quantities) bool) *group {
	if len(cands) < k {
		return nil
	}
	var best *group
	set := make([]*candidate, 0, k)
	// Tasks alike (same role, same frees) are tried once at each place in
	// the set, the youngest: cands keep alike ones next to each other,
	// youngest first.
	var try func(from int, freed resources.Quantities)
	try = func(from int, freed resources.Quantities) {
		if len(set) == k {
			if !freed.Contains(missing) || !limitsMet(set, needs) || !ok(set, missing) {
				return
			}
			g := &group{ag: ag, victims: youngestFirst(slices.Clone(set)), missing: missing, excess: rc.excess(freed, missing)}
			if best == nil || g.better(best) {
				best = g
			}
			return
		}
		for i := from; i <= len(cands)-(k-len(set)); i++ {
			if i > from && alike(cands[i], cands[i-1]) {
				continue
			}
			set = append(set, cands[i])
			try(i+1, freed.Plus(cands[i].frees))
			set = set[:len(set)-1]
		}
	}
	try(0, resources.Quantities{})
	return best
}

// greedy covers missing on ag, and what needs ask, by taking, in turn,
// the candidate that covers most of what is still missing and asked
// (then frees the least beyond what is missing, then the youngest), and
// then drops every victim the others cover without, oldest first. Nil
// when cands cannot cover it.
func (rc *reclaimer) greedy(ag *cluster.Agent, missing resources.Quantities, needs []limitNeed, cands []*candidate, ok func([]*candidate, resources.Quantities) bool) *group {
	var set []*candidate
	var freed resources.Quantities
	used := make([]bool, len(cands))
	// asked is what needs still ask of the set.
	asked := make([]resources.Quantities, len(needs))
	for i, l := range needs {
		asked[i] = l.over.Clone()
	}
	for !freed.Contains(missing) || slices.ContainsFunc(asked, func(q resources.Quantities) bool { return !q.IsEmpty() }) {
		rem := missing.Minus(freed)
		pick, bestCover, bestExcess := -1, 0.0, 0.0
		for i, c := range cands {
			if used[i] {
				continue
			}
			cover, excess := coverage(c.frees, rem, rc.r.Cluster.Totals)
			for j, l := range needs {
				if !asked[j].IsEmpty() && reservation.IsSubroleOrSelf(c.node.Path, l.node.Path) {
					more, _ := coverage(c.frees, asked[j], rc.r.Cluster.Totals)
					cover += more
				}
			}
			if cover <= 0 || (pick >= 0 && (cover < bestCover || cover == bestCover && (excess > bestExcess ||
				excess == bestExcess && c.t.Seq < cands[pick].t.Seq))) {
				continue // ties go to the youngest, whatever the alike order
			}
			if !ok(append(set, c), missing) {
				continue
			}
			pick, bestCover, bestExcess = i, cover, excess
		}
		if pick < 0 {
			return nil
		}
		c := cands[pick]
		used[pick] = true
		set = append(set, c)
		freed.Add(c.frees)
		for j, l := range needs {
			if reservation.IsSubroleOrSelf(c.node.Path, l.node.Path) {
				asked[j].Subtract(c.frees)
			}
		}
	}
	// Prune: oldest first, drop a victim the others cover without.
	order := slices.Clone(set)
	slices.SortFunc(order, func(x, y *candidate) int { return cmp.Compare(x.t.Seq, y.t.Seq) })
	for _, c := range order {
		rest := slices.DeleteFunc(slices.Clone(set), func(x *candidate) bool { return x == c })
		var f resources.Quantities
		for _, x := range rest {
			f.Add(x.frees)
		}
		if f.Contains(missing) && limitsMet(rest, needs) {
			set, freed = rest, f
		}
	}
	if len(order) != len(set) && !ok(set, missing) {
		return nil // what its pruned cover frees moved between rooms
	}
	return &group{ag: ag, victims: youngestFirst(set), missing: missing, excess: rc.excess(freed, missing)}
}

// excess is what freed holds beyond missing, each resource as a part of
// the cluster's total of it.
func (rc *reclaimer) excess(freed, missing resources.Quantities) float64 {
	_, e := coverage(freed, missing, rc.r.Cluster.Totals)
	return e
}

// coverage returns how much of need frees covers (the sum over need's
// resources of the part covered, each between 0 and 1) and how much it
// frees beyond need (each resource as a part of the cluster's total).
func coverage(frees, need, totals resources.Quantities) (cover, excess float64) {
	for name, v := range need.All() {
		if v > 0 {
			cover += float64(min(frees.Scalar(name), v)) / float64(v)
		}
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

// alike reports whether two candidates are interchangeable but for their
// age: the same role, the same frees, both on revocable resources or not.
func alike(x, y *candidate) bool {
	return x.node == y.node && x.revocable == y.revocable && x.frees.Equal(y.frees)
}

// youngestFirst sorts set youngest first, in place.
func youngestFirst(set []*candidate) []*candidate {
	slices.SortFunc(set, func(x, y *candidate) int { return -cmp.Compare(x.t.Seq, y.t.Seq) })
	return set
}
