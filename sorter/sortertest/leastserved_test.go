package sortertest_test

import (
	"testing"

	"github.com/allot-go/allot/sorter/sortertest"
)

// TestLeastServed runs the example's custom sorter through the kit.
func TestLeastServed(t *testing.T) {
	sortertest.Run(t, newLeastServed)
}
