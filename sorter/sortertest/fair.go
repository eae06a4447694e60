package sortertest

import (
	"testing"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// RunFair runs the ordering behaviours of a dominant resource fairness
// sorter: clients by ascending dominant share (the largest fraction of the
// pool they hold of any resource) divided by weight; ties by allocation
// count (Allocated calls, never decremented), then by path; resource names
// in Config.FairnessExcluded and resources the pool lacks ignored; shared
// volumes counted once per client per agent; and for paths, the order of
// each level by the share of the whole subtree, every subtree's clients
// together, and the virtual leaf of a client with children weighted 1.
// The expected orders come from Mesos's sorter tests and from the arithmetic
// of the shares; each subtest says which.
func RunFair(t *testing.T, newSorter sorter.Factory) {
	t.Helper()
	none := sorter.Config{}
	runChecks(t, newSorter, []check{
		{"DominantShare", none, dominantShare},
		{"DominantResource", none, dominantResource},
		{"TieBreakByAllocationCount", none, tieBreakByAllocationCount},
		{"EqualAllocationsTie", none, equalAllocationsTie},
		{"Weights", none, fairWeights},
		{"WeightBeforeAdd", none, weightBeforeAdd},
		{"FairnessExcluded", sorter.Config{FairnessExcluded: resources.NewNameSet("gpus")}, fairnessExcluded},
		{"NotExcludedByDefault", none, notExcludedByDefault},
		{"PoolTotals", none, poolTotals},
		{"ResourcesOutsideThePoolIgnored", none, resourcesOutsideThePoolIgnored},
		{"SharedVolumeOncePerAgent", none, sharedVolumeOncePerAgent},
		{"SharedVolumeOncePerSubtree", none, sharedVolumeOncePerSubtree},
		{"Unallocated", none, fairUnallocated},
		{"Hierarchy", none, fairHierarchy},
		{"InactiveClientsCountInTheirSubtree", none, inactiveClientsCountInTheirSubtree},
		{"SubtreeWeight", none, subtreeWeight},
		{"VirtualLeaf", none, virtualLeaf},
		{"SubtreesTogether", none, subtreesTogether},
	})
}
