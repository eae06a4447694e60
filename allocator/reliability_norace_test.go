//go:build !race

package allocator_test

const raceEnabled = false
