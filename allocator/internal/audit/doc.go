// Package audit recomputes an allocator's bookkeeping from first
// principles and reports where it disagrees with what the allocator keeps
// incrementally: agents' sums (available, offered, allocated, held and
// unclaimed against the total; headroom; what is held beyond a total), the
// cluster's totals and counts, what each sorter holds for each client, the
// role tree's aggregates, the refusal filters and their index, outstanding
// offers, and the roles parked as capped.
//
// It owns no state and no invariant of its own: it is the check of every
// other part's, read only, and it shares no bookkeeping code with them, so
// that a fault in one is not repeated in the check (it sums agents' records
// itself, rather than calling the helpers that keep the sums). The one
// exception is whether a parked role is still capped, which it asks of
// package quota's CappedNow, the test the run uses.
//
// Package allocator's CheckInvariants calls Check with its parts; tests,
// the harness and the long run call CheckInvariants after every event.
package audit
