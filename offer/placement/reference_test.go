package placement

import "math"

// placeReference is Place with the simplest search there is: every task
// rescores every offer it may look at, with no heap, no partition and no
// staleness. The property tests check that Place gives the same result.
func placeReference(in Input) (Result, error) {
	p, err := newPlacer(&in)
	if err != nil {
		return Result{}, err
	}
	n := int32(len(p.slots))
	scanned := make([]int32, len(p.classes))
	for ti := range p.tasks {
		ci := p.taskClass[ti]
		c := p.classes[ci]
		best, bestScore := int32(-1), int64(0)
		consider := func(si int32) {
			if p.check(c, si).kind != fits {
				return
			}
			if sc := referenceScore(p, c, si); best < 0 || sc > bestScore {
				best, bestScore = si, sc
			}
		}
		k := scanned[ci]
		if p.goodEnough == math.MaxInt64 {
			k = n
		}
		for si := range k {
			consider(si)
		}
		for (best < 0 || bestScore < p.goodEnough) && k < n {
			consider(k)
			k++
		}
		scanned[ci] = k
		if best < 0 {
			p.fail(ti)
			continue
		}
		p.place(ti, c, best, bestScore)
	}
	return p.result(), nil
}

// referenceScore is the score of class c on slot si from its definition:
// the weighted mean of every ranker, the Spread rankers on the partition
// attribute with the others, rounded once.
func referenceScore(p *placer, c *class, si int32) int64 {
	s := &p.slots[si]
	sum, weights := 0.0, 0.0
	for i := range c.rankers {
		r := &c.rankers[i]
		weights += r.src.weight
		var x float64
		switch r.src.kind {
		case rankBinPack:
			for j, k := range r.ks {
				if d := s.denom[k]; d > 0 {
					x += min(max(float64(d-s.left[k]+r.need[j])/float64(d), 0), 1)
				}
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
			if y := r.score(p.tasks[c.task], Candidate{p, si}); y > 0 { // NaN scores 0
				x = min(y, 1)
			}
		}
		sum += r.src.weight * x
	}
	if weights == 0 {
		return 0
	}
	return int64(math.Round(min(sum/weights, 1) * 1e9))
}
