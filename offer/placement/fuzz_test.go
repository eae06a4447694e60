package placement

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// bytes reads choices from a fuzzer's input; past its end every choice is
// the first.
type bytes struct {
	b []byte
	i int
}

func (s *bytes) next() int {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return int(s.b[s.i-1])
}

func (s *bytes) intn(n int) int { return s.next() % n }

func pickOf[T any](s *bytes, list ...T) T { return list[s.intn(len(list))] }

// FuzzPlace builds inputs, valid or not, from the fuzzer's bytes and an
// offer's resources in text, and checks that Place never panics, that a
// refusal wraps one of the sentinels and returns nothing, and that an
// accepted input gives a result that keeps every invariant (checkResult)
// and matches the reference search.
//
// Run it with
//
//	go test ./offer/placement -run '^$' -fuzz FuzzPlace -fuzztime 2m
func FuzzPlace(f *testing.F) {
	f.Add("cpus:4;mem:4096;ports:[31000-31010]", []byte{3, 4, 1, 2, 9, 8, 7, 6, 5, 4, 3, 2, 1})
	f.Add("cpus(web):2;cpus:2;mem:1024;disk(reservations: [(DYNAMIC,web,ops)])[MOUNT:/m]:100", []byte("placement of tasks"))
	f.Add("", []byte{255, 0, 255, 0, 17, 33, 200, 1, 1, 1, 1})
	f.Add("ports:1", []byte{1, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, offerText string, program []byte) {
		s := &bytes{b: program}
		in := fuzzInput(s, offerText)
		res, err := Place(in)
		if err != nil {
			known := false
			for _, e := range sentinels {
				known = known || errors.Is(err, e)
			}
			if !known {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			if !reflect.DeepEqual(res, Result{}) {
				t.Fatalf("a result with error %v: %s", err, res)
			}
			return
		}
		if msg := checkResult(in, res); msg != "" {
			t.Fatalf("%s\n%s\n%s", msg, describeInput(in), res)
		}
		ref, _ := placeReference(in)
		if !reflect.DeepEqual(res, ref) {
			t.Fatalf("Place:\n%s\nreference:\n%s\n%s", res, ref, describeInput(in))
		}
	})
}

// rarely returns bad one time in 48, good otherwise: most inputs are valid,
// so that the search runs, and every invalid field shows up now and then.
func rarely[T any](s *bytes, good, bad T) T {
	if s.intn(48) == 47 {
		return bad
	}
	return good
}

func fuzzInput(s *bytes, offerText string) Input {
	text, err := resources.Parse(offerText, "*")
	if err != nil {
		text = resources.MustParse(small, "*")
	}
	in := Input{Agents: map[string]Agent{}}
	for i := range 1 + s.intn(5) {
		role := rarely(s, pickOf(s, "web", "web/api", "batch"), pickOf(s, "", "a//b"))
		o := offer.Offer{
			ID:          rarely(s, fmt.Sprintf("o%d", i), pickOf(s, "", "o0")),
			FrameworkID: rarely(s, "fw", "other"),
			AgentID:     rarely(s, pickOf(s, "a", "b", "c"), ""),
			Role:        role,
			Resources:   pickOf(s, text, resources.MustParse(small, "*"), resources.MustParse("cpus:1;ports:[31000-31002]", "*")),
		}
		if reservationOK(role) {
			o.Resources = o.Resources.Allocate(rarely(s, role, "other"))
		}
		in.Offers = append(in.Offers, o)
		in.Agents[o.AgentID] = Agent{Attributes: Attributes{"zone": pickOf(s, "x", "y")}}
	}
	filters := func() []Filter {
		var out []Filter
		for range s.intn(3) {
			out = append(out, rarely(s,
				pickOf(s, AttributeEquals("zone", "x"), AttributeIn("zone", "x", "z"), AttributeNotIn("zone", "x"), UniqueHost(), MaxPerValue("zone", 1+s.intn(2)),
					Predicate("x zone", func(_ Task, c Candidate) bool { v, _ := c.Attribute("zone"); return v == "x" })),
				pickOf(s, AttributeIn("zone"), AttributeNotIn("", "x"), MaxPerValue("zone", s.intn(2)-1), Predicate("", nil), Predicate("p", nil), Filter{})))
		}
		return out
	}
	rankers := func() []Ranker {
		var out []Ranker
		for range s.intn(3) {
			r := rarely(s,
				pickOf(s, BinPack("cpus"), BinPack("mem", "gpus"), Spread("zone"), Locality(),
					Score("left", func(_ Task, c Candidate) float64 { return c.Left("cpus") - 1 })),
				pickOf(s, BinPack(), BinPack("ports"), BinPack("c;d"), Spread(""), Score("", nil), Score("s", nil), Ranker{}))
			out = append(out, r.Weighted(rarely(s, pickOf(s, 1, 0, 2.5), pickOf(s, -1, math.NaN(), math.Inf(1)))))
		}
		return out
	}
	in.Filters, in.Rankers = filters(), rankers()
	in.GoodEnough = rarely(s, pickOf(s, 0, 0, 0.5, 1), pickOf(s, -1, math.NaN(), 2))
	for i := range s.intn(10) {
		task := Task{
			ID:        rarely(s, fmt.Sprintf("t%d", i), pickOf(s, "t0", "")),
			Group:     pickOf(s, "", "g"),
			Role:      rarely(s, pickOf(s, "", "", "web"), "/x"),
			Resources: rarely(s, pickOf(s, resources.MustParseQuantities("cpus:1;mem:64"), resources.MustParseQuantities("cpus:0.5;gpus:1")), pickOf(s, resources.Quantities{}, resources.MustParseQuantities("ports:1"))),
		}
		if s.intn(3) == 0 {
			task.Ports = Ports{
				Resource: rarely(s, "", pickOf(s, "cpus", "p;q")),
				Count:    rarely(s, s.intn(3), -1),
				Numbers:  rarely(s, pickOf(s, nil, []uint64{31001}), []uint64{31001, 31001}),
			}
		}
		if s.intn(5) == 0 {
			task.Volumes = rarely(s, resources.MustParse("disk(reservations: [(DYNAMIC,web,ops)])[id:v,principal:ops,path:v]:1", "*"), resources.MustParse("disk:1", "*"))
		}
		task.Constraints, task.Preferences = filters(), rankers()
		in.Tasks = append(in.Tasks, task)
	}
	for range s.intn(3) {
		in.Running = append(in.Running, Running{Group: pickOf(s, "", "g"), AgentID: rarely(s, pickOf(s, "a", "b", "d"), "")})
	}
	return in
}

func reservationOK(role string) bool { return role != "" && role != "a//b" }
