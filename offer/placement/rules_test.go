package placement

import (
	"testing"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/stretchr/testify/require"
)

// scores returns the score of each assignment, in order.
func scores(res Result) []float64 {
	var out []float64
	for _, a := range res.Assignments {
		out = append(out, a.Score)
	}
	return out
}

// An assignment's score is the weighted mean of the rankers rounded to the
// nearest 1e-9: a third of an offer's cpus in use scores 0.333333333, two
// thirds 0.666666667, a quarter exactly 0.25.
func TestScoresAreRoundedToNine(t *testing.T) {
	in := Input{
		Tasks:   append(append(tasks(1, "third", "", "cpus:1"), tasks(1, "quarter", "", "cpus:1")...), tasks(1, "twothirds", "", "cpus:2")...),
		Offers:  sized("cpus:3", "cpus:4", "cpus:3"),
		Rankers: []Ranker{BinPack("cpus")},
	}
	// Each task is held to its own offer, whose score it then gets.
	in.Tasks[0].Constraints = []Filter{onAgent("a1")}
	in.Tasks[1].Constraints = []Filter{onAgent("a2")}
	in.Tasks[2].Constraints = []Filter{onAgent("a3")}
	res, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, "third1@a1 quarter1@a2 twothirds1@a3", where(in, res))
	require.Equal(t, []float64{0.333333333, 0.25, 0.666666667}, scores(res))
}

// A task may take the last free ports of an offer, and no more.
func TestTaskTakesTheLastFreePorts(t *testing.T) {
	in := Input{
		Tasks:  tasks(2, "t", "", "cpus:1", func(t *Task) { t.Ports = Ports{Count: 3} }),
		Offers: sized("cpus:4;ports:[31000-31002]", "cpus:4;ports:[31000-31001]"),
	}
	res, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, "t1@a1 t2@-", where(in, res))
	require.Equal(t, "ports(allocated: web):[31000-31002]", res.Assignments[0].Resources.Get("ports").String())
	require.Equal(t, "o2 on a2: does not fit: ports: wants 3, 2 free", res.Unassigned[0].Reasons[1].String())
}

// A task may ask for several given host ports: it gets each of them, and
// an offer where one of them is taken refuses it.
func TestTaskTakesSeveralGivenPorts(t *testing.T) {
	in := Input{
		Tasks:  tasks(2, "t", "", "cpus:1", func(t *Task) { t.Ports = Ports{Numbers: []uint64{31003, 31001}} }),
		Offers: sized("cpus:4;ports:[31000-31004]", "cpus:4;ports:[31000-31002]"),
	}
	res, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, "t1@a1 t2@-", where(in, res))
	require.Equal(t, "ports(allocated: web):[31001-31001, 31003-31003]", res.Assignments[0].Resources.Get("ports").String())
	require.Equal(t, `o1 on a1: does not fit: ports: port 31001 is not free
o2 on a2: does not fit: ports: port 31003 is not free`, reasons(res.Unassigned[0]))
}

// Spread on a second attribute, which is not the one the search
// partitions the offers by, scores 1/(1+n) for n tasks of the group with
// the agent's value, the first value met too; the score is the mean of the
// two spreads.
func TestSpreadOnTwoAttributes(t *testing.T) {
	in := Input{
		Tasks:   tasks(4, "t", "g", "cpus:1"),
		Offers:  uniform(7, small),
		Agents:  cluster(),
		Rankers: []Ranker{Spread("zone"), Spread("rack")},
	}
	res, err := Place(in)
	require.NoError(t, err)
	// t1: every zone and rack empty, a1 first. t2: a4 is in another zone
	// and rack (r2). t3: a5 and a6 are in the empty zone c, a5 first, in
	// rack r1 with one task, a6 in r2 with one too. t4: every zone holds
	// one task, r1 two and r2 one: a2, a4 and a6 tie at (1/2 + 1/2)/2.
	require.Equal(t, "t1@a1 t2@a4 t3@a5 t4@a2", where(in, res))
	require.Equal(t, []float64{1, 1, 0.75, 0.5}, scores(res))
}

// MaxPerValue on the attribute that Spread spreads over closes a value to
// the group once it holds the limit, also where the search keeps the
// offers of each value apart.
func TestSpreadWithALimitPerValue(t *testing.T) {
	in := Input{
		Tasks:   tasks(4, "t", "g", "cpus:1", constrained(MaxPerValue("zone", 1))),
		Offers:  uniform(7, small),
		Agents:  cluster(),
		Rankers: []Ranker{Spread("zone")},
	}
	res, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, "t1@a1 t2@a3 t3@a5 t4@-", where(in, res))
	require.Empty(t, checkResult(in, res))
	require.Equal(t, `o2 on a2: at most 1 per zone: 1 of group "g" in zone "a"`, res.Unassigned[0].Reasons[1].String())
}

// A MaxPerValue reason names the value's count, for every value; an agent
// without the attribute has "no" value.
func TestLimitReasons(t *testing.T) {
	in := Input{
		Tasks:   tasks(1, "t", "g", "cpus:1", constrained(MaxPerValue("zone", 1))),
		Offers:  []offer.Offer{offerOn(1, "web", small), offerOn(2, "web", small)},
		Agents:  map[string]Agent{"a1": {Attributes: Attributes{"zone": "a"}}},
		Running: []Running{{Group: "g", AgentID: "a1"}},
	}
	res, err := Place(in)
	require.NoError(t, err)
	require.Len(t, res.Unassigned, 1)
	require.Equal(t, `o1 on a1: at most 1 per zone: 1 of group "g" in zone "a"
o2 on a2: at most 1 per zone: no zone`, reasons(res.Unassigned[0]))
}

// Candidate.Placed counts the tasks the call has placed on the agent so
// far, of every group: a predicate admitting agents with fewer than two
// holds every agent to two tasks, whatever their groups.
func TestCandidatePlacedCountsEveryGroup(t *testing.T) {
	fewerThanTwo := Predicate("fewer than two placed", func(_ Task, c Candidate) bool { return c.Placed() < 2 })
	in := Input{
		Tasks:   append(tasks(3, "t", "g1", "cpus:1"), tasks(2, "u", "g2", "cpus:1")...),
		Offers:  uniform(3, small),
		Filters: []Filter{fewerThanTwo},
	}
	res, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, "t1@a1 t2@a1 t3@a2 u1@a2 u2@a3", where(in, res))
}

// Candidate.Offered of a resource no task asks for sums what the offer
// holds of it for its role: unreserved, and reserved for the role, but not
// another role's reservation, a persistent volume or another resource.
// Left, for such a resource, is Offered.
func TestCandidateOfferedOfAnotherResource(t *testing.T) {
	vol := "disk(reservations: [(DYNAMIC,web,ops)])[id:v,principal:ops,path:data]:20"
	var offered, left []float64
	record := Predicate("record disk", func(_ Task, c Candidate) bool {
		offered = append(offered, c.Offered("disk"))
		left = append(left, c.Left("disk"))
		return true
	})
	in := Input{
		Tasks:   tasks(1, "t", "", "cpus:1"),
		Offers:  sized("cpus:4;disk:100;disk(web):50;disk(other):30;" + vol + ";ports:[31000-31009]"),
		Filters: []Filter{record},
	}
	_, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, []float64{150}, offered)
	require.Equal(t, []float64{150}, left)
}

// Each task launches with the very resources it took: two disks of other
// mount points, or the same resource of two providers, are not
// interchangeable even when tasks take the same amounts of them.
func TestTasksGetTheResourcesTheyTook(t *testing.T) {
	for _, tc := range []struct {
		name  string
		offer string
		need  string
		want  []string
	}{
		{"disks of other mount points", "cpus:4;disk[MOUNT:/mnt/a]:100;disk[MOUNT:/mnt/b]:100", "cpus:1;disk:100", []string{
			"cpus(allocated: web):1; disk(allocated: web)[MOUNT:/mnt/a]:100",
			"cpus(allocated: web):1; disk(allocated: web)[MOUNT:/mnt/b]:100",
		}},
		// Tasks that ask for the providers' resources alone: a task's
		// resources come from one provider.
		{"resources of other providers", "cpus:4;mem(provider: rp1):64;mem(provider: rp2):64", "mem:64", []string{
			"mem(allocated: web)(provider: rp1):64",
			"mem(allocated: web)(provider: rp2):64",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Tasks: tasks(2, "t", "", tc.need), Offers: sized(tc.offer)}
			res, err := Place(in)
			require.NoError(t, err)
			require.Equal(t, "t1@a1 t2@a1", where(in, res), res.String())
			var got []string
			for _, a := range res.Assignments {
				got = append(got, a.Resources.String())
			}
			require.Equal(t, tc.want, got)
			require.Empty(t, checkResult(in, res))
		})
	}
}

// Tasks may ask for ports of two ranges resources: each offer's ranges
// of each resource are its own, counted and taken apart from the other
// resource's and from other offers'.
func TestTwoPortsResources(t *testing.T) {
	in := Input{
		Tasks: append(
			tasks(3, "t", "", "cpus:1", func(t *Task) { t.Ports = Ports{Count: 2} }),
			tasks(3, "u", "", "cpus:1", func(t *Task) { t.Ports = Ports{Resource: "udp", Count: 3} })...),
		Offers: sized(
			"cpus:4;ports:[31000-31001];udp:[5000-5002]",
			"cpus:4;ports:[32000-32002];udp:[6000-6001]",
			"cpus:4;ports:[33000-33001];udp:[7000-7003]"),
	}
	res, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, "t1@a1 t2@a2 t3@a3 u1@a1 u2@a3 u3@-", where(in, res), res.String())
	var got []string
	for _, a := range res.Assignments {
		got = append(got, a.Resources.String())
	}
	require.Equal(t, []string{
		"cpus(allocated: web):1; ports(allocated: web):[31000-31001]",
		"cpus(allocated: web):1; ports(allocated: web):[32000-32001]",
		"cpus(allocated: web):1; ports(allocated: web):[33000-33001]",
		"cpus(allocated: web):1; udp(allocated: web):[5000-5002]",
		"cpus(allocated: web):1; udp(allocated: web):[7000-7002]",
	}, got)
	require.Equal(t, `o1 on a1: does not fit: udp: wants 3, 0 free
o2 on a2: does not fit: udp: wants 3, 2 free
o3 on a3: does not fit: udp: wants 3, 1 free`, reasons(res.Unassigned[0]))
	require.Empty(t, checkResult(in, res))
}

// BinPack measures a resource against the agent's total when the total
// names it, and against the offer when it does not: here mem, which the
// total lacks, is measured against each offer, and 1024 of 2048 is fuller
// than 1024 of 4096.
func TestBinPackOfAResourceTheTotalLacks(t *testing.T) {
	in := Input{
		Tasks:   tasks(1, "t", "", "cpus:1;mem:1024"),
		Offers:  sized("cpus:4;mem:4096", "cpus:4;mem:2048"),
		Agents:  map[string]Agent{"a1": {Total: resources.MustParseQuantities("cpus:8")}, "a2": {Total: resources.MustParseQuantities("cpus:8")}},
		Rankers: []Ranker{BinPack("mem")},
	}
	res, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, "t1@a2", where(in, res))
	require.Equal(t, []float64{0.5}, scores(res))
}

// GoodEnough takes the best offer seen up to the first that scores good
// enough, in agent id then offer id order, for each task anew: an offer
// further in that order is not seen, even on the agent whose offer the
// task before took, and whose scores that placement changed. Here t1
// stops at o1 (binpack 2/4, favour 0: 0.25); for t2, o1 scores 0.5 and is
// taken, though o2 of the same agent would score 0.75.
func TestGoodEnoughDoesNotLookPastTheOfferItStopsAt(t *testing.T) {
	favourO2 := Score("favour o2", func(_ Task, c Candidate) float64 {
		if c.OfferID() == "o2" {
			return 1
		}
		return 0
	})
	o2 := offerOn(1, "web", "cpus:4")
	o2.ID = "o2"
	in := Input{
		Tasks:      tasks(2, "t", "", "cpus:2"),
		Offers:     []offer.Offer{offerOn(1, "web", "cpus:4"), o2},
		Rankers:    []Ranker{BinPack("cpus"), favourO2},
		GoodEnough: 0.25,
	}
	res, err := Place(in)
	require.NoError(t, err)
	var got []string
	for _, a := range res.Assignments {
		got = append(got, a.TaskID+"@"+a.OfferID)
	}
	require.Equal(t, []string{"t1@o1", "t2@o1"}, got)
	require.Equal(t, []float64{0.25, 0.5}, scores(res))
}

// Scores equal on paper compare equal when the class is split into parts
// by its Spread attribute: the part's spread share and the slot's own
// share are added before rounding. Here a1 (no zone, two thirds of its
// cpus in use) and a2 (zone a holding two of the group's tasks, a third of
// its cpus in use) both score (2/3 + 0)/2 = (1/3 + 1/3)/2 = 1/3, so the
// tie goes to the lower agent id. Rounding the two shares apart gave a2
// 0.333333334 and the task.
func TestPartitionedScoresTieOnPaper(t *testing.T) {
	in := Input{
		Tasks:   tasks(1, "t", "g", "cpus:1", func(t *Task) { t.Preferences = []Ranker{Spread("zone")} }),
		Offers:  sized("cpus:1.5", "cpus:3"),
		Agents:  map[string]Agent{"a2": {Attributes: Attributes{"zone": "a"}}},
		Running: []Running{{Group: "g", AgentID: "a2"}, {Group: "g", AgentID: "a2"}},
		Rankers: []Ranker{BinPack("cpus")},
	}
	res, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, "t1@a1", where(in, res))
	require.Equal(t, []float64{0.333333333}, scores(res))
}

// A task may take resources of a resource provider with the agent's own:
// here its mem can only come from provider rp1, and the LAUNCH that holds
// both is one package offer accepts, as Mesos accepts such a task.
func TestTaskTakesAProvidersResourcesWithTheAgents(t *testing.T) {
	in := Input{
		Tasks:  tasks(1, "t", "", "cpus:1;mem:64"),
		Offers: sized("cpus:4;mem(provider: rp1):64"),
	}
	res, err := Place(in)
	require.NoError(t, err)
	require.Equal(t, "t1@a1", where(in, res))
	require.Equal(t, "cpus(allocated: web):1; mem(allocated: web)(provider: rp1):64", res.Assignments[0].Resources.String())
	require.Empty(t, checkResult(in, res))
}
