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

func TestRandomConformance(t *testing.T) {
	sortertest.Run(t, newRandom)
}
