// Package declines keeps what frameworks' declines leave behind: the
// refusal filters (a framework that declined resources on an agent is not
// offered what it refused there until the filter expires), their compact
// form, the numbers and bit sets that make a refused pair cheap to skip, and
// the rotation after declines (each agent's round of the frameworks that
// declined what it has). Its Book is held by the allocator, which calls it
// from its events (AddRefusal, ForgetFilters, NoteDecline...) and from its
// runs (IsFiltered, HeldBack, EndRound).
//
// The invariant it owns: a framework's bit on an agent is set exactly while
// the framework has a filter there in some role (its declined bit, while it
// is in the agent's round); an agent's refusal index names only frameworks
// whose filters cover the agent's reference in its generation; a compact
// filter stands for an ordinary one refusing the agent's reference as it
// is. Package allocator's CheckInvariants checks these, and a cache-free
// allocator (Book.CacheFree) keeps every filter in lists and trusts no bit,
// which the oracle compares with this storage.
//
// # Refusal filters and the index that makes refused pairs cheap
//
// A framework that declines an offer with a filter is not offered, on that
// agent and in that role, anything the refused resources contain, until the
// filter expires. Checking that costs a Contains of the candidate offer per
// filter; in a busy cluster most frameworks have refused most agents, so a
// run would pay it for nearly every (framework, agent) pair it visits.
//
// Two things keep that cost off the common path:
//
//   - Every agent keeps a reference ref that its available resources never
//     exceed: every candidate offer on the agent is within it. A filter
//     whose refused resources contain ref covers every candidate, and stays
//     so while ref stays; refGen changes only when available grows past
//     ref, which then becomes the new available. So a filter is checked
//     against the reference once per generation (covered), and is then
//     known to filter without a Contains. Offers made and declined whole
//     leave available within ref: in Mesos's DeclineOffers loop the
//     generation never changes.
//   - Per agent and role, an index holds the frameworks whose filters are
//     known to cover (by the sorter's numbers, sorter.Indexed): runs walk
//     the framework sorter past them without visiting them (WalkExcept).
//     The index is valid for one generation and until the earliest expiry
//     of the filters in it; after that it is rebuilt as frameworks are
//     visited.
//
// # When a filter applies
//
// A filter made at D for a refusal of R expires at T = D + max(R,
// AllocationInterval) (RefuseDuration), as in Mesos (MESOS-4302), so that
// it outlives at least one periodic batch. It applies to every run before
// T; at T itself only to a periodic run (AllocateAll) that is the first
// since the filter was made. That is the order of Mesos's timers: the
// filter's expiry and a batch due at the same instant run in the order
// they were armed, and the batch timer was armed first exactly when no
// batch has run since the filter was made. So Mesos's OfferFilter holds (a
// 2 s filter with a 1 s interval applies to the batch at D + 1 s, not to
// the batch at D + 2 s, the second since), and so does
// SmallOfferFilterTimeout (a 1 s filter made right after a batch, with a
// 60 s interval, applies to the next batch, at D + 60 s = T). Inverse-offer
// filters follow the same rule.
//
// # Which frameworks have filters on an agent
//
// A framework that refuses
// gets a number (FilterNum), and each agent a bit set of the numbers of the
// frameworks with a filter on it, in any role, so that IsFiltered answers
// "no filter here" with one bit test. A bit is cleared only when the last
// of the framework's filters on the agent goes; numbers are reused only
// after that has happened everywhere (the allocator forgets a removed framework's
// filters first). A cache-free allocator keeps the bits but does not
// trust them.
//
// # Compact refusal filters
//
// Most refusals decline everything the agent had: what they refused is the
// agent's reference (Agent.Ref), whose storage they share. In
// a busy cluster they are nearly all of the filters, and there are many (in
// Mesos's DeclineOffers loop every framework ends up refusing every agent),
// so they are kept compactly: per framework, role and agent number, an
// expiry, a batch and a generation, with no pointer for the collector to
// follow and no string key. The resources they refused are not stored: they
// are the agent's reference, as long as it stays; before the reference
// changes (narrowed by a new refusal, or grown with what is available) the
// agent's compact filters are unpacked into ordinary ones that keep the old
// reference (unpackWhole). A role and agent have either one compact filter
// or a list of ordinary ones: a second filter there unpacks the first.
//
// A cache-free allocator keeps every filter in lists, so that the oracle
// compares this storage with the plain one.
//
// # The rotation after declines
//
// Mesos offers an agent's leftover to the first framework in DRF order
// that no refusal filter of its own excludes. A framework with a low share
// that cannot use the leftover declines it, with a filter of a few seconds;
// once enough such frameworks decline in turn (refuse time over the
// allocation interval), one of them is always unfiltered and first, and a
// framework further down that could use the leftover is never offered it,
// however long the cluster idles (Marathon's --decline_offer_duration,
// SPARK-13001 and the Jenkins plugin's ten-minute declines all work
// around this on the framework's side).
//
// Here each agent keeps the round of frameworks that declined what it has
// (RecoverResources of offered resources is a decline, with or without a
// filter). A framework in the round is passed over on the agent
// (ReasonDeclined) while others that have not declined may be offered
// it; only when a run has walked every framework on the agent and
// something is still left does the round end: it is emptied, and the
// agent is walked again, so that the frameworks it held back are offered
// what is left in DRF order (task by task, for those that state demand;
// a pass-over is then counted in RunStats once a walk). So a
// framework that declined an agent's resources is offered them again only
// after every other framework that may be offered them has been offered
// them since, and a framework that can use an agent's leftover is offered
// it within as many runs as there are frameworks eligible for the agent.
//
// The round holds while the agent's resources are unchanged: whenever its
// available resources grow other than by a decline, or its info changes
// (when its version grows), a new, empty round starts. The round is a bit
// a framework beside its filter bit, which a run reads
// anyway. A framework leaves every round when it revives (in any role),
// is deactivated or removed. The round counts a
// framework once, whatever role it declined in, and applies in the
// fair-share stage only: the guarantees stage offers what roles are owed
// regardless. Options.MesosOfferOrder turns the rotation off.
package declines
