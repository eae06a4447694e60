// Command customsorter plugs a sorter of one's own into the allocator: a
// DRF variant, BeyondReservation, that charges a role only for what it uses
// beyond its own reservations (see sorter.go). Its test runs it through the
// sortertest conformance kit, as any Sorter should be.
//
// The same cluster runs twice, with the library's DRF and with the variant:
// role db has an agent reserved for it and fills it; then two unreserved
// agents join. DRF counts db's reserved resources in its share, so both
// shared agents go to web. The variant does not, so db and web get one
// each.
//
//	go run ./examples/customsorter
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "customsorter:", err)
		os.Exit(1)
	}
}

// outcome holds, per sorter, what each role ends with.
type outcome map[string]map[string]held

// held is what a role holds: reserved and unreserved, and its share as the
// role sorter sees it.
type held struct {
	Reserved, Unreserved resources.Quantities
	Share                float64
}

var sorters = []struct {
	name string
	new  sorter.Factory
}{
	{"DRF (sorter.NewDRF)", func(c sorter.Config) sorter.Sorter { return sorter.NewDRF(c) }},
	{"BeyondReservation (examples/customsorter)", NewBeyondReservation},
}

func run(w io.Writer) (outcome, error) {
	out := outcome{}
	for _, s := range sorters {
		fmt.Fprintf(w, "Role sorter: %s\n", s.name)
		roles, err := scenario(w, s.new)
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.name, err)
		}
		out[s.name] = roles
		fmt.Fprintln(w)
	}
	return out, nil
}

// task is what every task needs.
var task = resources.MustParseQuantities("cpus:1;mem:2048")

// scenario runs the cluster with the given role sorter.
func scenario(w io.Writer, roleSorter sorter.Factory) (map[string]held, error) {
	a, err := allocator.New(allocator.Options{Seed: 1, RoleSorter: roleSorter})
	if err != nil {
		return nil, err
	}
	reserved := resources.MustParse("cpus(db):4;mem(db):8192", "*")
	if err := a.AddAgent("agent-1", allocator.AgentInfo{}, reserved, nil); err != nil {
		return nil, err
	}
	for _, role := range []string{"db", "web"} {
		if err := a.AddFramework(role, allocator.FrameworkInfo{Roles: []string{role}}, nil, true); err != nil {
			return nil, err
		}
	}
	if err := allocate(w, a); err != nil {
		return nil, err
	}
	fmt.Fprintln(w, "  two unreserved agents join")
	for _, id := range []string{"agent-2", "agent-3"} {
		if err := a.AddAgent(id, allocator.AgentInfo{}, resources.MustParse("cpus:2;mem:4096", "*"), nil); err != nil {
			return nil, err
		}
	}
	if err := allocate(w, a); err != nil {
		return nil, err
	}

	roles := map[string]held{}
	shares := map[string]float64{}
	for _, r := range a.Roles() {
		shares[r.Role] = r.Share
	}
	for _, f := range a.Frameworks() {
		h := held{
			Reserved:   f.Allocated.Reserved("").Quantities(),
			Unreserved: f.Allocated.Unreserved().Quantities(),
			Share:      shares[f.ID],
		}
		roles[f.ID] = h
		fmt.Fprintf(w, "  %-3s holds reserved %-18s unreserved %-18s share %.3f\n", f.ID, orNone(h.Reserved), orNone(h.Unreserved), h.Share)
	}
	return roles, nil
}

// allocate runs one allocation; every framework runs as many tasks as fit
// in its offers and declines the rest without a filter.
func allocate(w io.Writer, a *allocator.Allocator) error {
	for _, o := range a.Allocate().Offers {
		var launch offer.Launch
		left := o.Resources
		for {
			t, ok := offer.PickTask(left, fmt.Sprintf("%s-%s-%d", o.FrameworkID, o.AgentID, len(launch.Tasks)+1), task, o.Role)
			if !ok {
				break
			}
			launch.Tasks = append(launch.Tasks, t)
			left = left.Minus(t.Resources)
		}
		fmt.Fprintf(w, "  %s is offered %s on %s and runs %d tasks\n", o.FrameworkID, o.Resources.Unallocate(), o.AgentID, len(launch.Tasks))
		if len(launch.Tasks) == 0 {
			if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil); err != nil {
				return err
			}
			continue
		}
		if err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, nil); err != nil {
			return err
		}
	}
	return nil
}

func orNone(q resources.Quantities) string {
	if q.IsEmpty() {
		return "-"
	}
	return q.String()
}
