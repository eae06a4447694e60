// Package names interns resource names to small integers so that hot paths
// compare and index integers instead of strings.
//
// The table is process-wide and append-only. The well-known names (cpus, mem,
// disk, gpus, ports) are interned first, in that order; other names get the
// next free id on first use. Ids therefore depend on the order in which a
// program first meets unusual names: nothing user-visible may be ordered by
// id. Output is always ordered by name.
package names

import (
	"strings"
	"sync"
	"sync/atomic"
)

// ID is an interned resource name.
type ID uint32

var (
	mu    sync.Mutex
	byStr sync.Map // string -> ID
	table atomic.Pointer[[]string]
)

// Well-known names, interned at start-up.
const (
	CPUs ID = iota
	Mem
	Disk
	GPUs
	Ports
)

func init() {
	for _, name := range []string{"cpus", "mem", "disk", "gpus", "ports"} {
		intern(name)
	}
}

// wellKnown returns the ids of the names every cluster has without the
// concurrent map: they are most of the lookups, and a string switch is
// several times cheaper than a sync.Map load.
func wellKnown(name string) (ID, bool) {
	switch name {
	case "cpus":
		return CPUs, true
	case "mem":
		return Mem, true
	case "disk":
		return Disk, true
	case "gpus":
		return GPUs, true
	case "ports":
		return Ports, true
	}
	return 0, false
}

// Intern returns the id of name, assigning a new one on first use. It is safe
// for concurrent use.
func Intern(name string) ID {
	if id, ok := wellKnown(name); ok {
		return id
	}
	return intern(name)
}

// intern is Intern without the well-known names' shortcut.
func intern(name string) ID {
	if id, ok := byStr.Load(name); ok {
		return id.(ID)
	}
	mu.Lock()
	defer mu.Unlock()
	if id, ok := byStr.Load(name); ok {
		return id.(ID)
	}
	var old []string
	if p := table.Load(); p != nil {
		old = *p
	}
	// Appending may write into the spare capacity of the array that readers
	// hold, but only past the length they know, so they never see the write;
	// the new slice header is published atomically. Growth is amortised, so
	// interning n names costs O(n), not O(n²).
	name = strings.Clone(name) // do not pin the text the name was cut from
	next := append(old, name)
	id := ID(len(old))
	table.Store(&next)
	byStr.Store(name, id)
	return id
}

// Lookup returns the id of name if it has been interned.
func Lookup(name string) (ID, bool) {
	if id, ok := wellKnown(name); ok {
		return id, true
	}
	id, ok := byStr.Load(name)
	if !ok {
		return 0, false
	}
	return id.(ID), true
}

// String returns the name behind id.
func (id ID) String() string {
	t := *table.Load()
	// Compared as unsigned 64-bit numbers: on a 32-bit platform an id of
	// 2^31 or more would be a negative int, below any length.
	if uint64(id) < uint64(len(t)) {
		return t[id]
	}
	return "?"
}
