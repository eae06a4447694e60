package resources_test

import (
	"errors"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	rgen "github.com/allot-go/allot/internal/gen"
	"github.com/allot-go/allot/resources"
)

func TestPropertiesBinary(t *testing.T) {
	props := gopter.NewProperties(rgen.Parameters(t))
	all := rgen.Resources()
	props.Property("a stream of resources, quantities and limits reads back field for field", prop.ForAll(
		func(a, b resources.Resources) bool {
			enc := resources.NewEncoder()
			var buf []byte
			buf = enc.AppendResources(buf, a)
			buf = enc.AppendResources(buf, b)
			buf = enc.AppendResources(buf, a) // written once, referred to again
			buf = enc.AppendQuantities(buf, a.Quantities())
			lim := resources.LimitsOf(b.Quantities())
			lim.Set("zero", 0)
			buf = enc.AppendLimits(buf, lim)
			dec := resources.NewDecoder()
			ga, n1, err1 := dec.ReadResources(buf)
			gb, n2, err2 := dec.ReadResources(buf[n1:])
			ga2, n3, err3 := dec.ReadResources(buf[n1+n2:])
			q, n4, err4 := dec.ReadQuantities(buf[n1+n2+n3:])
			l, n5, err5 := dec.ReadLimits(buf[n1+n2+n3+n4:])
			if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
				t.Log(err)
				return false
			}
			return n1+n2+n3+n4+n5 == len(buf) && identical(ga, a) && identical(gb, b) &&
				ga.String() == a.String() && gb.String() == b.String() &&
				ga2.Identical(ga) && q.Equal(a.Quantities()) && l.Equal(lim)
		}, all, all))
	props.TestingRun(t)
}

func TestBinaryBadInput(t *testing.T) {
	enc := resources.NewEncoder()
	buf := enc.AppendResources(nil, resources.MustParse("cpus:2;ports:[1-3,7-9];disk(r)[MOUNT:/m]:5;zones:{a,b}", "*").Allocate("r"))
	for i := range len(buf) {
		_, _, err := resources.NewDecoder().ReadResources(buf[:i])
		if !errors.Is(err, resources.ErrInvalidBinary) {
			t.Fatalf("cut at %d of %d: err %v", i, len(buf), err)
		}
	}
	for _, bad := range [][]byte{{2}, {1, 0}, {1, 1, 2}, {1, 1, 0, 3, 'x', ':', '1', 0, 0}} {
		if _, _, err := resources.NewDecoder().ReadResources(bad); !errors.Is(err, resources.ErrInvalidBinary) {
			t.Errorf("%v: err %v", bad, err)
		}
	}
}

func FuzzBinary(f *testing.F) {
	enc := resources.NewEncoder()
	f.Add(enc.AppendResources(nil, resources.MustParse("cpus:2;ports:[1-3,7-9];disk(r)[MOUNT:/m]:5;zones:{a,b}", "*").Allocate("r")))
	f.Add(enc.AppendQuantities(nil, resources.MustParseQuantities("cpus:1;mem:2")))
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := resources.NewDecoder()
		rs, _, err := dec.ReadResources(data)
		if err != nil {
			if !errors.Is(err, resources.ErrInvalidBinary) || !rs.IsEmpty() {
				t.Fatalf("err %v with %v", err, rs)
			}
			return
		}
		for x := range rs.All() {
			if err := x.Validate(); err != nil {
				t.Fatalf("read an invalid resource %v: %v", x, err)
			}
		}
		if back, err := resources.Parse(rs.String(), "*"); err != nil || !back.Equal(rs) {
			t.Fatalf("%v does not read back from text: %v", rs, err)
		}
		_, _, _ = resources.NewDecoder().ReadQuantities(data)
		_, _, _ = resources.NewDecoder().ReadLimits(data)
	})
}
