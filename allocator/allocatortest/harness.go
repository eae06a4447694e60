package allocatortest

import (
	"errors"
	"fmt"
	"slices"
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
	// reserved for; nil means DefaultRoles. At most eight are used.
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
}

// Harness owns an allocator, a virtual clock, the offers and inverse offers
// not yet answered, and a log of every event and run. It turns Events into
// allocator calls against the state it finds, and after every step checks
// the allocator (see Step). It is not safe for concurrent use; a host that
// drives it from several goroutines serialises the calls, for example
// through allocator.Runner.Do.
type Harness struct {
	opts     Options
	a        *allocator.Allocator
	now      time.Time
	start    time.Time
	agentIDs []string
	fwIDs    []string
	roles    []string
	excluded resources.NameSet

	agentInfo map[string]allocator.AgentInfo
	fwInfo    map[string]allocator.FrameworkInfo
	whitelist map[string]bool // nil: every agent
	paused    bool
	// Steps left before the harness lifts the whitelist or resumes.
	whitelistLeft, pauseLeft int

	offers  []offer.Offer
	inverse []offer.InverseOffer

	steps   int
	ids     int
	parsed  map[string]resources.Resources
	log     strings.Builder
	current *effects
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
	for _, r := range opts.Roles {
		if err := reservation.ValidateRole(r); err != nil || r == reservation.Any {
			return nil, fmt.Errorf("allocatortest: role %q: %w", r, err)
		}
	}
	if opts.QuotaRoles == nil {
		opts.QuotaRoles = opts.Roles
	}
	if opts.Start.IsZero() {
		opts.Start = DefaultStart
	}
	h := &Harness{
		opts:      opts,
		now:       opts.Start,
		start:     opts.Start,
		roles:     slices.Clone(opts.Roles),
		excluded:  resources.NewNameSet(opts.Allocator.FairnessExcludedResources...),
		agentInfo: map[string]allocator.AgentInfo{},
		fwInfo:    map[string]allocator.FrameworkInfo{},
		parsed:    map[string]resources.Resources{},
	}
	for i := range opts.Agents {
		h.agentIDs = append(h.agentIDs, fmt.Sprintf("a%d", i))
	}
	for i := range opts.Frameworks {
		h.fwIDs = append(h.fwIDs, fmt.Sprintf("f%d", i))
	}
	ao := opts.Allocator
	ao.Clock = h.Now
	a, err := allocator.New(ao)
	if err != nil {
		return nil, err
	}
	h.a = a
	return h, nil
}

// Allocator returns the allocator the harness drives.
func (h *Harness) Allocator() *allocator.Allocator { return h.a }

// Now returns the virtual time; it is the allocator's clock.
func (h *Harness) Now() time.Time { return h.now }

// Offers returns the offers made and not yet answered (some may have been
// rescinded by later events; the harness drops those when it next looks).
func (h *Harness) Offers() []offer.Offer { return slices.Clone(h.offers) }

// Log returns the record of every step: the event, the call it became and
// its outcome, and the offers and inverse offers of every run. The same
// events on the same options give the same log, byte for byte.
func (h *Harness) Log() string { return h.log.String() }

// Violation is a broken property found after a step.
type Violation struct {
	// Step counts the harness's steps from 1.
	Step  int
	Event Event
	// Call is what the event became, as logged.
	Call string
	Err  error
}

func (v *Violation) Error() string {
	return fmt.Sprintf("step %d (%s): %s: %v", v.Step, v.Event, v.Call, v.Err)
}

func (v *Violation) Unwrap() error { return v.Err }

// Run steps through events and returns the first violation.
func (h *Harness) Run(events []Event) error {
	for _, e := range events {
		if err := h.Step(e); err != nil {
			return err
		}
	}
	return nil
}

// effects collects what a step did, for the checks after it.
type effects struct {
	// baseline is Describe before the step's main call.
	baseline string
	call     string
	err      error
	// want is the error a BadInput event must return.
	want error
	bad  bool
	run  *allocator.Result
	// volumesFree: agents whose volumes may change any way (a new total,
	// removal); volumeOps: volumes that operations of the step named.
	volumesFree map[string]bool
	volumeOps   map[string]map[volumeKey]bool
}

type volumeKey struct{ role, id string }

// Step applies one event and checks, whatever the event:
//
//   - Check (the allocator's bookkeeping and its views);
//   - an event that returns an error returns one of the allocator's named
//     errors and leaves Describe unchanged; a BadInput event returns the
//     error its case names;
//   - persistent volumes disappear or change size only through an
//     operation that names them (destroy, grow, shrink) or a new total or
//     removal of their agent, and appear only through create or a new
//     total;
//   - each role's dominant share, when the role sorter reports shares, is
//     the share of its subtree's holdings in the cluster, divided by its
//     weight;
//
// and after an allocation run, CheckRun and the rules that depend on what
// the harness told the allocator: GPU agents only to GPU-capable
// frameworks (unless allowed to all), regions, minimum allocatable
// resources, offer constraints, the whitelist, and no offers while paused.
// It returns a *Violation, or nil.
func (h *Harness) Step(ev Event) error {
	h.steps++
	h.expire()
	before := Take(h.a)
	eff := &effects{volumesFree: map[string]bool{}, volumeOps: map[string]map[volumeKey]bool{}, baseline: h.a.Describe()}
	h.current = eff
	h.apply(ev, before, eff)
	h.current = nil

	outcome := "ok"
	if eff.err != nil {
		outcome = "error: " + eff.err.Error()
	}
	fmt.Fprintf(&h.log, "%d %s: %s -> %s\n", h.steps, ev, eff.call, outcome)

	var errs []error
	if eff.bad && eff.err == nil {
		errs = append(errs, fmt.Errorf("bad input accepted, want %v", eff.want))
	}
	if eff.err != nil {
		if eff.want != nil && !errors.Is(eff.err, eff.want) {
			errs = append(errs, fmt.Errorf("error %q does not wrap %q", eff.err, eff.want))
		}
		if !isNamed(eff.err) {
			errs = append(errs, fmt.Errorf("error %q wraps none of the allocator's named errors", eff.err))
		}
		if after := h.a.Describe(); after != eff.baseline {
			errs = append(errs, fmt.Errorf("a failed call changed the state:\n%s", diff(eff.baseline, after)))
		}
	}
	if err := h.a.CheckInvariants(); err != nil {
		errs = append(errs, fmt.Errorf("invariants: %w", err))
	}
	after := Take(h.a)
	errs = append(errs, checkSnapshot(after)...)
	if eff.run != nil {
		h.logRun(*eff.run)
		errs = append(errs, checkRun(before, *eff.run, after)...)
		errs = append(errs, h.checkRunRules(before, *eff.run)...)
		h.offers = append(h.offers, eff.run.Offers...)
		h.inverse = append(h.inverse, eff.run.InverseOffers...)
	}
	errs = append(errs, checkVolumes(before, after, eff)...)
	errs = append(errs, h.checkShares(after)...)
	if len(errs) > 0 {
		return &Violation{Step: h.steps, Event: ev, Call: eff.call, Err: errors.Join(errs...)}
	}
	return nil
}

// expire lifts a whitelist and ends a pause whose steps are over.
func (h *Harness) expire() {
	if h.whitelistLeft > 0 {
		if h.whitelistLeft--; h.whitelistLeft == 0 {
			h.a.UpdateWhitelist(nil)
			h.whitelist = nil
			h.log.WriteString("  UpdateWhitelist(none)\n")
		}
	}
	if h.pauseLeft > 0 {
		if h.pauseLeft--; h.pauseLeft == 0 {
			h.a.Resume()
			h.paused = false
			h.log.WriteString("  Resume()\n")
		}
	}
}

// Observe records a run made outside the harness (by a Runner, say): its
// offers and inverse offers become outstanding, and it is logged.
func (h *Harness) Observe(res allocator.Result) {
	h.logRun(res)
	h.offers = append(h.offers, res.Offers...)
	h.inverse = append(h.inverse, res.InverseOffers...)
}

func (h *Harness) logRun(res allocator.Result) {
	for _, o := range res.Offers {
		fmt.Fprintf(&h.log, "  offer %s %s %s %s: %s\n", o.ID, o.FrameworkID, o.Role, o.AgentID, o.Resources.Unallocate())
	}
	for _, o := range res.InverseOffers {
		fmt.Fprintf(&h.log, "  inverse offer %s %s %s: from %s for %s\n", o.ID, o.FrameworkID, o.AgentID, o.Unavailability.Start.Sub(h.start), o.Unavailability.Duration)
	}
}

var named = []error{
	allocator.ErrUnknownFramework, allocator.ErrDuplicateFramework, allocator.ErrUnknownAgent,
	allocator.ErrDuplicateAgent, allocator.ErrInvalidID, allocator.ErrInvalidRole,
	allocator.ErrInvalidResources, allocator.ErrInvalidWeight, allocator.ErrInvalidQuota,
	allocator.ErrNotHeld, allocator.ErrNotAvailable, allocator.ErrRoleNotSubscribed,
	allocator.ErrOperation, allocator.ErrInvalidStatus, allocator.ErrInvalidOptions,
}

func isNamed(err error) bool {
	for _, e := range named {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// diff shows the lines of two texts that differ.
func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			fmt.Fprintf(&out, "- %s\n+ %s\n", x, y)
		}
	}
	return out.String()
}

// volumes returns an agent's persistent volumes by role and id.
func volumes(v allocator.AgentView) map[volumeKey]string {
	out := map[volumeKey]string{}
	for r := range v.Total.PersistentVolumes().All() {
		out[volumeKey{r.Role(), r.Disk.Persistence.ID}] = r.String()
	}
	return out
}

func checkVolumes(before, after Snapshot, eff *effects) []error {
	var errs []error
	for _, v := range before.Agents {
		if eff.volumesFree[v.ID] {
			continue
		}
		w, ok := after.Agent(v.ID)
		if !ok {
			errs = append(errs, fmt.Errorf("agent %s disappeared", v.ID))
			continue
		}
		was, now := volumes(v), volumes(w)
		ops := eff.volumeOps[v.ID]
		for k, r := range was {
			if ops[k] {
				continue
			}
			if s, ok := now[k]; !ok {
				errs = append(errs, fmt.Errorf("agent %s: volume %s lost without an operation naming it", v.ID, r))
			} else if s != r {
				errs = append(errs, fmt.Errorf("agent %s: volume %s became %s without an operation naming it", v.ID, r, s))
			}
		}
		for k, r := range now {
			if _, ok := was[k]; !ok && !ops[k] {
				errs = append(errs, fmt.Errorf("agent %s: volume %s appeared without an operation naming it", v.ID, r))
			}
		}
	}
	return errs
}

// checkShares compares the role sorter's shares with the holdings.
func (h *Harness) checkShares(s Snapshot) []error {
	var errs []error
	var totals resources.Quantities
	held := map[string]resources.Quantities{}
	for _, v := range s.Agents {
		totals.Add(v.Total.Quantities())
		byRole := map[string]resources.Resources{}
		for _, m := range []map[string]resources.Resources{v.Offered, v.Allocated} {
			for _, fw := range sortedKeys(m) {
				for _, role := range m[fw].AllocationRoles() {
					cur := byRole[role]
					cur.Add(m[fw].AllocatedTo(role))
					byRole[role] = cur
				}
			}
		}
		for role, r := range byRole {
			q := held[role]
			q.Add(r.Quantities())
			held[role] = q
		}
	}
	for _, r := range s.Roles {
		if r.Share < 0 {
			continue
		}
		var sub resources.Quantities
		for _, role := range sortedKeys(held) {
			if reservation.IsSubroleOrSelf(role, r.Role) {
				sub.Add(held[role])
			}
		}
		share, _ := sub.DominantShare(totals, h.excluded)
		want := share / r.Weight
		if d := want - r.Share; d > 1e-9 || d < -1e-9 {
			errs = append(errs, fmt.Errorf("role %s: share %v, holdings %s of %s at weight %v give %v", r.Role, r.Share, sub, totals, r.Weight, want))
		}
	}
	return errs
}

// checkRunRules checks the offers of a run against what the harness told
// the allocator.
func (h *Harness) checkRunRules(before Snapshot, res allocator.Result) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if h.paused && (len(res.Offers) > 0 || len(res.InverseOffers) > 0) {
		fail("a paused allocator made %d offers and %d inverse offers", len(res.Offers), len(res.InverseOffers))
	}
	opts := h.opts.Allocator
	for _, o := range res.Offers {
		where := fmt.Sprintf("offer %s to %s in role %s on %s", o.ID, o.FrameworkID, o.Role, o.AgentID)
		info, fok := h.fwInfo[o.FrameworkID]
		v, _ := before.Agent(o.AgentID)
		ainfo := h.agentInfo[o.AgentID]
		if !fok {
			continue
		}
		if !opts.AllowGPUsToAll && v.Total.Quantities().Scalar("gpus") > 0 && !info.Capabilities.Has(offer.GPUResources) {
			fail("%s: an agent with GPUs to a framework without GPU_RESOURCES", where)
		}
		if opts.Region != "" && ainfo.Region != "" && ainfo.Region != opts.Region && !info.Capabilities.Has(offer.RegionAware) {
			fail("%s: an agent in region %q to a framework that is not region aware", where, ainfo.Region)
		}
		mins, ok := info.MinAllocatable[o.Role]
		if !ok {
			mins = opts.MinAllocatable
			if mins == nil {
				mins = allocator.DefaultMinAllocatable()
			}
		}
		if len(mins) > 0 && !slices.ContainsFunc(mins, o.Resources.ContainsQuantities) {
			fail("%s: %s is below the minimum allocatable %v", where, o.Resources, mins)
		}
		if cs, ok := info.Constraints[o.Role]; ok && !admits(cs, ainfo.Attributes) {
			fail("%s: the framework's constraints %v exclude the agent's attributes %v", where, cs, ainfo.Attributes)
		}
		if h.whitelist != nil && !h.whitelist[ainfo.Hostname] {
			fail("%s: host %q is not on the whitelist", where, ainfo.Hostname)
		}
	}
	return errs
}

func admits(cs allocator.Constraints, attrs map[string]string) bool {
	if len(cs) == 0 {
		return true
	}
	for _, g := range cs {
		all := true
		for _, c := range g {
			v, ok := attrs[c.Attribute]
			var holds bool
			switch c.Op {
			case allocator.Exists:
				holds = ok
			case allocator.NotExists:
				holds = !ok
			case allocator.Equals:
				holds = ok && v == c.Value
			case allocator.NotEquals:
				holds = !ok || v != c.Value
			}
			if !holds {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
