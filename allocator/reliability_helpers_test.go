package allocator_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
)

func newAllocator(t testing.TB, opts allocator.Options) *allocator.Allocator {
	t.Helper()
	a, err := allocator.New(opts)
	require.NoError(t, err)
	return a
}
