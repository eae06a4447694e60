// Package reservation models roles and reservations: role names and their
// hierarchy, single reservations (static or dynamic, with principal and
// labels) and reservation stacks, which record how a reservation was refined
// down the role hierarchy.
package reservation
