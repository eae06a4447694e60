package codec

import "errors"

// The errors of snapshots that the parts' walks report (package
// allocator's, which documents them).
var (
	ErrInvalidSnapshot = errors.New("allocator: invalid snapshot")
	ErrSnapshotSorter  = errors.New("allocator: sorter cannot be saved or restored")
)
