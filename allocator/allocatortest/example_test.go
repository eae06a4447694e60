package allocatortest_test

import (
	"fmt"
	"strings"

	"github.com/leanovate/gopter"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/resources"
)

// A host's test calls Check after its events, and CheckRun around an
// allocation run.
func Example() {
	a, _ := allocator.New(allocator.Options{Seed: 1})
	_ = a.AddAgent("a1", allocator.AgentInfo{Hostname: "h1"}, resources.MustParse("cpus:4;mem:4096", ""), nil)
	_ = a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)
	fmt.Println("after the events:", allocatortest.Check(a))

	before := allocatortest.Take(a)
	res := a.Allocate()
	fmt.Println("offers:", len(res.Offers), "run:", allocatortest.CheckRun(before, res, a))

	o := res.Offers[0]
	_ = a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: allocator.DefaultRefuse})
	fmt.Println("after a decline:", allocatortest.Check(a))
	// Output:
	// after the events: <nil>
	// offers: 1 run: <nil>
	// after a decline: <nil>
}

// A written-down sequence of events runs through a Harness, which checks
// every step; its log records what each event became.
func ExampleHarness() {
	seq, _ := allocatortest.ParseSequence(`seed 7
add-agent 0 0 0 0
add-framework 0 1 0 0
allocate 0 0 0 0
decline 0 1 5 0
advance 8 0 0 0
allocate-all 0 0 0 0
advance 1 0 0 0
allocate-all 0 0 0 0
`)
	h, _ := allocatortest.New(allocatortest.Options{Allocator: allocator.Options{Seed: seq.Seed}})
	fmt.Println("violation:", h.Run(seq.Events))
	for _, line := range strings.Split(strings.TrimSpace(h.Log()), "\n") {
		fmt.Println(line)
	}
	// Output:
	// violation: <nil>
	// 1 add-agent 0 0 0 0: AddAgent(a0, cpus:1; mem:512; disk:1000; ports:[31000-31009], used map[]) -> ok
	// 2 add-framework 0 1 0 0: AddFramework(f0, roles ["a"], caps MULTI_ROLE, principal "", suppressed [], used map[], active true) -> ok
	// 3 allocate 0 0 0 0: Allocate() = 1 offers, 0 inverse offers -> ok
	//   offer offer-1 f0 a a0: cpus:1; mem:512; disk:1000; ports:[31000-31009]
	// 4 decline 0 1 5 0: RecoverResources(f0, a0, cpus(allocated: a):1; mem(allocated: a):512; disk(allocated: a):1000; ports(allocated: a):[31000-31009], refuse 5s) declining offer-1 -> ok
	// 5 advance 8 0 0 0: advance 5s to +5s -> ok
	// 6 allocate-all 0 0 0 0: AllocateAll() = 0 offers, 0 inverse offers -> ok
	// 7 advance 1 0 0 0: advance 1ms to +5.001s -> ok
	// 8 allocate-all 0 0 0 0: AllocateAll() = 1 offers, 0 inverse offers -> ok
	//   offer offer-2 f0 a a0: cpus:1; mem:512; disk:1000; ports:[31000-31009]
}

// A property runs generated sequences of a host's own mix of events; a
// failure is shrunk and reported with the sequence that shows it.
func ExampleProperty() {
	mix := allocatortest.Mix{
		allocatortest.AddAgent: 2, allocatortest.AddFramework: 2,
		allocatortest.Allocate: 4, allocatortest.DeclineOffer: 4, allocatortest.Advance: 2,
		allocatortest.SetQuota: 1,
	}
	params := gopter.DefaultTestParametersWithSeed(1)
	params.MinSuccessfulTests = 20
	res := allocatortest.Property(allocatortest.Options{QuotaRoles: []string{"a", "b"}}, mix, 30).Check(params)
	fmt.Println(res.Passed(), res.Succeeded)
	// Output:
	// true 20
}
