// Package allocatortest checks an allocator.Allocator the way a host's
// tests need: an invariant checker to call after any event, and a
// generator of random event sequences, with a harness that runs them and
// checks every step.
//
// A lost or doubled resource in the allocator becomes an overcommitted
// machine or a stuck job in the host's cluster. Check recomputes what the
// allocator keeps incrementally and compares it with its views: for every
// agent available + offered + allocated == total; reservations held only
// by their role's subtree; role and framework totals equal to the sums
// over agents; sorter bookkeeping equal to the agents'; filters only for
// known frameworks and agents. CheckRun adds what one allocation run must
// respect: nothing offered twice, offers only to frameworks that may take
// them, no refused resources offered again while the filter is in force,
// and no quota limit passed by the run.
//
// # Usage
//
// Call Check after the events of a test:
//
//	a, _ := allocator.New(allocator.Options{Seed: 1})
//	a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", ""), nil)
//	a.AddFramework("f1", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)
//	before := allocatortest.Take(a)
//	res := a.Allocate()
//	if err := allocatortest.CheckRun(before, res, a); err != nil {
//		t.Fatal(err)
//	}
//
// Or let a Harness drive the allocator with generated events. An Event is
// a kind and four small numbers that the harness interprets against the
// state it finds ("decline outstanding offer number n modulo their
// count"), so gopter can generate and shrink sequences, and a failing one
// prints as text that ParseSequence reads back:
//
//	props := gopter.NewProperties(gopter.DefaultTestParameters())
//	props.Property("allocator", allocatortest.Property(allocatortest.Options{Fast: true}, allocatortest.DefaultMix(), 100))
//	props.TestingRun(t)
//
// Options.Fast makes the checks cost a small part of what they cost
// otherwise (see "Fast checks" below); tests that run many sequences set
// it. Configs are the configurations the library's own tests run, and
// Sequences draws sequences from a seed; Shrink cuts a failing sequence
// down to the events that still make it fail.
//
// A Mix weighs the kinds, so a host can stress what it cares about:
//
//	mix := allocatortest.DefaultMix()
//	mix[allocatortest.Operate] = 40 // mostly reservations and volumes
//
// Decode turns fuzzer bytes into a Sequence, so the same harness serves a
// fuzz test; DecodeBiased reads kinds with the mix's weights and expands
// the top byte values into a Corner, a short run of events that reaches a
// state where rules meet (a refusal filter at its expiry, quota at its
// limit, a shared volume in use):
//
//	f.Fuzz(func(t *testing.T, data []byte) {
//		if err := allocatortest.RunSequence(allocatortest.Options{Fast: true}, allocatortest.DecodeBiased(data)); err != nil {
//			t.Fatal(err)
//		}
//	})
//
// For long runs, the command eventcheck (in cmd/eventcheck) runs the
// properties on every core, with a progress line, until the first
// violation, which it shrinks and prints with the line that replays it.
//
// Harness.Log records every call and every offer; two runs of the same
// sequence must give the same log, byte for byte.
//
// # What the harness checks
//
// After every step: Check; that a failed call returned one of the
// allocator's named errors and left the state unchanged (its Fingerprint,
// which covers what Describe renders; and that bad input failed with the
// error its case names); that persistent volumes disappear or change size
// only through an operation naming them, or a new total or removal of
// their agent; that the role sorter's shares are the subtrees' dominant
// shares divided by the weights; and that launched tasks run on known
// agents and are gone once ended. After every allocation run, CheckRun,
// that the run changed nothing but what frameworks are offered, and the
// rules that depend on what the harness told the allocator (GPUs,
// regions, minimum allocatable resources, offer constraints, the
// whitelist, pausing, and offers to a framework that stated demand only
// where one of its pending tasks fits). Events check their own rules too:
// a task ended twice or never launched, AcceptEach's dropped operations,
// quota guarantees past resources.MaxTotal, Demand returning what was
// just stated (and unchanged by a statement refused), a snapshot that
// restores to an allocator saving the same bytes.
//
// Those checks prove that nothing is given out twice. Three more prove
// that nothing is left idle that a framework could take:
//
//   - the cache-free twin (twin.go): the harness feeds the allocator's
//     journal to an allocator made with allocator.Options.CacheFree, which
//     works every run out from the state; after every step the two states
//     must be the same (with what is left of the statements of demand,
//     which the fingerprint does not cover), and every run must make the
//     same offers and leave the same roles' figures and shares. A cached
//     answer that outlives the event that should have ended it shows at
//     the first run that reads it;
//   - the next run (nextrun.go): after every step (with Fast, every
//     Options.OracleEvery steps), two copies restored from the allocator's
//     snapshot, one with the caches it keeps and one without, must make
//     the same AllocateAll; the allocator itself is left alone, and a
//     replay names the first step after which the next run would have
//     differed;
//   - work conservation (conservation.go): after every AllocateAll, every
//     agent the run looked at with resources free was offered, or every
//     framework that could take them was kept off by a rule that Explain
//     names and the views bear out (a filter, a limit, headroom for a
//     guarantee unmet at the run's start, the minimum allocatable
//     resources, a capability, offer constraints, suppression, a
//     statement of demand none of whose tasks fits). A limit or the
//     headroom must bind: worked out with the quota referee's own
//     figures, it cut something of what the offer would have held, and
//     it alone leaves too little of what is free for the minimum
//     allocatable resources, or the offer without it would have been
//     enough; and the role named as the one whose limit binds is one
//     whose limit does.
//
// A SnapshotRestore event keeps the restored allocator as a twin too: for
// the rest of the sequence it must make the same offers, render the same
// state (Describe) and explain every run the same way for every framework
// and role.
//
// # Fast checks
//
// With Options.Fast, the checks after a step look at what the step
// changed, which a fingerprint of the state tells exactly
// (Allocator.Fingerprint: one hash per agent and one for the rest, taken
// after every step in a walk that renders nothing), and the checks that
// sum over the whole state run every few steps:
//
//   - a failed call: its fingerprint before and after must be equal;
//   - agents whose hash changed: their views are taken again, and the
//     checks of one agent run on them (conservation, shared volumes,
//     what frameworks hold there) with their volumes compared to before;
//     an agent whose hash did not change is as it was;
//   - a run: CheckRun on the agents it changed or offered on, the rest of
//     the fingerprint unchanged, the rules above;
//   - the checks of the whole state (Allocator.CheckInvariants, the sums
//     over agents of frameworks and roles, shares, filters, tasks) every
//     Options.FullCheckEvery steps and after the last event of Run (one
//     due less than half that many steps before the end of Run waits for
//     the end).
//
// Nothing is rendered as text unless something fails (or Options.Log
// asks for the log). When a check fails, the harness replays the events
// from the start on a new harness that checks everything after every
// step: the Violation names the first step that broke a property, as a
// harness without Fast would, and Violation.Noticed the step after which
// the fast checks saw it.
//
// # Implementation notes
//
// Check and CheckRun read only the allocator's exported views, besides
// Allocator.CheckInvariants, so they check the views too; a Harness also
// reads Allocator.Fingerprint. Over-allocation is not an invariant: a
// limit set below what a role already consumes, or reservations added to
// an agent, can leave a role above its limit with no offer made; what
// CheckRun checks is that no run adds unreserved resources to a role, or
// an ancestor, beyond a limit.
//
// A whole-state violation that a later step repairs before the next
// whole-state check would pass a Fast harness unseen; the bookkeeping
// those checks cover (sorters, role aggregates, cluster sums) is kept
// incrementally, so a lost or doubled update stays until the next check.
// FullCheckEvery set to 1 checks the whole state after every step.
//
// A Harness is deterministic: its clock is virtual, ids come from
// counters, and every choice comes from the events.
//
// A Harness turns an event into calls through handlers, a table indexed
// by Kind with one handler per kind (interpret.go, which says in which
// file each lives). Kind's documentation lists the places a new kind is
// added.
package allocatortest
