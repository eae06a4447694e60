package sorter_test

import (
	"testing"

	"github.com/allot-go/allot/sorter"
	"github.com/allot-go/allot/sorter/sortertest"
)

func newDRF(cfg sorter.Config) sorter.Sorter    { return sorter.NewDRF(cfg) }
func newRandom(cfg sorter.Config) sorter.Sorter { return sorter.NewRandom(cfg) }

func TestDRFConformance(t *testing.T) {
	sortertest.Run(t, newDRF)
	t.Run("Fair", func(t *testing.T) { sortertest.RunFair(t, newDRF) })
}

func TestLazyDRFConformance(t *testing.T) {
	newLazy := func(cfg sorter.Config) sorter.Sorter { return sorter.NewLazyDRF(cfg) }
	sortertest.Run(t, newLazy)
	t.Run("Fair", func(t *testing.T) { sortertest.RunFair(t, newLazy) })
}

func TestRandomConformance(t *testing.T) {
	sortertest.Run(t, newRandom)
}

// pathOrder is the least sorter that can be built on Accounting: the active
// clients in path order.
type pathOrder struct {
	sorter.Accounting
	order []string
}

func (s *pathOrder) Sort() []string {
	s.order = s.AppendActive(s.order[:0])
	return s.order
}

func TestAccountingConformance(t *testing.T) {
	sortertest.Run(t, func(cfg sorter.Config) sorter.Sorter {
		return &pathOrder{Accounting: sorter.NewAccounting(cfg)}
	})
	t.Run("ZeroValue", func(t *testing.T) {
		sortertest.Run(t, func(sorter.Config) sorter.Sorter { return &pathOrder{} })
	})
}
