package placement

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	rgen "github.com/allot-go/allot/internal/gen"
)

// The properties run ALLOT_PROP_COUNT cases each (100 by default) from
// the seed ALLOT_PROP_SEED (from the clock by default); the seed is
// logged, and printed again when a property fails:
//
//	ALLOT_PROP_SEED=42 ALLOT_PROP_COUNT=5000 go test ./offer/placement -run TestProperties

// problem is a generated Input; it prints in full when a property fails.
type problem struct{ In Input }

func (p problem) String() string { return describeInput(p.In) }

func genProblem() gopter.Gen {
	return func(params *gopter.GenParameters) *gopter.GenResult {
		rng := rand.New(rand.NewSource(params.Rng.Int63()))
		return gopter.NewGenResult(problem{genInput(rng)}, gopter.NoShrinker)
	}
}

func TestProperties(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))

	props.Property("every result keeps the offers, the requests and the hard constraints", prop.ForAll(
		func(p problem) string {
			res, err := Place(p.In)
			if err != nil {
				return fmt.Sprintf("Place: %v", err)
			}
			if msg := checkResult(p.In, res); msg != "" {
				return msg + "\n" + res.String()
			}
			return ""
		}, genProblem()))

	props.Property("the search finds what rescoring every offer for every task finds", prop.ForAll(
		func(p problem) string {
			got, err := Place(p.In)
			if err != nil {
				return fmt.Sprintf("Place: %v", err)
			}
			want, err := placeReference(p.In)
			if err != nil {
				return fmt.Sprintf("reference: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				return fmt.Sprintf("Place:\n%s\nreference:\n%s", got, want)
			}
			return ""
		}, genProblem()))

	props.Property("without partitions too, the search finds what rescoring every offer finds", prop.ForAll(
		func(p problem) string {
			defer func(n int) { maxParts = n }(maxParts)
			maxParts = 1
			got, err := Place(p.In)
			if err != nil {
				return fmt.Sprintf("Place: %v", err)
			}
			if msg := checkResult(p.In, got); msg != "" {
				return msg + "\n" + got.String()
			}
			want, _ := placeReference(p.In)
			if !reflect.DeepEqual(got, want) {
				return fmt.Sprintf("Place:\n%s\nreference:\n%s", got, want)
			}
			return ""
		}, genProblem()))

	props.Property("identical input gives identical output, whatever the order of the offers", prop.ForAll(
		func(p problem, seed int64) string {
			first, err := Place(p.In)
			if err != nil {
				return fmt.Sprintf("Place: %v", err)
			}
			again, _ := Place(p.In)
			if !reflect.DeepEqual(first, again) {
				return fmt.Sprintf("first:\n%s\nagain:\n%s", first, again)
			}
			shuffled := p.In
			shuffled.Offers = append(shuffled.Offers[:0:0], p.In.Offers...)
			rand.New(rand.NewSource(seed)).Shuffle(len(shuffled.Offers), func(i, j int) {
				shuffled.Offers[i], shuffled.Offers[j] = shuffled.Offers[j], shuffled.Offers[i]
			})
			other, _ := Place(shuffled)
			if first.String() != other.String() {
				return fmt.Sprintf("offers in order:\n%s\nshuffled:\n%s", first, other)
			}
			return ""
		}, genProblem(), gopter.Gen(func(params *gopter.GenParameters) *gopter.GenResult {
			return gopter.NewGenResult(params.Rng.Int63(), gopter.NoShrinker)
		})))

	props.TestingRun(t)
}
