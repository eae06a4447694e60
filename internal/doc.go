// Package internal holds what the library needs but users must not import:
// name interning (names), fixed-point decimal conversion (fixed) and
// generators for tests (gen).
package internal
