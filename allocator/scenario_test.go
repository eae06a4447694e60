package allocator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// epoch is where scenario clocks start.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// scenario is the state of one scenario file: an allocator, its virtual
// clock, and what was offered but not yet answered.
type scenario struct {
	a   *Allocator
	now time.Time
}

// TestScenarios runs the files under testdata/scenarios. Each line is an
// event, a run or a check; after every command the accounting invariants
// are checked. Regenerate expectations with -rewrite, then read the diff.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata/scenarios", func(t *testing.T, path string) {
		s := &scenario{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out := s.run(t, d)
			if s.a != nil {
				if err := checkConservation(s.a); err != nil {
					t.Fatalf("%s: after %q: %v", d.Pos, d.Cmd, err)
				}
				if err := s.a.CheckInvariants(); err != nil {
					t.Fatalf("%s: after %q: %v", d.Pos, d.Cmd, err)
				}
			}
			return out
		})
	})
}

func (s *scenario) clock() time.Time { return s.now }

func arg(d *datadriven.TestData, key string) (string, bool) {
	a, ok := d.Arg(key)
	if !ok {
		return "", false
	}
	if len(a.Vals) == 0 {
		return "", true
	}
	return strings.Join(a.Vals, ","), true
}

func argList(d *datadriven.TestData, key string) []string {
	a, ok := d.Arg(key)
	if !ok {
		return nil
	}
	var out []string
	for _, v := range a.Vals {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func mustArg(t *testing.T, d *datadriven.TestData, key string) string {
	t.Helper()
	v, ok := arg(d, key)
	if !ok {
		d.Fatalf(t, "missing argument %s", key)
	}
	return v
}

func parseCaps(t *testing.T, d *datadriven.TestData, list []string) offer.Capabilities {
	var caps offer.Capabilities
	for _, name := range list {
		c, ok := offer.ParseCapability(name)
		if !ok {
			d.Fatalf(t, "unknown capability %q", name)
		}
		caps |= c
	}
	return caps
}

func parseDuration(t *testing.T, d *datadriven.TestData, text string) time.Duration {
	dur, err := time.ParseDuration(text)
	if err != nil {
		d.Fatalf(t, "bad duration %q", text)
	}
	return dur
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return "error: " + err.Error()
}

func (s *scenario) run(t *testing.T, d *datadriven.TestData) string {
	if d.Cmd != "new" && s.a == nil {
		d.Fatalf(t, "first command must be new")
	}
	switch d.Cmd {
	case "new":
		s.now = epoch
		opts := Options{Clock: s.clock}
		if v, ok := arg(d, "seed"); ok {
			if _, err := fmt.Sscan(v, &opts.Seed); err != nil {
				t.Fatalf("%s: seed %q: %v", d.Pos, v, err)
			}
		}
		if v, ok := arg(d, "min-allocatable"); ok {
			mins, err := ParseMinAllocatable(strings.ReplaceAll(v, ",", ";"))
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			opts.MinAllocatable = mins
		}
		if v, ok := arg(d, "interval"); ok {
			opts.AllocationInterval = parseDuration(t, d, v)
		}
		opts.FairnessExcludedResources = argList(d, "exclude")
		if v, ok := arg(d, "region"); ok {
			opts.Region = v
		}
		if d.HasArg("allow-gpus") {
			opts.AllowGPUsToAll = true
		}
		if v, ok := arg(d, "sorter"); ok && v == "random" {
			opts.RoleSorter = func(c sorter.Config) sorter.Sorter { return sorter.NewRandom(c) }
			opts.FrameworkSorter = opts.RoleSorter
		}
		a, err := New(opts)
		if err != nil {
			return errText(err)
		}
		s.a = a
		return "ok"

	case "add-agent":
		info := AgentInfo{Hostname: mustArg(t, d, "id")}
		if v, ok := arg(d, "host"); ok {
			info.Hostname = v
		}
		info.Region, _ = arg(d, "region")
		info.Attributes = parseAttrs(argList(d, "attrs"))
		info.Capabilities = parseCaps(t, d, argList(d, "caps"))
		text, _, _ := strings.Cut(d.Input, "---\n")
		total, err := resources.Parse(text, "*")
		if err != nil {
			return errText(err)
		}
		return errText(s.a.AddAgent(mustArg(t, d, "id"), info, total, s.parseUsed(t, d)))

	case "update-agent":
		id := mustArg(t, d, "id")
		cur, ok := s.a.cs.Agents.Lookup(id)
		info := AgentInfo{}
		if ok {
			info = AgentInfo(cur.Info).clone()
		}
		if d.HasArg("attrs") {
			info.Attributes = parseAttrs(argList(d, "attrs"))
		}
		if d.HasArg("caps") {
			info.Capabilities = parseCaps(t, d, argList(d, "caps"))
		}
		var total *resources.Resources
		if strings.TrimSpace(d.Input) != "" {
			r, err := resources.Parse(d.Input, "*")
			if err != nil {
				return errText(err)
			}
			total = &r
		}
		return errText(s.a.UpdateAgent(id, info, total))

	case "remove-agent":
		return errText(s.a.RemoveAgent(mustArg(t, d, "id")))
	case "deactivate-agent":
		return errText(s.a.DeactivateAgent(mustArg(t, d, "id")))
	case "activate-agent":
		return errText(s.a.ActivateAgent(mustArg(t, d, "id")))
	case "whitelist":
		if d.HasArg("none") {
			s.a.UpdateWhitelist(nil)
		} else {
			s.a.UpdateWhitelist(append([]string{}, argList(d, "hosts")...))
		}
		return "ok"

	case "add-framework":
		info := FrameworkInfo{
			Roles:           argList(d, "roles"),
			Capabilities:    parseCaps(t, d, argList(d, "caps")),
			SuppressedRoles: argList(d, "suppressed"),
		}
		info.Principal, _ = arg(d, "principal")
		if v, ok := arg(d, "min-allocatable"); ok {
			role, text, _ := strings.Cut(v, "=")
			mins, err := ParseMinAllocatable(strings.ReplaceAll(text, ",", ";"))
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			info.MinAllocatable = map[string][]resources.Quantities{role: mins}
		}
		if v, ok := arg(d, "constraint"); ok {
			// constraint=role:attr=value (OpEquals) or role:attr (OpExists)
			role, c, _ := strings.Cut(v, ":")
			attr, value, eq := strings.Cut(c, "=")
			ac := AttributeConstraint{Attribute: attr, Op: OpExists}
			if eq {
				ac = AttributeConstraint{Attribute: attr, Op: OpEquals, Value: value}
			}
			info.Constraints = map[string]Constraints{role: {{ac}}}
		}
		return errText(s.a.AddFramework(mustArg(t, d, "id"), info, s.parseUsedByAgent(t, d), Activation(!d.HasArg("inactive"))))

	case "update-framework":
		id := mustArg(t, d, "id")
		fw, ok := s.a.cs.Frameworks.Lookup(id)
		info := FrameworkInfo{}
		if ok {
			info = publicInfo(fw.Info).clone()
		}
		if d.HasArg("roles") {
			info.Roles = argList(d, "roles")
		}
		if d.HasArg("caps") {
			info.Capabilities = parseCaps(t, d, argList(d, "caps"))
		}
		if d.HasArg("suppressed") {
			info.SuppressedRoles = argList(d, "suppressed")
		}
		return errText(s.a.UpdateFramework(id, info))

	case "remove-framework":
		return errText(s.a.RemoveFramework(mustArg(t, d, "id")))
	case "deactivate-framework":
		return errText(s.a.DeactivateFramework(mustArg(t, d, "id")))
	case "activate-framework":
		return errText(s.a.ActivateFramework(mustArg(t, d, "id")))
	case "suppress":
		return errText(s.a.SuppressOffers(mustArg(t, d, "framework"), argList(d, "roles")...))
	case "revive":
		return errText(s.a.ReviveOffers(mustArg(t, d, "framework"), argList(d, "roles")...))

	case "weights":
		w := map[string]float64{}
		for _, a := range d.CmdArgs {
			var f float64
			if _, err := fmt.Sscan(a.Vals[0], &f); err != nil {
				t.Fatalf("%s: weight %q: %v", d.Pos, a.Vals[0], err)
			}
			w[a.Key] = f
		}
		return errText(s.a.UpdateWeights(w))

	case "quota":
		var q Quota
		var err error
		if v, ok := arg(d, "guarantees"); ok {
			if q.Guarantees, err = resources.ParseQuantities(strings.ReplaceAll(v, ",", ";")); err != nil {
				return errText(err)
			}
		}
		if v, ok := arg(d, "limits"); ok {
			if q.Limits, err = resources.ParseLimits(strings.ReplaceAll(v, ",", ";")); err != nil {
				return errText(err)
			}
		}
		return errText(s.a.UpdateQuota(mustArg(t, d, "role"), q))

	case "allocate":
		var res Result
		if d.HasArg("all") {
			res = s.a.AllocateAll()
		} else {
			res = s.a.Allocate()
		}
		return formatResult(res, d.HasArg("stats"))

	case "decline":
		// Give back everything offered to the framework on the agent in the
		// role, with an optional refusal.
		fwID, agentID := mustArg(t, d, "framework"), mustArg(t, d, "agent")
		var filter *Filter
		if v, ok := arg(d, "refuse"); ok {
			filter = &Filter{Refuse: parseDuration(t, d, v)}
		}
		ag, ok := s.a.cs.Agents.Lookup(agentID)
		if !ok {
			return errText(s.a.RecoverResources(fwID, agentID, resources.Resources{}, filter))
		}
		held := ag.Offered.Get(fwID)
		if role, ok := arg(d, "role"); ok {
			held = held.AllocatedTo(role)
		}
		return errText(s.a.RecoverResources(fwID, agentID, held, filter))

	case "recover":
		// recover framework=f agent=a role=r [refuse=d]: the resources of
		// tasks that ended, on the input line.
		fwID, agentID, role := mustArg(t, d, "framework"), mustArg(t, d, "agent"), mustArg(t, d, "role")
		var filter *Filter
		if v, ok := arg(d, "refuse"); ok {
			filter = &Filter{Refuse: parseDuration(t, d, v)}
		}
		res, err := resources.Parse(d.Input, "*")
		if err != nil {
			return errText(err)
		}
		return errText(s.a.RecoverAllocated(fwID, agentID, res.Allocate(role), filter))

	case "accept", "update-allocation":
		// accept framework=f agent=a role=r [refuse=d]: the operations are
		// on the input lines; the offered resources are everything offered
		// to f on a in r.
		fwID, agentID, role := mustArg(t, d, "framework"), mustArg(t, d, "agent"), mustArg(t, d, "role")
		ops, err := parseOps(d.Input, role)
		if err != nil {
			return errText(err)
		}
		offered := resources.Resources{}
		if ag, ok := s.a.cs.Agents.Lookup(agentID); ok {
			offered = ag.Offered.Get(fwID).AllocatedTo(role)
		}
		if d.Cmd == "update-allocation" {
			return errText(s.a.UpdateAllocation(fwID, agentID, offered, ops))
		}
		var filter *Filter
		if v, ok := arg(d, "refuse"); ok {
			filter = &Filter{Refuse: parseDuration(t, d, v)}
		}
		return errText(s.a.Accept(fwID, agentID, offered, ops, filter))

	case "update-available":
		ops, err := parseOps(d.Input, "")
		if err != nil {
			return errText(err)
		}
		return errText(s.a.UpdateAvailable(mustArg(t, d, "agent"), ops))

	case "unavailability":
		agentID := mustArg(t, d, "agent")
		if d.HasArg("clear") {
			return errText(s.a.UpdateUnavailability(agentID, nil))
		}
		u := &offer.Unavailability{Start: epoch.Add(parseDuration(t, d, mustArg(t, d, "start")))}
		if v, ok := arg(d, "duration"); ok {
			u.Duration = parseDuration(t, d, v)
		}
		return errText(s.a.UpdateUnavailability(agentID, u))

	case "inverse-response":
		var status InverseOfferStatus
		switch mustArg(t, d, "status") {
		case "accept":
			status = Accept
		case "decline":
			status = Decline
		}
		var filter *Filter
		if v, ok := arg(d, "refuse"); ok {
			filter = &Filter{Refuse: parseDuration(t, d, v)}
		}
		return errText(s.a.UpdateInverseOffer(mustArg(t, d, "agent"), mustArg(t, d, "framework"), status, filter))

	case "advance":
		s.now = s.now.Add(parseDuration(t, d, mustArg(t, d, "by")))
		return fmt.Sprintf("now: +%s", s.now.Sub(epoch))

	case "pause":
		s.a.Pause()
		return "ok"
	case "resume":
		s.a.Resume()
		return "ok"

	case "describe":
		return strings.TrimSpace(s.a.Describe())
	case "agents":
		var b strings.Builder
		for _, v := range s.a.Agents() {
			fmt.Fprintf(&b, "%s available: %s\n", v.ID, v.Available)
		}
		return strings.TrimSpace(b.String())
	case "roles":
		var b strings.Builder
		for _, r := range s.a.Roles() {
			fmt.Fprintf(&b, "%s weight=%g consumed=%s", r.Role, r.Weight, r.Consumed)
			if r.Share >= 0 {
				fmt.Fprintf(&b, " share=%.4f", r.Share)
			}
			b.WriteByte('\n')
		}
		return strings.TrimSpace(b.String())
	case "filters":
		var b strings.Builder
		for _, f := range s.a.Filters() {
			fmt.Fprintf(&b, "%s/%s on %s until +%s: %s\n", f.Framework, f.Role, f.Agent, f.Expires.Sub(epoch), f.Refused)
		}
		if b.Len() == 0 {
			return "none"
		}
		return strings.TrimSpace(b.String())
	case "explain":
		// explain framework=f | role=r: why the latest run offered what it
		// did, with the agents behind each reason.
		var x Explanation
		var err error
		if v, ok := arg(d, "framework"); ok {
			x, err = s.a.Explain(v)
		} else {
			x, err = s.a.ExplainRole(mustArg(t, d, "role"))
		}
		if err != nil {
			return errText(err)
		}
		return x.Describe()
	case "skips":
		skips := s.a.Skips(mustArg(t, d, "framework"))
		if len(skips) == 0 {
			return "none"
		}
		var parts []string
		for _, r := range skipReasons {
			if n := skips[r]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s=%d", r, n))
			}
		}
		return strings.Join(parts, " ")
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func parseAttrs(list []string) map[string]string {
	if len(list) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, kv := range list {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// parseUsed reads what frameworks already use on a new agent: the lines
// after a "---" line of add-agent's input, "framework role: resources".
func (s *scenario) parseUsed(t *testing.T, d *datadriven.TestData) map[string]resources.Resources {
	_, rest, ok := strings.Cut(d.Input, "---\n")
	if !ok {
		return nil
	}
	return usedLines(t, d, rest)
}

// parseUsedByAgent reads add-framework's input: "agent role: resources"
// lines of what the framework already uses.
func (s *scenario) parseUsedByAgent(t *testing.T, d *datadriven.TestData) map[string]resources.Resources {
	if strings.TrimSpace(d.Input) == "" {
		return nil
	}
	return usedLines(t, d, d.Input)
}

func usedLines(t *testing.T, d *datadriven.TestData, input string) map[string]resources.Resources {
	used := map[string]resources.Resources{}
	for line := range strings.Lines(input) {
		head, text, ok := strings.Cut(line, ":")
		if !ok {
			d.Fatalf(t, "bad used line %q", line)
		}
		f := strings.Fields(head)
		if len(f) != 2 {
			d.Fatalf(t, "bad used line %q", line)
		}
		r, err := resources.Parse(text, "*")
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		cur := used[f[0]]
		cur.Add(r.Allocate(f[1]))
		used[f[0]] = cur
	}
	return used
}

// parseOps reads one operation per line, "kind: resources", tagging the
// resources with role (when not empty):
//
//	reserve: cpus(reservations: [(DYNAMIC,r,p)]):1
//	unreserve: ...     create: ...     destroy: ...     launch: ...
//	grow: VOLUME + ADDITION            shrink: VOLUME - AMOUNT
func parseOps(input, role string) ([]offer.Operation, error) {
	tag := func(text string) (resources.Resources, error) {
		r, err := resources.Parse(text, "*")
		if err != nil || role == "" {
			return r, err
		}
		return r.Allocate(role), nil
	}
	var ops []offer.Operation
	for line := range strings.Lines(input) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		kind, text, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("bad operation line %q", line)
		}
		text = strings.TrimSpace(text)
		switch kind {
		case "reserve", "unreserve", "create", "destroy", "launch":
			r, err := tag(text)
			if err != nil {
				return nil, err
			}
			switch kind {
			case "reserve":
				ops = append(ops, offer.Reserve{Resources: r})
			case "unreserve":
				ops = append(ops, offer.Unreserve{Resources: r})
			case "create":
				ops = append(ops, offer.Create{Volumes: r})
			case "destroy":
				ops = append(ops, offer.Destroy{Volumes: r})
			case "launch":
				ops = append(ops, offer.Launch{Tasks: []offer.Task{{ID: fmt.Sprintf("task-%d", len(ops)+1), Resources: r}}})
			}
		case "grow":
			v, add, _ := strings.Cut(text, " + ")
			vol, err := tag(v)
			if err != nil {
				return nil, err
			}
			addition, err := tag(add)
			if err != nil {
				return nil, err
			}
			vols := vol.Slice()
			if len(vols) != 1 {
				return nil, fmt.Errorf("grow needs one volume")
			}
			ops = append(ops, offer.GrowVolume{Volume: vols[0], Addition: addition})
		case "shrink":
			v, amount, _ := strings.Cut(text, " - ")
			vol, err := tag(v)
			if err != nil {
				return nil, err
			}
			q, err := resources.ParseQuantities("x:" + amount)
			if err != nil {
				return nil, err
			}
			vols := vol.Slice()
			if len(vols) != 1 {
				return nil, fmt.Errorf("shrink needs one volume")
			}
			ops = append(ops, offer.ShrinkVolume{Volume: vols[0], Subtract: q.Scalar("x")})
		default:
			return nil, fmt.Errorf("unknown operation %q", kind)
		}
	}
	return ops, nil
}

func formatResult(res Result, stats bool) string {
	var b strings.Builder
	for _, o := range res.Offers {
		fmt.Fprintf(&b, "%s %s %s: %s\n", o.FrameworkID, o.Role, o.AgentID, o.Resources.Unallocate())
	}
	for _, o := range res.InverseOffers {
		fmt.Fprintf(&b, "inverse %s %s: from +%s\n", o.FrameworkID, o.AgentID, o.Unavailability.Start.Sub(epoch))
	}
	if stats {
		fmt.Fprintf(&b, "stats: agents=%d skipped-agents=%d offers=%d", res.Stats.Agents, res.Stats.SkippedAgents, res.Stats.Offers)
		if res.Stats.Capped > 0 {
			fmt.Fprintf(&b, " capped-roles=%d", res.Stats.Capped)
		}
		if res.Stats.Unchanged > 0 {
			fmt.Fprintf(&b, " unchanged=%d", res.Stats.Unchanged)
		}
		if res.Stats.Refused > 0 {
			fmt.Fprintf(&b, " refused=%d", res.Stats.Refused)
		}
		for _, r := range skipReasons {
			if n := res.Stats.Skips[r]; n > 0 {
				fmt.Fprintf(&b, " %s=%d", r, n)
			}
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "no offers"
	}
	return strings.TrimSpace(b.String())
}

// checkConservation verifies, for every agent, that available plus what is
// offered plus what is allocated (shared volumes once) equals the total,
// unless the agent is over-allocated.
func checkConservation(a *Allocator) error {
	for i, ag := range a.cs.AgentList {
		id := ag.ID
		if i > 0 && a.cs.AgentList[i-1].ID >= id {
			return fmt.Errorf("agent ids out of order")
		}
		if ag.OverAllocated {
			continue
		}
		sum := ag.Available.Clone()
		for _, fw := range ag.Offered.IDs() {
			sum.Add(ag.Offered.Get(fw).NonShared().Unallocate())
		}
		for _, fw := range ag.Allocated.IDs() {
			sum.Add(ag.Allocated.Get(fw).NonShared().Unallocate())
		}
		if !sum.Equal(ag.Total) {
			return fmt.Errorf("agent %s: available+offered+allocated = %s, total %s", id, sum, ag.Total)
		}
	}
	return nil
}
