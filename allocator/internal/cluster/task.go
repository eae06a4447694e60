package cluster

import "github.com/allot-go/allot/resources"

// Reclaimable is what the task's end frees that counts towards a
// guarantee: its unreserved, non-revocable, non-shared scalars. The
// non-shared part of what a task owns never changes, so it is worked out
// once.
func (t *Task) Reclaimable() resources.Quantities {
	if !t.freesKnown {
		owns := t.Owns
		if owns.HasShared() {
			owns = owns.NonShared()
		}
		owns.AddUnreservedQuantitiesTo(&t.frees)
		t.freesKnown = true
	}
	return t.frees
}

// OnRevocable reports whether the task uses revocable resources, worked
// out once (what a task uses never changes).
func (t *Task) OnRevocable() bool {
	if t.revocable == 0 {
		t.revocable = 1
		if t.Uses.HasRevocable() {
			t.revocable = 2
		}
	}
	return t.revocable == 2
}

// Task is one entry of the ledger of launched tasks.
type Task struct {
	ID, Agent, Role string
	// Uses is everything the task was launched with, tagged with role.
	Uses resources.Resources
	// Owns is the part of the framework's allocation on the agent that the
	// task accounts for: its resources, but a shared volume only once per
	// launching call, as the call allocates it once (the first task of the
	// call to use it owns the copy, and hands it on to another task still
	// using it when it ends). Executor resources are owned by no task.
	Owns resources.Resources
	// Seq orders the ledger's tasks by launch: a later launch has a larger
	// one (reclaim ends the youngest first).
	Seq uint64
	// fw is the task's framework; ended says the task left the ledger
	// (Allocator.ledger keeps it until it is compacted).
	Framework *Framework
	Ended     bool
	// frees is what reclaim counts the task's end to free, once worked
	// out (reclaimable).
	frees      resources.Quantities
	freesKnown bool
	// revocable: 0 not worked out yet, 1 no, 2 yes (OnRevocable).
	revocable uint8
}
