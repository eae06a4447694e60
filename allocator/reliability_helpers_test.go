package allocator_test

import (
	"testing"

	"github.com/allot-go/allot/allocator"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newAllocator(t testing.TB, opts allocator.Options) *allocator.Allocator {
	t.Helper()
	a, err := allocator.New(opts)
	must(t, err)
	return a
}
