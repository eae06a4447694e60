// Package codec is the snapshot's wire form, in both directions at once.
//
// The snapshot format is written down once, as walks (package allocator's
// snapshot_fields.go and snapshot_explain.go) that go through the
// allocator's state in the order of the format and hand every value, by
// pointer, to a Codec. Snapshot walks with a codec that encodes the values
// (NewWriter); Restore walks with one that decodes into them (NewReader).
// Both directions run the same walk, so they agree on order and encoding
// by construction, and a field joins the format by one line of a walk.
//
// The invariant the package owns: a value read is in the one form a
// writer writes for it. A reading codec keeps the first problem it meets
// and reads zero values from then on, so a walk runs to its end whatever
// the input; walks only store what they read, and the state they store it
// in is dropped when a problem was met. The codec checks what the encoding
// demands (lengths within the input, counts within the bytes left, keys in
// increasing order, numbers within bounds, the canonical form of each
// number and resource value); what the values mean (ids, roles, references
// between the parts, invariants) is checked after the walk, by the
// allocator's restore.
package codec
