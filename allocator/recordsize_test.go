package allocator

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
)

// One table of roles instead of three sets keeps the framework's record in
// the 256-byte size class (288 with the sets; 240 before the statement of
// demand and the two reasons it and the rotation added to the counts of
// pass-overs).
func TestFrameworkRecordIsSmall(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(cluster.Framework{}), uintptr(256))
}
