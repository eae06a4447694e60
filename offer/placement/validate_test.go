package placement

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// sentinels are every error Place returns.
var sentinels = []error{
	ErrInvalidTask, ErrDuplicateTask, ErrInvalidOffer, ErrDuplicateOffer,
	ErrInvalidFilter, ErrInvalidRanker, ErrInvalidRunning, ErrInvalidInput,
}

func TestValidation(t *testing.T) {
	base := func() Input {
		return Input{
			Tasks:  tasks(2, "t", "g", "cpus:1;mem:128"),
			Offers: uniform(2, small),
		}
	}
	yes := func(Task, Candidate) bool { return true }
	one := func(Task, Candidate) float64 { return 1 }
	for _, tc := range []struct {
		name string
		edit func(*Input)
		want error
		text string
	}{
		{"good enough below 0", func(in *Input) { in.GoodEnough = -0.1 }, ErrInvalidInput, "GoodEnough -0.1"},
		{"good enough above 1", func(in *Input) { in.GoodEnough = 1.5 }, ErrInvalidInput, ""},
		{"good enough NaN", func(in *Input) { in.GoodEnough = math.NaN() }, ErrInvalidInput, ""},

		{"zero filter", func(in *Input) { in.Filters = []Filter{{}} }, ErrInvalidFilter, "zero Filter"},
		{"equals without attribute", func(in *Input) { in.Filters = []Filter{AttributeEquals("", "a")} }, ErrInvalidFilter, "empty attribute"},
		{"in without values", func(in *Input) { in.Filters = []Filter{AttributeIn("zone")} }, ErrInvalidFilter, "no values"},
		{"not in without values", func(in *Input) { in.Filters = []Filter{AttributeNotIn("zone")} }, ErrInvalidFilter, "no values"},
		{"max per value 0", func(in *Input) { in.Filters = []Filter{MaxPerValue("zone", 0)} }, ErrInvalidFilter, "at least 1"},
		{"max per value negative", func(in *Input) { in.Filters = []Filter{MaxPerValue("zone", -3)} }, ErrInvalidFilter, "at least 1"},
		{"max per value without attribute", func(in *Input) { in.Filters = []Filter{MaxPerValue("", 1)} }, ErrInvalidFilter, "empty attribute"},
		{"predicate without name", func(in *Input) { in.Filters = []Filter{Predicate("", yes)} }, ErrInvalidFilter, "without a name"},
		{"predicate without function", func(in *Input) { in.Filters = []Filter{Predicate("p", nil)} }, ErrInvalidFilter, `predicate "p" without a function`},
		{"a task's bad constraint", func(in *Input) { in.Tasks[1].Constraints = []Filter{MaxPerValue("zone", 0)} }, ErrInvalidFilter, `task "t2": at most 0 per zone`},

		{"zero ranker", func(in *Input) { in.Rankers = []Ranker{{}} }, ErrInvalidRanker, "zero Ranker"},
		{"binpack of nothing", func(in *Input) { in.Rankers = []Ranker{BinPack()} }, ErrInvalidRanker, "no resource"},
		{"binpack of a bad name", func(in *Input) { in.Rankers = []Ranker{BinPack("cp;us")} }, ErrInvalidRanker, "invalid name"},
		{"binpack of ports", func(in *Input) { in.Rankers = []Ranker{BinPack("ports")} }, ErrInvalidRanker, "RANGES"},
		{"spread without attribute", func(in *Input) { in.Rankers = []Ranker{Spread("")} }, ErrInvalidRanker, "empty attribute"},
		{"score without name", func(in *Input) { in.Rankers = []Ranker{Score("", one)} }, ErrInvalidRanker, "without a name"},
		{"score without function", func(in *Input) { in.Rankers = []Ranker{Score("s", nil)} }, ErrInvalidRanker, "without a function"},
		{"negative weight", func(in *Input) { in.Rankers = []Ranker{Locality().Weighted(-1)} }, ErrInvalidRanker, "-1*locality"},
		{"NaN weight", func(in *Input) { in.Rankers = []Ranker{Locality().Weighted(math.NaN())} }, ErrInvalidRanker, ""},
		{"infinite weight", func(in *Input) { in.Rankers = []Ranker{Locality().Weighted(math.Inf(1))} }, ErrInvalidRanker, ""},
		{"a task's bad preference", func(in *Input) { in.Tasks[0].Preferences = []Ranker{Spread("")} }, ErrInvalidRanker, `task "t1"`},

		{"running without agent", func(in *Input) { in.Running = []Running{{Group: "g"}} }, ErrInvalidRunning, "no agent"},

		{"offer without id", func(in *Input) { in.Offers[1].ID = "" }, ErrInvalidOffer, "offer 1 has no id"},
		{"duplicate offer", func(in *Input) { in.Offers[1].ID = "o1" }, ErrDuplicateOffer, `"o1"`},
		{"offer without agent", func(in *Input) { in.Offers[0].AgentID = "" }, ErrInvalidOffer, "no agent"},
		{"offers of two frameworks", func(in *Input) { in.Offers[1].FrameworkID = "other" }, ErrInvalidOffer, "framework"},
		{"offer without role", func(in *Input) { in.Offers[0].Role = "" }, ErrInvalidOffer, ""},
		{"offer with a bad role", func(in *Input) { in.Offers[0].Role = "a//b" }, ErrInvalidOffer, ""},
		{"offer holding another role's resources", func(in *Input) {
			in.Offers[0].Resources = in.Offers[0].Resources.Plus(resources.MustParse("mem:1", "*").Allocate("batch"))
		}, ErrInvalidOffer, `allocated to "batch"`},

		{"task without id", func(in *Input) { in.Tasks[1].ID = "" }, ErrInvalidTask, "task 1 has no id"},
		{"duplicate task", func(in *Input) { in.Tasks[1].ID = "t1" }, ErrDuplicateTask, `"t1"`},
		{"task asking for nothing", func(in *Input) { in.Tasks[0].Resources = resources.Quantities{} }, ErrInvalidTask, "asks for nothing"},
		{"negative port count", func(in *Input) { in.Tasks[0].Ports.Count = -1 }, ErrInvalidTask, "-1 ports"},
		{"a port twice", func(in *Input) { in.Tasks[0].Ports.Numbers = []uint64{80, 443, 80} }, ErrInvalidTask, "port 80 twice"},
		// A number asked for twice is found wherever it sorts, not only
		// as the lowest.
		{"a port twice, not the lowest", func(in *Input) { in.Tasks[0].Ports.Numbers = []uint64{443, 80, 8080, 443} }, ErrInvalidTask, "port 443 twice"},
		{"a bad ports resource", func(in *Input) { in.Tasks[0].Ports = Ports{Resource: "po;rts", Count: 1} }, ErrInvalidTask, "invalid name"},
		{"ports of a scalar", func(in *Input) { in.Tasks[0].Ports = Ports{Resource: "mem", Count: 1} }, ErrInvalidTask, "both as a scalar and as ports"},
		{"ports of a resource offers hold as a scalar", func(in *Input) {
			in.Offers[1].Resources = in.Offers[1].Resources.Plus(resources.MustParse("gpus:1", "*").Allocate("web"))
			in.Tasks[1].Ports = Ports{Resource: "gpus", Count: 1}
		}, ErrInvalidTask, `task "t2" asks for ports of gpus, and offer "o2" holds it as SCALAR`},
		{"a scalar that offers hold as ranges", func(in *Input) { in.Tasks[1].Resources = resources.MustParseQuantities("ports:2") }, ErrInvalidTask, `task "t2" asks for ports as a scalar`},
		{"a volume that is not one", func(in *Input) { in.Tasks[0].Volumes = resources.MustParse("disk:10", "*") }, ErrInvalidTask, "not a persistent volume"},
		{"a bad task role", func(in *Input) { in.Tasks[0].Role = "/web" }, ErrInvalidTask, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			tc.edit(&in)
			res, err := Place(in)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "placement: ") || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q should start with %q and hold %q", err, "placement: ", tc.text)
			}
			if res.Assignments != nil || res.Launches != nil || res.Unused != nil || res.Unassigned != nil {
				t.Errorf("a result with an error: %s", res)
			}
		})
	}
}

// TestNoCustomCallOnError checks that custom functions are not called when
// the input is refused.
func TestNoCustomCallOnError(t *testing.T) {
	called := false
	in := Input{
		Tasks:   tasks(2, "t", "", "cpus:1"),
		Offers:  uniform(2, small),
		Filters: []Filter{Predicate("spy", func(Task, Candidate) bool { called = true; return true })},
	}
	in.Tasks[1].ID = "t1"
	if _, err := Place(in); !errors.Is(err, ErrDuplicateTask) || called {
		t.Errorf("err %v, called %v", err, called)
	}
}

func TestEmptyInput(t *testing.T) {
	res, err := Place(Input{})
	if err != nil || len(res.Assignments)+len(res.Launches)+len(res.Unused)+len(res.Unassigned) != 0 {
		t.Errorf("got %v, %s", err, res)
	}
	res, err = Place(Input{Tasks: tasks(1, "t", "", "cpus:1")})
	if err != nil || len(res.Unassigned) != 1 || len(res.Unassigned[0].Reasons) != 0 {
		t.Errorf("a task without offers: %v, %s", err, res)
	}
	res, err = Place(Input{Offers: []offer.Offer{offerOn(1, "web", small)}})
	if err != nil || len(res.Unused) != 1 {
		t.Errorf("an offer without tasks: %v, %s", err, res)
	}
}
