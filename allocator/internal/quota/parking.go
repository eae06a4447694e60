package quota

import (
	"slices"

	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// Parking is the roles kept out of the role sorter because they could
// take nothing more when ParkedEpoch was CapEpoch. The zero Parking has
// epochs that say its (empty) parking is current; New's does not.
type Parking struct {
	// Parked are the roles kept out, in the order they were parked. The
	// snapshot holds them and the epochs as they are.
	Parked []string
	// CapEpoch moves with every event that could let a capped role take
	// more (Uncapped); ParkedEpoch is the CapEpoch the roles were parked
	// at.
	CapEpoch, ParkedEpoch uint64

	// freeAt and requiredAt are the free and the required headroom the
	// parked roles' causes were last found at (Found). A cause reads
	// them, the limits and the consumption, and every allocation or
	// release of unreserved resources moves the free headroom: while both
	// stand, the causes stand. Not in the snapshot: a restored allocator
	// finds the causes once more at its next run, and reaches the same.
	freeAt, requiredAt resources.Quantities
	found              bool
}

// NewParking returns a Parking with nothing parked, whose first run
// parks.
func NewParking() Parking { return Parking{CapEpoch: 1} }

// Uncapped notes an event that could let a capped role take more again.
func (p *Parking) Uncapped() { p.CapEpoch++ }

// Current reports whether no event since the roles were parked could
// have uncapped one.
func (p *Parking) Current() bool { return p.ParkedEpoch == p.CapEpoch }

// ReasonsHold reports whether every parked role is still capped for the
// cause its node keeps (roles.Node.CappedBy), causeNow giving the cause
// as it is now, with free and required the free and the required
// headroom now. Between the events that could uncap a role its cap
// stands, but its cause can move: headroom comes to be held, or is no
// longer, as guarantees become unmet or met; and runs hand out what was
// free, so a cap that needed a role's limit may come to hold by the
// headroom alone, or for want of anything free. Explain would give the
// old cause: the roles are then looked at again, and their causes found
// anew. The causes are asked again only where the headroom has moved
// since they were last found.
func (p *Parking) ReasonsHold(tree *roles.Tree, free, required resources.Quantities, causeNow func(*roles.Node) Cause) bool {
	if p.found && free.Equal(p.freeAt) && required.Equal(p.requiredAt) {
		return true
	}
	for _, role := range p.Parked {
		if n := tree.Get(role); n != nil && n.CappedBy != causeNow(n) {
			return false
		}
	}
	p.Found(free, required)
	return true
}

// Found notes that the parked roles' causes are those found with free
// and required the free and the required headroom.
func (p *Parking) Found(free, required resources.Quantities) {
	p.freeAt.Assign(free)
	p.requiredAt.Assign(required)
	p.found = true
}

// Park lets every parked role back in, then keeps out of the role sorter
// rs the roles of candidates that capped says can take nothing more,
// unless a guarantee is unmet in their ancestry: guaranteed resources are
// not held back as headroom. They stay out across runs until Uncapped.
func (p *Parking) Park(rs *roles.TrackedSorter, tree *roles.Tree, candidates []string, capped func(*roles.Node) bool) {
	p.Unpark(rs)
	p.ParkedEpoch = p.CapEpoch
	for _, role := range candidates {
		if node := tree.Get(role); tree.UnsatisfiedGuarantees(node).IsEmpty() && capped(node) {
			_ = rs.Deactivate(role)
			p.Parked = append(p.Parked, role)
		}
	}
}

// Reconsider lets back into rs the parked roles that stillCapped says may
// take more, marks their nodes uncapped for the run, and returns how many
// it let back. Offers that meet guarantees lower the headroom held for
// them by what they count towards them, which is more than they take from
// the free pool when they hand out reservations, so a role parked at the
// start of a run may have room again.
func (p *Parking) Reconsider(rs *roles.TrackedSorter, tree *roles.Tree, stillCapped func(*roles.Node) bool) int {
	kept, back := p.Parked[:0], 0
	for _, role := range p.Parked {
		if n := tree.Get(role); n != nil && !stillCapped(n) {
			_ = rs.Activate(role)
			n.CappedRun = 0
			back++
			continue
		}
		kept = append(kept, role)
	}
	clear(p.Parked[len(kept):])
	p.Parked = kept
	return back
}

// Add parks role, one capped during a run.
func (p *Parking) Add(role string) { p.Parked = append(p.Parked, role) }

// Drop forgets role, one that left the role sorter, so that the parked
// roles name only roles the sorter has.
func (p *Parking) Drop(role string) {
	p.Parked = slices.DeleteFunc(p.Parked, func(r string) bool { return r == role })
}

// Unpark lets every parked role back into rs, and makes the next run park
// anew.
func (p *Parking) Unpark(rs *roles.TrackedSorter) {
	for _, role := range p.Parked {
		if rs.Contains(role) {
			_ = rs.Activate(role)
		}
	}
	clear(p.Parked)
	p.Parked = p.Parked[:0]
	p.ParkedEpoch = p.CapEpoch - 1
	p.found = false
}
