package tables

import (
	"iter"
	"slices"
	"strings"
)

// roleMark is what a role is to a framework; a role may be several.
type roleMark uint8

const (
	// Subscribed: the framework subscribes to the role (its info's Roles).
	Subscribed roleMark = 1 << iota
	// Tracked: the framework is a client of the role's framework sorter
	// (subscribed, or still holding resources allocated to the role).
	Tracked
	// Suppressed: offers to the framework in the role are suppressed.
	Suppressed
)

// frameworkRole is one role of a framework's roleTable.
type frameworkRole struct {
	role  string
	marks roleMark
}

// RoleTable holds a framework's roles, sorted by name, each with what it
// is to the framework. Frameworks have few roles; one table instead of a
// set of each kind keeps the framework's record a size class smaller and
// makes one allocation where the sets made two or three.
type RoleTable []frameworkRole

func (t RoleTable) find(role string) (int, bool) {
	return slices.BinarySearchFunc(t, role, func(e frameworkRole, role string) int { return strings.Compare(e.role, role) })
}

// Has reports whether role is marked m.
func (t RoleTable) Has(role string, m roleMark) bool {
	i, ok := t.find(role)
	return ok && t[i].marks&m != 0
}

// Mark marks role m and reports whether it was not marked so before.
func (t *RoleTable) Mark(role string, m roleMark) bool {
	i, ok := t.find(role)
	if !ok {
		*t = slices.Insert(*t, i, frameworkRole{role: role, marks: m})
		return true
	}
	was := (*t)[i].marks&m != 0
	(*t)[i].marks |= m
	return !was
}

// Unmark takes mark m from role and reports whether it had it; a role
// left with no mark leaves the table.
func (t *RoleTable) Unmark(role string, m roleMark) bool {
	i, ok := t.find(role)
	if !ok || (*t)[i].marks&m == 0 {
		return false
	}
	(*t)[i].marks &^= m
	if (*t)[i].marks == 0 {
		*t = slices.Delete(*t, i, i+1)
	}
	return true
}

// MarkOnly makes roles (in any order, repeats allowed) the roles marked m.
func (t *RoleTable) MarkOnly(m roleMark, roles []string) {
	for _, e := range slices.Clone(*t) {
		if e.marks&m != 0 && !slices.Contains(roles, e.role) {
			t.Unmark(e.role, m)
		}
	}
	for _, role := range roles {
		t.Mark(role, m)
	}
}

// Count returns the number of roles marked m.
func (t RoleTable) Count(m roleMark) int {
	n := 0
	for _, e := range t {
		if e.marks&m != 0 {
			n++
		}
	}
	return n
}

// All yields the roles marked m in name order. The table must not change
// during the iteration: use list to change it on the way.
func (t RoleTable) All(m roleMark) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, e := range t {
			if e.marks&m != 0 && !yield(e.role) {
				return
			}
		}
	}
}

// List returns the roles marked m in name order, in a new slice (nil when
// there are none).
func (t RoleTable) List(m roleMark) []string {
	var out []string
	for _, e := range t {
		if e.marks&m != 0 {
			out = append(out, e.role)
		}
	}
	return out
}
