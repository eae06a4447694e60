//go:build !purego

package prefetch

import "unsafe"

// Lines asks for the cache lines holding the n bytes at p. It reads and
// writes nothing (p may be nil), and it costs a call and one instruction a
// line.
//
//go:noescape
func Lines(p unsafe.Pointer, n uintptr)
