package placement

import (
	"math"
	"slices"

	"github.com/allot-go/allot/offer"
)

// scoreScale quantizes scores: a score is an integer in [0, scoreScale], so
// that scores equal on paper compare equal whatever the rounding of the
// arithmetic that led to them.
const scoreScale = 1e9

func quantize(x float64) int64 {
	return int64(math.Round(clamp01(x) * scoreScale))
}

// entry is a slot in a class's heap with the score it had at step stamp.
type entry struct {
	score int64
	slot  int32
	stamp int32
}

func (a entry) before(b entry) bool {
	return a.score > b.score || (a.score == b.score && a.slot < b.slot)
}

// heap is a binary heap of entries, best first.
type heap []entry

func (h *heap) push(e entry) {
	*h = append(*h, e)
	x := *h
	i := len(x) - 1
	for i != 0 {
		parent := (i - 1) / 2
		if !x[i].before(x[parent]) {
			break
		}
		x[i], x[parent] = x[parent], x[i]
		i = parent
	}
}

func (h heap) down(i int) {
	n := len(h)
	for {
		best := i
		if l := 2*i + 1; l < n && h[l].before(h[best]) {
			best = l
		}
		if r := 2*i + 2; r < n && h[r].before(h[best]) {
			best = r
		}
		if best == i {
			return
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
}

func (h *heap) pop() {
	n := len(*h) - 1
	(*h)[0] = (*h)[n]
	*h = (*h)[:n]
	h.down(0) // nothing to do when h is now empty
}

func (h heap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// failKind says which check refused a slot.
type failKind uint8

const (
	fits failKind = iota
	failRole
	failScalar
	failWhole
	failPortCount
	failPortNumber
	failVolume
	failFilter
)

type failure struct {
	kind failKind
	i    int // the need, port number, volume or filter
}

// check runs the hard checks of class c on slot si, in the order reasons
// give them.
func (p *placer) check(c *class, si int32) failure {
	s := &p.slots[si]
	if c.role != "" && s.offer.Role != c.role {
		return failure{kind: failRole}
	}
	for i, n := range c.need {
		if s.left[n.k] < n.v {
			return failure{failScalar, i}
		}
	}
	if s.whole && len(c.need) != 0 {
		if i := s.unpickable(c.need); i >= 0 {
			return failure{failWhole, i}
		}
	}
	if c.port >= 0 {
		if s.free[c.port] < c.count+uint64(len(c.numbers)) {
			return failure{kind: failPortCount}
		}
		for i, n := range c.numbers {
			if !s.portFree(c.port, n) {
				return failure{failPortNumber, i}
			}
		}
	}
	if len(c.volumes) != 0 {
		if i := s.matchVolumes(c.volumes, p.volumeScratch(len(c.volumes))); i >= 0 {
			return failure{failVolume, i}
		}
	}
	for i := range c.filters {
		if !p.admits(c, &c.filters[i], si) {
			return failure{failFilter, i}
		}
	}
	return failure{}
}

func (p *placer) admits(c *class, f *cfilter, si int32) bool {
	a := p.slots[si].agent
	switch f.src.kind {
	case filterEquals, filterIn:
		v := f.table.valueOf[a]
		return v >= 0 && slices.Contains(f.ids, v)
	case filterNotIn:
		v := f.table.valueOf[a]
		return v < 0 || !slices.Contains(f.ids, v)
	case filterUniqueHost:
		return p.counts[groupKey(c.group.idx, a)] == 0
	case filterMaxPerValue:
		v := f.table.valueOf[a]
		return v >= 0 && f.ga.counts[v] < int32(f.src.max)
	case filterPredicate:
		return f.src.custom.f(p.tasks[c.task], Candidate{p, si})
	}
	return false
}

// score is the score of class c on slot si: the weighted mean of all its
// rankers, quantized once. The sum is split in two only so that the search
// can keep a part's slots in one heap: the local part and the part of the
// Spread rankers on the class's partition attribute, which is the same for
// every slot of a part. Quantizing the two apart would round scores equal
// on paper apart.
func (p *placer) score(c *class, si int32) int64 {
	if c.wsum == 0 {
		return 0
	}
	return quantize((p.localSum(c, si) + c.partSum(p.partOf(c, si))) / c.wsum)
}

// localScore is the quantized weighted mean of the rankers that are not
// on the partition attribute. It orders the slots of a part: the part's
// share of the score is the same for all of them.
func (p *placer) localScore(c *class, si int32) int64 {
	if c.wsum == 0 {
		return 0
	}
	return quantize(p.localSum(c, si) / c.wsum)
}

// localSum is the weighted sum of the rankers that are not on the
// partition attribute. It changes only when the slot's agent gets a task,
// or a count in c.deps grows.
func (p *placer) localSum(c *class, si int32) float64 {
	s := &p.slots[si]
	sum := 0.0
	for i := range c.rankers {
		r := &c.rankers[i]
		if r.src.weight == 0 || r.inPart {
			continue
		}
		var x float64
		switch r.src.kind {
		case rankBinPack:
			for j, k := range r.ks {
				d := s.denom[k] // never negative
				if d == 0 {
					continue
				}
				used := d - s.left[k] + r.need[j]
				x += clamp01(float64(used) / float64(d))
			}
			x /= float64(len(r.ks))
		case rankSpread:
			if v := r.ga.table.valueOf[s.agent]; v >= 0 {
				x = 1 / float64(1+r.ga.counts[v])
			}
		case rankLocality:
			if p.counts[groupKey(c.group.idx, s.agent)] > 0 {
				x = 1
			}
		case rankScore:
			x = clamp01(r.score(p.tasks[c.task], Candidate{p, si}))
		}
		sum += r.src.weight * x
	}
	return sum
}

// partOf returns the part of slot si in class c: 1 + the value id of its
// agent for the partition attribute (0 when it lacks it), or 0 when the
// class is not partitioned.
func (p *placer) partOf(c *class, si int32) int {
	if c.part == nil {
		return 0
	}
	return int(c.part.table.valueOf[p.slots[si].agent]) + 1
}

// partSum is the weighted sum of the Spread rankers on the partition
// attribute for the slots of part pi: 1/(1+n) each, n being the group's
// tasks on the part's value, and 0 for slots without the attribute.
func (c *class) partSum(pi int) float64 {
	if pi == 0 {
		return 0
	}
	return c.partW / float64(1+c.part.counts[pi-1])
}

// clamp01 is x within [0, 1], and 0 for NaN.
func clamp01(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return min(max(x, 0), 1)
}

// eval returns whether slot si admits a task of class c, and its score.
func (p *placer) eval(c *class, si int32) (bool, int64) {
	if p.check(c, si).kind != fits {
		return false, 0
	}
	return true, p.score(c, si)
}

// visit pushes slot si into its part of class c if it admits the class.
func (p *placer) visit(c *class, si int32) {
	if p.check(c, si).kind == fits {
		c.parts[p.partOf(c, si)].push(entry{p.localScore(c, si), si, p.step})
	}
}

// run places every task in order.
func (p *placer) run() {
	for ti := range p.tasks {
		c := p.classes[p.taskClass[ti]]
		si, score := p.pick(c)
		if si < 0 {
			p.fail(ti)
		} else {
			p.place(ti, c, si, score)
		}
		c.pending--
		if c.pending == 0 {
			for _, h := range c.parts {
				if cap(h) > 0 {
					p.pool = append(p.pool, h[:0])
				}
			}
			c.parts = nil
		}
	}
}

// pick returns the slot for the next task of class c and its score, or -1.
//
// Each class keeps heaps of the slots it has visited that admit it, by
// score: one per value of its partition attribute (the attribute of its
// Spread rankers), or a single one. An entry holds the local score of its
// slot, and is exact while neither the slot's agent nor a count in c.deps
// has changed since it was computed. A placement changes one agent: the
// class revisits that agent's slots (sync) and pushes new entries, and
// older entries of the agent are dropped when they come up. A placement
// also raises its group's counts for the agent's attribute values. On the
// partition attribute, that lowers the spread score of a whole part at
// once, which keeps the order within the part: a part's top is scored
// whole, its local sum and the part's, when parts are compared. (Within a
// part, two slots whose local scores differ by less than a quantum may
// round to one score once the part's share is added; the search then
// keeps the one with the higher local score, not the lower slot.) On another attribute it only lowers
// scores (Spread) or turns slots away (MaxPerValue): an entry stale that
// way is an upper bound of its true score, and is rescored when it comes
// up. So the best of the parts' exact tops is the best slot.
func (p *placer) pick(c *class) (int32, int64) {
	n := int32(len(p.slots))
	if c.parts == nil {
		c.parts = make([]heap, c.nparts)
	}
	if c.scanned == 0 {
		c.synced = len(p.log)
		if p.goodEnough == math.MaxInt64 {
			p.scanAll(c)
		}
	} else {
		p.sync(c)
	}
	for {
		var best entry
		found := false
		for pi := range c.parts {
			h := &c.parts[pi]
			if len(*h) == 0 || (pi > 0 && c.partMax > 0 && c.part.counts[pi-1] >= c.partMax) {
				continue
			}
			e, ok := p.top(c, h)
			if !ok {
				continue
			}
			if c.part != nil { // the part's share joins the local sum
				e.score = p.score(c, e.slot)
			}
			if !found || e.before(best) {
				best, found = e, true
			}
		}
		if found && (best.score >= p.goodEnough || c.scanned == n) {
			return best.slot, best.score
		}
		if c.scanned == n {
			return -1, 0
		}
		si := c.scanned
		c.scanned++
		p.visit(c, si)
	}
}

// scanAll visits every slot for class c at once, and sizes its heaps.
func (p *placer) scanAll(c *class) {
	all := p.scan[:0]
	sizes := p.partSizes[:0]
	for range c.nparts {
		sizes = append(sizes, 0)
	}
	for si := range int32(len(p.slots)) {
		if p.check(c, si).kind == fits {
			all = append(all, entry{p.localScore(c, si), si, p.step})
			sizes[p.partOf(c, si)]++
		}
	}
	for pi, n := range sizes {
		c.parts[pi] = p.newHeap(n + n/4)
	}
	for _, e := range all {
		pi := p.partOf(c, e.slot)
		c.parts[pi] = append(c.parts[pi], e)
	}
	for _, h := range c.parts {
		h.init()
	}
	c.scanned = int32(len(p.slots))
	p.scan, p.partSizes = all, sizes
}

// newHeap returns an empty heap with room for n entries, reusing the
// storage of classes done with when it can.
func (p *placer) newHeap(n int) heap {
	for i := len(p.pool) - 1; i >= 0; i-- {
		if h := p.pool[i]; cap(h) >= n {
			p.pool = slices.Delete(p.pool, i, i+1)
			return h
		}
	}
	return make(heap, 0, n)
}

// sync rescores, for class c, the visited slots of the agents that got
// tasks since c last looked.
func (p *placer) sync(c *class) {
	if c.synced == len(p.log) {
		return
	}
	p.markGen++
	for _, a := range p.log[c.synced:] {
		if p.mark[a] == p.markGen {
			continue
		}
		p.mark[a] = p.markGen
		ag := &p.agents[a]
		for si := ag.first; si < ag.last && si < c.scanned; si++ {
			p.visit(c, si)
		}
	}
	c.synced = len(p.log)
}

// top returns the exact best entry of heap h of class c, dropping
// superseded entries and rescoring stale ones on the way.
func (p *placer) top(c *class, h *heap) (entry, bool) {
	for len(*h) > 0 {
		e := (*h)[0]
		a := p.slots[e.slot].agent
		if e.stamp < p.agentChanged[a] {
			h.pop()
			continue
		}
		stale := false
		for _, ga := range c.deps {
			if v := ga.table.valueOf[a]; v >= 0 && e.stamp < ga.changed[v] {
				stale = true
				break
			}
		}
		if !stale {
			return e, true
		}
		if p.check(c, e.slot).kind == fits {
			(*h)[0] = entry{p.localScore(c, e.slot), e.slot, p.step}
			h.down(0)
		} else {
			h.pop()
		}
	}
	return entry{}, false
}

// place puts task ti of class c on slot si.
func (p *placer) place(ti int, c *class, si int32, score int64) {
	s := &p.slots[si]
	res := p.take(c, si)
	s.ntasks++
	p.out.Assignments = append(p.out.Assignments, Assignment{
		TaskID:    p.tasks[ti].ID,
		OfferID:   s.offer.ID,
		AgentID:   s.offer.AgentID,
		Resources: res,
		Score:     float64(score) / scoreScale,
	})
	p.order = append(p.order, si)
	p.step++
	a := s.agent
	p.agentChanged[a] = p.step
	p.log = append(p.log, a)
	p.agents[a].placed++
	g := c.group
	p.counts[groupKey(g.idx, a)]++
	for _, ga := range g.attrs {
		if v := ga.table.valueOf[a]; v >= 0 {
			ga.counts[v]++
			ga.changed[v] = p.step
		}
	}
}

// fail records that task ti fits nowhere; result says why.
func (p *placer) fail(ti int) {
	p.out.Unassigned = append(p.out.Unassigned, Unassigned{TaskID: p.tasks[ti].ID})
	p.failed = append(p.failed, int32(ti))
}

// explain returns why no slot admits a task of class c, one reason per
// slot, as things stand at the end of the call; the reasons of a class are
// made once and shared.
func (p *placer) explain(c *class) []Reason {
	if c.reasons != nil {
		return c.reasons
	}
	out := make([]Reason, len(p.slots))
	for si := range p.slots {
		out[si] = p.describe(c, int32(si), p.check(c, int32(si)))
	}
	c.reasons = out
	return out
}

// result gathers the outcome: the assignments and unassigned tasks made
// by run, and one OfferLaunch per used offer.
func (p *placer) result() Result {
	for i, ti := range p.failed {
		p.out.Unassigned[i].Reasons = p.explain(p.classes[p.taskClass[ti]])
	}
	r := p.out
	used := 0
	start := make([]int32, len(p.slots)+1)
	for i := range p.slots {
		if n := p.slots[i].ntasks; n != 0 {
			used++
			start[i+1] = n
		}
	}
	for i := range p.slots {
		start[i+1] += start[i]
	}
	launched := make([]offer.Task, len(p.order))
	next := slices.Clone(start[:len(p.slots)])
	for i, si := range p.order {
		a := &r.Assignments[i]
		launched[next[si]] = offer.Task{ID: a.TaskID, Resources: a.Resources}
		next[si]++
	}
	r.Launches = make([]OfferLaunch, 0, used)
	r.Unused = make([]offer.Offer, 0, len(p.slots)-used)
	for i := range p.slots {
		s := &p.slots[i]
		if s.ntasks == 0 {
			r.Unused = append(r.Unused, *s.offer)
			continue
		}
		r.Launches = append(r.Launches, OfferLaunch{Offer: *s.offer, Launch: offer.Launch{Tasks: launched[start[i]:start[i+1]:start[i+1]]}})
	}
	return r
}
