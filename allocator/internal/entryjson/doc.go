// Package entryjson writes and reads the journal's entries as JSON (the
// format package allocator's Entry.MarshalJSON documents): one object per
// entry, resources in the text format read back with "*" as the default
// role, capabilities by their Mesos names, durations in nanoseconds. Its
// invariant is the round trip: what Marshal writes, Unmarshal reads back
// to an equal entry, and bad input is an error wrapping ErrInvalidEntry
// that names every field at fault. Package allocator converts its Entry to
// this package's, which holds the records' types.
package entryjson
