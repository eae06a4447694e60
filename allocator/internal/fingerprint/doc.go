// Package fingerprint hashes the parts of an allocator's state, for tests
// that compare states often (package allocator's Fingerprint): an agent's
// view and holds (Agent), the refusal filters in force however they are
// stored (Filters), reclaim's choices (Reclaim), and the rest (Rest).
//
// What it owns: two states alike in what a part covers hash alike, within
// one process (the hash is keyed per process); two that differ hash apart
// but with a chance of about 2^-64. The key enters only through strings
// longer than 16 bytes and whitelisted hosts: a state whose strings are
// all of at most 16 bytes, with no host whitelisted, hashes alike in every
// process and on every architecture. Maps are hashed as sums of independent
// hashes of their entries, so that their order does not count; lists in
// order, where order is part of the state (an agent's holds).
package fingerprint
