package placement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The cluster of the table tests: agents a1 to a6, two per zone (a, b, c)
// and one per rack in each zone; a7 has no zone.
var zonesOf = map[string]string{"a1": "a", "a2": "a", "a3": "b", "a4": "b", "a5": "c", "a6": "c"}

func cluster() map[string]Agent {
	out := map[string]Agent{}
	for i := 1; i <= 7; i++ {
		id := fmt.Sprintf("a%d", i)
		attrs := Attributes{"rack": fmt.Sprintf("r%d", 1+(i+1)%2)}
		if z, ok := zonesOf[id]; ok {
			attrs["zone"] = z
		}
		out[id] = Agent{Attributes: attrs}
	}
	return out
}

// offerOn returns offer "o<n>" of agent "a<n>" to role, of the resources
// in text.
func offerOn(n int, role, text string) offer.Offer {
	return offer.Offer{
		ID: fmt.Sprintf("o%d", n), FrameworkID: "fw", AgentID: fmt.Sprintf("a%d", n), Role: role,
		Resources: resources.MustParse(text, "*").Allocate(role),
	}
}

// uniform returns offers o1..on to "web", each of the resources in text.
func uniform(n int, text string) []offer.Offer {
	out := make([]offer.Offer, n)
	for i := range out {
		out[i] = offerOn(i+1, "web", text)
	}
	return out
}

// sized returns an offer to "web" per text, o1 on a1 first.
func sized(texts ...string) []offer.Offer {
	out := make([]offer.Offer, len(texts))
	for i, text := range texts {
		out[i] = offerOn(i+1, "web", text)
	}
	return out
}

// tasks returns n tasks "<prefix>1".. of group, each asking for need, with
// edit applied to each.
func tasks(n int, prefix, group, need string, edit ...func(*Task)) []Task {
	out := make([]Task, n)
	for i := range out {
		out[i] = Task{ID: fmt.Sprintf("%s%d", prefix, i+1), Group: group, Resources: resources.MustParseQuantities(need)}
		for _, e := range edit {
			e(&out[i])
		}
	}
	return out
}

func constrained(fs ...Filter) func(*Task) { return func(t *Task) { t.Constraints = fs } }
func preferring(rs ...Ranker) func(*Task)  { return func(t *Task) { t.Preferences = rs } }

// where prints "t1@a1 t2@a3 t3@-": each task's agent, in task order.
func where(in Input, res Result) string {
	at := map[string]string{}
	for _, a := range res.Assignments {
		at[a.TaskID] = a.AgentID
	}
	var b strings.Builder
	for i, t := range in.Tasks {
		if i > 0 {
			b.WriteByte(' ')
		}
		agent, ok := at[t.ID]
		if !ok {
			agent = "-"
		}
		b.WriteString(t.ID + "@" + agent)
	}
	return b.String()
}

const small = "cpus:4;mem:4096;ports:[31000-31004]"

func TestPlaceTable(t *testing.T) {
	evenAgents := Predicate("even agents", func(_ Task, c Candidate) bool {
		return strings.ContainsAny(c.AgentID(), "246")
	})
	lastAgent := Score("last agent", func(_ Task, c Candidate) float64 {
		return float64(c.AgentID()[1]-'0') / 10
	})
	for _, tc := range []struct {
		name string
		in   Input
		want string
	}{
		// Without rankers every offer scores 0: first fit by agent id,
		// each task seeing what the ones before it took.
		{"first fit", Input{Tasks: tasks(3, "t", "", "cpus:3;mem:1024"), Offers: uniform(6, small)},
			"t1@a1 t2@a2 t3@a3"},
		{"earlier tasks fill an offer", Input{Tasks: tasks(5, "t", "", "cpus:1;mem:512"), Offers: uniform(6, small)},
			"t1@a1 t2@a1 t3@a1 t4@a1 t5@a2"},
		{"resources fit", Input{Tasks: tasks(2, "t", "", "cpus:1;mem:3000"), Offers: sized("cpus:4;mem:2048", "cpus:4;mem:4096", "cpus:4;mem:3000")},
			"t1@a2 t2@a3"},
		{"a resource no offer has", Input{Tasks: tasks(1, "t", "", "cpus:1;gpus:1"), Offers: uniform(2, small)},
			"t1@-"},

		// Attribute filters; a7 has no zone.
		{"attribute equals", Input{Tasks: tasks(3, "t", "", "cpus:3", constrained(AttributeEquals("zone", "b"))), Offers: uniform(7, small), Agents: cluster()},
			"t1@a3 t2@a4 t3@-"},
		{"attribute in", Input{Tasks: tasks(5, "t", "", "cpus:3"), Offers: uniform(7, small), Agents: cluster(), Filters: []Filter{AttributeIn("zone", "a", "c")}},
			"t1@a1 t2@a2 t3@a5 t4@a6 t5@-"},
		{"attribute not in admits agents without it", Input{Tasks: tasks(6, "t", "", "cpus:3", constrained(AttributeNotIn("zone", "a"))), Offers: uniform(7, small), Agents: cluster()},
			"t1@a3 t2@a4 t3@a5 t4@a6 t5@a7 t6@-"},
		{"an unknown value matches nothing", Input{Tasks: tasks(1, "t", "", "cpus:1", constrained(AttributeEquals("zone", "z"))), Offers: uniform(3, small), Agents: cluster()},
			"t1@-"},

		// Host ports: five per offer.
		{"host ports free", Input{Tasks: tasks(3, "t", "", "cpus:1", func(t *Task) { t.Ports = Ports{Count: 3} }), Offers: uniform(6, small)},
			"t1@a1 t2@a2 t3@a3"},
		{"a given host port", Input{Tasks: tasks(3, "t", "", "cpus:1", func(t *Task) { t.Ports = Ports{Numbers: []uint64{31002}} }), Offers: uniform(2, small)},
			"t1@a1 t2@a2 t3@-"},

		// Group filters count running tasks and tasks placed before.
		{"unique host", Input{Tasks: tasks(3, "t", "g", "cpus:1", constrained(UniqueHost())), Offers: uniform(6, small)},
			"t1@a1 t2@a2 t3@a3"},
		{"unique host counts running tasks", Input{
			Tasks:   append(tasks(3, "t", "g", "cpus:1", constrained(UniqueHost())), tasks(1, "u", "other", "cpus:1", constrained(UniqueHost()))...),
			Offers:  uniform(6, small),
			Running: []Running{{Group: "g", AgentID: "a1"}, {Group: "g", AgentID: "a3"}, {Group: "g", AgentID: "a9"}},
		}, "t1@a2 t2@a4 t3@a5 u1@a1"},
		{"at most one per zone", Input{Tasks: tasks(4, "t", "g", "cpus:1", constrained(MaxPerValue("zone", 1))), Offers: uniform(7, small), Agents: cluster()},
			"t1@a1 t2@a3 t3@a5 t4@-"},
		{"at most two per zone, with tasks running in zones without offers", Input{
			Tasks:   tasks(7, "t", "g", "cpus:1", constrained(MaxPerValue("zone", 2))),
			Offers:  uniform(7, small),
			Agents:  cluster(),
			Running: []Running{{Group: "g", AgentID: "a4"}, {Group: "g", AgentID: "x"}},
		}, "t1@a1 t2@a1 t3@a3 t4@a5 t5@a5 t6@- t7@-"},
		{"a predicate", Input{Tasks: tasks(3, "t", "", "cpus:3", constrained(evenAgents)), Offers: uniform(6, small)},
			"t1@a2 t2@a4 t3@a6"},

		// Bin-packing: the offer the task leaves fullest.
		{"binpack cpus", Input{
			Tasks:   tasks(4, "t", "", "cpus:2;mem:256"),
			Offers:  sized("cpus:8;mem:8192", "cpus:2;mem:8192", "cpus:4;mem:8192"),
			Rankers: []Ranker{BinPack("cpus")},
		}, "t1@a2 t2@a3 t3@a3 t4@a1"},
		{"binpack mem", Input{
			Tasks:   tasks(3, "t", "", "cpus:1;mem:1024"),
			Offers:  sized("cpus:8;mem:4096", "cpus:1;mem:8192", "cpus:8;mem:2048"),
			Rankers: []Ranker{BinPack("mem")},
		}, "t1@a3 t2@a3 t3@a1"},
		{"binpack cpus and mem", Input{
			// a1: (1/2 + 1/8)/2, a2: (1/8 + 1/2)/2 tie, lowest id first;
			// a1 then (2/2 + 2/8)/2 beats a2's.
			Tasks:   tasks(3, "t", "", "cpus:1;mem:1024"),
			Offers:  sized("cpus:2;mem:8192", "cpus:8;mem:2048", "cpus:8;mem:8192"),
			Rankers: []Ranker{BinPack("cpus", "mem")},
		}, "t1@a1 t2@a1 t3@a2"},
		{"binpack against the agent's total", Input{
			// Both offers hold cpus:4, but a2's agent has 16 cpus of which
			// 12 are in use: it is fuller.
			Tasks:   tasks(1, "t", "", "cpus:1"),
			Offers:  sized("cpus:4", "cpus:4"),
			Agents:  map[string]Agent{"a1": {Total: resources.MustParseQuantities("cpus:4")}, "a2": {Total: resources.MustParseQuantities("cpus:16")}},
			Rankers: []Ranker{BinPack("cpus")},
		}, "t1@a2"},

		// Spread and locality count the group.
		{"spread over zones", Input{Tasks: tasks(4, "t", "g", "cpus:1"), Offers: uniform(6, small), Agents: cluster(), Rankers: []Ranker{Spread("zone")}},
			"t1@a1 t2@a3 t3@a5 t4@a1"},
		{"spread counts running tasks", Input{
			Tasks:   tasks(2, "t", "g", "cpus:1", preferring(Spread("zone"))),
			Offers:  uniform(6, small),
			Agents:  cluster(),
			Running: []Running{{Group: "g", AgentID: "a1"}, {Group: "g", AgentID: "a5"}, {Group: "other", AgentID: "a3"}},
		}, "t1@a3 t2@a1"},
		{"locality", Input{
			Tasks:   tasks(5, "t", "g", "cpus:1", preferring(Locality())),
			Offers:  uniform(6, small),
			Running: []Running{{Group: "g", AgentID: "a4"}},
		}, "t1@a4 t2@a4 t3@a4 t4@a4 t5@a1"},
		{"a custom score", Input{Tasks: tasks(3, "t", "", "cpus:3"), Offers: uniform(6, small), Rankers: []Ranker{lastAgent}},
			"t1@a6 t2@a5 t3@a4"},

		// Weights: spread outweighs bin-packing at 3 to 1, not at 1 to 3.
		{"spread outweighs binpack", Input{
			Tasks:   tasks(3, "t", "g", "cpus:1"),
			Offers:  uniform(6, small),
			Agents:  cluster(),
			Rankers: []Ranker{BinPack("cpus"), Spread("zone").Weighted(3)},
		}, "t1@a1 t2@a3 t3@a5"},
		{"binpack outweighs spread", Input{
			Tasks:   tasks(3, "t", "g", "cpus:1"),
			Offers:  uniform(6, small),
			Agents:  cluster(),
			Rankers: []Ranker{BinPack("cpus").Weighted(3), Spread("zone")},
		}, "t1@a1 t2@a1 t3@a1"},
		{"a zero weight turns a ranker off", Input{
			Tasks:   tasks(2, "t", "g", "cpus:1"),
			Offers:  uniform(6, small),
			Agents:  cluster(),
			Rankers: []Ranker{Spread("zone").Weighted(0)},
		}, "t1@a1 t2@a1"},

		// GoodEnough stops at the first offer, by agent id, that scores
		// that much: a2 (1/2) rather than the best, a3 (1).
		{"best score", Input{Tasks: tasks(1, "t", "", "cpus:2"), Offers: sized("cpus:8", "cpus:4", "cpus:2"), Rankers: []Ranker{BinPack("cpus")}},
			"t1@a3"},
		{"good enough", Input{Tasks: tasks(1, "t", "", "cpus:2"), Offers: sized("cpus:8", "cpus:4", "cpus:2"), Rankers: []Ranker{BinPack("cpus")}, GoodEnough: 0.5},
			"t1@a2"},

		// Roles.
		{"a task's role", Input{
			Tasks:  tasks(2, "t", "", "cpus:1", func(t *Task) { t.Role = "batch" }),
			Offers: []offer.Offer{offerOn(1, "web", small), offerOn(2, "batch", small)},
		}, "t1@a2 t2@a2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Place(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := where(tc.in, res); got != tc.want {
				t.Errorf("got  %s\nwant %s\n%s", got, tc.want, res)
			}
			if msg := checkResult(tc.in, res); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func TestPlaceResources(t *testing.T) {
	for _, tc := range []struct {
		name   string
		offer  string
		role   string
		task   Task
		want   string
		assert string // a line of Result.String, when set
	}{
		{"reserved first", "cpus:4;cpus(web):1;mem:1024", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:2;mem:512")},
			"cpus(allocated: web)(web):1; cpus(allocated: web):1; mem(allocated: web):512", ""},
		{"the role's own reservation, then its parent's, then none", "cpus:4;cpus(web):1;cpus(web/api):1", "web/api",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:2.5")},
			"cpus(allocated: web/api)(web/api):1; cpus(allocated: web/api)(web):1; cpus(allocated: web/api):0.5", ""},
		{"never another role's reservation", "cpus:1;cpus(other):4", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:1")},
			"cpus(allocated: web):1", ""},
		// Revocable resources are taken after all others, even when
		// reserved for the role; unreserved revocable ones are the
		// role's to take like any unreserved resource.
		{"revocable last", "cpus{REV}:4;cpus(web){REV}:1;cpus:1", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:2")},
			"cpus(allocated: web):1; cpus(allocated: web)(web){REV}:1", ""},
		{"only revocable", "cpus{REV}:4", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:2")},
			"cpus(allocated: web){REV}:2", ""},
		{"ports: reserved first, lowest first, given numbers too", "cpus:4;ports:[31000-31009];ports(web):[32000-32001]", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:1"), Ports: Ports{Count: 3, Numbers: []uint64{31005}}},
			"cpus(allocated: web):1; ports(allocated: web)(web):[32000-32001]; ports(allocated: web):[31000-31000, 31005-31005]", ""},
		{"ports of another resource", "cpus:4;udp:[5000-5010]", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:1"), Ports: Ports{Resource: "udp", Count: 2}},
			"cpus(allocated: web):1; udp(allocated: web):[5000-5001]", ""},
		{"a MOUNT disk whole", "cpus:4;disk(reservations: [(DYNAMIC,web,ops)])[MOUNT:/mnt/ssd]:300;disk:100", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:1;disk:400")},
			"cpus(allocated: web):1; disk(allocated: web)(reservations: [(DYNAMIC,web,ops)])[MOUNT:/mnt/ssd]:300; disk(allocated: web):100", ""},
		// A disk taken whole or not at all fits a task that needs just
		// what it holds.
		{"a MOUNT disk of just the need", "cpus:4;disk(reservations: [(DYNAMIC,web,ops)])[MOUNT:/mnt/ssd]:300", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:1;disk:300")},
			"cpus(allocated: web):1; disk(allocated: web)(reservations: [(DYNAMIC,web,ops)])[MOUNT:/mnt/ssd]:300", ""},
		{"not part of a MOUNT disk", "cpus:4;disk(reservations: [(DYNAMIC,web,ops)])[MOUNT:/mnt/ssd]:300;disk:100", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:1;disk:200")},
			"", "  o1 on a1: does not fit: disk: wants 200, 400 left on disks taken whole or not at all"},
		{"a persistent volume", "cpus:4;disk(reservations: [(DYNAMIC,web,ops)])[id:db,principal:ops,path:data]:100", "web",
			Task{ID: "t", Resources: resources.MustParseQuantities("cpus:1"), Volumes: resources.MustParse("disk(reservations: [(DYNAMIC,web,ops)])[id:db,principal:ops,path:data]:100", "*")},
			"cpus(allocated: web):1; disk(allocated: web)(reservations: [(DYNAMIC,web,ops)])[id:db,principal:ops,path:data]:100", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Tasks: []Task{tc.task}, Offers: []offer.Offer{offerOn(1, tc.role, tc.offer)}}
			res, err := Place(in)
			if err != nil {
				t.Fatal(err)
			}
			if msg := checkResult(in, res); msg != "" {
				t.Error(msg)
			}
			if tc.assert != "" {
				if !strings.Contains(res.String(), tc.assert+"\n") {
					t.Errorf("result lacks %q:\n%s", tc.assert, res)
				}
				return
			}
			if len(res.Assignments) != 1 {
				t.Fatalf("not placed:\n%s", res)
			}
			if got := res.Assignments[0].Resources.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestVolumes(t *testing.T) {
	vol := "disk(reservations: [(DYNAMIC,web,ops)])[id:db,principal:ops,path:data]:100"
	shared := "disk(reservations: [(DYNAMIC,web,ops)])[id:logs,principal:ops,path:logs]<SHARED>:100"
	offers := []offer.Offer{offerOn(1, "web", small), offerOn(2, "web", small+";"+vol+";"+shared)}
	withVolume := func(text string) func(*Task) {
		return func(t *Task) { t.Volumes = resources.MustParse(text, "*") }
	}
	in := Input{
		Tasks:  append(tasks(2, "db", "", "cpus:1", withVolume(vol)), tasks(2, "log", "", "cpus:1", withVolume(shared))...),
		Offers: offers,
	}
	res, err := Place(in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := where(in, res), "db1@a2 db2@- log1@a2 log2@a2"; got != want {
		t.Errorf("got  %s\nwant %s\n%s", got, want, res)
	}
	if msg := checkResult(in, res); msg != "" {
		t.Error(msg)
	}
	want := []string{
		"o1 on a1: does not fit: volume: disk(reservations: [(DYNAMIC,web,ops)])[id:db,principal:ops,path:data]:100 is not offered or in use",
		"o2 on a2: does not fit: volume: disk(reservations: [(DYNAMIC,web,ops)])[id:db,principal:ops,path:data]:100 is not offered or in use",
	}
	if got := reasons(res.Unassigned[0]); got != strings.Join(want, "\n") {
		t.Errorf("reasons:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func reasons(u Unassigned) string {
	var lines []string
	for _, r := range u.Reasons {
		lines = append(lines, r.String())
	}
	return strings.Join(lines, "\n")
}

// TestReasons checks the reason each offer gives, in the order of the
// checks: role, scalars by name, ports, volumes, filters, constraints.
func TestReasons(t *testing.T) {
	in := Input{
		Offers: []offer.Offer{
			offerOn(1, "web", "cpus:1;mem:4096;ports:[31000-31004]"),
			offerOn(2, "web", "cpus:4;mem:1024;ports:[31000-31004]"),
			offerOn(3, "web", "cpus:4;mem:4096;ports:[31000-31000]"),
			offerOn(4, "web", "cpus:4;mem:4096;ports:[31001-31004]"),
			offerOn(5, "web", small),
			offerOn(6, "web", small),
			offerOn(7, "web", small),
			offerOn(8, "batch", small),
		},
		Agents: map[string]Agent{
			"a5": {Attributes: Attributes{"zone": "b"}},
			"a6": {Attributes: Attributes{"zone": "a"}},
			"a7": {Attributes: Attributes{"zone": "a"}},
		},
		Running: []Running{{Group: "g", AgentID: "a6"}},
		Filters: []Filter{AttributeEquals("zone", "a")},
		Tasks: tasks(1, "t", "g", "cpus:2;mem:2048", func(t *Task) {
			t.Role = "web"
			t.Ports = Ports{Count: 1, Numbers: []uint64{31000}}
			t.Constraints = []Filter{UniqueHost(), MaxPerValue("zone", 1)}
		}),
	}
	res, err := Place(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `o1 on a1: does not fit: cpus: wants 2, 1 left
o2 on a2: does not fit: mem: wants 2048, 1024 left
o3 on a3: does not fit: ports: wants 2, 1 free
o4 on a4: does not fit: ports: port 31000 is not free
o5 on a5: zone == "a": zone is "b"
o6 on a6: unique host: group "g" runs here
o7 on a7: at most 1 per zone: 1 of group "g" in zone "a"
o8 on a8: role: offered to "batch", wants "web"`
	if len(res.Unassigned) != 1 {
		t.Fatalf("placed:\n%s", res)
	}
	if got := reasons(res.Unassigned[0]); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// Without the zone filter, a7 takes the task.
	in.Filters = nil
	in.Tasks[0].Constraints = []Filter{UniqueHost()}
	res, _ = Place(in)
	if got := where(in, res); got != "t1@a5" {
		t.Errorf("got %s, want t1@a5", got)
	}
}

// TestSharedReasons checks that tasks alike that fail share their reasons,
// which describe the offers at the end of the call.
func TestSharedReasons(t *testing.T) {
	in := Input{
		Tasks:  append(tasks(3, "big", "", "cpus:8"), tasks(1, "small", "", "cpus:1")...),
		Offers: uniform(2, small),
	}
	in.Tasks = append(in.Tasks, tasks(1, "big", "", "cpus:8")[0])
	in.Tasks[4].ID = "big4"
	res, err := Place(in)
	if err != nil {
		t.Fatal(err)
	}
	u := res.Unassigned
	if len(u) != 4 {
		t.Fatalf("want 4 unassigned:\n%s", res)
	}
	for i := 1; i < len(u); i++ {
		if &u[i].Reasons[0] != &u[0].Reasons[0] {
			t.Errorf("%s does not share the reasons of %s", u[i].TaskID, u[0].TaskID)
		}
	}
	if got, want := u[0].Reasons[0].String(), "o1 on a1: does not fit: cpus: wants 8, 3 left"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestResultString(t *testing.T) {
	in := Input{
		Tasks:   tasks(3, "t", "", "cpus:3;mem:1024"),
		Offers:  uniform(3, "cpus:4;mem:2048"),
		Rankers: []Ranker{BinPack("cpus", "mem")},
	}
	in.Offers[2].Resources = resources.MustParse("cpus:1;mem:2048", "*").Allocate("web")
	res, err := Place(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `t1 -> o1 on a1 (score 0.625): cpus(allocated: web):3; mem(allocated: web):1024
t2 -> o2 on a2 (score 0.625): cpus(allocated: web):3; mem(allocated: web):1024
unused: o3 on a3
t3 unassigned:
  o1 on a1: does not fit: cpus: wants 3, 1 left
  o2 on a2: does not fit: cpus: wants 3, 1 left
  o3 on a3: does not fit: cpus: wants 3, 1 left
`
	if got := res.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if n := len(res.Launches); n != 2 || res.Launches[0].Launch.String() != "LAUNCH [t1: cpus(allocated: web):3; mem(allocated: web):1024]" {
		t.Errorf("accepts: %v", res.Launches)
	}
}

func TestFilterAndRankerStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{AttributeEquals("zone", "a").String(), `zone == "a"`},
		{AttributeIn("zone", "b", "a", "b").String(), `zone in {"a","b"}`},
		{AttributeNotIn("rack", "r 1").String(), `rack not in {"r 1"}`},
		{UniqueHost().String(), "unique host"},
		{MaxPerValue("zone", 2).String(), "at most 2 per zone"},
		{Predicate("gpu agents", nil).String(), "gpu agents"},
		{Filter{}.String(), "invalid filter"},
		{BinPack("mem", "cpus").String(), "binpack(cpus,mem)"},
		{Spread("zone").Weighted(2.5).String(), "2.5*spread(zone)"},
		{Locality().String(), "locality"},
		{Score("cheap", nil).String(), "cheap"},
		{Ranker{}.String(), "invalid ranker"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

func TestUnplacedKeepsOrder(t *testing.T) {
	res := Result{Assignments: []Assignment{{TaskID: "b"}, {TaskID: "d"}}}
	tasks := []Task{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}, {ID: "e"}}
	var ids []string
	for _, task := range res.Unplaced(tasks) {
		ids = append(ids, task.ID)
	}
	if got := strings.Join(ids, ","); got != "a,c,e" {
		t.Fatalf("Unplaced = %s, want a,c,e", got)
	}
}
