// Package sorter decides who is served first: the allocator asks a Sorter for
// its clients (roles, or the frameworks within a role) in order, and offers
// an agent's resources to the first eligible one.
package sorter
