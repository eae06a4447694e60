// Package tables holds the allocator's small containers: the keyed tables
// of frameworks, agents and role nodes (Table), an agent's resources per
// framework (PerFramework), an agent's entries per role (ByRole), a
// framework's roles with their marks (RoleTable), a set of framework ids
// (FrameworkSet) and dense numbers handed out and taken back (Numbering,
// Numbered).
//
// Each container keeps the common case inline (the first framework or
// role in the value itself, a map only for the others) and owns one
// invariant: what it holds reads back the same whichever place it is kept
// in (inline or in the map), there is never an empty entry, and keys come
// out sorted where a caller asks for them sorted. None knows what an agent,
// a framework or a role means; the allocator's records (package allocator)
// put them together.
package tables
