// Package refusals holds what frameworks refused and declined, in the
// forms the allocator keeps them.
//
// A refusal filter (Refusal) keeps a framework's role from being offered
// an agent's resources again, until it expires, while what the agent has
// stays within what was refused. A framework keeps them by role and agent
// (Filters); one that refused all of its agent's reference is kept
// compactly, as an expiry by agent number (WholeRefusals, WholeSet), and a
// role and agent have filters in one form or the other, never in both. An
// agent keeps, per role, the frameworks whose filters cover it (Index,
// valid for one generation of the agent's reference and until the
// earliest expiry among them), and one bit per framework number for "has a
// filter here" beside one for "declined here in this round" (FrameworkBits,
// the rotation after declines). Expiries are nanoseconds since the epoch
// (Expiry), 8 bytes where a time.Time takes 24; InForceAt is the rule for a
// filter that expires at the instant of a run.
//
// The invariant the package owns: each compact form stands for the
// ordinary one it replaces (a WholeSet reads back what was put, dense or
// sparse; an Expiry gives back the instant it was made from; the two bits
// of a framework are independent). Which filters exist, when they are made
// and forgotten, and what they cover is package allocator's (filters.go,
// wholerefusals.go, rotation.go), and its invariant checks compare the
// indexes and bits with the filters.
package refusals
