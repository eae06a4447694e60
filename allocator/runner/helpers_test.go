package runner_test

import (
	"testing"

	"github.com/allot-go/allot/allocator"
	"github.com/stretchr/testify/require"
)

func newAllocator(t testing.TB, opts allocator.Options) *allocator.Allocator {
	t.Helper()
	a, err := allocator.New(opts)
	require.NoError(t, err)
	return a
}
