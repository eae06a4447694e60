// Package observe keeps the figures package allocator reports to an
// Observer: what each framework holds in each of its roles, offered and
// allocated, and the refusal filters it keeps there; the same per role for
// the role's own frameworks, with those that suppress it and the tasks
// chosen to end in it and for it; the cluster's offered and allocated
// sums; and what changed since the last report.
//
// The allocator keeps Ledgers only when an Observer is registered, and
// tells them every change as it makes it (Held, Filter, Framework, Taken,
// Updated, Removed); at the end of a run and of an event it takes the
// changes (Take) and builds its report from the ledgers they name, with
// the shares and quota the sorters and the role tree hold.
//
// The invariants it owns: a ledger's sums are what its framework (or the
// role's frameworks) hold, kept by adding and taking away the same
// quantities the allocator books; a ledger is listed as changed at most
// once between two reports (its dirty flag says it is listed); a filter
// counts until the first report at or after its expiry (or, expiring at a
// periodic run's instant, until a later periodic run). The allocator's
// observer tests compare the reported figures with the allocator's views
// after every event of random sequences.
package observe
