package reclaim

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// MaxGroupsPerRole bounds the pending tasks one run makes room for in one
// role: a guarantee far above what its tasks need would otherwise have a
// run look for thousands of rooms at once.
const MaxGroupsPerRole = 64

// Run is what reclaim needs of one allocation run: the cluster as the run
// left it, and the answers only the allocator can give.
type Run struct {
	ID      uint64
	Now     time.Time
	Timeout time.Duration
	Mode    Mode
	Cluster *cluster.State
	Roles   *roles.Tree
	// Tasks returns the ledger's live tasks, in launch order; it is called
	// only by a run that looks for victims, so that one with nothing to
	// reclaim does not walk the ledger.
	Tasks func() []*cluster.Task
	// Offered are the roles the run offered something to: fair share
	// takes for none of them.
	Offered map[string]bool
	// Usable reports whether what is free or freed on ag could be offered
	// to fw in role (the agent is active and whitelisted, fw capable of
	// it and admitted by its constraints).
	Usable func(fw *cluster.Framework, role string, ag *cluster.Agent) bool
	// Share is a role's own weighted dominant share with plus added to
	// its holdings and minus taken from them.
	Share func(n *roles.Node, plus, minus resources.Quantities) float64
	// Frameworks returns the frameworks of role n that may be offered
	// what is freed there (active, subscribed, not suppressing offers),
	// in the order its framework sorter would offer them.
	Frameworks func(n *roles.Node) []*cluster.Framework
	// Holdable returns how much of what is free on the agents the
	// allocator can hold at once for a room held in role n and chosen
	// for reason (a group's Free, held when it is chosen): what is not
	// kept for other roles' guarantees, within the limits of n and its
	// ancestors as they are before the victims end. Nil: all of it.
	Holdable func(n *roles.Node, reason Reason) resources.Quantities
}

// Reclaim makes run r's choices: it withdraws the earlier choices whose
// need went, then chooses tasks to end for the pending tasks of roles
// below their guarantees and, with FairShare, below their fair share. It
// returns the new choices and the withdrawn ones, and keeps the new ones
// in st.
func (st *State) Reclaim(r *Run) (chosen, withdrawn []Chosen) {
	if r.Mode == Off {
		return nil, nil
	}
	rc := &reclaimer{st: st, r: r,
		room: map[*roles.Node]resources.Quantities{}, taken: map[*roles.Node]resources.Quantities{},
		inFlight: map[demandKey]int{}, forRole: map[string]bool{},
		runTaken: map[*roles.Node]resources.Quantities{}, runGained: map[*roles.Node]resources.Quantities{},
		worst: map[*roles.Node]resources.Quantities{}, slack: map[*roles.Node]resources.Quantities{},
		shares: map[*roles.Node]float64{}, waiting: map[*roles.Node]bool{}, freeUsed: map[*cluster.Agent]resources.Quantities{},
		holdable: map[holdKey]resources.Quantities{}, soon: map[*cluster.Agent]resources.Quantities{}}
	for role, run := range st.TookAt {
		if run+1 < r.ID {
			delete(st.TookAt, role)
		}
	}
	rc.keepOrWithdraw()
	rc.forGuarantees()
	if r.Mode == FairShare {
		rc.forFairShares()
	}
	return rc.out, rc.withdrawn
}

// reclaimer is one run's reclaim.
type reclaimer struct {
	st *State
	r  *Run
	// room is what the pending groups' tasks will consume, by the node of
	// the role each is held in and by each of its ancestors: it counts
	// against those roles' unmet guarantees as consumed already.
	room map[*roles.Node]resources.Quantities
	// taken is what the pending victims free, by the node of each one's
	// role and each of its ancestors that is not also an ancestor of the
	// role the room is held in (there the room gives back what the
	// victim took away).
	taken map[*roles.Node]resources.Quantities
	// worst is, by role with limits, the most the pending groups held in
	// its subtree can add to what it consumes, whatever the order their
	// victims end in (addWorst): a new room is checked against the
	// role's limits with it.
	worst map[*roles.Node]resources.Quantities
	// slack is, by role with limits that has pending groups held in its
	// subtree, the least that one of them adds to it once all its victims
	// end below worst.
	slack map[*roles.Node]resources.Quantities
	// inFlight counts the pending groups by the pending task they are
	// for; forRole says a role has groups pending for it (as the role
	// they were chosen for, or one between it and the role they are
	// held in).
	inFlight map[demandKey]int
	forRole  map[string]bool
	// runTaken and runGained are this run's choices by the node of the
	// victims' role and of the taker's, for shares.
	runTaken, runGained map[*roles.Node]resources.Quantities
	// shares are roles' weighted shares as this run's choices left them
	// (shareNow).
	shares       map[*roles.Node]float64
	highestShare float64
	highestKnown bool
	// sorted are the roles' shares, in order, when highestKnown.
	sorted []float64
	// waiting caches waits.
	waiting map[*roles.Node]bool
	// freeUsed is, by agent, what this run's groups count on of what is
	// free there (their Free), and freeHeld all of it.
	freeUsed map[*cluster.Agent]resources.Quantities
	freeHeld resources.Quantities
	// soon is, by agent, what the pending groups' victims there free
	// beyond their rooms, less what pending tasks wait for there: free
	// once they end. soonAgents are its agents, in the order they came.
	soon       map[*cluster.Agent]resources.Quantities
	soonAgents []*cluster.Agent
	// holdable caches Run.Holdable.
	holdable       map[holdKey]resources.Quantities
	cands          *candidates
	out, withdrawn []Chosen
}

// demandKey names one pending task of a framework's statement.
type demandKey struct{ framework, role, shape string }

func keyOf(fwID, role string, task resources.Quantities) demandKey {
	return demandKey{fwID, role, task.String()}
}

// keepOrWithdraw drops the choices whose task is gone or whose time is
// up, withdraws the groups whose need went, and counts the rest.
func (rc *reclaimer) keepOrWithdraw() {
	r, st := rc.r, rc.st
	groups := map[uint64][]TaskRef{}
	for _, ref := range slices.SortedFunc(maps.Keys(st.Choices), TaskRef.Compare) {
		c := st.Choices[ref]
		fw := r.Cluster.Frameworks.Get(ref.Framework)
		if fw == nil || fw.Tasks[ref.Task] == nil || r.Now.After(c.Until) {
			delete(st.Choices, ref)
			continue
		}
		groups[c.Group] = append(groups[c.Group], ref)
	}
	needLeft := map[string]resources.Quantities{}
	for _, id := range slices.Sorted(maps.Keys(groups)) {
		refs := groups[id]
		c := st.Choices[refs[0]]
		if rc.needGone(c, refs, needLeft) {
			for _, ref := range refs {
				t := r.Cluster.Frameworks.Get(ref.Framework).Tasks[ref.Task]
				rc.withdrawn = append(rc.withdrawn, Chosen{Ref: ref, Agent: t.Agent, Role: t.Role, Choice: *st.Choices[ref]})
				delete(st.Choices, ref)
			}
			continue
		}
		rc.count(c, refs)
	}
}

// needGone reports whether the pending task group c (of choices refs)
// was chosen for no longer needs it: its framework left the role or no
// longer states the task (a task offered is counted off the statement),
// the task fits what is free somewhere (an agent was added, resources
// came back), the role it is held in or an ancestor could not hold it
// within its limits once the groups kept so far and this one are done (a
// limit lowered, or the role consumes more), or, for a guarantee, the
// role's guarantee no longer lacks what the task needs (quota changed, or
// the groups before it meet it). needLeft is each role's unmet guarantee
// less the groups kept so far.
func (rc *reclaimer) needGone(c *Choice, refs []TaskRef, needLeft map[string]resources.Quantities) bool {
	r := rc.r
	fw := r.Cluster.Frameworks.Get(c.ForFramework)
	if fw == nil {
		return true
	}
	list, _ := fw.PendingIn(c.HeldIn)
	stated := 0
	for _, p := range list {
		if p.Resources.Equal(c.Task) {
			stated += p.Count
		}
	}
	if rc.inFlight[keyOf(fw.ID, c.HeldIn, c.Task)] >= stated {
		return true
	}
	if rc.fitsFree(fw, r.Roles.Get(c.HeldIn), c.Reason, c.Task) {
		return true
	}
	if held := r.Roles.Get(c.HeldIn); held != nil {
		var rooms resources.Quantities
		victims := make([]*candidate, 0, len(refs))
		for _, ref := range refs {
			ch := rc.st.Choices[ref]
			rooms.Add(ch.Room)
			if n := r.Roles.Get(r.Cluster.Frameworks.Get(ref.Framework).Tasks[ref.Task].Role); n != nil {
				victims = append(victims, &candidate{node: n, frees: ch.Frees})
			}
		}
		if needs := rc.overLimits(held, rooms, c.Task); !limitsMet(victims, needs) {
			return true
		}
	}
	if c.Reason != ForGuarantee {
		return false
	}
	n := r.Roles.Get(c.ForRole)
	if n == nil {
		return true
	}
	need, ok := needLeft[c.ForRole]
	if !ok {
		n.UnmetInto(&need)
	}
	if !lacksAny(need, c.Task) {
		return true
	}
	need.Subtract(c.Task)
	needLeft[c.ForRole] = need
	return false
}

// lacksAny reports whether need has a positive amount of some resource
// task needs.
func lacksAny(need, task resources.Quantities) bool { return need.Overlaps(task) }

// fitsFree reports whether task fits what is free on some agent fw could
// be offered in role n (for reason), as far as the allocator would let n
// have it (Run.Holdable): then it waits for an offer, not for room. A
// nil n is not looked up.
func (rc *reclaimer) fitsFree(fw *cluster.Framework, n *roles.Node, reason Reason, task resources.Quantities) bool {
	if n == nil {
		return false
	}
	budget, capped := rc.holdableFor(n, reason)
	if capped && !budget.Contains(task) {
		return false
	}
	for _, ag := range rc.r.Cluster.AgentList {
		if rc.free(ag).Contains(task) && rc.r.Usable(fw, n.Path, ag) {
			return true
		}
	}
	return false
}

// free is what is free on ag less what this run's groups count on there.
func (rc *reclaimer) free(ag *cluster.Agent) resources.Quantities {
	if used, ok := rc.freeUsed[ag]; ok {
		return ag.Headroom.Minus(used)
	}
	return ag.Headroom
}

// count adds a kept group (c is one of its choices, refs all of them) to
// the sums a run's choices are checked against.
func (rc *reclaimer) count(c *Choice, refs []TaskRef) {
	r := rc.r
	rc.inFlight[keyOf(c.ForFramework, c.HeldIn, c.Task)]++
	held := r.Roles.Get(c.HeldIn)
	rc.markTaker(held, c.ForRole, false)
	addUp(rc.room, held, c.Task)
	var frees, rooms resources.Quantities
	var ag *cluster.Agent
	victims := make([]*candidate, 0, len(refs))
	var roomsOf []resources.Quantities
	for _, ref := range refs {
		t := r.Cluster.Frameworks.Get(ref.Framework).Tasks[ref.Task]
		ch := rc.st.Choices[ref]
		if n := r.Roles.Get(t.Role); n != nil {
			rc.takeFrom(n, held, ch.Frees)
			victims = append(victims, &candidate{node: n, frees: ch.Frees})
			roomsOf = append(roomsOf, ch.Room)
		}
		frees.Add(ch.Frees)
		rooms.Add(ch.Room)
		ag = r.Cluster.Agents.Get(t.Agent)
	}
	if held != nil {
		rc.addWorst(held, resources.Quantities{}, victims, roomsOf)
	}
	if ag != nil {
		rc.freeSoon(ag, frees.Minus(rooms))
	}
}

// addWorst counts a pending group held in held against each role with
// limits among held and its ancestors: the most it can add to what that
// role consumes before all its victims end, whatever the order they end
// in. That is free, the part of its task held at once, and the rooms of
// its victims outside the role's subtree (victims and rooms are its
// victims and their rooms): a victim inside it gives back at least the
// room its end holds. Once all its victims end, a group adds that less
// what its victims inside free beyond their rooms: the least of that
// over the groups is kept (slack).
func (rc *reclaimer) addWorst(held *roles.Node, free resources.Quantities, victims []*candidate, rooms []resources.Quantities) {
	for n := range held.QuotaAncestry {
		if n.Q().Limits.IsEmpty() {
			continue
		}
		w := rc.worst[n]
		w.Add(free)
		var slack resources.Quantities
		for i, v := range victims {
			if !reservation.IsSubroleOrSelf(v.node.Path, n.Path) {
				w.Add(rooms[i])
			} else {
				slack.Add(v.frees.Minus(rooms[i]))
			}
		}
		rc.worst[n] = w
		if least, ok := rc.slack[n]; ok {
			slack = least.Min(slack)
		}
		rc.slack[n] = slack
	}
}

// freeSoon counts q as free on ag once pending victims end.
func (rc *reclaimer) freeSoon(ag *cluster.Agent, q resources.Quantities) {
	if q.IsEmpty() {
		return
	}
	s, known := rc.soon[ag]
	if !known {
		rc.soonAgents = append(rc.soonAgents, ag)
	}
	s.Add(q)
	rc.soon[ag] = s
}

// waitSoon looks for an agent fw could be offered in role n (for reason)
// where task fits what is free (as far as the allocator would let n have
// it, as in fitsFree) and what pending victims free beyond their rooms:
// the first found is counted on for the task (which then waits for the
// victims to end, and for an offer), and waitSoon reports true.
func (rc *reclaimer) waitSoon(fw *cluster.Framework, n *roles.Node, reason Reason, task resources.Quantities) bool {
	budget, capped := rc.holdableFor(n, reason)
	for _, ag := range rc.soonAgents {
		soon := rc.soon[ag]
		free := rc.free(ag)
		if capped {
			free = free.Min(budget)
		}
		fromSoon := task.Minus(free)
		if soon.IsEmpty() || !soon.Contains(fromSoon) || !rc.r.Usable(fw, n.Path, ag) {
			continue
		}
		soon.Subtract(fromSoon)
		rc.soon[ag] = soon
		fromFree := task.Minus(fromSoon)
		used := rc.freeUsed[ag]
		used.Add(fromFree)
		rc.freeUsed[ag] = used
		rc.freeHeld.Add(fromFree)
		return true
	}
	return false
}

// addUp adds q to m at n and each of its ancestors.
func addUp(m map[*roles.Node]resources.Quantities, n *roles.Node, q resources.Quantities) {
	for ; n != nil && n.Path != ""; n = n.Parent {
		s := m[n]
		s.Add(q)
		m[n] = s
	}
}

// takeFrom counts frees, freed by a victim of role n for the room of a
// task held in held, against n and its ancestors that are not ancestors
// of held (or held itself).
func (rc *reclaimer) takeFrom(n, held *roles.Node, frees resources.Quantities) {
	for ; n != nil && n.Path != ""; n = n.Parent {
		if held != nil && reservation.IsSubroleOrSelf(held.Path, n.Path) {
			return
		}
		s := rc.taken[n]
		s.Add(frees)
		rc.taken[n] = s
	}
}

// request is a pending task of a framework in a role, and how many such
// tasks wait without a group chosen for them.
type request struct {
	fw    *cluster.Framework
	role  *roles.Node
	task  resources.Quantities
	count int
}

// requests returns the pending tasks of n's frameworks, in the order they
// would be offered, and with subtree those of its sub-roles after them,
// depth first in path order.
func (rc *reclaimer) requests(n *roles.Node, subtree bool, out []request) []request {
	for _, fw := range rc.r.Frameworks(n) {
		list, _ := fw.PendingIn(n.Path)
		for _, p := range list {
			if k := p.Count - rc.inFlight[keyOf(fw.ID, n.Path, p.Resources)]; k > 0 {
				out = append(out, request{fw: fw, role: n, task: p.Resources, count: min(k, MaxGroupsPerRole)})
			}
		}
	}
	if subtree {
		for _, c := range n.Children {
			out = rc.requests(c, true, out)
		}
	}
	return out
}

// forGuarantees makes room for the pending tasks of each role below its
// own guarantee, sub-roles before their parents (what is chosen for a
// sub-role counts for its ancestors too).
func (rc *reclaimer) forGuarantees() {
	keys := rc.r.Roles.Nodes.Keys()
	for i := len(keys) - 1; i >= 0; i-- {
		n := rc.r.Roles.Nodes.Get(keys[i])
		if n.Q().Guarantees.IsEmpty() {
			continue
		}
		var need resources.Quantities
		n.UnmetInto(&need)
		need.Subtract(rc.room[n])
		if need.IsEmpty() {
			continue
		}
		made := 0
		for _, q := range rc.requests(n, true, nil) {
			for ; q.count > 0 && made < MaxGroupsPerRole && lacksAny(need, q.task); q.count-- {
				g, fits, soon := rc.search(q, n, ForGuarantee, nil, nil)
				if soon {
					// It waits for victims chosen already.
					need.Subtract(q.task)
					made++
					continue
				}
				if fits || g == nil {
					break
				}
				rc.choose(g, n, q, ForGuarantee)
				need.Subtract(q.task)
				made++
			}
		}
	}
}

// forFairShares makes room, in path order, for one pending task of each
// role that was offered nothing in the run, has nothing pending for it
// and had nothing chosen for it in this run or the one before, taking
// only from roles above its weighted share, and only so much that after
// the move its share is still at or below each victim role's (so that no
// later run takes it back by the same rule). The move counts what the
// victims free beyond the room as the taker's too, as far as its
// frameworks state more tasks: it goes back to the pool, and the taker,
// below the victims' roles, may well be offered it.
func (rc *reclaimer) forFairShares() {
	r := rc.r
	for _, path := range r.Roles.Nodes.Keys() {
		n := r.Roles.Nodes.Get(path)
		if r.Offered[path] || rc.forRole[path] || rc.tookRecently(path) {
			continue
		}
		before := rc.shareNow(n)
		if before >= rc.highest() {
			continue // no role is above it
		}
		reqs := rc.requests(n, false, nil)
		var stated resources.Quantities
		for _, q := range reqs {
			for range q.count {
				stated.Add(q.task)
			}
		}
		for _, q := range reqs {
			may := func(c *candidate) bool {
				// Only roles above the taker give, and none being given
				// room; a victim whose role one such task would take
				// below another role is never fair (fairMove): left out
				// early.
				return rc.shareNow(c.node) > before && !rc.forRole[c.node.Path] && !rc.tookRecently(c.node.Path) &&
					!rc.crosses(c.node, rc.share(c.node, resources.Quantities{}, c.frees))
			}
			more := stated.Minus(q.task)
			fair := func(set []*candidate, missing resources.Quantities) bool {
				var freed resources.Quantities
				for _, c := range set {
					freed.Add(c.frees)
				}
				gain := q.task.Plus(freed.Minus(missing).Min(more))
				return rc.fairMove(set, rc.share(n, gain, resources.Quantities{}))
			}
			g, fits, soon := rc.search(q, n, ForFairShare, may, fair)
			if fits || soon {
				break // the role can be offered what it waits for
			}
			if g != nil {
				rc.choose(g, n, q, ForFairShare)
				break
			}
		}
	}
}

// fairMove reports whether the taker, at share after the move, may take
// set, whose victims' roles are above the taker now and are not being
// given room themselves (the candidates forFairShares lets a search
// take): each victim role stays at or above the taker after the move,
// and, if it waits for tasks, at or above every other role at or below
// it now. A victim taken below a role it was above would take from that
// role in its turn: from a role that took from it earlier, it would take
// the room back.
func (rc *reclaimer) fairMove(set []*candidate, after float64) bool {
	for i, c := range set {
		if slices.ContainsFunc(set[:i], func(x *candidate) bool { return x.node == c.node }) {
			continue // its role was looked at with the first of its victims
		}
		var minus resources.Quantities
		for _, x := range set[i:] {
			if x.node == c.node {
				minus.Add(x.frees)
			}
		}
		left := rc.share(c.node, resources.Quantities{}, minus)
		if left < after || rc.crosses(c.node, left) {
			return false
		}
	}
	return true
}

// highest is the highest weighted share of a role, counting this run's
// choices: a role at it has nobody above to take from.
func (rc *reclaimer) highest() float64 {
	rc.knowShares()
	return rc.highestShare
}

// knowShares works out every role's share, counting this run's choices,
// the highest, and all of them in order (sorted), until the next choice.
func (rc *reclaimer) knowShares() {
	if rc.highestKnown {
		return
	}
	rc.highestShare, rc.highestKnown = 0, true
	rc.sorted = rc.sorted[:0]
	for n := range rc.r.Roles.Nodes.All() {
		s := rc.shareNow(n)
		rc.highestShare = max(rc.highestShare, s)
		rc.sorted = append(rc.sorted, s)
	}
	slices.Sort(rc.sorted)
}

// crosses reports whether a role other than n, at or below n's share now,
// would be above n at share left, when n waits for tasks (else it takes
// from nobody, whatever its share).
func (rc *reclaimer) crosses(n *roles.Node, left float64) bool {
	if !rc.waits(n) {
		return false
	}
	rc.knowShares()
	now := rc.shareNow(n)
	// The roles with a share in (left, now]: n is one of them.
	lo, _ := slices.BinarySearch(rc.sorted, math.Nextafter(left, math.Inf(1)))
	hi, _ := slices.BinarySearch(rc.sorted, math.Nextafter(now, math.Inf(1)))
	return hi-lo > 1
}

// waits reports whether a framework of role n that may be offered what
// is freed there states pending tasks in n.
func (rc *reclaimer) waits(n *roles.Node) bool {
	w, ok := rc.waiting[n]
	if !ok {
		for _, fw := range rc.r.Frameworks(n) {
			list, _ := fw.PendingIn(n.Path)
			if slices.ContainsFunc(list, func(p cluster.Pending) bool { return p.Count > 0 }) {
				w = true
				break
			}
		}
		rc.waiting[n] = w
	}
	return w
}

// shareNow is a role's weighted share counting this run's choices, kept
// until the next choice.
func (rc *reclaimer) shareNow(n *roles.Node) float64 {
	if s, ok := rc.shares[n]; ok {
		return s
	}
	s := rc.share(n, resources.Quantities{}, resources.Quantities{})
	rc.shares[n] = s
	return s
}

// markTaker marks the roles a room is for, from held, the role it is held
// in, up to the role it was chosen for: they have room pending, and with
// now they had room chosen for them in this run. Such roles neither take
// again by fair share nor give to it (forFairShares) for a run.
func (rc *reclaimer) markTaker(held *roles.Node, forRole string, now bool) {
	rc.forRole[forRole] = true
	if now {
		rc.st.TookAt[forRole] = rc.r.ID
	}
	for n := held; n != nil && reservation.IsStrictSubrole(n.Path, forRole); n = n.Parent {
		rc.forRole[n.Path] = true
		if now {
			rc.st.TookAt[n.Path] = rc.r.ID
		}
	}
}

// tookRecently reports whether tasks were chosen for role in this run or
// the one before.
func (rc *reclaimer) tookRecently(role string) bool {
	last, ok := rc.st.TookAt[role]
	return ok && last+1 >= rc.r.ID
}

// share is a role's weighted share with plus and minus, counting this
// run's choices as done.
func (rc *reclaimer) share(n *roles.Node, plus, minus resources.Quantities) float64 {
	return rc.r.Share(n, plus.Plus(rc.runGained[n]), minus.Plus(rc.runTaken[n]))
}

// choose records g, the victims of the room for q's task in role n.
func (rc *reclaimer) choose(g *group, n *roles.Node, q request, reason Reason) {
	r, st := rc.r, rc.st
	st.Groups++
	none := resources.Quantities{}
	forShare := [2]float64{rc.share(n, none, none), rc.share(n, q.task, none)}
	lost := map[*roles.Node]resources.Quantities{}
	for _, c := range g.victims {
		s := lost[c.node]
		s.Add(c.frees)
		lost[c.node] = s
	}
	free := q.task.Minus(g.missing)
	if !free.IsEmpty() {
		used := rc.freeUsed[g.ag]
		used.Add(free)
		rc.freeUsed[g.ag] = used
		rc.freeHeld.Add(free)
	}
	var frees resources.Quantities
	for _, c := range g.victims {
		frees.Add(c.frees)
	}
	rc.freeSoon(g.ag, frees.Minus(g.missing))
	rem := g.missing.Clone()
	rooms := make([]resources.Quantities, 0, len(g.victims))
	for i, c := range g.victims {
		room := c.frees.Min(rem)
		rem.Subtract(room)
		rooms = append(rooms, room)
		choice := Choice{ForRole: n.Path, ForFramework: q.fw.ID, HeldIn: q.role.Path, Reason: reason,
			Frees: c.frees.Clone(), Task: q.task.Clone(), Room: room, Group: st.Groups, Until: r.Now.Add(r.Timeout)}
		ref := TaskRef{c.t.Framework.ID, c.t.ID}
		st.Choices[ref] = &choice
		out := Chosen{Ref: ref, Agent: c.ag.ID, Role: c.node.Path, Choice: choice, ForShare: forShare,
			RoleShare: [2]float64{rc.share(c.node, none, none), rc.share(c.node, none, lost[c.node])}}
		if i == 0 {
			out.Free = free
		}
		rc.out = append(rc.out, out)
		c.chosen = true
		rc.takeFrom(c.node, q.role, c.frees)
	}
	rc.addWorst(q.role, free, g.victims, rooms)
	for v, minus := range lost {
		s := rc.runTaken[v]
		s.Add(minus)
		rc.runTaken[v] = s
	}
	s := rc.runGained[n]
	s.Add(q.task)
	rc.runGained[n] = s
	addUp(rc.room, q.role, q.task)
	rc.inFlight[keyOf(q.fw.ID, q.role.Path, q.task)]++
	rc.markTaker(q.role, n.Path, true)
	clear(rc.shares)
	rc.highestKnown = false
}
