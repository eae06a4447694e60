package allocator

// numbering hands out dense numbers from 1 and takes back those of what
// left, to hand them out again: the agents' numbers (on entry) and the
// frameworks' (once they refuse something). 0 is never handed out, so a
// zero number means none yet. A number is given back only once nothing
// keyed by it is left, so that its next holder inherits nothing.
type numbering struct {
	last int
	free []int
}

// take returns a number no one holds: the last one given back, or a new
// one.
func (n *numbering) take() int {
	if k := len(n.free); k > 0 {
		i := n.free[k-1]
		n.free = n.free[:k-1]
		return i
	}
	n.last++
	return n.last
}

// give takes i back; 0 is ignored.
func (n *numbering) give(i int) {
	if i != 0 {
		n.free = append(n.free, i)
	}
}

// numbered is a table of what holds each number, grown as numbers are
// handed out.
type numbered[T any] []*T

// set records that p holds number i (nil: no one does).
func (t *numbered[T]) set(i int, p *T) {
	for len(*t) <= i {
		*t = append(*t, nil)
	}
	(*t)[i] = p
}

// at returns what holds number i, or nil.
func (t numbered[T]) at(i int) *T {
	if i <= 0 || i >= len(t) {
		return nil
	}
	return t[i]
}

// numberAgent gives ag its number on entry.
func (a *Allocator) numberAgent(ag *agent) {
	ag.num = int32(a.agentNums.take())
	a.agentsByNum.set(int(ag.num), ag)
}

// unnumberAgent takes a removed agent's number back, once its filters are
// forgotten.
func (a *Allocator) unnumberAgent(ag *agent) {
	a.agentsByNum.set(int(ag.num), nil)
	a.agentNums.give(int(ag.num))
	ag.num = 0
}
