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
//	a.AddFramework("f1", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, true)
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
//	props.Property("allocator", allocatortest.Property(allocatortest.Options{}, allocatortest.DefaultMix(), 100))
//	props.TestingRun(t)
//
// A Mix weighs the kinds, so a host can stress what it cares about:
//
//	mix := allocatortest.DefaultMix()
//	mix[allocatortest.Operate] = 40 // mostly reservations and volumes
//
// Decode turns fuzzer bytes into a Sequence, so the same harness serves a
// fuzz test:
//
//	f.Fuzz(func(t *testing.T, data []byte) {
//		if err := allocatortest.RunSequence(allocatortest.Options{}, allocatortest.Decode(data)); err != nil {
//			t.Fatal(err)
//		}
//	})
//
// Harness.Log records every call and every offer; two runs of the same
// sequence must give the same log, byte for byte.
//
// # What the harness checks
//
// After every step: Check; that a failed call returned one of the
// allocator's named errors and left Describe unchanged (and that bad input
// failed with the error its case names); that persistent volumes
// disappear or change size only through an operation naming them, or a
// new total or removal of their agent; and that the role sorter's shares
// are the subtrees' dominant shares divided by the weights. After every
// allocation run, CheckRun and the rules that depend on what the harness
// told the allocator (GPUs, regions, minimum allocatable resources, offer
// constraints, the whitelist, pausing).
//
// # Implementation notes
//
// Check and CheckRun read only the allocator's exported views, besides
// Allocator.CheckInvariants, so they check the views too. Over-allocation
// is not an invariant: a limit set below what a role already consumes, or
// reservations added to an agent, can leave a role above its limit with no
// offer made; what CheckRun checks is that no run adds unreserved
// resources to a role, or an ancestor, beyond a limit.
//
// A Harness is deterministic: its clock is virtual, ids come from
// counters, and every choice comes from the events.
package allocatortest
