//go:build purego || !amd64

package prefetch

import "unsafe"

// Lines does nothing on this architecture or with the purego build tag:
// reads wait for memory as they would without it.
func Lines(p unsafe.Pointer, n uintptr) {}
