package declines

import (
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
)

// DefaultRefuse and MaxRefuse are the refusal time of a decline whose
// filter does not say and the longest a filter lasts (package allocator
// exports and documents both).
const (
	DefaultRefuse = 5 * time.Second
	MaxRefuse     = 365 * 24 * time.Hour
)

// Book keeps the refusal filters and the rounds of declines of a cluster.
// The allocator makes one with the cluster and role tree it keeps and the
// options below, and keeps it for its life.
type Book struct {
	// Cluster holds the agents and frameworks the filters are about;
	// Roles the framework sorters, whose numbers the refusal indexes
	// keep frameworks by.
	Cluster *cluster.State
	Roles   *roles.Tree
	// AllocationInterval is the least a filter lasts; MesosOfferOrder
	// turns the rotation off; CacheFree keeps every filter in lists and
	// trusts no bit (the allocator's Options of the same names).
	AllocationInterval time.Duration
	MesosOfferOrder    bool
	CacheFree          bool
	// OnFilter, when set, is told of every filter made (delta 1) and
	// dropped (-1).
	OnFilter func(fw *cluster.Framework, role string, expires time.Time, batch uint64, delta int)

	// Batches counts the periodic runs made (see FilterInForce); the
	// allocator counts them.
	Batches uint64
	// Declining says a decline is giving resources back, which keeps the
	// agent's round (AgentChanged); the allocator sets it.
	Declining bool
	// filterNums numbers the frameworks that refuse something, for the
	// agents' filtered sets, and RefusersByNum says which holds a number.
	filterNums    tables.Numbering
	RefusersByNum tables.Numbered[cluster.Framework]
	// anchor is the instant compact refusal filters count their expiries
	// from, set by the first of them (SinceAnchor).
	anchor   time.Time
	anchored bool
}
