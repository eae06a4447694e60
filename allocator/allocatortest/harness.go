package allocatortest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// DefaultRoles are the roles a Harness uses unless told otherwise: two
// levels of nesting under "a", and two other top-level roles.
var DefaultRoles = []string{"a", "a/b", "a/b/c", "a/c", "b", "c"}

// DefaultStart is where a Harness's virtual clock starts.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Options configure a Harness.
type Options struct {
	// Allocator are the allocator's options. Clock is replaced by the
	// harness's virtual clock.
	Allocator allocator.Options
	// Agents and Frameworks are the sizes of the id pools events draw
	// from ("a0", "a1", ... and "f0", "f1", ...); zero means 6 and 5.
	Agents, Frameworks int
	// Roles are the roles frameworks subscribe to and resources are
	// reserved for; nil means DefaultRoles. At most eight are used. The
	// default role "*" may be one of them: frameworks then subscribe to
	// it and quota and weights are set on it, but nothing is reserved for
	// it.
	Roles []string
	// QuotaRoles are the roles SetQuota events set quota on; nil means
	// Roles. (Mesos sets quota on top-level roles only.)
	QuotaRoles []string
	// NoSharedVolumes keeps shared persistent volumes out: agents are made
	// without them and creates make none.
	NoSharedVolumes bool
	// RescindSharedVolumes makes the harness act as Mesos's master before
	// it destroys a shared volume: it rescinds the volume from every other
	// offer holding a copy (RecoverResources without a filter). Without
	// it, the allocator is left to deal with copies still offered.
	RescindSharedVolumes bool
	// Start is where the virtual clock starts; zero means DefaultStart.
	Start time.Time
	// Fast checks every step at a fraction of the cost (see "Fast checks"
	// in the package doc): what a step touched after every step, the whole
	// state every FullCheckEvery steps and at the end of Run, and, once a
	// violation is found, the events replayed from the start with every
	// check after every step, so the Violation names the first step that
	// broke a property. The harness must then be the allocator's only
	// driver (Observe panics), and it keeps no log unless Log says.
	Fast bool
	// FullCheckEvery is, with Fast, the number of steps between two runs
	// of the whole-state checks; zero means DefaultFullCheckEvery. Run
	// checks the whole state after its last event, and lets a check due
	// less than FullCheckEvery/2 steps before it wait for that one.
	FullCheckEvery int
	// Log keeps the log with Fast too (a harness without Fast always
	// keeps it): calls are rendered as text, at some cost.
	Log bool
	// OracleEvery is, with Fast, the number of steps between two
	// comparisons of the allocator's next AllocateAll with and without its
	// caches (see nextrun.go); zero means DefaultOracleEvery. Without
	// Fast the comparison follows every step. The cache-free twin compares
	// every run the events make, with or without Fast.
	OracleEvery int
}

// DefaultFullCheckEvery is how many steps a Fast harness lets pass between
// two runs of the whole-state checks, unless Options.FullCheckEvery says.
const DefaultFullCheckEvery = 32

// Harness owns an allocator, a virtual clock, the offers and inverse offers
// not yet answered, and a log of every event and run. It turns Events into
// allocator calls against the state it finds, and after every step checks
// the allocator (see Step). It is not safe for concurrent use; a host that
// drives it from several goroutines serialises the calls, for example
// through runner.Runner.Do.
type Harness struct {
	opts     Options
	a        *allocator.Allocator
	now      time.Time
	start    time.Time
	agentIDs []string
	fwIDs    []string
	roles    []string
	// reservable are the roles resources may be reserved for: roles
	// without "*".
	reservable []string
	excluded   resources.NameSet

	agentInfo map[string]allocator.AgentInfo
	fwInfo    map[string]allocator.FrameworkInfo
	whitelist map[string]bool // nil: every agent
	paused    bool
	// Steps left before the harness lifts the whitelist or resumes.
	whitelistLeft, pauseLeft int

	offers  []offer.Offer
	inverse []offer.InverseOffer
	// declined is what a Decline gave back last.
	declined offer.Offer
	// limits: a quota with limits was set (a Fast harness then compares
	// roles before and after runs).
	limits bool
	// ended are task ids that ended, by framework, for repeated EndTasks.
	ended map[string][]string
	// stated is, by framework and role, what the frameworks' hosts wait
	// to run: their last statements of demand, less the tasks launched
	// since (demand.go); demanded: some statement was taken.
	stated   map[string]map[string][]allocator.Pending
	demanded bool
	// chosen are the tasks runs chose to end (Options.Reclaim), for the
	// withdrawals of later runs (preemptions.go).
	chosen map[[2]string]bool

	steps   int
	ids     int
	parsed  map[string]resources.Resources
	log     strings.Builder
	current *effects
	eff     effects
	// text: calls are rendered as text and logged (not with Fast).
	text bool

	// base is the fingerprint before a step's main call; next the one
	// after it.
	base, next allocator.Fingerprint

	// With Fast: the events stepped, for the replay; the fingerprint after
	// the last step and every agent's view then (mirror, and agentList in
	// id order); the frameworks the events made (ids only); steps since
	// the whole-state checks ran; the violation, once found.
	fast      bool
	every     int
	events    []Event
	fp        allocator.Fingerprint
	mirror    map[string]allocator.AgentView
	agentList []allocator.AgentView
	fwList    []allocator.FrameworkView
	fwStale   bool
	sinceFull int
	// left: events of the current Run after this step; -1 outside Run.
	left    int
	changed map[string]bool
	failed  error

	// twins take the allocator's journal (twin.go); twinFP and forkFP are
	// scratch fingerprints for comparing them and the next run's copies
	// (nextrun.go); noSnapshots: the sorters cannot be saved; deferred are
	// violations found outside a step (Observe), reported by the next.
	twins          []*twin
	twinFP, forkFP allocator.Fingerprint
	noSnapshots    bool
	deferred       []error
}

// New returns a Harness with a new allocator made from opts.
func New(opts Options) (*Harness, error) {
	if opts.Agents <= 0 {
		opts.Agents = 6
	}
	if opts.Frameworks <= 0 {
		opts.Frameworks = 5
	}
	if opts.Roles == nil {
		opts.Roles = DefaultRoles
	}
	if len(opts.Roles) > 8 {
		opts.Roles = opts.Roles[:8]
	}
	var reservable []string
	for _, r := range opts.Roles {
		if err := reservation.ValidateRole(r); err != nil {
			return nil, fmt.Errorf("allocatortest: role %q: %w", r, err)
		}
		if r != reservation.Any {
			reservable = append(reservable, r)
		}
	}
	if len(reservable) == 0 {
		return nil, fmt.Errorf("allocatortest: roles %q: want one besides %q", opts.Roles, reservation.Any)
	}
	if opts.QuotaRoles == nil {
		opts.QuotaRoles = opts.Roles
	}
	if opts.Start.IsZero() {
		opts.Start = DefaultStart
	}
	if opts.FullCheckEvery <= 0 {
		opts.FullCheckEvery = DefaultFullCheckEvery
	}
	if opts.OracleEvery <= 0 {
		opts.OracleEvery = DefaultOracleEvery
	}
	h := &Harness{
		opts:       opts,
		now:        opts.Start,
		start:      opts.Start,
		roles:      slices.Clone(opts.Roles),
		reservable: reservable,
		excluded:   resources.NewNameSet(opts.Allocator.FairnessExcludedResources...),
		agentInfo:  map[string]allocator.AgentInfo{},
		fwInfo:     map[string]allocator.FrameworkInfo{},
		ended:      map[string][]string{},
		stated:     map[string]map[string][]allocator.Pending{},
		parsed:     map[string]resources.Resources{},
		text:       !opts.Fast || opts.Log,
		fast:       opts.Fast,
		every:      opts.FullCheckEvery,
		left:       -1,
		eff:        effects{volumesFree: map[string]bool{}, volumeOps: map[string]map[volumeKey]bool{}},
	}
	for i := range opts.Agents {
		h.agentIDs = append(h.agentIDs, "a"+strconv.Itoa(i))
	}
	for i := range opts.Frameworks {
		h.fwIDs = append(h.fwIDs, "f"+strconv.Itoa(i))
	}
	ao := opts.Allocator
	ao.Clock, ao.Journal = h.Now, h.journal
	a, err := allocator.New(ao)
	if err != nil {
		return nil, err
	}
	h.a = a
	if err := h.newCacheFreeTwin(); err != nil {
		return nil, err
	}
	if h.fast {
		h.mirror = map[string]allocator.AgentView{}
		h.changed = map[string]bool{}
		h.a.Fingerprint(&h.fp)
	}
	return h, nil
}

// Allocator returns the allocator the harness drives.
func (h *Harness) Allocator() *allocator.Allocator { return h.a }

// Now returns the virtual time; it is the allocator's clock.
func (h *Harness) Now() time.Time { return h.now }

// Log returns the record of every step: the event, the call it became and
// its outcome, and the offers and inverse offers of every run. The same
// events on the same options give the same log, byte for byte, with or
// without Fast. A Fast harness keeps no log unless Options.Log says.
func (h *Harness) Log() string { return h.log.String() }

// Violation is a broken property found after a step.
type Violation struct {
	// Step counts the harness's steps from 1.
	Step int
	// Event is the step's event; zero for a violation of the whole-state
	// checks (Call "whole-state check"), found after Step.
	Event Event
	// Call is what the event became, as logged.
	Call string
	Err  error
	// Noticed is the step after which a Fast harness's checks saw the
	// violation (Step is then the first step that broke a property, as
	// the replay found it); zero without Fast.
	Noticed int
}

// wholeStateCheck is the Call of a violation found by the checks of the
// whole state, which belong to no event: its Step is the last step taken.
const wholeStateCheck = "whole-state check"

func (v *Violation) Error() string {
	if v.Call == wholeStateCheck {
		return fmt.Sprintf("after step %d: %s: %v", v.Step, v.Call, v.Err)
	}
	if v.Noticed > 0 {
		return fmt.Sprintf("step %d (%s): %s: %v\n(noticed by the fast checks after step %d)", v.Step, v.Event, v.Call, v.Err, v.Noticed)
	}
	return fmt.Sprintf("step %d (%s): %s: %v", v.Step, v.Event, v.Call, v.Err)
}

func (v *Violation) Unwrap() error { return v.Err }

// Run steps through events and returns the first violation. With Fast, it
// runs the whole-state checks after the last event too (Verify).
func (h *Harness) Run(events []Event) error {
	defer func() { h.left = -1 }()
	for i, e := range events {
		h.left = len(events) - i - 1
		if err := h.Step(e); err != nil {
			return err
		}
	}
	if h.fast {
		return h.Verify()
	}
	return nil
}

// effects collects what a step did, for the checks after it.
type effects struct {
	// rebased: the harness changed the state before the step's main call
	// (it rescinded offers), and took the base fingerprint again; base is
	// the snapshot then, without Fast.
	rebased bool
	base    *Views
	call    string
	err     error
	// want is the error a BadInput event must return.
	want error
	bad  bool
	run  *allocator.Result
	// volumesFree: agents whose volumes may change any way (a new total,
	// removal); volumeOps: volumes that operations of the step named.
	volumesFree map[string]bool
	volumeOps   map[string]map[volumeKey]bool
	// errs are violations of properties of the event itself.
	errs errorList
}

// reset empties e for a new step, keeping its storage.
func (e *effects) reset() {
	clear(e.volumesFree)
	for _, m := range e.volumeOps {
		clear(m)
	}
	*e = effects{volumesFree: e.volumesFree, volumeOps: e.volumeOps, errs: e.errs[:0]}
}

func (e *effects) fail(format string, args ...any) { e.errs.fail(format, args...) }

type volumeKey struct{ role, id string }

// Step applies one event and checks, whatever the event:
//
//   - Check (the allocator's bookkeeping and its views);
//   - an event that returns an error returns one of the allocator's named
//     errors and leaves the state unchanged (its Fingerprint: what
//     Describe renders); a BadInput event returns the error its case
//     names;
//   - persistent volumes disappear or change size only through an
//     operation that names them (destroy, grow, shrink) or a new total or
//     removal of their agent, and appear only through create or a new
//     total;
//   - each role's dominant share, when the role sorter reports shares, is
//     the share of its subtree's holdings in the cluster, divided by its
//     weight;
//   - launched tasks run on known agents, and a task that ended is gone
//     from the framework's tasks;
//
// and after an allocation run, CheckRun and the rules that depend on what
// the harness told the allocator: GPU agents only to GPU-capable
// frameworks (unless allowed to all), regions, minimum allocatable
// resources, offer constraints, the whitelist, and no offers while paused.
// With Options.Fast, see "Fast checks" in the package doc for how. It
// returns a *Violation, or nil.
func (h *Harness) Step(ev Event) error {
	if h.fast {
		return h.stepFast(ev)
	}
	h.steps++
	h.expire()
	before := Take(h.a)
	eff := &h.eff
	eff.reset()
	eff.base = &before
	h.a.Fingerprint(&h.base)
	h.current = eff
	h.apply(ev, before, eff)
	h.current = nil

	h.logStep(ev, eff)
	h.a.Fingerprint(&h.next)
	errs := h.checkCall(eff)
	errs = append(errs, h.checkTwins(eff.run, &h.next)...)
	errs = append(errs, h.checkNextRun()...)
	errs = append(errs, h.takeDeferred()...)
	if err := h.a.CheckInvariants(); err != nil {
		errs = append(errs, fmt.Errorf("invariants: %w", err))
	}
	after := Take(h.a)
	errs = append(errs, checkViewsAll(after)...)
	if eff.run != nil {
		errs = append(errs, h.afterRun(ev, *eff.run, &h.base, before, after, nil)...)
	}
	errs = append(errs, checkVolumes(before, after, eff)...)
	errs = append(errs, h.checkShares(after)...)
	errs = append(errs, h.checkTasks(after)...)
	if len(errs) > 0 {
		return &Violation{Step: h.steps, Event: ev, Call: eff.call, Err: errors.Join(errs...)}
	}
	return nil
}

func (h *Harness) logStep(ev Event, eff *effects) {
	outcome := "ok"
	if eff.err != nil {
		outcome = "error: " + eff.err.Error()
	}
	fmt.Fprintf(&h.log, "%d %s: %s -> %s\n", h.steps, ev, eff.call, outcome)
}

// checkCall checks the outcome of a step's main call: a bad input must
// fail with the error its case names, every error must be one of the
// allocator's named errors, and a failed call must leave the state as it
// was.
func (h *Harness) checkCall(eff *effects) []error {
	errs := eff.errs
	if eff.bad && eff.err == nil {
		errs = append(errs, fmt.Errorf("bad input accepted, want %v", eff.want))
	}
	if eff.err == nil {
		return errs
	}
	if eff.want != nil && !errors.Is(eff.err, eff.want) {
		errs = append(errs, fmt.Errorf("error %q does not wrap %q", eff.err, eff.want))
	}
	if !isNamed(eff.err) {
		errs = append(errs, fmt.Errorf("error %q wraps none of the allocator's named errors", eff.err))
	}
	base := &h.base
	if h.fast && !eff.rebased {
		base = &h.fp
	}
	if !base.Equal(&h.next) {
		msg := "a failed call changed the state: " + fingerprintDiff(base, &h.next)
		if eff.base != nil {
			msg += ":\n" + diff(eff.base.String(), Take(h.a).String())
		}
		errs = append(errs, errors.New(msg))
	}
	return errs
}

// fingerprintDiff names the parts of the state whose fingerprints differ.
func fingerprintDiff(a, b *allocator.Fingerprint) string {
	var parts []string
	i, j := 0, 0
	for i < len(a.Agents) || j < len(b.Agents) {
		switch {
		case j == len(b.Agents) || (i < len(a.Agents) && a.Agents[i].ID < b.Agents[j].ID):
			parts = append(parts, "agent "+a.Agents[i].ID+" removed")
			i++
		case i == len(a.Agents) || a.Agents[i].ID > b.Agents[j].ID:
			parts = append(parts, "agent "+b.Agents[j].ID+" added")
			j++
		default:
			if a.Agents[i].Hash != b.Agents[j].Hash {
				parts = append(parts, "agent "+a.Agents[i].ID)
			}
			i++
			j++
		}
	}
	if a.Rest != b.Rest {
		parts = append(parts, "roles, frameworks, tasks, whitelist or pausing")
	}
	if a.Filters != b.Filters {
		parts = append(parts, "refusal filters")
	}
	if a.Reclaim != b.Reclaim {
		parts = append(parts, "tasks chosen to end")
	}
	return strings.Join(parts, "; ")
}

// afterRun logs the run a step made and checks it: that it changed
// nothing but what frameworks are offered (base is the fingerprint before
// it, h.next the one after), CheckRun's rules (on the agents changed, when
// changed is not nil), the rules that depend on what the harness told the
// allocator, and, after AllocateAll, work conservation. Its offers and
// inverse offers become outstanding.
func (h *Harness) afterRun(ev Event, res allocator.Result, base *allocator.Fingerprint, before, after Views, changed map[string]bool) []error {
	h.logRun(res)
	var errs []error
	if h.next.Rest != base.Rest {
		errs = append(errs, errors.New("the run changed more than offers: roles, frameworks, tasks, inverse-offer statuses, the whitelist or pausing"))
	}
	if ev.Kind != AllocateAll && h.next.Filters != base.Filters {
		errs = append(errs, errors.New("a run that is not periodic changed the refusal filters"))
	}
	errs = append(errs, checkRun(before, res, after, changed)...)
	errs = append(errs, h.checkRunRules(before, res)...)
	errs = append(errs, h.checkPreemptions(res)...)
	if ev.Kind == AllocateAll {
		errs = append(errs, h.checkConservation(res, before)...)
	}
	h.offers = append(h.offers, res.Offers...)
	h.inverse = append(h.inverse, res.InverseOffers...)
	return errs
}

// Verify runs the checks of the whole state now: Check, roles' shares,
// the frameworks the events made and their tasks. A Fast harness runs
// them every FullCheckEvery steps and Run after the last event; with Fast,
// a violation is replayed as after a step.
func (h *Harness) Verify() error {
	if h.failed != nil {
		return h.failed
	}
	if !h.fast {
		s := Take(h.a)
		errs := checkViewsAll(s)
		if err := h.a.CheckInvariants(); err != nil {
			errs = append(errs, fmt.Errorf("invariants: %w", err))
		}
		errs = append(errs, h.checkShares(s)...)
		errs = append(errs, h.checkTasks(s)...)
		if len(errs) > 0 {
			return &Violation{Step: h.steps, Call: wholeStateCheck, Err: errors.Join(errs...)}
		}
		return nil
	}
	if errs := h.wholeState(); len(errs) > 0 {
		return h.replay(&Violation{Step: h.steps, Call: wholeStateCheck, Err: errors.Join(errs...)})
	}
	return nil
}

// expire lifts a whitelist and ends a pause whose steps are over, and
// reports whether it did.
func (h *Harness) expire() bool {
	acted := false
	if h.whitelistLeft > 0 {
		if h.whitelistLeft--; h.whitelistLeft == 0 {
			h.a.UpdateWhitelist(nil)
			h.whitelist = nil
			acted = true
			if h.text {
				h.log.WriteString("  UpdateWhitelist(none)\n")
			}
		}
	}
	if h.pauseLeft > 0 {
		if h.pauseLeft--; h.pauseLeft == 0 {
			h.a.Resume()
			h.paused = false
			acted = true
			if h.text {
				h.log.WriteString("  Resume()\n")
			}
		}
	}
	return acted
}

// Observe records a run made outside the harness (by a Runner, say): its
// offers and inverse offers become outstanding, and it is logged. A Fast
// harness must be the allocator's only driver: Observe panics.
func (h *Harness) Observe(res allocator.Result) {
	if h.fast {
		panic("allocatortest: Observe on a harness with Options.Fast")
	}
	h.logRun(res)
	h.notePreemptions(res)
	h.offers = append(h.offers, res.Offers...)
	h.inverse = append(h.inverse, res.InverseOffers...)
	h.a.Fingerprint(&h.next)
	h.deferred = append(h.deferred, h.checkTwins(&res, &h.next)...)
}

// takeDeferred returns the violations found outside steps, and forgets
// them.
func (h *Harness) takeDeferred() []error {
	errs := h.deferred
	h.deferred = nil
	return errs
}

func (h *Harness) logRun(res allocator.Result) {
	if !h.text {
		return
	}
	for _, o := range res.Offers {
		fmt.Fprintf(&h.log, "  offer %s %s %s %s: %s\n", o.ID, o.FrameworkID, o.Role, o.AgentID, o.Resources.Unallocate())
	}
	for _, o := range res.InverseOffers {
		fmt.Fprintf(&h.log, "  inverse offer %s %s %s: from %s for %s\n", o.ID, o.FrameworkID, o.AgentID, o.Unavailability.Start.Sub(h.start), o.Unavailability.Duration)
	}
	for _, p := range res.Preemptions {
		fmt.Fprintf(&h.log, "  %s, held for %s for a task of %s\n", p, p.ForFramework, p.ForTask)
	}
	for _, p := range res.Withdrawn {
		fmt.Fprintf(&h.log, "  withdrawn: %s\n", p)
	}
}

var named = []error{
	allocator.ErrUnknownFramework, allocator.ErrDuplicateFramework, allocator.ErrUnknownAgent,
	allocator.ErrDuplicateAgent, allocator.ErrInvalidID, allocator.ErrInvalidRole,
	allocator.ErrInvalidResources, allocator.ErrInvalidWeight, allocator.ErrInvalidQuota,
	allocator.ErrNotHeld, allocator.ErrNotAvailable, allocator.ErrRoleNotSubscribed,
	allocator.ErrOperation, allocator.ErrInvalidStatus, allocator.ErrInvalidOptions,
	allocator.ErrUnknownTask, allocator.ErrDuplicateTask, allocator.ErrOverflow,
	allocator.ErrInvalidHold, allocator.ErrUnknownOffer, allocator.ErrSnapshotSorter,
	allocator.ErrInvalidSnapshot, allocator.ErrInvalidDemand,
}
