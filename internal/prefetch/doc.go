// Package prefetch asks the processor to bring memory into its caches
// before the program reads it.
//
// The allocator visits its agents in a shuffled order, so the hardware's
// own prefetchers cannot guess the next record. Once the records outgrow
// the second-level cache (a few thousand agents) every visit starts by
// waiting for the last level, and past it (a few tens of thousands) for
// memory. A loop that knows its next record can ask for it while it works
// on the current one:
//
//	for i, ag := range agents {
//		if i+1 < len(agents) {
//			prefetch.Lines(unsafe.Pointer(agents[i+1]), unsafe.Sizeof(*ag))
//		}
//		visit(ag)
//	}
//
// A prefetch is a hint: it changes no memory, cannot fault, and never
// changes what a program computes, only when its reads wait. On amd64 it is
// the PREFETCHT0 instruction, one a cache line; on other architectures, and
// with the purego build tag, Lines does nothing.
package prefetch
