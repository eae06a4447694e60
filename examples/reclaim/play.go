package main

import (
	"fmt"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// maxRuns bounds an act that runs until it is quiet.
const maxRuns = 40

// runRecord is one run as the host saw it.
type runRecord struct {
	Run int
	// Chosen are the tasks the run chose to end; the host ends them at
	// once.
	Chosen []allocator.Preemption
	// Offers are the service's offers, Replicas how many replicas it
	// launched on them, Returned what it gave back of them.
	Offers   []offer.Offer
	Replicas int
	Returned resources.Quantities
	// Shares are the act's roles' shares after the host's answers, in the
	// act's order. Held is what the agents hold for the service's
	// framework then, Running what its tasks use.
	Shares        []float64
	Held, Running resources.Quantities
}

// quiet reports whether nothing happened in the run.
func (r runRecord) quiet() bool { return len(r.Chosen) == 0 && len(r.Offers) == 0 }

// shares returns the roles' shares, in order.
func (c *cluster) shares(roles []string) []float64 {
	out := make([]float64, len(roles))
	for i, role := range roles {
		out[i] = c.share(role)
	}
	return out
}

// play runs the cluster for runs runs, or (runs 0) until a quiet run.
// Before every run the service states the replicas it waits for; after
// it, the host ends the tasks chosen and the service answers its offers.
// No other framework is offered anything, as every other one has
// suppressed offers.
func play(c *cluster, s *service, roles []string, runs int) ([]runRecord, error) {
	var out []runRecord
	for i := 1; runs == 0 || i <= runs; i++ {
		if runs == 0 && i > maxRuns {
			return out, fmt.Errorf("still busy after %d runs", maxRuns)
		}
		rec, err := playOnce(c, s, roles, i)
		if err != nil {
			return out, fmt.Errorf("run %d: %w", i, err)
		}
		out = append(out, rec)
		if runs == 0 && rec.quiet() {
			break
		}
	}
	return out, nil
}

func playOnce(c *cluster, s *service, roles []string, run int) (runRecord, error) {
	if err := s.state(c); err != nil {
		return runRecord{}, err
	}
	res, err := c.step()
	if err != nil {
		return runRecord{}, err
	}
	if n := len(res.OffersTo(s.id)); n != len(res.Offers) {
		return runRecord{}, fmt.Errorf("%d offers to frameworks other than %s", len(res.Offers)-n, s.id)
	}
	rec := runRecord{Run: run, Chosen: res.Preemptions}
	if err := c.endChosen(res.Preemptions); err != nil {
		return rec, err
	}
	if err := s.answer(c, res, &rec); err != nil {
		return rec, err
	}
	rec.Shares, rec.Held, rec.Running = c.shares(roles), c.held(s.id), c.running(s.id)
	return rec, c.a.CheckInvariants()
}
