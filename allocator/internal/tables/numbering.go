package tables

// Numbering hands out dense numbers from 1 and takes back those of what
// left, to hand them out again: the agents' numbers (on entry) and the
// frameworks' (once they refuse something). 0 is never handed out, so a
// zero number means none yet. A number is given back only once nothing
// keyed by it is left, so that its next holder inherits nothing.
type Numbering struct {
	last int
	free []int
}

// Take returns a number no one holds: the last one given back, or a new
// one.
func (n *Numbering) Take() int {
	if k := len(n.free); k > 0 {
		i := n.free[k-1]
		n.free = n.free[:k-1]
		return i
	}
	n.last++
	return n.last
}

// Give takes i back; 0 is ignored.
func (n *Numbering) Give(i int) {
	if i != 0 {
		n.free = append(n.free, i)
	}
}

// Numbered is a table of what holds each number, grown as numbers are
// handed out.
type Numbered[T any] []*T

// Set records that p holds number i (nil: no one does).
func (t *Numbered[T]) Set(i int, p *T) {
	for len(*t) <= i {
		*t = append(*t, nil)
	}
	(*t)[i] = p
}

// At returns what holds number i, or nil.
func (t Numbered[T]) At(i int) *T {
	if i <= 0 || i >= len(t) {
		return nil
	}
	return t[i]
}
