//go:build race

package allocator_test

// raceEnabled: the race detector slows the tests tenfold; they run fewer
// cases.
const raceEnabled = true
