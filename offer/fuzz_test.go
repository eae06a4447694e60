package offer

import (
	"fmt"
	"testing"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

// FuzzValidateApply feeds operations to Validate, Conversions, Apply and
// ApplyAll and checks that they never panic, that failures change nothing
// and wrap a sentinel error, and that successes keep every invariant (see
// checkAccept). The offer is parsed from offeredText, or generated from the
// program when that fails; operations are generated from the program on the
// current resources, or built from the resources in opText, or from single
// resources with invalid fields that no Resources can hold.
//
// Seeds live in testdata/fuzz/FuzzValidateApply. Run it with
//
//	go test ./offer -run '^$' -fuzz FuzzValidateApply -fuzztime 2m
func FuzzValidateApply(f *testing.F) {
	f.Add(webCPUs+";"+webMem+";"+webDisk+";"+webPorts, resCPUs, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(resDisk+";"+vol+";"+sharedVol, vol, []byte{0, 9, 4, 200, 17, 3, 3, 3, 5, 1})
	f.Add("", refinedCPUs+";"+parentCPUs, []byte("reserve refine unreserve"))
	f.Add(mountDisk, mountVol, []byte{5, 5, 5, 5, 4, 4, 4, 4, 6, 6})
	f.Fuzz(func(t *testing.T, offeredText, opText string, program []byte) {
		s := &byteSource{b: program}
		offered, err := resources.Parse(offeredText, "")
		role := pickOf(s, genRoles)
		if err != nil || s.chance(2) {
			offered, role = genOffer(s)
		}
		operator := s.chance(6)
		if operator && s.chance(2) {
			offered = offered.Unallocate()
		}
		before := offered.String()
		ctx := genContext(s, offered, role, operator)
		raw, _ := resources.Parse(opText, "")

		state := offered
		var ops []Operation
		for range 1 + s.intn(6) {
			var op Operation
			if s.chance(3) {
				op = rawOp(s, raw)
			} else {
				op = genOp(s, state, role)
			}
			ops = append(ops, op)
			_ = fmt.Sprint(op)
			a, err := ApplyAll(state, op)
			if bad := checkAccept(state, a, err); bad != nil {
				t.Fatalf("%v on %s: %v", op, state, bad)
			}
			if bad := checkValidate(op, ctx, state, err); bad != nil {
				t.Fatal(bad)
			}
			if err == nil {
				state = a.Resources
			}
		}
		a, err := ApplyAll(offered, ops...)
		if bad := checkAccept(offered, a, err); bad != nil {
			t.Fatalf("%v on %s: %v", ops, offered, bad)
		}
		if offered.String() != before {
			t.Fatalf("ApplyAll changed the offered resources: %s, was %s", offered, before)
		}
	})
}

// rawOp builds an operation from arbitrary resources, or from a single
// resource with invalid fields.
func rawOp(s *byteSource, raw resources.Resources) Operation {
	list := raw.Slice()
	first := resources.Resource{Name: "disk", Type: resources.ScalarType, Scalar: resources.Units(1)}
	if len(list) > 0 {
		first = list[0]
	}
	rest := raw.Filter(func(r resources.Resource) bool { return len(list) == 0 || !sameEntry(r, first) })
	if s.chance(2) {
		first = mangle(s, first)
	}
	switch s.intn(11) {
	case 0:
		return Reserve{Resources: raw}
	case 1:
		return Reserve{Resources: raw, Source: raw.ToUnreserved()}
	case 2:
		return Unreserve{Resources: raw}
	case 3:
		return Create{Volumes: raw}
	case 4:
		return Destroy{Volumes: raw}
	case 5:
		return GrowVolume{Volume: first, Addition: rest}
	case 6:
		return ShrinkVolume{Volume: first, Subtract: resources.Scalar(int64(s.next()) - 64)}
	case 7:
		return &Launch{Tasks: []Task{{ID: "t", Resources: raw}}, Executor: rest}
	case 8:
		return (*Destroy)(nil)
	case 9:
		return nil
	}
	return &ShrinkVolume{Volume: first, Subtract: first.Scalar / 2}
}

func sameEntry(a, b resources.Resource) bool { return a.String() == b.String() }

// mangle breaks one field of r in a way Validate and Apply must reject
// without panicking.
func mangle(s *byteSource, r resources.Resource) resources.Resource {
	switch s.intn(10) {
	case 0:
		r.Scalar = -r.Scalar - 1
	case 1:
		r.Type = resources.ValueType(s.next())
	case 2:
		r.Disk = &volume.Disk{}
	case 3:
		r.Disk = &volume.Disk{Persistence: &volume.Persistence{}, Volume: &volume.Volume{}}
	case 4:
		r.Reservations = reservation.Stack{{Type: reservation.Type(s.next()), Role: pickOf(s, []string{"", "*", "a//b", "web"})}, {Role: "x"}}
	case 5:
		r.Name = ""
	case 6:
		r.Ranges = resources.Ranges{{Begin: 5, End: 1}}
	case 7:
		r.Set = resources.Set{"b", "a", "a"}
	case 8:
		r.AllocationRole = "/bad"
	case 9:
		r.Disk = &volume.Disk{Source: &volume.Source{Type: volume.SourceType(s.next())}, Persistence: &volume.Persistence{ID: "x"}, Volume: &volume.Volume{ContainerPath: "x", Mode: volume.Mode(s.next())}}
	}
	return r
}
