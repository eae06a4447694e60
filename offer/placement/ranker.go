package placement

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-go/allot/resources"
)

type rankerKind uint8

const (
	rankBinPack rankerKind = iota + 1
	rankSpread
	rankLocality
	rankScore
)

// Ranker is a soft preference: it scores an offer for a task between 0
// and 1, and a task goes on the offer with the highest weighted mean of its
// rankers' scores (ties to the lowest agent id, then offer id). Build
// rankers with BinPack, Spread, Locality and Score, and weigh them with
// Weighted (1 by default); the zero Ranker is invalid.
type Ranker struct {
	kind   rankerKind
	names  []string
	attr   string
	weight float64
	custom *scorer
}

type scorer struct {
	name string
	f    func(Task, Candidate) float64
}

// BinPack prefers the offers the task would leave fullest: for each of
// names, the share of the agent's total (Agent.Total, else the offer's
// resources) in use once the task is placed, averaged over names.
// BinPack("cpus"), BinPack("mem") and BinPack("cpus", "mem") pack on cpus,
// on memory, or on both. Names the offer lacks score 0.
func BinPack(names ...string) Ranker {
	return Ranker{kind: rankBinPack, names: sortedSet(names), weight: 1}
}

// Spread prefers agents whose value of attribute attr holds the fewest
// tasks of the task's group (running or placed): 1/(1+n) for n such tasks,
// so an empty zone scores 1, a zone with one task 1/2. Agents without the
// attribute score 0.
func Spread(attr string) Ranker { return Ranker{kind: rankSpread, attr: attr, weight: 1} }

// Locality prefers agents where the task's group already runs or was
// placed: 1 there, 0 elsewhere.
func Locality() Ranker { return Ranker{kind: rankLocality, weight: 1} }

// Score is a custom ranker named name: f scores a candidate for a task,
// clamped to [0, 1] (NaN is 0). Like a Predicate's, f must answer from the
// task and the candidate alone, and alike for tasks alike but for their
// ids.
func Score(name string, f func(Task, Candidate) float64) Ranker {
	return Ranker{kind: rankScore, custom: &scorer{name: name, f: f}, weight: 1}
}

// Weighted returns the ranker with weight w: a task's score is the sum of
// its rankers' weighted scores divided by the sum of their weights. A
// weight of 0 turns the ranker off.
func (r Ranker) Weighted(w float64) Ranker {
	r.weight = w
	return r
}

// Weight returns the ranker's weight.
func (r Ranker) Weight() float64 { return r.weight }

// String prints "binpack(cpus,mem)", "spread(zone)", "locality" or a
// custom ranker's name, prefixed with its weight when it is not 1:
// "2*spread(zone)".
func (r Ranker) String() string {
	var s string
	switch r.kind {
	case rankBinPack:
		s = "binpack(" + strings.Join(r.names, ",") + ")"
	case rankSpread:
		s = "spread(" + r.attr + ")"
	case rankLocality:
		s = "locality"
	case rankScore:
		if r.custom != nil {
			s = r.custom.name
		}
	default:
		return "invalid ranker"
	}
	if r.weight != 1 {
		s = strconv.FormatFloat(r.weight, 'g', -1, 64) + "*" + s
	}
	return s
}

// validate checks r; where says where it was found ("" or `task "t1": `).
func (r Ranker) validate(where string) error {
	if r.kind != 0 && (r.weight < 0 || math.IsNaN(r.weight) || math.IsInf(r.weight, 0)) {
		return fmt.Errorf("%w: %s%s: weight must be finite and not negative", ErrInvalidRanker, where, r)
	}
	switch r.kind {
	case rankBinPack:
		if len(r.names) == 0 {
			return fmt.Errorf("%w: %sbinpack of no resource", ErrInvalidRanker, where)
		}
		for _, name := range r.names {
			if err := resources.ScalarResource(name, 0).Validate(); err != nil {
				return fmt.Errorf("%w: %sbinpack: %w", ErrInvalidRanker, where, err)
			}
		}
	case rankSpread:
		if r.attr == "" {
			return fmt.Errorf("%w: %sspread of an empty attribute name", ErrInvalidRanker, where)
		}
	case rankLocality:
	case rankScore:
		if r.custom == nil || r.custom.name == "" {
			return fmt.Errorf("%w: %sa score without a name", ErrInvalidRanker, where)
		}
		if r.custom.f == nil {
			return fmt.Errorf("%w: %sscore %q without a function", ErrInvalidRanker, where, r.custom.name)
		}
	default:
		return fmt.Errorf("%w: %sthe zero Ranker; build rankers with BinPack, Spread, ...", ErrInvalidRanker, where)
	}
	return nil
}

func (r Ranker) appendKey(b []byte, ids map[*scorer]int) []byte {
	b = append(b, 'R', byte(r.kind))
	b = strconv.AppendUint(b, math.Float64bits(r.weight), 16)
	b = appendString(b, r.attr)
	b = strconv.AppendInt(b, int64(len(r.names)), 10)
	for _, n := range r.names {
		b = appendString(b, n)
	}
	if r.custom != nil {
		b = append(b, '#')
		b = strconv.AppendInt(b, int64(customID(ids, r.custom)), 10)
	}
	return b
}

// same reports whether r and o are the same ranker.
func (r Ranker) same(o Ranker) bool {
	return r.kind == o.kind && r.attr == o.attr && r.weight == o.weight && r.custom == o.custom && slices.Equal(r.names, o.names)
}
