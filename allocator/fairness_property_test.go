package allocator_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Property tests of fairness: the rotation after declines (rotation.go)
// and offers sized to stated demand (demand.go).
//
// Each property draws worlds from an int64 seed (gopter's argument) and
// prints gopter's seed when it starts (replay the whole property with
// -allocator.seed, scale it with -allocator.sequences). A failure message
// names the world's seed too. Worlds are bounded by constants, not by
// testing.Short, so the package's run stays short either way.

// fairnessParameters are parameters(t) (the seed from -allocator.seed)
// with tests worlds per property unless -allocator.sequences says.
func fairnessParameters(t *testing.T, tests int) *gopter.TestParameters {
	t.Helper()
	p := parameters(t)
	if *sequencesFlag == 0 {
		p.MinSuccessfulTests = tests
		if raceEnabled {
			p.MinSuccessfulTests = max(tests/5, 10)
		}
	}
	return p
}

// fairProperty runs one seeded property.
func fairProperty(t *testing.T, tests int, name string, check func(seed int64) string) {
	t.Helper()
	props := gopter.NewProperties(fairnessParameters(t, tests))
	props.Property(name, prop.ForAll(check, gen.Int64()))
	props.TestingRun(t)
}

var fairnessEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fairMilli formats an amount in thousandths of a unit (resources.Scalar) as
// resource text, exactly.
func fairMilli(v int64) string { return fmt.Sprintf("%d.%03d", v/1000, v%1000) }

// fairQuantities makes quantities from amounts in thousandths, by name
// (zero amounts left out).
func fairQuantities(names []string, amounts []int64) resources.Quantities {
	var parts []string
	for i, name := range names {
		if amounts[i] > 0 {
			parts = append(parts, name+":"+fairMilli(amounts[i]))
		}
	}
	return resources.MustParseQuantities(strings.Join(parts, ";"))
}

// fairUnreserved makes unreserved resources of quantities.
func fairUnreserved(q resources.Quantities) resources.Resources {
	return resources.MustParse(q.String(), "*")
}

// fairAllocatable is DefaultMinAllocatable's test on quantities:
// cpus:0.01 or mem:32.
func fairAllocatable(q resources.Quantities) bool {
	return q.Scalar("cpus") >= 10 || q.Scalar("mem") >= 32000
}

// fairLaunch accepts an offer, launching a task of each shape of tasks (none:
// the offer is accepted and given back whole, which is not a decline).
func fairLaunch(a *allocator.Allocator, o offer.Offer, ids *int, tasks ...resources.Quantities) error {
	var ops []offer.Operation
	if len(tasks) > 0 {
		list := make([]offer.Task, len(tasks))
		for i, q := range tasks {
			*ids++
			list[i] = offer.Task{ID: fmt.Sprintf("%s-t%d", o.FrameworkID, *ids), Resources: fairUnreserved(q).Allocate(o.Role)}
		}
		ops = []offer.Operation{offer.Launch{Tasks: list}}
	}
	if err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, ops, nil); err != nil {
		return fmt.Errorf("accepting %s on %s (%s) with %d tasks: %w", o.FrameworkID, o.AgentID, o.Resources, len(tasks), err)
	}
	return nil
}
