package sortertest_test

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// leastServed is a sorter a researcher might try: it ignores shares and
// serves the active client that has been allocated to the fewest times,
// ties by path. It keeps the bookkeeping every sorter owes its caller, and
// its test (leastserved_test.go) runs it through sortertest.Run:
//
//	func TestLeastServed(t *testing.T) {
//		sortertest.Run(t, newLeastServed)
//	}
//
// It is not a DRF-kind sorter, so sortertest.RunFair does not apply.
type leastServed struct {
	clients map[string]*lsClient
	agents  map[string]bool
	sorted  []string
}

type lsClient struct {
	active bool
	count  int
	alloc  map[string]resources.Resources
}

func newLeastServed(sorter.Config) sorter.Sorter {
	return &leastServed{clients: map[string]*lsClient{}, agents: map[string]bool{}}
}

func (s *leastServed) client(name string) (*lsClient, error) {
	if c, ok := s.clients[name]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("%w %q", sorter.ErrUnknownClient, name)
}

func validPath(name string) error {
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." {
			return fmt.Errorf("%w %q", sorter.ErrInvalidClient, name)
		}
	}
	return nil
}

func (s *leastServed) Add(name string) error {
	if err := validPath(name); err != nil {
		return err
	}
	if _, ok := s.clients[name]; ok {
		return fmt.Errorf("%w %q", sorter.ErrDuplicateClient, name)
	}
	s.clients[name] = &lsClient{alloc: map[string]resources.Resources{}}
	return nil
}

func (s *leastServed) Remove(name string) error {
	if _, err := s.client(name); err != nil {
		return err
	}
	delete(s.clients, name)
	return nil
}

func (s *leastServed) setActive(name string, active bool) error {
	c, err := s.client(name)
	if err == nil {
		c.active = active
	}
	return err
}

func (s *leastServed) Activate(name string) error   { return s.setActive(name, true) }
func (s *leastServed) Deactivate(name string) error { return s.setActive(name, false) }

func (s *leastServed) UpdateWeight(path string, w float64) error {
	if err := validPath(path); err != nil {
		return err
	}
	if !(w > 0 && w <= math.MaxFloat64) {
		return fmt.Errorf("%w %v", sorter.ErrInvalidWeight, w)
	}
	return nil // weights play no part here
}

func (s *leastServed) Allocated(name, agent string, r resources.Resources) error {
	c, err := s.client(name)
	if err != nil {
		return err
	}
	c.alloc[agent] = c.alloc[agent].Plus(r)
	c.count++
	return nil
}

func (s *leastServed) Unallocated(name, agent string, r resources.Resources) error {
	return s.Update(name, agent, r, resources.Resources{})
}

func (s *leastServed) Update(name, agent string, old, new resources.Resources) error {
	c, err := s.client(name)
	if err != nil {
		return err
	}
	if !c.alloc[agent].Contains(old) {
		return fmt.Errorf("%w: %s on %s", sorter.ErrNotAllocated, old, agent)
	}
	if left := c.alloc[agent].Minus(old).Plus(new); left.IsEmpty() {
		delete(c.alloc, agent)
	} else {
		c.alloc[agent] = left
	}
	return nil
}

func (s *leastServed) Allocation(name string) map[string]resources.Resources {
	if c, ok := s.clients[name]; ok {
		return c.alloc
	}
	return nil
}

func (s *leastServed) AllocationQuantities(name string) resources.Quantities {
	var q resources.Quantities
	if c, ok := s.clients[name]; ok {
		for _, r := range c.alloc {
			q.Add(r.Quantities()) // a shared volume counts once per agent
		}
	}
	return q
}

func (s *leastServed) AddAgent(agent string, _ resources.Quantities) { s.agents[agent] = true }

func (s *leastServed) RemoveAgent(agent string) error {
	if !s.agents[agent] {
		return fmt.Errorf("%w %q", sorter.ErrUnknownAgent, agent)
	}
	delete(s.agents, agent)
	return nil
}

func (s *leastServed) Sort() []string {
	s.sorted = s.sorted[:0]
	for name, c := range s.clients {
		if c.active {
			s.sorted = append(s.sorted, name)
		}
	}
	slices.SortFunc(s.sorted, func(a, b string) int {
		if d := s.clients[a].count - s.clients[b].count; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return s.sorted
}

func (s *leastServed) Contains(name string) bool { _, ok := s.clients[name]; return ok }
func (s *leastServed) Count() int                { return len(s.clients) }

// A custom sorter is checked with sortertest.Run from a test of its own
// (see leastServed); here it takes turns with three clients.
func Example_customSorter() {
	s := newLeastServed(sorter.Config{})
	for _, c := range []string{"b", "a", "c"} {
		_ = s.Add(c)
		_ = s.Activate(c)
	}
	task := resources.MustParse("cpus:1;mem:128", "")
	for range 4 {
		first := s.Sort()[0]
		_ = s.Allocated(first, "agent1", task)
		fmt.Println(first, "->", s.Sort())
	}
	// Output:
	// a -> [b c a]
	// b -> [c a b]
	// c -> [a b c]
	// a -> [b c a]
}
