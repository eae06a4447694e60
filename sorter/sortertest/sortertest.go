package sortertest

import (
	"testing"

	"github.com/allot-go/allot/sorter"
)

// check is one behaviour: run checks it on a sorter made with cfg, in a
// subtest named name.
type check struct {
	name string
	cfg  sorter.Config
	run  func(c checker)
}

// runChecks runs each check as a subtest, in order. newSorter is called
// once per subtest, so state never leaks between them.
func runChecks(t *testing.T, newSorter sorter.Factory, checks []check) {
	t.Helper()
	for _, ch := range checks {
		t.Run(ch.name, func(t *testing.T) {
			ch.run(checker{t: t, s: newSorter(ch.cfg)})
		})
	}
}

// Run runs the behaviours every sorter must have, each a subtest (see the
// package documentation for the list). newSorter is called once per
// subtest, so state never leaks between them; its Config has Seed 1, so
// that a random sorter draws the same orders on every run.
func Run(t *testing.T, newSorter sorter.Factory) {
	t.Helper()
	seeded := sorter.Config{Seed: 1}
	runChecks(t, newSorter, []check{
		{"Empty", seeded, empty},
		{"AddIsInactive", seeded, addIsInactive},
		{"InvalidPaths", seeded, invalidPaths},
		{"ActivateDeactivate", seeded, activateDeactivate},
		{"Remove", seeded, remove},
		{"UnknownClient", seeded, unknownClient},
		{"Allocation", seeded, allocation},
		{"AllocationWhileInactive", seeded, allocationWhileInactive},
		{"NotAllocated", seeded, notAllocated},
		{"Update", seeded, update},
		{"SharedCountedOncePerAgent", seeded, sharedCountedOncePerAgent},
		{"RemoveDropsAllocation", seeded, removeDropsAllocation},
		{"Agents", seeded, agents},
		{"Hierarchy", seeded, hierarchy},
		{"SplitAndJoinKeepState", seeded, splitAndJoinKeepState},
		{"InternalNodeIsNotAClient", seeded, internalNodeIsNotAClient},
		{"Weights", seeded, weights},
		{"FailedCallsChangeNothing", seeded, failedCallsChangeNothing},
		{"SortIsEachActiveClientOnce", seeded, sortIsEachActiveClientOnce},
		{"StableSortsTheSameTwice", seeded, stableSortsTheSameTwice},
		{"IndexedWalksAgree", seeded, indexedWalksAgree},
	})
}
