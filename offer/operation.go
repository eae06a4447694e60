package offer

import (
	"fmt"
	"strings"

	"github.com/allot-go/allot/resources"
)

// Kind is the kind of an operation.
type Kind uint8

// The operation kinds, in the order of Mesos's Offer.Operation.Type.
const (
	KindLaunch Kind = iota + 1
	KindReserve
	KindUnreserve
	KindCreate
	KindDestroy
	KindGrowVolume
	KindShrinkVolume
)

var kindNames = [...]string{
	KindLaunch:       "LAUNCH",
	KindReserve:      "RESERVE",
	KindUnreserve:    "UNRESERVE",
	KindCreate:       "CREATE",
	KindDestroy:      "DESTROY",
	KindGrowVolume:   "GROW_VOLUME",
	KindShrinkVolume: "SHRINK_VOLUME",
}

// String returns Mesos's name of the kind: LAUNCH, RESERVE, UNRESERVE,
// CREATE, DESTROY, GROW_VOLUME, SHRINK_VOLUME.
func (k Kind) String() string {
	if k >= KindLaunch && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Operation is what a framework (or an operator) does with offered
// resources: one of Launch, Reserve, Unreserve, Create, Destroy, GrowVolume
// and ShrinkVolume. The set is closed; pointers to these types are
// operations too, and a nil one is refused with ErrUnsupported.
type Operation interface {
	// Kind returns the kind of the operation.
	Kind() Kind
	// String describes the operation and its resources.
	String() string
	isOperation()
}

// Task is a task of a Launch: an id unique within the operation, and the
// resources it uses.
type Task struct {
	ID        string
	Resources resources.Resources
}

// Launch starts tasks on offered resources. Executor holds the resources of
// the tasks' executor, if it is new and needs any (empty otherwise); they
// are used once per Launch. A Launch converts nothing: Apply and ApplyAll only
// check that its resources are offered and not used by an earlier Launch of
// the same call, and ApplyAll reports them as launched.
type Launch struct {
	Tasks    []Task
	Executor resources.Resources
}

// Resources returns everything the launch uses: the tasks' resources plus
// the executor's.
func (l Launch) Resources() resources.Resources {
	var all resources.Resources
	for _, t := range l.Tasks {
		all.Add(t.Resources)
	}
	all.Add(l.Executor)
	return all
}

// Reserve reserves Resources, each of which carries the reservation stack it
// will have: the new (dynamic) reservation is the last entry. Without a
// Source it consumes Resources with that last entry popped, so it reserves
// unreserved resources or refines a reservation by one level. With a Source
// it consumes exactly Source, which must be the same resources with one
// reservation stack of its own: that refines several levels at once, or
// replaces the top reservation (new labels or principal).
type Reserve struct {
	Resources resources.Resources
	Source    resources.Resources
}

// Unreserve removes the last reservation of each of Resources: refined
// reservations go back to the role they refined, others become unreserved.
// Only dynamic reservations can be unreserved, and none that holds a
// persistent volume.
type Unreserve struct {
	Resources resources.Resources
}

// Create makes persistent volumes from reserved disk: each volume consumes
// the same disk without persistence, volume and sharing.
type Create struct {
	Volumes resources.Resources
}

// Destroy turns persistent volumes back into the reserved disk they were
// made from. Their data is lost.
type Destroy struct {
	Volumes resources.Resources
}

// GrowVolume makes a persistent volume larger by consuming Addition, disk of
// the same kind (same reservation, source and allocation) as the volume.
type GrowVolume struct {
	Volume   resources.Resource
	Addition resources.Resources
}

// ShrinkVolume makes a persistent volume smaller by Subtract, giving that
// much back as disk of the same reservation.
type ShrinkVolume struct {
	Volume   resources.Resource
	Subtract resources.Scalar
}

func (Launch) isOperation()       {}
func (Reserve) isOperation()      {}
func (Unreserve) isOperation()    {}
func (Create) isOperation()       {}
func (Destroy) isOperation()      {}
func (GrowVolume) isOperation()   {}
func (ShrinkVolume) isOperation() {}

// Kind returns KindLaunch.
func (Launch) Kind() Kind { return KindLaunch }

// Kind returns KindReserve.
func (Reserve) Kind() Kind { return KindReserve }

// Kind returns KindUnreserve.
func (Unreserve) Kind() Kind { return KindUnreserve }

// Kind returns KindCreate.
func (Create) Kind() Kind { return KindCreate }

// Kind returns KindDestroy.
func (Destroy) Kind() Kind { return KindDestroy }

// Kind returns KindGrowVolume.
func (GrowVolume) Kind() Kind { return KindGrowVolume }

// Kind returns KindShrinkVolume.
func (ShrinkVolume) Kind() Kind { return KindShrinkVolume }

// String prints "LAUNCH [t1: cpus:1; mem:64] [t2: cpus:2] executor: cpus:0.1".
func (l Launch) String() string {
	var b strings.Builder
	b.WriteString("LAUNCH")
	for _, t := range l.Tasks {
		fmt.Fprintf(&b, " [%s: %s]", t.ID, t.Resources)
	}
	if !l.Executor.IsEmpty() {
		fmt.Fprintf(&b, " executor: %s", l.Executor)
	}
	return b.String()
}

// String prints "RESERVE <resources>" or "RESERVE <resources> from <source>".
func (r Reserve) String() string {
	if r.Source.IsEmpty() {
		return "RESERVE " + r.Resources.String()
	}
	return "RESERVE " + r.Resources.String() + " from " + r.Source.String()
}

// String prints "UNRESERVE <resources>".
func (u Unreserve) String() string { return "UNRESERVE " + u.Resources.String() }

// String prints "CREATE <volumes>".
func (c Create) String() string { return "CREATE " + c.Volumes.String() }

// String prints "DESTROY <volumes>".
func (d Destroy) String() string { return "DESTROY " + d.Volumes.String() }

// String prints "GROW_VOLUME <volume> by <addition>".
func (g GrowVolume) String() string {
	return "GROW_VOLUME " + g.Volume.String() + " by " + g.Addition.String()
}

// String prints "SHRINK_VOLUME <volume> by <subtract>".
func (s ShrinkVolume) String() string {
	return "SHRINK_VOLUME " + s.Volume.String() + " by " + s.Subtract.String()
}

// deref returns op as a value of one of the operation types, dereferencing
// pointers; a nil operation or nil pointer is ErrUnsupported.
func deref(op Operation) (Operation, error) {
	switch o := op.(type) {
	case Launch, Reserve, Unreserve, Create, Destroy, GrowVolume, ShrinkVolume:
		return op, nil
	case *Launch:
		if o != nil {
			return *o, nil
		}
	case *Reserve:
		if o != nil {
			return *o, nil
		}
	case *Unreserve:
		if o != nil {
			return *o, nil
		}
	case *Create:
		if o != nil {
			return *o, nil
		}
	case *Destroy:
		if o != nil {
			return *o, nil
		}
	case *GrowVolume:
		if o != nil {
			return *o, nil
		}
	case *ShrinkVolume:
		if o != nil {
			return *o, nil
		}
	}
	return nil, fmt.Errorf("%w: %T", ErrUnsupported, op)
}

// KindOf returns the kind of op, and 0 for a nil operation. Unlike
// op.Kind(), it is safe on a nil interface and on a nil pointer to an
// operation, so error paths can name what they were given.
func KindOf(op Operation) Kind { return kindOf(op) }

// kindOf returns the kind of op without calling its methods (op may be a
// nil pointer); 0 when unknown.
func kindOf(op Operation) Kind {
	if o, err := deref(op); err == nil {
		return o.Kind()
	}
	switch op.(type) {
	case *Launch:
		return KindLaunch
	case *Reserve:
		return KindReserve
	case *Unreserve:
		return KindUnreserve
	case *Create:
		return KindCreate
	case *Destroy:
		return KindDestroy
	case *GrowVolume:
		return KindGrowVolume
	case *ShrinkVolume:
		return KindShrinkVolume
	}
	return 0
}
