// Package resources models what a cluster has to give: resources (cpus, mem,
// disk, gpus, ports, ...) with their reservations and disk metadata,
// multisets of them with Mesos's arithmetic, and plain quantities and limits.
//
// # Usage
//
// Parse reads Mesos's text format (or a JSON array of Mesos Resource
// objects); String prints it back:
//
//	agent, err := resources.Parse("cpus:8;mem:16384;ports:[31000-32000];cpus(analytics):2", "*")
//	fmt.Println(agent) // cpus:8; mem:16384; ports:[31000-32000]; cpus(analytics):2
//
// Resources is a multiset: Plus and Minus return new values, Add and
// Subtract change the receiver in place, Contains and Equal compare.
// Resources with different metadata (role, labels, principal, disk,
// revocability, provider, allocation role) never touch each other:
//
//	task := resources.MustParse("cpus:1;mem:512;ports:[31000-31000]", "*")
//	if agent.Contains(task) {
//		agent = agent.Minus(task)
//	}
//
// Reservations are pushed and popped on every resource at once. A dynamic
// reservation for "eng", refined to "eng/db", then undone step by step:
//
//	res, _ := task.PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: "eng", Principal: "ops"})
//	ref, _ := res.PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: "eng/db", Principal: "ops"})
//	back, _ := ref.PopReservation() // reserved for "eng" again
//	plain := ref.ToUnreserved()     // unreserved
//
// AllocatableTo(role) is what may be offered to a framework in role: the
// unreserved resources plus the reservations of role and of its ancestors.
// Filters (Reserved, Unreserved, Revocable, Shared, PersistentVolumes,
// Scalars, Get, Filter) select entries; Allocate tags resources with the role
// they are offered to.
//
// Quantities is "how much" without "which": a small vector of names and
// amounts, used by the sorters and quota. Limits is an upper bound per name
// where an absent name is unlimited:
//
//	q := agent.Quantities()                  // cpus:9; mem:15872
//	quota := resources.MustParseLimits("cpus:4")
//	quota.Contains(task.Quantities())        // true
//	part := agent.Shrink(resources.MustParseQuantities("cpus:3"), nil)
//
// Resources marshal to and from Mesos's JSON shape with encoding/json.
//
// A value can be shared by many holders without a copy each once it is
// frozen (Frozen). An Interner goes further for values made apart: it hands
// values with the same entries one frozen storage, so a cluster's agents of
// a few machine shapes keep a few totals between them:
//
//	var shapes resources.Interner
//	total := shapes.Intern(resources.MustParse("cpus:24;mem:4096", "*"))
//	same := shapes.Intern(resources.MustParse("cpus:24;mem:4096", "*"))
//	total.Identical(same) // true
//
// The package's types are not safe for concurrent use by several goroutines
// when one of them changes a value in place.
//
// # Implementation notes
//
// Fixed point. A Scalar is an int64 of thousandths. Every amount is rounded
// once, on the way in, to three decimals, half away from zero, as Mesos does
// (cpus:1.5015 is 1.502, cpus:1.5011 is 1.501); from then on arithmetic is
// exact (1.001 added and subtracted 100000 times gives back 0). A non-zero
// amount that rounds to zero (cpus:0.0001, cpus:1e-400) is an error. A zero
// amount is valid but empty, and empty resources are dropped (gpus:0 parses
// to nothing). Negative amounts, NaN, infinities and amounts above 10^12 (the
// bound Mesos puts on quota) are errors.
//
// Merging. Each entry of a Resources holds the merged value of all the
// resources of one kind: same name, type, reservation stack (compared entry
// by entry, labels order-free, "no labels" apart from "empty labels"), disk
// identity (source and persistence id; container path, mode and the volume's
// principal are ignored, as in Mesos), shared and revocable flags, provider
// id and allocation role. Scalars add, ranges unite and coalesce, sets unite.
// The exceptions, as in Mesos:
//
//   - Non-shared persistent volumes never merge: two identical volumes are
//     two entries, and Contains needs one volume of its own for each.
//   - MOUNT and BLOCK disks, and RAW disks with an id, never merge and are
//     subtracted and contained only whole.
//   - A shared volume merges only with an identical one, by counting copies;
//     subtraction removes copies and Contains compares counts. Quantities
//     counts a shared entry once, whatever its copies.
//
// Subtraction takes each entry of the subtrahend from the first entry of the
// same kind; an entry that would go negative is removed (cpus:1 minus cpus:2
// is empty), and entries with no matching kind have no effect (cpus(r1):8
// minus cpus(r2):8 is cpus(r1):8). Equal is mutual containment.
//
// Text format, as Parse reads it (String prints the canonical subset):
//
//	resources   = "" | "{}" | resource { ";" resource }
//	resource    = name { attribute } ":" value [ "<" copies ">" ]
//	attribute   = "(" role ")"                          static reservation
//	            | "(allocated: " role ")"
//	            | "(reservations: [" res { "," res } "])"
//	            | "(provider: " word ")"
//	            | "[" disk "]" | "{REV}" | "<SHARED>"
//	res         = "(" ("STATIC" | "DYNAMIC") "," role [ "," principal [ "," labels ] ] ")"
//	labels      = "{" [ word [ ":" word ] { "," word [ ":" word ] } ] "}"
//	disk        = part { "," part }
//	part        = ("PATH" | "MOUNT") ":" root | ("BLOCK" | "RAW") [ "(id:" word ")" ]
//	            | "id:" word | "principal:" word | "path:" word | "mode:" ("RW" | "RO")
//	value       = decimal | "[" [ begin "-" end { "," begin "-" end } ] "]" | "{" [ word { "," word } ] "}"
//
// Blanks may surround tokens. Names are bare words without blanks or any of
// ;:,()[]{}<>"\. Every other word (roles, principals, label keys and values,
// set items, ids, roots, paths) is either bare or a Go-quoted string;
// String quotes a word when it holds a blank, a special character, a
// non-printable character or invalid UTF-8, or is empty. A role other than
// "*" in the short form cpus(role) is a single static reservation; entries
// without a role take the default role given to Parse. A copy count appears
// only on shared resources and is at most 4096. The same name with two value
// types is an error, even when one of the values is empty.
//
// JSON follows Mesos's Resource message: name, type (SCALAR, RANGES, SET),
// scalar.value, ranges.range[].begin/end, set.item[], reservations[] (type,
// role, principal, labels.labels[].key/value), disk (source with type,
// path.root or mount.root and id; persistence with id and principal; volume
// with container_path and mode), revocable: {}, shared: {}, provider_id.value
// and allocation_info.role. A shared entry with n copies is written as n
// objects. Reading also accepts the pre-refinement form: a role without
// reservation is a static reservation, a role with a legacy reservation
// object a dynamic one; when reservations[] is present the legacy fields must
// agree with it. Objects without role or reservations take Parse's default
// role, as Mesos's Resources::fromJSON does; UnmarshalJSON uses none.
//
// Where this package deliberately differs from Mesos:
//
//   - The text parser reads everything String prints (allocation roles,
//     reservation stacks with principals and labels, disks, revocable,
//     shared and copies, providers), so Parse(r.String()) gives r back field
//     for field. Mesos prints these forms but cannot read them back.
//   - String prints a single static reservation without principal or labels
//     in the short form cpus(role), and disk metadata with explicit keys
//     ([MOUNT:/mnt,id:pg,principal:ops,path:data,mode:RO]) rather than
//     Mesos's positional [MOUNT:/mnt,pg:data:RO], so that every field
//     survives. Words are quoted as described above; Mesos does not quote.
//   - Ranges may be given in any order and may touch ([1-2,3-4]) but not
//     overlap; set items may be given in any order but not repeat. Strings
//     must be valid UTF-8.
//   - Shrink and ShrinkToLimits visit entries in their order, so the result
//     is deterministic; pass a *rand.Rand to shuffle as Mesos does.
//   - Labels compare as multisets (see package reservation).
//
// Errors wrap one of the Err* sentinels of this package (and, where it
// applies, of packages reservation and volume), name the offending token or
// resource and say which rule it breaks; test with errors.Is. On error,
// Parse returns empty Resources and the in-place methods leave their
// receiver unchanged.
//
// Hot paths allocate nothing: Quantities.Add (once the receiver holds every
// name), Quantities.Subtract, Quantities.Contains, Quantities.DominantShare,
// Limits.Contains, Resources.AddQuantitiesTo, Resources.ContainsQuantities
// and Resources.Contains when the contained side holds no whole items
// (persistent volumes, MOUNT or BLOCK disks). Resource names are interned
// to small integers so these compare integers, not strings. Allocation
// roles are interned too (Go's unique package, with a bounded table of the
// roles used last kept alive), so entries compare them by pointer and
// tagging resources with a role used before allocates only the copy.
//
// A value is compact: an entry of a Resources is four words (32 bytes),
// and ranges whose bounds fit 32 bits (ports always do) are kept in 8
// bytes a range. A view of an entry (a Resource that All, Slice or Filter
// hands out) unpacks such ranges into a Ranges of its own; the arithmetic
// and the checks above unpack them on the stack (lists of up to 32
// ranges) or work on the packed form.
package resources
