package placement

import (
	"testing"

	"github.com/allot-go/allot/offer"
	"github.com/stretchr/testify/require"
)

// onAgent is a predicate admitting only the agent named.
func onAgent(agent string) Filter {
	return Predicate("on "+agent, func(_ Task, c Candidate) bool { return c.AgentID() == agent })
}

// favour is a score of 1 on the agent named, 0 elsewhere.
func favour(agent string) Ranker {
	return Score("favour "+agent, func(_ Task, c Candidate) float64 {
		if c.AgentID() == agent {
			return 1
		}
		return 0
	})
}

// Tasks alike but for one constraint or preference are not alike: each is
// placed by its own. The two tasks of each case come one after the other,
// where a task is compared with the classes just met field by field.
func TestTasksDifferingInOneRuleAreNotAlike(t *testing.T) {
	cluster := cluster()
	// Besides its zone, a1 has the rack value "a" too, so that a filter on
	// "zone" and one on "rack" have the same values.
	cluster["a1"].Attributes["rack"] = "a"
	for _, tc := range []struct {
		name   string
		first  func(*Task)
		second func(*Task)
		want   string
	}{
		{"in and not in", constrained(AttributeIn("zone", "a")), constrained(AttributeNotIn("zone", "a")),
			"t1@a1 u1@a3"},
		{"the same values of different attributes", constrained(AttributeNotIn("zone", "a")), constrained(AttributeNotIn("rack", "a")),
			"t1@a3 u1@a2"},
		{"limits per value", constrained(MaxPerValue("zone", 1)), constrained(MaxPerValue("zone", 2)),
			"t1@a1 u1@a1"},
		{"two predicates", constrained(onAgent("a2")), constrained(onAgent("a5")),
			"t1@a2 u1@a5"},
		{"spread on different attributes", preferring(Spread("zone")), preferring(Spread("rack")),
			"t1@a1 u1@a3"},
		{"weights", preferring(Locality()), preferring(Locality().Weighted(0)),
			"t1@a4 u1@a1"},
		{"two scores", preferring(favour("a3")), preferring(favour("a6")),
			"t1@a3 u1@a6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{
				Tasks:   append(tasks(1, "t", "g", "cpus:1", tc.first), tasks(1, "u", "g", "cpus:1", tc.second)...),
				Offers:  uniform(7, small),
				Agents:  cluster,
				Running: []Running{{Group: "g", AgentID: "a4"}},
			}
			res, err := Place(in)
			require.NoError(t, err)
			require.Equal(t, tc.want, where(in, res), res.String())
			require.Empty(t, checkResult(in, res))
		})
	}
}

// A task is checked even when it follows a valid task it is alike in all
// but an invalid preference or constraint.
func TestInvalidRuleAfterAValidOne(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second func(*Task)
		want          error
	}{
		{"spread of no attribute after locality", preferring(Locality()), preferring(Spread("")), ErrInvalidRanker},
		{"the zero Filter after unique host", constrained(UniqueHost()), constrained(Filter{}), ErrInvalidFilter},
		{"a limit of 0 after a limit of 1", constrained(MaxPerValue("zone", 1)), constrained(MaxPerValue("zone", 0)), ErrInvalidFilter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{
				Tasks:  append(tasks(1, "t", "g", "cpus:1", tc.first), tasks(1, "u", "g", "cpus:1", tc.second)...),
				Offers: uniform(2, small),
			}
			res, err := Place(in)
			require.ErrorIs(t, err, tc.want)
			require.ErrorContains(t, err, `task "u1"`)
			require.Equal(t, Result{}, res)
		})
	}
}

// Tasks are alike only if their custom predicates and scores are the same
// functions: two of the same kind, met too far apart for the recent
// classes to hold the first, are told apart by the task's key.
func TestCustomRulesTellClassesApart(t *testing.T) {
	// Four tasks of four other classes between the two.
	between := []Task{}
	for i, need := range []string{"cpus:0.1", "cpus:0.2", "cpus:0.3", "cpus:0.4"} {
		between = append(between, tasks(1, string(rune('v'+i)), "", need)...)
	}
	for _, tc := range []struct {
		name          string
		first, second func(*Task)
		want          string
	}{
		{"predicates", constrained(onAgent("a2")), constrained(onAgent("a5")),
			"t1@a2 v1@a1 w1@a1 x1@a1 y1@a1 u1@a5"},
		{"scores", preferring(favour("a3")), preferring(favour("a6")),
			"t1@a3 v1@a1 w1@a1 x1@a1 y1@a1 u1@a6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Offers: uniform(6, small)}
			in.Tasks = append(in.Tasks, tasks(1, "t", "g", "cpus:1", tc.first)...)
			in.Tasks = append(in.Tasks, between...)
			in.Tasks = append(in.Tasks, tasks(1, "u", "g", "cpus:1", tc.second)...)
			res, err := Place(in)
			require.NoError(t, err)
			require.Equal(t, tc.want, where(in, res), res.String())
		})
	}
}

// Tasks alike but for their role, their ports resource or their number of
// ports are not alike: each goes where its own needs fit. The two tasks
// come one after the other, where a task is compared with the classes just
// met field by field.
func TestTasksDifferingInWhatTheyAskForAreNotAlike(t *testing.T) {
	withPorts := func(resource string, count int) func(*Task) {
		return func(t *Task) { t.Ports = Ports{Resource: resource, Count: count} }
	}
	for _, tc := range []struct {
		name          string
		first, second func(*Task)
		offers        []offer.Offer
		want          string
	}{
		{"roles", func(t *Task) { t.Role = "web" }, func(t *Task) { t.Role = "api" },
			[]offer.Offer{offerOn(1, "api", small), offerOn(2, "web", small)},
			"t1@a2 u1@a1"},
		{"ports resources", withPorts("", 1), withPorts("udp", 1),
			sized("cpus:4;udp:[5000-5004]", "cpus:4;ports:[31000-31004]"),
			"t1@a2 u1@a1"},
		{"numbers of ports", withPorts("", 1), withPorts("", 5),
			sized("cpus:4;ports:[31000-31002]", "cpus:4;ports:[31000-31004]"),
			"t1@a1 u1@a2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{
				Tasks:  append(tasks(1, "t", "g", "cpus:1", tc.first), tasks(1, "u", "g", "cpus:1", tc.second)...),
				Offers: tc.offers,
			}
			res, err := Place(in)
			require.NoError(t, err)
			require.Equal(t, tc.want, where(in, res), res.String())
			require.Empty(t, checkResult(in, res))
		})
	}
}
