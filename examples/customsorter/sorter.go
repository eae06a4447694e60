package main

import (
	"cmp"
	"slices"

	"github.com/allot-go/allot/sorter"
)

// MaxMin serves first the client that holds the least of one resource,
// divided by its weight: max-min fairness on that resource, whatever the
// others. Clients tied on it (all at zero, typically, for a resource few of
// them use) go by weighted dominant share as DRF orders them, then by
// allocation count, then by path. The resource held and the dominant share
// of a client with clients below it ("eng" with "eng/web") are its whole
// subtree's.
//
// With Resource "gpus" and GPUs excluded from fairness (as Mesos clusters
// usually run, so that one GPU does not make its holder's share 1), DRF
// does not see who holds the GPUs; MaxMin shares them out first and leaves
// the rest to DRF.
//
// sorter.Accounting keeps the books, so MaxMin is its policy: Sort, and
// ShareOf for the allocator's views (sorter.Sharer).
type MaxMin struct {
	sorter.Accounting
	Resource string
	order    []string
}

// NewMaxMin returns a sorter.Factory of MaxMin sorters on resource.
func NewMaxMin(resource string) sorter.Factory {
	return func(cfg sorter.Config) sorter.Sorter {
		return &MaxMin{Accounting: sorter.NewAccounting(cfg), Resource: resource}
	}
}

// held is what the clients at path hold of the resource, over path's weight.
func (s *MaxMin) held(path string) float64 {
	return s.SubtreeQuantity(path, s.Resource) / s.Weight(path)
}

// Sort returns the active clients, the one holding the least first.
func (s *MaxMin) Sort() []string {
	s.order = s.AppendActive(s.order[:0]) // in path order, the last tie rule
	slices.SortStableFunc(s.order, func(a, b string) int {
		return cmp.Or(
			cmp.Compare(s.held(a), s.held(b)),
			cmp.Compare(s.DominantShare(a), s.DominantShare(b)),
			cmp.Compare(s.AllocationCount(a), s.AllocationCount(b)))
	})
	return s.order
}

// ShareOf returns the fraction of the pool's resource held at path, over
// path's weight: the figure MaxMin orders by.
func (s *MaxMin) ShareOf(path string) float64 {
	if total := s.Pool().Float64(s.Resource); total > 0 {
		return s.held(path) / total
	}
	return 0
}
