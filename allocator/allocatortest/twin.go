package allocatortest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
)

// Twins: allocators that take the same events as the harness's and must
// give the same results.
//
// The live allocator's journal (Options.Journal) feeds every event it
// takes to its twins as it takes it (Allocator.Apply):
//
//   - the cache-free twin, made with allocator.Options.CacheFree from the
//     start: every run of the live allocator must make the same offers and
//     inverse offers as the twin's run, and leave the same views (the
//     fingerprint after every step, what is left of the frameworks'
//     statements of demand, the roles' figures and shares after every
//     run). A cache that outlives the event that should have ended
//     it shows as a difference at the first run that reads it;
//   - restored twins, made by SnapshotRestore events from the live
//     allocator's snapshot: for the rest of the sequence they must give
//     the same offers, every view (Describe) and, after every run, the
//     same Explain for every framework and role.
//
// Both check the journal too: an entry the twin does not take as the live
// allocator took it is a violation.

// twin is an allocator fed the live allocator's journal.
type twin struct {
	name string
	a    *allocator.Allocator
	// runs are the results of the allocation entries applied and not yet
	// compared (a host's Runner may make runs between steps); err the
	// first entry the twin refused.
	runs []allocator.Result
	err  error
	// restored: a restored twin, compared in full (Describe, Explain).
	restored bool
	// since is the number of the last run the allocator had made when
	// the twin was made: the twin knows only later runs; dropped the
	// number of the latest run dropped from runs unobserved.
	since, dropped uint64
}

// maxTwinRuns bounds the runs a twin keeps for comparison: runs made by
// a host's Runner that the harness never observes, or observes only after
// this many later runs, are compared through the state alone.
const maxTwinRuns = 64

// maxRestoredTwins bounds the restored twins a harness keeps: a new one
// replaces the oldest.
const maxRestoredTwins = 2

// journal is the live allocator's journal hook: it applies every entry to
// every twin, then hands it to the host's hook, if any.
func (h *Harness) journal(e allocator.Entry) {
	for _, t := range h.twins {
		if t.err != nil {
			continue
		}
		res, err := t.a.Apply(e)
		if err != nil {
			t.err = fmt.Errorf("the %s twin refused the entry %s: %w", t.name, e.Event, err)
			continue
		}
		if e.Event == allocator.EventAllocate || e.Event == allocator.EventAllocateAll {
			if len(t.runs) == maxTwinRuns {
				t.dropped = max(t.dropped, t.runs[0].Stats.Run)
				t.runs = slices.Delete(t.runs, 0, 1)
			}
			t.runs = append(t.runs, res)
		}
	}
	if h.opts.Allocator.Journal != nil {
		h.opts.Allocator.Journal(e)
	}
}

// newCacheFreeTwin makes the cache-free twin of a new harness's allocator.
func (h *Harness) newCacheFreeTwin() error {
	o := h.opts.Allocator
	o.Clock, o.Journal, o.Observer, o.Stopwatch, o.CacheFree = h.Now, nil, nil, nil, true
	a, err := allocator.New(o)
	if err != nil {
		return err
	}
	h.twins = append(h.twins, &twin{name: "cache-free", a: a})
	return nil
}

// addRestoredTwin keeps a restored copy of the live allocator as a twin.
func (h *Harness) addRestoredTwin(a *allocator.Allocator) {
	restored := 0
	for _, t := range h.twins {
		if t.restored {
			restored++
		}
	}
	if restored == maxRestoredTwins {
		i := slices.IndexFunc(h.twins, func(t *twin) bool { return t.restored })
		h.twins = slices.Delete(h.twins, i, i+1)
	}
	h.twins = append(h.twins, &twin{name: fmt.Sprintf("restored (step %d)", h.steps), a: a, restored: true, since: h.a.LastRun().Run})
}

// checkTwins compares the twins with the live allocator after a step: run
// is the step's run, if it made one, and fp the live allocator's
// fingerprint after the step.
func (h *Harness) checkTwins(run *allocator.Result, fp *allocator.Fingerprint) []error {
	var errs []error
	var liveRoles []allocator.RoleView
	var liveText string
	var liveExplain []string
	for _, t := range h.twins {
		if t.err != nil {
			errs = append(errs, t.err)
			t.err = nil
			continue
		}
		if run != nil && (run.Stats.Run > max(t.since, t.dropped) || run.Stats.Run == 0) {
			// Runs made outside the harness and not observed, or
			// observed after maxTwinRuns later runs, are compared
			// through the state only.
			i := slices.IndexFunc(t.runs, func(r allocator.Result) bool { return r.Stats.Run == run.Stats.Run })
			if i < 0 {
				errs = append(errs, fmt.Errorf("the %s twin made no run %d", t.name, run.Stats.Run))
				continue
			}
			twinRun := t.runs[i]
			t.runs = slices.Delete(t.runs, i, i+1)
			if err := sameRun(*run, twinRun); err != nil {
				errs = append(errs, fmt.Errorf("the %s twin's run differs from the allocator's: %w", t.name, err))
				continue
			}
		}
		if h.fast && run == nil && h.steps%h.opts.OracleEvery != 0 {
			// With Fast, states are compared after runs and every
			// OracleEvery steps; a difference shows at the next run in
			// any case.
			continue
		}
		t.a.Fingerprint(&h.twinFP)
		if !h.twinFP.Equal(fp) {
			errs = append(errs, fmt.Errorf("the %s twin's state differs from the allocator's: %s:\n%s", t.name,
				fingerprintDiff(fp, &h.twinFP), diff(h.a.Describe(), t.a.Describe())))
			continue
		}
		if err := h.checkTwinDemand(t); err != nil {
			errs = append(errs, err)
			continue
		}
		if run == nil {
			continue
		}
		if liveRoles == nil {
			liveRoles = h.a.Roles()
		}
		if err := sameRoles(liveRoles, t.a.Roles()); err != nil {
			errs = append(errs, fmt.Errorf("after the run, the %s twin's roles differ from the allocator's: %w", t.name, err))
			continue
		}
		if !t.restored {
			continue
		}
		if liveText == "" {
			liveText, liveExplain = h.a.Describe(), explainAll(h.a)
		}
		if got := t.a.Describe(); got != liveText {
			errs = append(errs, fmt.Errorf("after the run, the %s twin differs from the allocator:\n%s", t.name, diff(liveText, got)))
			continue
		}
		if got := explainAll(t.a); !slices.Equal(got, liveExplain) {
			errs = append(errs, fmt.Errorf("after the run, the %s twin explains the run otherwise:\n%s", t.name,
				diff(strings.Join(liveExplain, "\n"), strings.Join(got, "\n"))))
		}
	}
	return errs
}

// explainAll renders Explain for every framework and ExplainRole for every
// role, in order.
func explainAll(a *allocator.Allocator) []string {
	var out []string
	for _, f := range a.Frameworks() {
		x, err := a.Explain(f.ID)
		out = append(out, explainText("framework "+f.ID, x, err))
	}
	for _, r := range a.Roles() {
		x, err := a.ExplainRole(r.Role)
		out = append(out, explainText("role "+r.Role, x, err))
	}
	return out
}

func explainText(what string, x allocator.Explanation, err error) string {
	if err != nil {
		return what + ": " + err.Error()
	}
	return what + ": " + x.Describe()
}

// sameRun reports how two runs differ in what they offer, the tasks they
// choose to end and the choices they withdraw.
func sameRun(want, got allocator.Result) error {
	if want.Stats.Run != got.Stats.Run {
		return fmt.Errorf("run %d, want %d", got.Stats.Run, want.Stats.Run)
	}
	same := len(want.Offers) == len(got.Offers) && len(want.InverseOffers) == len(got.InverseOffers) &&
		len(want.Preemptions) == len(got.Preemptions) && len(want.Withdrawn) == len(got.Withdrawn)
	for i := 0; same && i < len(want.Offers); i++ {
		w, g := want.Offers[i], got.Offers[i]
		same = w.ID == g.ID && w.FrameworkID == g.FrameworkID && w.AgentID == g.AgentID && w.Role == g.Role && w.Resources.Equal(g.Resources)
	}
	for i := 0; same && i < len(want.InverseOffers); i++ {
		w, g := want.InverseOffers[i], got.InverseOffers[i]
		same = w.ID == g.ID && w.FrameworkID == g.FrameworkID && w.AgentID == g.AgentID &&
			w.Unavailability.Start.Equal(g.Unavailability.Start) && w.Unavailability.Duration == g.Unavailability.Duration
	}
	for i := 0; same && i < len(want.Preemptions); i++ {
		same = want.Preemptions[i].String() == got.Preemptions[i].String() && want.Preemptions[i].ForFramework == got.Preemptions[i].ForFramework
	}
	for i := 0; same && i < len(want.Withdrawn); i++ {
		same = want.Withdrawn[i].String() == got.Withdrawn[i].String() && want.Withdrawn[i].ForFramework == got.Withdrawn[i].ForFramework
	}
	if !same {
		return errors.New("offers differ (- want, + got):\n" + diff(runText(want), runText(got)))
	}
	return nil
}

// runText renders a run's offers, inverse offers, preemptions and
// withdrawals one per line.
func runText(res allocator.Result) string {
	var b strings.Builder
	for _, o := range res.Offers {
		fmt.Fprintf(&b, "offer %s %s %s %s: %s\n", o.ID, o.FrameworkID, o.Role, o.AgentID, o.Resources)
	}
	for _, o := range res.InverseOffers {
		fmt.Fprintf(&b, "inverse offer %s %s %s: %s for %s\n", o.ID, o.FrameworkID, o.AgentID, o.Unavailability.Start.Format(time.RFC3339Nano), o.Unavailability.Duration)
	}
	for _, p := range res.Preemptions {
		fmt.Fprintf(&b, "%s, held for %s\n", p, p.ForFramework)
	}
	for _, p := range res.Withdrawn {
		fmt.Fprintf(&b, "withdrawn: %s, held for %s\n", p, p.ForFramework)
	}
	return b.String()
}

// sameRoles reports how two lists of role views differ.
func sameRoles(want, got []allocator.RoleView) error {
	same := len(want) == len(got)
	for i := 0; same && i < len(want); i++ {
		w, g := &want[i], &got[i]
		same = w.Role == g.Role && w.Weight == g.Weight && w.Share == g.Share &&
			w.Quota.Guarantees.Equal(g.Quota.Guarantees) && w.Quota.Limits.Equal(g.Quota.Limits) &&
			w.Reserved.Equal(g.Reserved) && w.OfferedOrAllocated.Equal(g.OfferedOrAllocated) && slices.Equal(w.Frameworks, g.Frameworks)
	}
	if same {
		return nil
	}
	line := func(r allocator.RoleView) string {
		return fmt.Sprintf("role %s weight=%g share=%v quota=%s/%s reserved=%s allocated=%s frameworks=%v",
			r.Role, r.Weight, r.Share, r.Quota.Guarantees, r.Quota.Limits, r.Reserved, r.OfferedOrAllocated, r.Frameworks)
	}
	var w, g strings.Builder
	for _, r := range want {
		w.WriteString(line(r) + "\n")
	}
	for _, r := range got {
		g.WriteString(line(r) + "\n")
	}
	if w.String() != g.String() {
		return errors.New(diff(w.String(), g.String()))
	}
	return nil
}
