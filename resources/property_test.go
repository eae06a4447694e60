package resources_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	rgen "github.com/allot-go/allot/internal/gen"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// identical reports whether a and b hold the very same entries in the same
// order, every field included (container paths, principals of volumes,
// labels' nil-ness), not just Equal resources.
func identical(a, b resources.Resources) bool {
	as, bs := a.Slice(), b.Slice()
	if !reflect.DeepEqual(as, bs) {
		return false
	}
	for i := range as {
		if a.Copies(as[i]) != b.Copies(bs[i]) {
			return false
		}
	}
	return true
}

// disjointFrom returns b without the ranges and set items a holds in an
// entry of the same kind, so that a+b-b gives a back.
func disjointFrom(b, a resources.Resources) resources.Resources {
	return b.Minus(a.NonScalars())
}

func TestPropertiesArithmetic(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))
	all := rgen.Resources()

	props.Property("(a+b)-b == a when nothing goes negative", prop.ForAll(
		func(a, b resources.Resources) bool {
			b = disjointFrom(b, a)
			return a.Plus(b).Minus(b).Equal(a)
		}, all, all))
	props.Property("a+b contains a and b", prop.ForAll(
		func(a, b resources.Resources) bool {
			sum := a.Plus(b)
			return sum.Contains(a) && sum.Contains(b)
		}, all, all))
	props.Property("Add is commutative", prop.ForAll(
		func(a, b resources.Resources) bool { return a.Plus(b).Equal(b.Plus(a)) }, all, all))
	props.Property("Add is associative", prop.ForAll(
		func(a, b, c resources.Resources) bool {
			return a.Plus(b).Plus(c).Equal(a.Plus(b.Plus(c)))
		}, all, all, all))
	props.Property("Contains is reflexive", prop.ForAll(
		func(a resources.Resources) bool { return a.Contains(a) && a.Equal(a.Clone()) }, all))
	props.Property("Contains is transitive", prop.ForAll(
		func(a, x, y resources.Resources) bool {
			b := a.Minus(x)
			c := b.Minus(y)
			return a.Contains(b) && b.Contains(c) && a.Contains(c)
		}, all, all, all))
	props.Property("Equal is mutual containment and symmetric", prop.ForAll(
		func(a, b resources.Resources) bool {
			return a.Equal(b) == (a.Contains(b) && b.Contains(a)) && a.Equal(b) == b.Equal(a)
		}, all, all))
	props.Property("a-b is contained in a", prop.ForAll(
		func(a, b resources.Resources) bool { return a.Contains(a.Minus(b)) }, all, all))
	props.Property("in-place and copying forms agree", prop.ForAll(
		func(a, b resources.Resources) bool {
			sum, diff := a.Clone(), a.Clone()
			sum.Add(b)
			diff.Subtract(b)
			return identical(sum, a.Plus(b)) && identical(diff, a.Minus(b))
		}, all, all))
	props.Property("Plus and Minus leave their operands alone", prop.ForAll(
		func(a, b resources.Resources) bool {
			a0, b0 := a.String(), b.String()
			_ = a.Plus(b)
			_ = a.Minus(b)
			_ = b.Minus(a)
			return a.String() == a0 && b.String() == b0
		}, all, all))
	props.Property("a-a is empty", prop.ForAll(
		func(a resources.Resources) bool {
			c := a.Clone()
			c.Subtract(c)
			return a.Minus(a).IsEmpty() && c.IsEmpty()
		}, all))
	props.Property("ContainsResource agrees with Contains", prop.ForAll(
		func(a resources.Resources, r resources.Resource) bool {
			single, err := resources.New(r)
			return err == nil && a.ContainsResource(r) == a.Contains(single)
		}, all, rgen.Resource()))
	props.TestingRun(t)
}

func TestPropertiesViews(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))
	all := rgen.Resources()

	props.Property("filters partition", prop.ForAll(
		func(a resources.Resources) bool {
			return a.Unreserved().Plus(a.Reserved("")).Equal(a) &&
				a.Revocable().Plus(a.NonRevocable()).Equal(a) &&
				a.Shared().Plus(a.NonShared()).Equal(a) &&
				a.Scalars().Plus(a.NonScalars()).Equal(a)
		}, all))
	props.Property("AllocatableTo is unreserved plus reservations of the role and its ancestors", prop.ForAll(
		func(a resources.Resources, role string) bool {
			want := a.Unreserved().Plus(a.Reserved(role))
			for _, anc := range reservation.Ancestors(role) {
				want.Add(a.Reserved(anc))
			}
			return a.AllocatableTo(role).Equal(want)
		}, all, rgen.Role()))
	props.Property("Get and Names cover everything", prop.ForAll(
		func(a resources.Resources) bool {
			var sum resources.Resources
			for _, name := range a.Names() {
				sum.Add(a.Get(name))
			}
			return sum.Equal(a)
		}, all))
	props.Property("ToUnreserved keeps the quantities", prop.ForAll(
		func(a resources.Resources) bool {
			u := a.ToUnreserved()
			return u.Reserved("").IsEmpty() && u.NonShared().Quantities().Equal(a.NonShared().Quantities())
		}, all))
	props.Property("Allocate then Unallocate", prop.ForAll(
		func(a resources.Resources, role string) bool {
			plain := a.Unallocate()
			tagged := plain.Allocate(role)
			return tagged.AllocatedTo(role).Equal(tagged) && tagged.Unallocate().Equal(plain)
		}, all, rgen.Role()))
	props.TestingRun(t)
}

func TestPropertiesReservations(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))
	plain := rgen.ResourcesWith(rgen.Options{Revocable: true, Allocations: true})

	props.Property("push then pop gives the resources back", prop.ForAll(
		func(a resources.Resources, res reservation.Reservation) bool {
			pushed, err := a.PushReservation(res)
			if err != nil {
				return false
			}
			if !a.IsEmpty() && !pushed.Reserved(res.Role).Equal(pushed) {
				return false
			}
			back, err := pushed.PopReservation()
			return err == nil && back.Equal(a) && identical(back, a)
		}, plain, rgen.Reservation()))
	props.Property("refine to every sub-role and unreserve step by step", prop.ForAll(
		func(a resources.Resources, s reservation.Stack) bool {
			cur := a
			for _, res := range s {
				next, err := cur.PushReservation(res)
				if err != nil {
					return false
				}
				cur = next
			}
			if len(s) > 0 && !cur.AllocatableTo(s.Role()).Equal(cur) {
				return false
			}
			for range s {
				next, err := cur.PopReservation()
				if err != nil {
					return false
				}
				cur = next
			}
			_, err := cur.PopReservation()
			return cur.Equal(a) && (a.IsEmpty() || err != nil)
		}, plain, rgen.Stack()))
	props.TestingRun(t)
}

func TestPropertiesFormats(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))
	all := rgen.Resources()

	props.Property("Parse(String(r)) == r, field for field", prop.ForAll(
		func(a resources.Resources) bool {
			back, err := resources.Parse(a.String(), "*")
			if err != nil {
				t.Logf("%s: %v", a, err)
				return false
			}
			return identical(back, a) && back.String() == a.String()
		}, all))
	props.Property("JSON round trip, field for field", prop.ForAll(
		func(a resources.Resources) bool {
			data, err := json.Marshal(a)
			if err != nil {
				return false
			}
			var back resources.Resources
			if err := json.Unmarshal(data, &back); err != nil {
				t.Logf("%s: %v", data, err)
				return false
			}
			viaParse, err := resources.Parse(string(data), "*")
			return err == nil && identical(back, a) && identical(viaParse, a)
		}, all))
	props.Property("each entry prints alone and parses back", prop.ForAll(
		func(r resources.Resource) bool {
			back, err := resources.Parse(r.String(), "")
			return err == nil && back.Len() == 1 && reflect.DeepEqual(back.Slice()[0], r) ||
				// Labels and ranges are normalised on the way in.
				err == nil && back.Len() == 1 && back.ContainsResource(r)
		}, rgen.Resource()))
	props.TestingRun(t)
}

func TestPropertiesQuantities(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))
	q := rgen.Quantities()
	all := rgen.Resources()

	props.Property("(q+p)-p == q", prop.ForAll(
		func(a, b resources.Quantities) bool { return a.Plus(b).Minus(b).Equal(a) }, q, q))
	props.Property("q+p contains q and p; Add commutes", prop.ForAll(
		func(a, b resources.Quantities) bool {
			s := a.Plus(b)
			return s.Contains(a) && s.Contains(b) && s.Equal(b.Plus(a))
		}, q, q))
	props.Property("subtraction saturates at zero", prop.ForAll(
		func(a, b resources.Quantities) bool {
			d := a.Minus(b)
			for _, v := range d.All() {
				if v <= 0 {
					return false
				}
			}
			return d.Plus(b).Contains(a) && a.Contains(d)
		}, q, q))
	props.Property("Contains is a partial order", prop.ForAll(
		func(a, b, c resources.Quantities) bool {
			ab := a.Plus(b)
			abc := ab.Plus(c)
			return a.Contains(a) && abc.Contains(ab) && ab.Contains(a) && abc.Contains(a) &&
				(!a.Contains(b) || !b.Contains(a) || a.Equal(b))
		}, q, q, q))
	props.Property("Quantities of a sum is the sum of quantities (non-shared)", prop.ForAll(
		func(a, b resources.Resources) bool {
			a, b = a.NonShared(), b.NonShared()
			return a.Plus(b).Quantities().Equal(a.Quantities().Plus(b.Quantities()))
		}, all, all))
	props.Property("resources contain their quantities", prop.ForAll(
		func(a resources.Resources) bool {
			var acc resources.Quantities
			a.AddQuantitiesTo(&acc)
			return a.ContainsQuantities(a.Quantities()) && acc.Equal(a.Quantities())
		}, all))
	props.Property("limits of q contain q; Cap fits the limits", prop.ForAll(
		func(a resources.Quantities, l resources.Limits) bool {
			capped := l.Cap(a)
			return resources.LimitsOf(a).Contains(a) && l.Contains(capped) && a.Contains(capped) &&
				(!l.Contains(a) || capped.Equal(a)) && resources.Limits{}.Contains(a)
		}, q, rgen.Limits()))
	props.Property("Limits.Subtract lowers limits by what is used", prop.ForAll(
		func(a, used resources.Quantities, l resources.Limits) bool {
			left := l.Subtract(used)
			// Within the limits, what fits in what is left, added to what
			// is used, fits in the original limits.
			return !l.Contains(used) || !left.Contains(a) || l.Contains(a.Plus(used))
		}, q, q, rgen.Limits()))
	props.Property("Shrink fits the target and takes only what is there", prop.ForAll(
		func(a resources.Resources, target resources.Quantities, seed uint64) bool {
			for _, rng := range []*rand.Rand{nil, rand.New(rand.NewPCG(seed, 1))} {
				s := a.Shrink(target, rng)
				if !target.Contains(s.Quantities()) || !a.Contains(s) {
					return false
				}
				if !s.Quantities().Equal(s.Quantities().Min(target)) {
					return false
				}
			}
			return true
		}, all, q, genUint64()))
	props.Property("ShrinkToLimits fits the limits and keeps unlimited names", prop.ForAll(
		func(a resources.Resources, l resources.Limits) bool {
			s := a.ShrinkToLimits(l, nil)
			if !l.Contains(s.Quantities()) || !a.Contains(s) {
				return false
			}
			for _, name := range a.Names() {
				if _, limited := l.Get(name); !limited && !s.Get(name).Equal(a.Get(name)) {
					return false
				}
			}
			return true
		}, all, rgen.Limits()))
	props.TestingRun(t)
}

func genUint64() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(p.Rng.Uint64(), gopter.NoShrinker)
	}
}
