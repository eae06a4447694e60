package placement

import (
	"testing"

	"github.com/allot-go/allot/offer"
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
