package machine

import (
	"time"

	"github.com/allot-go/allot/allocator/internal/books"
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/declines"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/observe"
	"github.com/allot-go/allot/allocator/internal/operations"
	"github.com/allot-go/allot/allocator/internal/quota"
	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/run"
)

// Parts are the allocator's parts the events change.
type Parts struct {
	Cluster    *cluster.State
	Roles      *roles.Tree
	RoleSorter *roles.TrackedSorter
	Books      *books.Books
	Allowances *quota.Allowances
	Parking    *quota.Parking
	Declines   *declines.Book
	Operations *operations.Operations
	Tasks      *cluster.Ledger
	Reclaims   *reclaim.State
	Engine     *run.Engine
	Explain    *explain.Log
	// Observer is nil unless the host registered one.
	Observer *observe.Ledgers
	// Clock is the allocator's clock, read through its journal.
	Clock func() time.Time
}

// Machine applies the allocator's events other than runs to its parts:
// one exported method per event, which checks its input and changes
// nothing when it returns an error.
type Machine struct {
	cs         *cluster.State
	roles      *roles.Tree
	roleSorter *roles.TrackedSorter
	books      *books.Books
	allowances *quota.Allowances
	parking    *quota.Parking
	dec        *declines.Book
	ops        *operations.Operations
	tasks      *cluster.Ledger
	reclaims   *reclaim.State
	engine     *run.Engine
	explain    *explain.Log
	obs        *observe.Ledgers
	clock      func() time.Time
}

// New returns a machine over the parts p.
func New(p Parts) *Machine {
	return &Machine{
		cs: p.Cluster, roles: p.Roles, roleSorter: p.RoleSorter, books: p.Books,
		allowances: p.Allowances, parking: p.Parking, dec: p.Declines, ops: p.Operations,
		tasks: p.Tasks, reclaims: p.Reclaims, engine: p.Engine, explain: p.Explain,
		obs: p.Observer, clock: p.Clock,
	}
}

// markRole tells the Observer, if any, that a role's figures changed.
func (m *Machine) markRole(role string) {
	if m.obs != nil {
		m.obs.MarkRole(role)
	}
}
