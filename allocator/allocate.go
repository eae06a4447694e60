package allocator

import "time"

// Allocate runs one allocation over the agents that need it: every agent
// after a framework-wide trigger (a framework added or activated, offers
// revived), else the agents named by agent events since the last run. Events
// between runs accumulate into one batch. While paused it makes no offers
// and keeps the triggers.
func (a *Allocator) Allocate() Result {
	res, _, _ := a.step(Entry{Event: EventAllocate})
	return res
}

// AllocateAll runs one allocation over every agent, as the periodic batch
// does.
func (a *Allocator) AllocateAll() Result {
	res, _, _ := a.step(Entry{Event: EventAllocateAll})
	return res
}

// allocate is the handler of Allocate and, periodic, of AllocateAll (see
// events.go): the engine's run, in the allocator's types.
func (a *Allocator) allocate(periodic bool) Result {
	if a.paused {
		if periodic {
			a.engine.AllWantRun()
		}
		return Result{}
	}
	var started time.Duration
	if a.obs != nil && a.obs.watch != nil {
		started = a.obs.watch()
	}
	r := a.engine.Triggered(periodic)
	a.preempted = preemptions(r.Chosen)
	res := Result{Offers: r.Offers, InverseOffers: r.InverseOffers, Preemptions: a.preempted,
		Withdrawn: preemptions(r.Withdrawn), Stats: RunStats(r.Stats)}
	a.last = res.Stats
	if a.obs != nil {
		a.observeRun(res, started)
	}
	return res
}
