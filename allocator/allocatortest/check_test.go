package allocatortest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

func res(text string) resources.Resources { return resources.MustParse(text, "") }

// agentView is an agent of 4 cpus and 4096 mem with what is given offered
// to framework f.
func agentView(offered string) allocator.AgentView {
	v := allocator.AgentView{
		ID: "a1", Active: true, Total: res("cpus:4;mem:4096"),
		Offered: map[string]resources.Resources{}, Allocated: map[string]resources.Resources{},
	}
	v.Available = v.Total
	if offered != "" {
		o := res(offered)
		v.Offered["f"] = o
		v.Available = v.Total.Minus(o.Unallocate())
	}
	return v
}

func snapshot(agent allocator.AgentView) Views {
	return Views{
		Agents:     []allocator.AgentView{agent},
		Frameworks: []allocator.FrameworkView{{ID: "f", Active: true, Roles: []string{"r"}, Offered: agent.Offered["f"]}},
		Roles:      []allocator.RoleView{{Role: "r", Weight: 1, Frameworks: []string{"f"}}},
	}
}

func wantViolation(t *testing.T, errs []error, fragment string) {
	t.Helper()
	err := errors.Join(errs...)
	if err == nil || !strings.Contains(err.Error(), fragment) {
		t.Fatalf("want a violation with %q, got %v", fragment, err)
	}
}

func TestCheckSnapshotConservation(t *testing.T) {
	v := agentView("cpus(allocated: r):1")
	s := snapshot(v)
	s.Roles[0].OfferedOrAllocated = resources.MustParseQuantities("cpus:1")
	s.Roles[0].Consumed = s.Roles[0].OfferedOrAllocated
	if errs := checkViewsAll(s); len(errs) > 0 {
		t.Fatalf("consistent snapshot: %v", errs)
	}
	s.Agents[0].Available = res("cpus:2;mem:4096") // a cpu lost
	wantViolation(t, checkViewsAll(s), "available + offered + allocated")
	s.Roles[0].Consumed = resources.Quantities{}
	wantViolation(t, checkViewsAll(s), "consumed {}, reserved + allocated = cpus:1")
}

func TestCheckSnapshotReservationOutsideSubtree(t *testing.T) {
	v := agentView("cpus(allocated: r)(reservations: [(DYNAMIC,other,p)]):1")
	v.Total = res("cpus:3;mem:4096;cpus(reservations: [(DYNAMIC,other,p)]):1")
	v.Available = res("cpus:3;mem:4096")
	wantViolation(t, checkViewsAll(snapshot(v)), "outside the reservation's subtree")
}

func TestCheckSnapshotFilters(t *testing.T) {
	s := snapshot(agentView(""))
	s.Filters = []allocator.FilterView{{Framework: "gone", Role: "r", Agent: "a1", Refused: res("cpus:1")}}
	wantViolation(t, checkViewsAll(s), "unknown framework gone")
	s.Filters = []allocator.FilterView{{Framework: "f", Role: "r", Agent: "a9", Refused: res("cpus:1")}}
	wantViolation(t, checkViewsAll(s), "unknown agent a9")
}

func run(offers ...offer.Offer) allocator.Result {
	return allocator.Result{Offers: offers, Stats: allocator.RunStats{Offers: len(offers)}}
}

func TestCheckRunOfferedTwice(t *testing.T) {
	before := snapshot(agentView(""))
	before.Frameworks = append(before.Frameworks, allocator.FrameworkView{ID: "g", Active: true, Roles: []string{"r"}})
	after := snapshot(agentView(""))
	after.Agents[0].Offered = map[string]resources.Resources{"f": res("cpus(allocated: r):3"), "g": res("cpus(allocated: r):3")}
	res := run(
		offer.Offer{ID: "o1", FrameworkID: "f", Role: "r", AgentID: "a1", Resources: res("cpus(allocated: r):3")},
		offer.Offer{ID: "o2", FrameworkID: "g", Role: "r", AgentID: "a1", Resources: res("cpus(allocated: r):3")},
	)
	wantViolation(t, checkRun(before, res, after, nil), "more than was available")
}

func TestCheckRunRules(t *testing.T) {
	before := snapshot(agentView(""))
	after := snapshot(agentView("cpus(allocated: r):1"))
	ok := offer.Offer{ID: "o1", FrameworkID: "f", Role: "r", AgentID: "a1", Resources: res("cpus(allocated: r):1")}
	if errs := checkRun(before, run(ok), after, nil); len(errs) > 0 {
		t.Fatalf("a good run: %v", errs)
	}

	wrongRole := ok
	wrongRole.Resources = res("cpus(allocated: s):1")
	wantViolation(t, checkRun(before, run(wrongRole), after, nil), `carries allocation role "s"`)

	suppressed := before
	suppressed.Frameworks = []allocator.FrameworkView{{ID: "f", Active: true, Roles: []string{"r"}, Suppressed: []string{"r"}}}
	wantViolation(t, checkRun(suppressed, run(ok), after, nil), "suppressed the role")

	filtered := before
	filtered.Filters = []allocator.FilterView{{Framework: "f", Role: "r", Agent: "a1", Refused: res("cpus:2"), Expires: time.Unix(1, 0)}}
	wantViolation(t, checkRun(filtered, run(ok), after, nil), "covered by a refusal")

	unchanged := snapshot(agentView(""))
	wantViolation(t, checkRun(before, run(ok), unchanged, nil), "plus the run's offers")

	twice := run(ok, ok)
	twice.Offers[1].ID = "o2"
	wantViolation(t, checkRun(before, twice, after, nil), "two offers to f in role r on agent a1")
}

func TestCheckRunLimits(t *testing.T) {
	before := snapshot(agentView(""))
	after := snapshot(agentView("cpus(allocated: r):3"))
	limited := allocator.Quota{Limits: resources.MustParseLimits("cpus:2")}
	before.Roles[0].Quota = limited
	after.Roles[0].Quota = limited
	after.Roles[0].OfferedOrAllocated = resources.MustParseQuantities("cpus:3")
	after.Roles[0].Consumed = after.Roles[0].OfferedOrAllocated
	o := offer.Offer{ID: "o1", FrameworkID: "f", Role: "r", AgentID: "a1", Resources: res("cpus(allocated: r):3")}
	wantViolation(t, checkRun(before, run(o), after, nil), "above its limit")

	// A role already above its limit before the run is not the run's doing.
	before = after
	if errs := checkRun(before, run(), after, nil); len(errs) > 0 {
		t.Fatalf("no offer, no violation: %v", errs)
	}
}

// leakySorter forgets what is given back, as a sorter with a bookkeeping
// bug would.
type leakySorter struct{ sorter.Sorter }

func (leakySorter) Unallocated(string, string, resources.Resources) error { return nil }

// The harness catches an allocator whose bookkeeping goes wrong.
func TestHarnessCatchesBrokenBookkeeping(t *testing.T) {
	leaky := func(c sorter.Config) sorter.Sorter { return leakySorter{sorter.NewDRF(c)} }
	opts := Options{Allocator: allocator.Options{RoleSorter: leaky}}
	s, err := ParseSequence(`seed 1
add-agent 0 0 0 0
add-framework 0 1 0 0
allocate 0 0 0 0
decline 0 0 0 0
`)
	if err != nil {
		t.Fatal(err)
	}
	err = RunSequence(opts, s)
	var v *Violation
	if !errors.As(err, &v) || v.Step != 4 || !strings.Contains(err.Error(), "role sorter") {
		t.Fatalf("want a violation at step 4 about the role sorter, got %v", err)
	}
}

func TestSequenceText(t *testing.T) {
	p := gopter.DefaultGenParameters()
	p.Rng = rand.New(rand.NewSource(1))
	for range 50 {
		v, _ := GenSequence(DefaultMix(), 40)(p).Retrieve()
		s := v.(Sequence)
		back, err := ParseSequence(s.String())
		if err != nil {
			t.Fatal(err)
		}
		if back.String() != s.String() {
			t.Fatalf("text round trip:\n%s\nbecame\n%s", s, back)
		}
		if d := Decode(Encode(s)); d.String() != s.String() {
			t.Fatalf("byte round trip:\n%s\nbecame\n%s", s, d)
		}
	}
	for _, bad := range []string{"seed x", "allocate 1 2 3", "explode 0 0 0 0", "allocate 0 0 0 256"} {
		if _, err := ParseSequence(bad); err == nil {
			t.Errorf("ParseSequence(%q) took it", bad)
		}
	}
}

func TestDecodeAnyBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for range 200 {
		data := make([]byte, rng.Intn(64))
		rng.Read(data)
		s := Decode(data)
		// Each five bytes are an event, or a corner's events.
		want, corners := 0, 0
		for rest := data[min(2, len(data)):]; len(rest) >= eventBytes; rest = rest[eventBytes:] {
			want++
			if Kind(rest[0]%uint8(NumKinds)) == Corners {
				corners++
			}
		}
		if corners == 0 && len(s.Events) != want || corners > 0 && len(s.Events) <= want {
			t.Fatalf("%d bytes (%d corners) gave %d events, want %d", len(data), corners, len(s.Events), want)
		}
		for _, e := range s.Events {
			if e.Kind >= NumKinds || e.Kind == Corners {
				t.Fatalf("kind %s: out of range, or a corner not expanded", e.Kind)
			}
		}
	}
}

func TestShrinkSequence(t *testing.T) {
	s := Sequence{Seed: 3, Events: make([]Event, 8)}
	for i := range s.Events {
		s.Events[i] = Event{Kind: Kind(i), Args: [4]uint8{uint8(i)}}
	}
	shrink := shrinkSequence(s)
	var lens []int
	for {
		v, ok := shrink()
		if !ok {
			break
		}
		c := v.(Sequence)
		if c.Seed != s.Seed {
			t.Fatal("shrinking changed the seed")
		}
		lens = append(lens, len(c.Events))
	}
	// Halves, then quarters, then single events.
	want := []int{4, 4, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7}
	if len(lens) != len(want) {
		t.Fatalf("shrunk lengths %v, want %v", lens, want)
	}
	for i := range want {
		if lens[i] != want[i] {
			t.Fatalf("shrunk lengths %v, want %v", lens, want)
		}
	}
}

func TestMix(t *testing.T) {
	only := Only(DeclineOffer, Advance)
	p := gopter.DefaultGenParameters()
	p.Rng = rand.New(rand.NewSource(4))
	seen := map[Kind]int{}
	for range 200 {
		v, _ := GenEvent(only)(p).Retrieve()
		seen[v.(Event).Kind]++
	}
	if len(seen) != 2 || seen[DeclineOffer] == 0 || seen[Advance] == 0 {
		t.Fatalf("kinds drawn: %v", seen)
	}
	for k := range NumKinds {
		if DefaultMix()[k] <= 0 {
			t.Errorf("the default mix leaves out %s", k)
		}
		if got, ok := ParseKind(k.String()); !ok || got != k {
			t.Errorf("kind %d does not round-trip through %q", k, k)
		}
	}
}

// A Fast harness keeps every agent's view as the allocator shows it, and
// finds no violation where a harness that checks everything after every
// step finds none.
func TestFastKeepsViews(t *testing.T) {
	for _, c := range Configs() {
		for _, s := range Sequences(5, 8, c.Mix, 60) {
			opts := c.Options
			opts.Allocator.Seed = s.Seed
			opts.Fast = true
			h, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			for i, ev := range s.Events {
				if err := h.Step(ev); err != nil {
					t.Fatalf("%s: %v\n%s", c.Name, err, s)
				}
				want := h.a.Agents()
				if len(want) != len(h.agentList) {
					t.Fatalf("%s: step %d: %d agents kept, the allocator has %d", c.Name, i+1, len(h.agentList), len(want))
				}
				for j, v := range want {
					if got := (Snapshot{Agents: h.agentList[j : j+1]}).String(); got != (Snapshot{Agents: []allocator.AgentView{v}}).String() {
						t.Fatalf("%s: step %d (%s): agent kept as\n%s\nthe allocator shows\n%s", c.Name, i+1, ev, got, Views{Agents: []allocator.AgentView{v}})
					}
				}
			}
			if err := h.Verify(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// An entry may sum past resources.MaxScalar (an unreserved part merged
// back into an agent's largest cpus); conservation still holds.
func TestCheckAgentPastMaxScalar(t *testing.T) {
	total := res("cpus:1000000000000").Plus(res("cpus:0.75"))
	v := allocator.AgentView{
		ID: "a1", Total: total, Available: res("mem:1"),
		Offered:   map[string]resources.Resources{"f": total.Allocate("r")},
		Allocated: map[string]resources.Resources{},
	}
	v.Total = v.Total.Plus(res("mem:1"))
	if errs := checkAgent(v, func(string) bool { return true }); len(errs) > 0 {
		t.Fatalf("consistent agent: %v", errs)
	}
	v.Available = resources.Resources{}
	wantViolation(t, checkAgent(v, func(string) bool { return true }), "available + offered + allocated")
}

// Each corner, after an agent with a shared volume and a framework of its
// role that takes shared resources, reaches the state it is named for.
func TestCornersReachTheirStates(t *testing.T) {
	setup := EncodeBiased(Sequence{Seed: 1, Events: []Event{
		{Kind: AddAgent, Args: [4]uint8{0, 1, 0x80, 0}},
		{Kind: AddFramework, Args: [4]uint8{0, 1, 1, 0}},
	}})
	want := map[Corner][]string{
		FilterAtExpiry: {"refuse 5s) declining", "advance 5s", "AllocateAll() = 0 offers", "advance 1ms", "AllocateAll() = 1 offers"},
		NearCap:        {"AddAgent(a1, cpus:999999999999"},
		QuotaAtLimit:   {"UpdateQuota(a, guarantees cpus:2; mem:1024, limits cpus:2; mem:1024) -> ok"},
		SharedInUse:    {"<SHARED>:300]", "-> error: allocator: operation rejected"},
		DeclinedAgain:  {"AcceptEach(f0, a0, declined offer-1", "-> error: allocator: resources not held"},
		EndedTwice:     {"EndTask(f0, t1) -> ok", "EndTask(f0, t1) -> error: allocator: unknown task", "EndTask(f0, no-such-task) -> error: allocator: unknown task"},
		QuotaOverflow:  {"guarantees cpus:1000000000000) with 0 cpus guaranteed to other roles -> ok", "an amount above 1000000000000, the bound of quota values"},
	}
	args := map[Corner][4]byte{
		FilterAtExpiry: {0, 0, 1, 0},
		NearCap:        {1, 0, 0, 0},
		QuotaAtLimit:   {0, 1, 0, 0},
		SharedInUse:    {1, 1, 0x80, 0},
		DeclinedAgain:  {0, 0, 0, 0},
		EndedTwice:     {0, 0, 0, 0},
		QuotaOverflow:  {0, 0, 1, 0},
	}
	for c := range NumCorners {
		x := args[c]
		data := append(slices.Clone(setup), byte(kindSlots+int(c)), x[0], x[1], x[2], x[3])
		s := DecodeBiased(data)
		h, err := New(Options{Allocator: allocator.Options{Seed: s.Seed}})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Run(s.Events); err != nil {
			t.Fatalf("corner %d: %v", c, err)
		}
		log := h.Log()
		for _, w := range want[c] {
			if !strings.Contains(log, w) {
				t.Errorf("corner %d: the log lacks %q:\n%s", c, w, log)
			}
		}
	}
}

// A seed draws the sequences it drew before end-task, accept-each,
// overflow, preempt, snapshot-restore, the corners and update-demand
// joined DefaultMix, once their weights are zero: the first of the
// sequences seed 1 drew then, with its hash.
func TestSeedsDrawTheSequencesTheyDrew(t *testing.T) {
	mix := DefaultMix()
	mix[EndTask], mix[AcceptEach], mix[Overflow], mix[Preempt], mix[SnapshotRestore], mix[Corners] = 0, 0, 0, 0, 0, 0
	mix[UpdateDemand] = 0
	s := Sequences(1, 1, mix, 80)[0]
	if want := "seed 39439; add-agent 129 134 57 172; add-agent 164 198 175 162; add-agent 88 26 139 149"; !strings.HasPrefix(s.Line(), want) {
		t.Errorf("sequence starts %.90s, want %s", s.Line(), want)
	}
	if got := fmt.Sprintf("%x", sha256.Sum256([]byte(s.Line()))); len(s.Events) != 77 || got != "4836ee8850c05cf931068bb33ef166892e1174c83c5382e445559f2849c195a6" {
		t.Errorf("sequence of %d events with hash %s, want 77 events with the hash of before", len(s.Events), got)
	}
}

// The reclaim configuration's sequences choose tasks to end, for
// guarantees and for fair shares (for the pending tasks frameworks
// state), withdraw some choices, and end some of the tasks as a host
// would.
func TestReclaimConfigurationReclaims(t *testing.T) {
	var config Config
	for _, c := range Configs() {
		if c.Name == "reclaim" {
			config = c
		}
	}
	if config.Name == "" {
		t.Fatal("no reclaim configuration")
	}
	var guarantee, fair, withdrawn, ended int
	for _, s := range Sequences(1, 120, config.Mix, 80) {
		opts := config.Options
		opts.Allocator.Seed = s.Seed
		opts.Log = true
		h, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Run(s.Events); err != nil {
			t.Fatal(err)
		}
		log := h.Log()
		guarantee += strings.Count(log, "(guarantee): frees")
		fair += strings.Count(log, "(fair share): frees")
		withdrawn += strings.Count(log, "withdrawn: ")
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, "EndTask(") && !strings.Contains(line, "no-such-task") && !strings.Contains(line, "rror") {
				ended++
			}
		}
	}
	t.Logf("%d chosen for guarantees, %d for fair shares, %d withdrawn, %d tasks ended", guarantee, fair, withdrawn, ended)
	if guarantee == 0 || fair == 0 || withdrawn == 0 || ended == 0 {
		t.Fatalf("120 sequences chose %d tasks for guarantees and %d for fair shares, withdrew %d, and ended %d", guarantee, fair, withdrawn, ended)
	}
}
