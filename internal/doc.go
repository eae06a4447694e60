// Package internal holds what the library needs but users must not import:
// name interning (names), fixed-point decimal conversion (fixed), the
// binary encoding (wire), a hash table of records keyed by a string they
// carry (keyed), a hint that brings memory into the caches ahead of its
// reads (prefetch), and generators for tests (gen).
//
// names, fixed, wire, keyed and prefetch are the bottom layer: they import
// nothing of the module. gen is a test kit: it generates resources, so it
// sits above the resources package, and only tests import it.
// TestImportsPointDown keeps the module's layers as the design draws them.
package internal
