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
			if ok, sc := p.eval(c, si); ok && (best < 0 || sc > bestScore) {
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
