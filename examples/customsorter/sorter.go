package main

import (
	"fmt"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// BeyondReservation is a DRF variant that charges a client only for what it
// holds beyond its own reservations: resources reserved for the client's
// path or for one of its ancestors cost it nothing. A role that runs on its
// reserved agents competes for the shared pool as if it held nothing, where
// Mesos's DRF counts the reserved resources it uses in its share.
//
// It keeps, per client and agent, everything allocated (for Allocation and
// AllocationQuantities and to check what is given back), and hands only the
// charged part to the library's DRF sorter, which does the ordering:
// weights, hierarchy and tie rules are DRF's.
type BeyondReservation struct {
	drf  *sorter.DRF
	held map[string]map[string]resources.Resources // client -> agent -> resources
}

var _ sorter.Sorter = (*BeyondReservation)(nil)

// NewBeyondReservation returns an empty sorter; it has the signature of a
// sorter.Factory.
func NewBeyondReservation(cfg sorter.Config) sorter.Sorter {
	return &BeyondReservation{drf: sorter.NewDRF(cfg), held: map[string]map[string]resources.Resources{}}
}

// charged is the part of r that counts in client's share.
func charged(client string, r resources.Resources) resources.Resources {
	return r.Filter(func(x resources.Resource) bool {
		return !x.IsReserved() || !reservation.IsSubroleOrSelf(client, x.Role())
	})
}

// Add adds an inactive client holding nothing.
func (s *BeyondReservation) Add(client string) error {
	if err := s.drf.Add(client); err != nil {
		return err
	}
	s.held[client] = map[string]resources.Resources{}
	return nil
}

// Remove drops a client and what it holds.
func (s *BeyondReservation) Remove(client string) error {
	if err := s.drf.Remove(client); err != nil {
		return err
	}
	delete(s.held, client)
	return nil
}

// Activate makes a client eligible for Sort.
func (s *BeyondReservation) Activate(client string) error { return s.drf.Activate(client) }

// Deactivate hides a client from Sort.
func (s *BeyondReservation) Deactivate(client string) error { return s.drf.Deactivate(client) }

// UpdateWeight sets the weight of a path.
func (s *BeyondReservation) UpdateWeight(path string, weight float64) error {
	return s.drf.UpdateWeight(path, weight)
}

// Allocated records r on agent for client, charging it the part beyond
// its reservations.
func (s *BeyondReservation) Allocated(client, agent string, r resources.Resources) error {
	if err := s.drf.Allocated(client, agent, charged(client, r)); err != nil {
		return err
	}
	h := s.held[client][agent].Clone()
	h.Add(r)
	s.held[client][agent] = h
	return nil
}

// check returns what client holds on agent, or an error if it is unknown
// or does not hold r there.
func (s *BeyondReservation) check(client, agent string, r resources.Resources) (resources.Resources, error) {
	byAgent, ok := s.held[client]
	if !ok {
		return resources.Resources{}, fmt.Errorf("%w: %q", sorter.ErrUnknownClient, client)
	}
	h := byAgent[agent]
	if !h.Contains(r) {
		return h, fmt.Errorf("%w: %q holds %s on %q, not %s", sorter.ErrNotAllocated, client, h, agent, r)
	}
	return h, nil
}

func (s *BeyondReservation) set(client, agent string, h resources.Resources) {
	if h.IsEmpty() {
		delete(s.held[client], agent)
		return
	}
	s.held[client][agent] = h
}

// Unallocated records that client gave back r on agent.
func (s *BeyondReservation) Unallocated(client, agent string, r resources.Resources) error {
	h, err := s.check(client, agent, r)
	if err != nil {
		return err
	}
	if err := s.drf.Unallocated(client, agent, charged(client, r)); err != nil {
		return err
	}
	s.set(client, agent, h.Minus(r))
	return nil
}

// Update replaces old with new in what client holds on agent.
func (s *BeyondReservation) Update(client, agent string, old, new resources.Resources) error {
	h, err := s.check(client, agent, old)
	if err != nil {
		return err
	}
	if err := s.drf.Update(client, agent, charged(client, old), charged(client, new)); err != nil {
		return err
	}
	s.set(client, agent, h.Minus(old).Plus(new))
	return nil
}

// Allocation returns everything client holds, per agent, charged or not.
func (s *BeyondReservation) Allocation(client string) map[string]resources.Resources {
	return s.held[client]
}

// AllocationQuantities returns the quantities client holds, charged or not.
func (s *BeyondReservation) AllocationQuantities(client string) resources.Quantities {
	var q resources.Quantities
	for _, h := range s.held[client] {
		q.Add(h.Quantities())
	}
	return q
}

// AddAgent sets an agent's total in the pool.
func (s *BeyondReservation) AddAgent(agent string, total resources.Quantities) {
	s.drf.AddAgent(agent, total)
}

// RemoveAgent drops an agent's total from the pool.
func (s *BeyondReservation) RemoveAgent(agent string) error { return s.drf.RemoveAgent(agent) }

// Sort returns the active clients by ascending charged dominant share.
func (s *BeyondReservation) Sort() []string { return s.drf.Sort() }

// Contains reports whether client is present.
func (s *BeyondReservation) Contains(client string) bool { return s.drf.Contains(client) }

// Count returns the number of clients.
func (s *BeyondReservation) Count() int { return s.drf.Count() }

// ShareOf returns the charged dominant share of a path; the allocator's
// Roles view shows it.
func (s *BeyondReservation) ShareOf(path string) float64 { return s.drf.ShareOf(path) }
