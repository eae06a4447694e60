// Package run makes the allocator's runs: from the agents waiting for one
// (or all of them, for a periodic run) to the offers, the inverse offers,
// the tasks chosen to end and the run's figures. It is the package to open
// for "why did this role get no offer": every pass-over is decided here
// (offerto.go) and recorded in the explain log, from which package explain
// answers.
//
// A run, in order (allocate.go):
//
//   - the candidate agents: those inactive, over-allocated or off the
//     whitelist are left out (their expired holds are given back all the
//     same, holds.go);
//   - holds: what is held for a framework on a candidate is offered to it
//     alone, first (holds.go);
//   - stage one, guarantees: on every candidate in a shuffled order, the
//     roles below their quota guarantees in the role sorter's order, each
//     offered up to what it is owed, within its limits (walks.go);
//   - stage two, fair share: on every candidate in another shuffled order,
//     every role in the role sorter's order, within limits and the
//     headroom held for unmet guarantees (walks.go), with the rotation
//     after declines (rotation.go) and offers sized to stated demand
//     (demand.go);
//   - reclaim: with it on, the tasks to end for pending tasks of roles owed
//     more (package reclaim chooses; reclaim.go holds what is free of each
//     room);
//   - the offers grouped by framework, role and agent and numbered
//     (groupoffers.go), and the inverse offers of agents under maintenance.
//
// What the engine owns, and keeps true: the agents waiting for a run
// (WantsRun, AllWantRun; a run takes exactly those); the numbering of runs
// and offers (one number each, never reused); and the answers kept to make
// runs cheap, each dropped by the event that could change it (cachefree.go
// lists them; Config.CacheFree makes an engine that keeps none, which the
// checks compare every run with). Everything else it reads and changes
// through the allocator's parts (Parts): the cluster's tables, the books,
// the declines, quota's parking, the task ledger and reclaim's choices.
//
// Package allocator holds an Engine, hands it its parts (New), tells it
// which agents wait (WantsRun) and calls Triggered for each Allocate; it
// turns the Result into its own types (Stats is RunStats field for field).
package run
