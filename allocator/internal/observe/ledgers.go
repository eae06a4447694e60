package observe

import (
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Ledgers are the figures of every framework and role, and what changed
// since the last report.
type Ledgers struct {
	frameworks map[string]*FrameworkLedger
	roles      map[string]*RoleLedger
	// Offered and Allocated are the cluster's sums.
	Offered, Allocated resources.Quantities
	// dirtyRoles and dirtyFrameworks changed since the last report (each
	// once: their ledgers say they are listed), removedFrameworks left;
	// reported are the roles reported and not removed since.
	dirtyRoles        []*RoleLedger
	dirtyFrameworks   []*FrameworkLedger
	removedFrameworks []string
	reported          map[string]struct{}
	// ClusterDirty: the cluster's figures changed (its totals, or what is
	// held).
	ClusterDirty  bool
	totalsVersion uint64
}

// FrameworkLedger is a framework's figures.
type FrameworkLedger struct {
	ID                    string
	Offers, InverseOffers uint64
	// Roles are its ledgers per role.
	Roles map[string]*RoleLedger
	dirty bool
}

// RoleLedger is what is held, and how many filters are kept, for one
// framework in one role, or for all the frameworks of a role (which also
// lists the frameworks that suppress it).
type RoleLedger struct {
	Role               string
	Offered, Allocated resources.Quantities
	Filters            FilterCount
	// Suppressed are the frameworks that suppress the role (a role's
	// ledger only).
	Suppressed map[string]struct{}
	// PreemptedFrom and PreemptedFor count the tasks runs chose to end in
	// the role and for it (a role's ledger only).
	PreemptedFrom, PreemptedFor uint64
	dirty                       bool
}

// New returns empty ledgers.
func New() *Ledgers {
	return &Ledgers{frameworks: map[string]*FrameworkLedger{}, roles: map[string]*RoleLedger{}, reported: map[string]struct{}{}}
}

// Framework returns the framework's ledger, made on first use, and marks
// it changed.
func (l *Ledgers) Framework(id string) *FrameworkLedger {
	f := l.frameworks[id]
	if f == nil {
		f = &FrameworkLedger{ID: id, Roles: map[string]*RoleLedger{}}
		l.frameworks[id] = f
	}
	if !f.dirty {
		f.dirty = true
		l.dirtyFrameworks = append(l.dirtyFrameworks, f)
	}
	return f
}

// frameworkRole returns the ledger of a framework in one of its roles,
// made on first use, and marks the framework as changed.
func (l *Ledgers) frameworkRole(fwID, role string) *RoleLedger {
	f := l.Framework(fwID)
	fr := f.Roles[role]
	if fr == nil {
		fr = &RoleLedger{Role: role}
		f.Roles[role] = fr
	}
	return fr
}

// role returns the ledger of a role, made on first use.
func (l *Ledgers) role(role string) *RoleLedger {
	r := l.roles[role]
	if r == nil {
		r = &RoleLedger{Role: role}
		l.roles[role] = r
	}
	return r
}

// MarkRole marks a role and its ancestors changed, and returns the role's
// ledger.
func (l *Ledgers) MarkRole(role string) *RoleLedger {
	first := l.role(role)
	for r := first; !r.dirty; {
		r.dirty = true
		l.dirtyRoles = append(l.dirtyRoles, r)
		i := strings.LastIndexByte(r.Role, '/')
		if i < 0 {
			break
		}
		r = l.role(r.Role[:i])
	}
	return first
}

// Held records that a framework's holdings in role changed: offered and
// allocated (non-shared scalar quantities) added or, with add false, taken
// away.
func (l *Ledgers) Held(fwID, role string, offered, allocated resources.Quantities, add bool) {
	fr := l.frameworkRole(fwID, role)
	r := l.MarkRole(role)
	if !offered.IsEmpty() {
		roles.Adjust(&fr.Offered, offered, add)
		roles.Adjust(&r.Offered, offered, add)
		roles.Adjust(&l.Offered, offered, add)
	}
	if !allocated.IsEmpty() {
		roles.Adjust(&fr.Allocated, allocated, add)
		roles.Adjust(&r.Allocated, allocated, add)
		roles.Adjust(&l.Allocated, allocated, add)
	}
	l.ClusterDirty = true
}

// Taken records that part of what a framework held in role was given
// back: taken from what it was offered, the rest (of q, the non-shared
// quantities given back) from what it used.
func (l *Ledgers) Taken(fwID, role string, taken resources.Resources, q resources.Quantities) {
	var offered resources.Quantities
	if !taken.IsEmpty() {
		taken.NonShared().AddQuantitiesTo(&offered)
	}
	l.Held(fwID, role, offered, q.Minus(offered), false)
}

// Updated records operations applied to offered resources: taken from
// what the framework was offered (the rest from what it used), and become
// the unused rest, still offered, and the launched tasks' resources.
func (l *Ledgers) Updated(fwID, role string, offered, taken resources.Resources, accepted offer.Applied) {
	var all resources.Quantities
	offered.NonShared().AddQuantitiesTo(&all)
	l.Taken(fwID, role, taken, all)
	var unused, launched resources.Quantities
	accepted.Unused.NonShared().AddQuantitiesTo(&unused)
	accepted.Launched.NonShared().AddQuantitiesTo(&launched)
	l.Held(fwID, role, unused, launched, true)
}

// Filter records that a filter of a framework in role expiring at t, made
// after batch periodic runs, was made (delta 1) or dropped (-1).
func (l *Ledgers) Filter(fwID, role string, t time.Time, batch uint64, delta int) {
	l.frameworkRole(fwID, role).Filters.Add(t, batch, delta)
	l.MarkRole(role).Filters.Add(t, batch, delta)
}

// FrameworkIn marks a framework and one of its roles changed (role may be
// empty), and notes whether the framework suppresses the role.
func (l *Ledgers) FrameworkIn(fwID, role string, suppresses bool) {
	l.Framework(fwID)
	if role == "" {
		return
	}
	r := l.MarkRole(role)
	if suppresses {
		if r.Suppressed == nil {
			r.Suppressed = map[string]struct{}{}
		}
		r.Suppressed[fwID] = struct{}{}
	} else {
		delete(r.Suppressed, fwID)
	}
}

// Removed drops a removed framework's ledger.
func (l *Ledgers) Removed(fwID string) {
	delete(l.frameworks, fwID)
	l.removedFrameworks = append(l.removedFrameworks, fwID)
}

// Preempted counts a task chosen to end in role from, for role forRole.
func (l *Ledgers) Preempted(from, forRole string) {
	l.MarkRole(from).PreemptedFrom++
	l.MarkRole(forRole).PreemptedFor++
}

// MarkExpired marks changed the roles and frameworks with a filter that
// expired by now: it counts no more.
func (l *Ledgers) MarkExpired(now time.Time) {
	for _, r := range l.roles {
		if r.Filters.ExpiresBy(now) {
			l.MarkRole(r.Role)
		}
	}
	for id, f := range l.frameworks {
		for _, r := range f.Roles {
			if r.Filters.ExpiresBy(now) {
				l.Framework(id)
				break
			}
		}
	}
}

// TotalsChanged reports whether the cluster's totals moved since the last
// call (their version is not version), and notes version: every share
// moved with them.
func (l *Ledgers) TotalsChanged(version uint64) bool {
	if l.totalsVersion == version {
		return false
	}
	l.totalsVersion = version
	return true
}

// Changed reports whether anything changed since the last Take.
func (l *Ledgers) Changed() bool {
	return len(l.dirtyRoles) > 0 || len(l.dirtyFrameworks) > 0 || len(l.removedFrameworks) > 0 || l.ClusterDirty
}

// HeldChanged reports whether a role or a framework changed since the
// last Take.
func (l *Ledgers) HeldChanged() bool { return len(l.dirtyRoles) > 0 || len(l.dirtyFrameworks) > 0 }

// Changes are what a report tells, from Take.
type Changes struct {
	// Roles and Frameworks changed and are still there, by name.
	Roles      []*RoleLedger
	Frameworks []*FrameworkLedger
	// RemovedRoles were reported and are gone; RemovedFrameworks left and
	// did not come back. Both sorted.
	RemovedRoles, RemovedFrameworks []string
}

// Take returns what changed since the last Take and starts anew. hasRole
// says whether a role is still there (has a node in the role tree), and
// hasFramework whether a framework is. A gone role's ledger is dropped
// unless it still counts filters or suppressing frameworks (a framework
// may keep filters in a role it left).
func (l *Ledgers) Take(hasRole, hasFramework func(string) bool) Changes {
	var ch Changes
	slices.SortFunc(l.dirtyRoles, func(x, y *RoleLedger) int { return strings.Compare(x.Role, y.Role) })
	for _, r := range l.dirtyRoles {
		r.dirty = false
		if !hasRole(r.Role) {
			if _, ok := l.reported[r.Role]; ok {
				delete(l.reported, r.Role)
				ch.RemovedRoles = append(ch.RemovedRoles, r.Role)
			}
			if r.Filters.Len() == 0 && len(r.Suppressed) == 0 {
				delete(l.roles, r.Role)
			}
			continue
		}
		l.reported[r.Role] = struct{}{}
		ch.Roles = append(ch.Roles, r)
	}
	slices.SortFunc(l.dirtyFrameworks, func(x, y *FrameworkLedger) int { return strings.Compare(x.ID, y.ID) })
	for _, f := range l.dirtyFrameworks {
		f.dirty = false
		if hasFramework(f.ID) && l.frameworks[f.ID] == f {
			ch.Frameworks = append(ch.Frameworks, f)
		}
	}
	for _, id := range l.removedFrameworks {
		if !hasFramework(id) && !slices.Contains(ch.RemovedFrameworks, id) {
			ch.RemovedFrameworks = append(ch.RemovedFrameworks, id)
		}
	}
	slices.Sort(ch.RemovedFrameworks)
	clear(l.dirtyRoles)
	l.dirtyRoles = l.dirtyRoles[:0]
	clear(l.dirtyFrameworks)
	l.dirtyFrameworks = l.dirtyFrameworks[:0]
	l.removedFrameworks = l.removedFrameworks[:0]
	l.ClusterDirty = false
	return ch
}
