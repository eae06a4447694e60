package allocator_test

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
)

// Why did web get so little? analytics has a quota guarantee of 16 cpus
// that its framework refuses for now, so what would meet it is held back
// (three of the four agents analytics refused; web is offered the one
// left over); web itself refused a5 for 5 s. The sentence is String; Describe adds the agents.
func ExampleAllocator_Explain() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	a, _ := allocator.New(allocator.Options{Clock: func() time.Time { return now }, Seed: 3})
	for i := 1; i <= 5; i++ {
		_ = a.AddAgent(fmt.Sprintf("a%d", i), allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil)
	}
	_ = a.UpdateQuota("analytics", allocator.MustParseQuota("cpus:16;mem:16384"))
	_ = a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"analytics"}}, nil, allocator.Active)
	_ = a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)

	// spark refuses its offers for an hour, web for 5 s.
	for _, o := range a.Allocate().Offers {
		refuse := time.Hour
		if o.FrameworkID == "web" {
			refuse = 5 * time.Second
		}
		_ = a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: refuse})
	}
	now = now.Add(time.Second)
	a.AllocateAll()

	x, _ := a.Explain("web")
	fmt.Println(x)
	fmt.Println(x.Describe())
	// Output:
	// web got offers on 1 agent and nothing on 4: 1 refused until 12:00:05, 3 held back as headroom for analytics's unmet guarantee (cpus:12; mem:12288)
	// web got offers on 1 agent and nothing on 4: 1 refused until 12:00:05, 3 held back as headroom for analytics's unmet guarantee (cpus:12; mem:12288)
	//   filtered on 1: a5 (until 12:00:05)
	//   headroom on 3: a1 (would add cpus:4; mem:4096) a2 (would add cpus:4; mem:4096) a4 (would add cpus:4; mem:4096)
}
