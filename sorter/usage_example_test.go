package sorter_test

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// A steady tenant has held 40% of the cluster for ten minutes when a
// bursty one comes back from idling. DRF would serve the newcomer until
// both hold the same; Usage, with a one-minute half-life, serves it until
// its holdings plus its record pass the steady tenant's: twice as far.
func ExampleNewUsage() {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	u, err := sorter.NewUsage(sorter.Config{}, sorter.UsageOptions{
		HalfLife: time.Minute,
		Clock:    func() time.Time { return now },
	})
	if err != nil {
		panic(err)
	}
	u.AddAgent("agent1", resources.MustParseQuantities("cpus:10;mem:100"))
	for _, c := range []string{"bursty", "steady"} {
		_ = u.Add(c)
		_ = u.Activate(c)
	}
	_ = u.Allocated("steady", "agent1", resources.MustParse("cpus:4;mem:10", ""))
	now = now.Add(10 * time.Minute)
	task := resources.MustParse("cpus:1;mem:10", "")
	for u.Sort()[0] == "bursty" {
		_ = u.Allocated("bursty", "agent1", task)
	}
	fmt.Print(u.Describe())
	// Output:
	// pool cpus:10; mem:100
	// bursty history=0 share=0.8 weight=1 key=0.8 count=8
	// steady history=0.399609 share=0.4 weight=1 key=0.799609 count=1
}
