package allocator

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
)

// Events.
//
// Every event the allocator takes goes one way, as raft's Step: the
// public method (AddAgent, RecoverResources, AllocateAll, ...) makes an
// Entry and hands it to step, which
//
//  1. reads the clock at most once for the event (an entry being applied
//     brings its own time instead);
//  2. runs the event's handler, from the table below: it checks its input
//     first, and changes nothing when it fails;
//  3. hands the entry to Options.Journal, when the event succeeded;
//  4. tells Options.Observer what changed.
//
// Apply feeds a journal's entries to the same path; what a replay must
// check (an allocation's run number, an AcceptEach whose operations must
// all apply) is checked before anything changes.
//
// An event is added in three places: its EventKind and row in events
// (with its handler), the public method that makes its Entry, and a
// handler in allocatortest for the random-event checks, whose tests fail
// while a kind of the table is never reached.

// EventKind names an event of the journal: one per method of the
// Allocator that changes its state.
type EventKind string

// The events, named after the methods they call.
const (
	EventAddFramework         EventKind = "add-framework"
	EventRemoveFramework      EventKind = "remove-framework"
	EventActivateFramework    EventKind = "activate-framework"
	EventDeactivateFramework  EventKind = "deactivate-framework"
	EventUpdateFramework      EventKind = "update-framework"
	EventSuppressOffers       EventKind = "suppress-offers"
	EventReviveOffers         EventKind = "revive-offers"
	EventAddAgent             EventKind = "add-agent"
	EventRemoveAgent          EventKind = "remove-agent"
	EventUpdateAgent          EventKind = "update-agent"
	EventAddResourceProvider  EventKind = "add-resource-provider"
	EventActivateAgent        EventKind = "activate-agent"
	EventDeactivateAgent      EventKind = "deactivate-agent"
	EventUpdateWhitelist      EventKind = "update-whitelist"
	EventRecoverResources     EventKind = "recover-resources"
	EventRecoverAllocated     EventKind = "recover-allocated"
	EventUpdateWeights        EventKind = "update-weights"
	EventUpdateQuota          EventKind = "update-quota"
	EventUpdateUnavailability EventKind = "update-unavailability"
	EventUpdateInverseOffer   EventKind = "update-inverse-offer"
	EventPause                EventKind = "pause"
	EventResume               EventKind = "resume"
	EventUpdateAllocation     EventKind = "update-allocation"
	EventUpdateAvailable      EventKind = "update-available"
	EventAccept               EventKind = "accept"
	EventAcceptEach           EventKind = "accept-each"
	EventEndTask              EventKind = "end-task"
	EventRescindOffer         EventKind = "rescind-offer"
	EventAllocate             EventKind = "allocate"
	EventAllocateAll          EventKind = "allocate-all"
	EventRecoverHeld          EventKind = "recover-held"
	EventPreemptTask          EventKind = "preempt-task"
	EventUpdateDemand         EventKind = "update-demand"
)

// handler applies an entry of its kind; replay says it comes from Apply.
type handler func(a *Allocator, e *Entry, replay bool) (Result, []error, error)

// event is a row of the table: a kind and its handler.
type event struct {
	kind   EventKind
	handle handler
}

// only wraps a handler that returns only an error.
func only(f func(a *Allocator, e *Entry) error) handler {
	return func(a *Allocator, e *Entry, _ bool) (Result, []error, error) { return Result{}, nil, f(a, e) }
}

// events is every event: its kind and what it does with its entry's
// fields (see Entry for which it uses).
var events = [...]event{
	{EventAddFramework, only(func(a *Allocator, e *Entry) error {
		if e.FrameworkInfo == nil {
			return fmt.Errorf("%w: %s without framework info", ErrInvalidEntry, e.Event)
		}
		return a.m.AddFramework(e.Framework, e.FrameworkInfo.clone().spec(), e.Used, e.Active)
	})},
	{EventRemoveFramework, only(func(a *Allocator, e *Entry) error { return a.m.RemoveFramework(e.Framework) })},
	{EventActivateFramework, only(func(a *Allocator, e *Entry) error { return a.m.ActivateFramework(e.Framework) })},
	{EventDeactivateFramework, only(func(a *Allocator, e *Entry) error { return a.m.DeactivateFramework(e.Framework) })},
	{EventUpdateFramework, only(func(a *Allocator, e *Entry) error {
		if e.FrameworkInfo == nil {
			return fmt.Errorf("%w: %s without framework info", ErrInvalidEntry, e.Event)
		}
		return a.m.UpdateFramework(e.Framework, e.FrameworkInfo.clone().spec())
	})},
	{EventSuppressOffers, only(func(a *Allocator, e *Entry) error { return a.m.SuppressOffers(e.Framework, e.Roles...) })},
	{EventReviveOffers, only(func(a *Allocator, e *Entry) error { return a.m.ReviveOffers(e.Framework, e.Roles...) })},
	{EventAddAgent, only(func(a *Allocator, e *Entry) error {
		var info AgentInfo
		if e.AgentInfo != nil {
			info = *e.AgentInfo
		}
		return a.m.AddAgent(e.Agent, cluster.AgentInfo(info.clone()), e.Resources, e.Used)
	})},
	{EventRemoveAgent, only(func(a *Allocator, e *Entry) error { return a.m.RemoveAgent(e.Agent) })},
	{EventUpdateAgent, only(func(a *Allocator, e *Entry) error {
		var info AgentInfo
		if e.AgentInfo != nil {
			info = *e.AgentInfo
		}
		return a.m.UpdateAgent(e.Agent, cluster.AgentInfo(info.clone()), e.Total)
	})},
	{EventAddResourceProvider, only(func(a *Allocator, e *Entry) error { return a.m.AddResourceProvider(e.Agent, e.Resources, e.Used) })},
	{EventActivateAgent, only(func(a *Allocator, e *Entry) error { return a.cs.ActivateAgent(e.Agent) })},
	{EventDeactivateAgent, only(func(a *Allocator, e *Entry) error { return a.cs.DeactivateAgent(e.Agent) })},
	{EventUpdateWhitelist, only(func(a *Allocator, e *Entry) error { a.m.UpdateWhitelist(e.Hostnames); return nil })},
	{EventRecoverResources, only(func(a *Allocator, e *Entry) error {
		return a.m.Decline(e.Framework, e.Agent, e.Resources, e.Filter.refuse())
	})},
	{EventRecoverAllocated, only(func(a *Allocator, e *Entry) error {
		return a.m.Recover(e.Framework, e.Agent, e.Resources, e.Filter.refuse(), true)
	})},
	{EventUpdateWeights, only(func(a *Allocator, e *Entry) error { return a.m.UpdateWeights(e.Weights) })},
	{EventUpdateQuota, only(func(a *Allocator, e *Entry) error { return a.m.UpdateQuota(e.Role, roles.Quota(e.Quota)) })},
	{EventUpdateUnavailability, only(func(a *Allocator, e *Entry) error { return a.m.UpdateUnavailability(e.Agent, e.Unavailability) })},
	{EventUpdateInverseOffer, only(func(a *Allocator, e *Entry) error {
		return a.m.UpdateInverseOffer(e.Agent, e.Framework, uint8(e.Status), e.Filter.refuse())
	})},
	{EventPause, only(func(a *Allocator, _ *Entry) error { a.paused = true; return nil })},
	{EventResume, only(func(a *Allocator, _ *Entry) error { a.paused = false; return nil })},
	{EventUpdateAllocation, only(func(a *Allocator, e *Entry) error {
		return a.m.UpdateAllocation(e.Framework, e.Agent, e.Resources, e.Operations)
	})},
	{EventUpdateAvailable, only(func(a *Allocator, e *Entry) error { return a.ops.UpdateAvailable(e.Agent, e.Operations) })},
	{EventAccept, only(func(a *Allocator, e *Entry) error {
		return a.m.Accept(e.Framework, e.Agent, e.Resources, e.Operations, e.Filter.refuse())
	})},
	{EventAcceptEach, func(a *Allocator, e *Entry, replay bool) (Result, []error, error) {
		if replay {
			// The journal holds the operations that were applied: each
			// must apply again, or the entry changes nothing.
			if err := a.ops.CheckEach(e.Framework, e.Agent, e.Resources, e.Operations); err != nil {
				return Result{}, nil, err
			}
		}
		each, err := a.m.AcceptEach(e.Framework, e.Agent, e.Resources, e.Operations, e.Filter.refuse())
		if err == nil && !replay {
			// Only what was applied goes into the journal.
			var applied []offer.Operation
			for i, op := range e.Operations {
				if each[i] == nil {
					applied = append(applied, op)
				}
			}
			e.Operations = applied
		}
		return Result{}, each, err
	}},
	{EventEndTask, only(func(a *Allocator, e *Entry) error { return a.m.EndTask(e.Framework, e.Task) })},
	{EventRescindOffer, only(func(a *Allocator, e *Entry) error { return a.m.RescindOffer(e.Offer) })},
	{EventAllocate, func(a *Allocator, e *Entry, replay bool) (Result, []error, error) {
		return a.run(e, replay, false)
	}},
	{EventAllocateAll, func(a *Allocator, e *Entry, replay bool) (Result, []error, error) {
		return a.run(e, replay, true)
	}},
	{EventRecoverHeld, only(func(a *Allocator, e *Entry) error {
		return a.m.RecoverHeld(e.Framework, e.Agent, e.Resources, e.Hold)
	})},
	{EventPreemptTask, only(func(a *Allocator, e *Entry) error { return a.m.PreemptTask(e.Framework, e.Task, e.Hold) })},
	{EventUpdateDemand, only(func(a *Allocator, e *Entry) error {
		return a.m.UpdateDemand(e.Framework, e.Role, pendingSpec(e.Demand))
	})},
}

// byKind indexes events by kind.
var byKind = func() map[EventKind]*event {
	m := make(map[EventKind]*event, len(events))
	for i := range events {
		m[events[i].kind] = &events[i]
	}
	return m
}()

// EventKinds returns every kind of event, in the order of the table: for
// tests that check each is reached.
func EventKinds() []EventKind {
	out := make([]EventKind, len(events))
	for i, e := range events {
		out[i] = e.kind
	}
	return out
}

// run makes an allocation run (periodic: an AllocateAll). A replayed entry whose run would have another number than the
// one it recorded is refused before the run (Run zero is not checked: a
// host that makes entries itself leaves it so).
func (a *Allocator) run(e *Entry, replay, periodic bool) (Result, []error, error) {
	if replay && e.Run != 0 {
		next := a.engine.Runs + 1
		if a.paused {
			next = 0
		}
		if next != e.Run {
			return Result{}, nil, fmt.Errorf("the run would be run %d, the journal says %d", next, e.Run)
		}
	}
	res := a.allocate(periodic)
	e.Run = res.Stats.Run
	return res, nil, nil
}

// step is the one path of every event (see the top of this file).
func (a *Allocator) step(e Entry) (Result, []error, error) { return a.stepOwn(e, false) }

// stepOwn is stepEntry on the allocator's own entry, a copy of e (applied
// from a journal when replay is set): stepEntry keeps a pointer to its
// entry, through the handlers, so an entry of the caller's would go to the
// heap (an allocation of a few hundred bytes an event). The entry is
// emptied after so that it keeps nothing of the caller's. Events do not
// nest: handlers make none, as the recorder, which stands in for the
// clock for one event at a time, already requires.
func (a *Allocator) stepOwn(e Entry, replay bool) (Result, []error, error) {
	a.ready() // a zero allocator's set-up replaces the whole struct
	p := &a.entry
	*p = e
	res, each, err := a.stepEntry(p, replay)
	*p = Entry{}
	return res, each, err
}

// stepErr is step for the events that return only an error.
func (a *Allocator) stepErr(e Entry) error {
	_, _, err := a.step(e)
	return err
}

// stepEntry takes e as an event, applied from a journal when replay is set.
func (a *Allocator) stepEntry(e *Entry, replay bool) (Result, []error, error) {
	a.ready()
	ev, ok := byKind[e.Event]
	if !ok {
		return Result{}, nil, fmt.Errorf("%w: unknown event %q", ErrInvalidEntry, e.Event)
	}
	a.rec.begin(e, replay)
	res, each, err := ev.handle(a, e, replay)
	if at, read := a.rec.end(); read && !replay {
		e.At = at
	}
	if err == nil && a.opts.Journal != nil {
		a.opts.Journal(*e)
	}
	if a.obs != nil {
		a.report(nil)
	}
	return res, each, err
}

// recorder stands in for the clock: within an event the clock is read
// once, and while an entry is applied it reads the entry's time.
type recorder struct {
	clock  func() time.Time // the host's
	at     time.Time
	event  bool // an event is under way
	read   bool // at holds the reading of the event under way
	replay bool // at is the applied entry's time
}

func (r *recorder) init(a *Allocator) {
	r.clock = a.opts.Clock
	a.opts.Clock = r.now
}

func (r *recorder) begin(e *Entry, replay bool) {
	r.event, r.read, r.replay = true, false, replay
	if replay {
		r.at = e.At
	}
}

// end closes the event and returns the clock reading it used, if it read
// one.
func (r *recorder) end() (time.Time, bool) {
	at, read := r.at, r.read
	r.event, r.read, r.replay, r.at = false, false, false, time.Time{}
	return at, read
}

// now reads the clock as the allocator sees it: wall-clock time in UTC,
// without a monotonic reading, once per event.
func (r *recorder) now() time.Time {
	if r.replay || r.read {
		return r.at
	}
	t := r.clock().Round(0).UTC()
	if r.event {
		r.at, r.read = t, true
	}
	return t
}
